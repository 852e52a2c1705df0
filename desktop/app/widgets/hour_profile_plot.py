"""The hour-of-day profile: per target the median RTT (solid) and p95 (dashed) for each hour of the day in
the charts' time zone, the peak windows shaded, and the share lost per hour underneath.

Every measured hour has a marker, so an hour measured alone shows; p95 is drawn only for hours with
`MIN_REPLIES_FOR_P5_P95` replies (with fewer it lies between the two highest). A note above the plot says how
many hours and days the profile rests on, and where the data is too thin."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from desktop.app.chart_data import HourProfile
from desktop.app.timeline_data import MIN_REPLIES_FOR_P5_P95
from desktop.app.widgets.live_rtt_plot import PALETTE

PEAK_BRUSH = (255, 167, 38, 55)


class HourProfilePlot(pg.GraphicsLayoutWidget):  # type: ignore[misc]  # pyqtgraph ships no type hints: its classes are Any
    def __init__(self, parent: object = None) -> None:
        super().__init__(parent=parent)
        self.setBackground("w")
        self.words = {
            "rtt": "RTT (ms)",
            "loss": "loss %",
            "hour": "hour of day",
            "median": "median",
            "p95": "p95",
            "lost": "lost",
            "peak": "peak",
            "no_data": "no data",
            "hours_of_24": "{name}: {hours} of 24 hours measured, on {days} days at most",
            "one_day": "{name}: every hour from a single day: that day's values, not a typical day",
            "few_p95": "p95 left out where an hour has fewer than {need} replies",
        }
        self.profiles: list[tuple[str, HourProfile]] = []
        self.note = pg.LabelItem(justify="left", color="#455a64")
        self.addItem(self.note, row=0, col=0)
        self.main = self.addPlot(row=1, col=0)
        self.main.showGrid(x=True, y=True, alpha=0.15)
        self.main.setXRange(0, 24, padding=0.01)
        self.main.setMouseEnabled(x=False, y=False)
        self.legend = self.main.addLegend(
            offset=(10, 5), labelTextColor="#263238", brush=(255, 255, 255, 210)
        )
        self.main.getAxis("left").enableAutoSIPrefix(False)
        self.readout = pg.LabelItem(justify="left")
        self.addItem(self.readout, row=2, col=0)
        self.loss_plot = self.addPlot(row=3, col=0)
        self.loss_plot.setMaximumHeight(120)
        self.loss_plot.setXLink(self.main)
        self.loss_plot.setMouseEnabled(x=False, y=False)
        self.loss_plot.showGrid(x=True, y=True, alpha=0.15)
        ticks = [[(h, f"{h:02d}") for h in range(0, 25, 2)]]
        for plot in (self.main, self.loss_plot):
            plot.getAxis("bottom").setTicks(ticks)
            plot.getAxis("left").enableAutoSIPrefix(False)  # loss of 0.15 % reads 0.15, not "150 (x0.001)"
        self._shading: list[pg.LinearRegionItem] = []
        self._items: list[pg.GraphicsObject] = []
        self.v_line = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen("#78909c", style=Qt.PenStyle.DashLine)
        )
        self.v_line.setVisible(False)
        self.main.addItem(self.v_line, ignoreBounds=True)
        self._mouse = pg.SignalProxy(self.main.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved)
        self.set_words(self.words)

    def set_peak_spans(self, spans: Sequence[tuple[float, float]]) -> None:
        for item in self._shading:
            self.main.removeItem(item)
            self.loss_plot.removeItem(item)
        self._shading = []
        for start, end in spans:
            for plot in (self.main, self.loss_plot):
                region = pg.LinearRegionItem(
                    (start, end), movable=False, brush=PEAK_BRUSH, pen=pg.mkPen(None)
                )
                region.setZValue(-10)
                plot.addItem(region)
                self._shading.append(region)

    def set_profiles(self, profiles: Sequence[tuple[str, HourProfile]]) -> None:
        for item in self._items:
            self.main.removeItem(item)
            self.loss_plot.removeItem(item)
        self._items = []
        self.legend.clear()
        self.profiles = list(profiles)
        hours = np.arange(24) + 0.5
        n = max(len(profiles), 1)
        width = 0.8 / n
        top, bottom, worst_loss = 0.0, np.inf, 0.0
        for i, (name, profile) in enumerate(profiles):
            colour = PALETTE[i % len(PALETTE)]
            median = pg.PlotDataItem(
                *_drawable(hours, profile.median_ms),
                pen=pg.mkPen(colour, width=2),
                symbol="o",
                symbolSize=6,
                symbolBrush=colour,
                symbolPen=None,
                connect="finite",
                name=f"{name} · {self.words['median']}",
            )
            p95_ms = np.where(profile.received >= MIN_REPLIES_FOR_P5_P95, profile.p95_ms, np.nan)
            p95 = pg.PlotDataItem(
                *_drawable(hours, p95_ms),
                pen=pg.mkPen(colour, width=1, style=Qt.PenStyle.DashLine),
                symbol="o",
                symbolSize=5,
                symbolBrush=None,
                symbolPen=pg.mkPen(colour, width=1),
                connect="finite",
                name=f"{name} · {self.words['p95']}",
            )
            self.main.addItem(median)
            self.main.addItem(p95)
            loss = np.nan_to_num(profile.loss, nan=0.0) * 100
            bars = pg.BarGraphItem(
                x=hours - 0.4 + width * (i + 0.5),
                height=loss,
                width=width,
                brush=pg.mkBrush(colour),
                pen=None,
            )
            self.loss_plot.addItem(bars)
            self._items += [median, p95, bars]
            worst_loss = max(worst_loss, float(loss.max()))
            for values in (profile.median_ms, p95_ms):
                if np.isfinite(values).any():
                    top = max(top, float(np.nanmax(values)))
                    bottom = min(bottom, float(np.nanmin(values)))
        if np.isfinite(bottom):
            span = max(top - bottom, abs(top) * 0.05, 1e-3)  # one hour alone still gets a readable scale
            self.main.setYRange(bottom - span * 0.15, top + span * 0.1, padding=0)
        self.loss_plot.setYRange(0, worst_loss * 1.15 if worst_loss > 0 else 1.0, padding=0)
        self.note.setText(self.note_text())
        self.readout.setText("" if profiles else self.words["no_data"])

    def note_text(self) -> str:
        """How many hours and days each profile rests on, where that is too thin to read as a profile."""
        parts: list[str] = []
        thin_p95 = False
        for name, p in self.profiles:
            measured = p.sent > 0
            if not measured.any():
                continue
            if int(p.days.max()) <= 1:
                parts.append(self.words["one_day"].format(name=name))
            elif not measured.all():
                parts.append(
                    self.words["hours_of_24"].format(
                        name=name, hours=int(measured.sum()), days=int(p.days.max())
                    )
                )
            thin_p95 |= bool((measured & (p.received < MIN_REPLIES_FOR_P5_P95)).any())
        if thin_p95:
            parts.append(self.words["few_p95"].format(need=MIN_REPLIES_FOR_P5_P95))
        return "<br>".join(parts)

    def describe(self, hour: int) -> str:
        parts = [f"{hour:02d}:00–{hour + 1:02d}:00"]
        for name, p in self.profiles:
            if p.sent[hour] == 0:
                parts.append(f"{name}: {self.words['no_data']}")
                continue
            median = "–" if np.isnan(p.median_ms[hour]) else f"{p.median_ms[hour]:.1f}"
            thin = p.received[hour] < MIN_REPLIES_FOR_P5_P95
            p95 = "–" if thin or np.isnan(p.p95_ms[hour]) else f"{p.p95_ms[hour]:.1f}"
            parts.append(
                f"{name}: {self.words['median']} {median} ms, {self.words['p95']} {p95} ms, "
                f"{self.words['lost']} {p.loss[hour] * 100:.1f}%"
            )
        return " · ".join(parts)

    def _mouse_moved(self, event: tuple[object]) -> None:
        position = event[0]
        if not self.main.sceneBoundingRect().contains(position):
            return
        x = self.main.getViewBox().mapSceneToView(position).x()
        if 0 <= x < 24:
            self.v_line.setPos(x)
            self.v_line.setVisible(True)
            self.readout.setText(self.describe(int(x)))

    def set_words(self, words: dict[str, str]) -> None:
        self.words.update(words)
        self.main.setLabel("left", self.words["rtt"])
        self.loss_plot.setLabel("left", self.words["loss"])
        self.loss_plot.setLabel("bottom", self.words["hour"])
        self.note.setText(self.note_text())


def _drawable(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points as given, or none at all where every value is missing (pyqtgraph's markers would warn)."""
    return (x, y) if np.isfinite(y).any() else (np.empty(0), np.empty(0))
