"""The hour-of-day profile: per target the median RTT (solid) and p95 (dashed) for each hour of the day in
the charts' time zone, the peak windows shaded, and the share lost per hour underneath."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from desktop.app.chart_data import HourProfile
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
        }
        self.profiles: list[tuple[str, HourProfile]] = []
        self.main = self.addPlot(row=0, col=0)
        self.main.showGrid(x=True, y=True, alpha=0.15)
        self.main.setXRange(0, 24, padding=0.01)
        self.main.setMouseEnabled(x=False, y=False)
        self.legend = self.main.addLegend(
            offset=(10, 5), labelTextColor="#263238", brush=(255, 255, 255, 210)
        )
        self.main.getAxis("left").enableAutoSIPrefix(False)
        self.readout = pg.LabelItem(justify="left")
        self.addItem(self.readout, row=1, col=0)
        self.loss_plot = self.addPlot(row=2, col=0)
        self.loss_plot.setMaximumHeight(120)
        self.loss_plot.setXLink(self.main)
        self.loss_plot.setMouseEnabled(x=False, y=False)
        self.loss_plot.showGrid(x=True, y=True, alpha=0.15)
        ticks = [[(h, f"{h:02d}") for h in range(0, 25, 2)]]
        for plot in (self.main, self.loss_plot):
            plot.getAxis("bottom").setTicks(ticks)
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
        top, bottom = 0.0, np.inf
        for i, (name, profile) in enumerate(profiles):
            colour = PALETTE[i % len(PALETTE)]
            median = pg.PlotDataItem(
                hours,
                profile.median_ms,
                pen=pg.mkPen(colour, width=2),
                symbol="o",
                symbolSize=6,
                symbolBrush=colour,
                symbolPen=None,
                connect="finite",
                name=f"{name} · {self.words['median']}",
            )
            p95 = pg.PlotDataItem(
                hours,
                profile.p95_ms,
                pen=pg.mkPen(colour, width=1, style=Qt.PenStyle.DashLine),
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
            if np.isfinite(profile.p95_ms).any():
                top = max(top, float(np.nanmax(profile.p95_ms)))
                bottom = min(bottom, float(np.nanmin(profile.median_ms)))
        if top:
            self.main.setYRange(bottom - (top - bottom) * 0.15, top + (top - bottom) * 0.1, padding=0)
        self.loss_plot.enableAutoRange(axis="y")
        self.readout.setText("" if profiles else self.words["no_data"])

    def describe(self, hour: int) -> str:
        parts = [f"{hour:02d}:00–{hour + 1:02d}:00"]
        for name, p in self.profiles:
            if p.sent[hour] == 0:
                parts.append(f"{name}: {self.words['no_data']}")
                continue
            median = "–" if np.isnan(p.median_ms[hour]) else f"{p.median_ms[hour]:.1f}"
            p95 = "–" if np.isnan(p.p95_ms[hour]) else f"{p.p95_ms[hour]:.1f}"
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
