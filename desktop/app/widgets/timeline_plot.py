"""The timeline of one target, SmokePing-style: per time bin a light min–max box and a darker p5–p95 box
(the "smoke"), the median as a step line over each box, the raw attempts as a thin trace (gaps where lost or
where nothing was measured), the share lost as red bars underneath, and an overview strip whose region
selects the time range shown above.

Every box, line and bar covers only the time its attempts were sent (`timeline_data.Timeline`); the view
opens on the attempts, not on the period asked for. A box that stands alone (a single round, either side of
a gap of days) is drawn at least a pixel wide with a dot at its median, so it shows at any zoom. A note above
the plot says what is drawn and where there is too little data for a box.

Drawing stays fluid with millions of attempts: the raw trace clips to the view and peak-downsamples, the
smoke is a few hundred boxes, and the crosshair read-out is rate-limited.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from desktop.app.timeline_data import MIN_REPLIES_FOR_P5_P95, Timeline, duration_text

MEDIAN = "#0d47a1"
RAW = (66, 165, 245, 140)
SMOKE_RANGE = (176, 190, 197, 200)
SMOKE_P5_P95 = (96, 125, 139, 220)
LOSS = "#d32f2f"


# Up to this many attempts the raw trace also marks each attempt with a dot.
DOTS_UP_TO = 2000
# How near (in pixels) the mouse must be to a box for the read-out to name it.
PICK_PX = 6


class _TimeAxis(pg.DateAxisItem):  # type: ignore[misc]  # pyqtgraph ships no type hints
    """pyqtgraph's date axis, but whole seconds read 17:09:40 (not "40.000") when a few seconds are in view,
    and day and month names are in the window's language (`weekdays`, Monday first; `months`, January
    first)."""

    def __init__(self) -> None:
        super().__init__()
        self.weekdays: list[str] = []
        self.months: list[str] = []

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        strings: list[str] = super().tickStrings(values, scale, spacing)
        if self.utcOffset is None or not strings:
            return strings
        moments = [datetime.fromtimestamp(v - self.utcOffset, UTC) for v in values]
        if "." in strings[0] and all(abs(v - round(v)) < 1e-6 for v in values):
            return [m.strftime("%H:%M:%S") for m in moments]
        spec = next((s for s in self.zoomLevel.tickSpecs if s.spacing == spacing), None)
        if spec is None:
            return strings
        days, months = (
            "%a" in spec.format and len(self.weekdays) == 7,
            "%b" in spec.format and len(self.months) == 12,
        )
        if not (days or months):
            return strings
        named = []
        for m in moments:
            form = spec.format.replace("%a", self.weekdays[m.weekday()]) if days else spec.format
            named.append(m.strftime(form.replace("%b", self.months[m.month - 1]) if months else form))
        return named


def _bars(colour: object) -> pg.BarGraphItem:
    # The cosmetic pen in the fill colour keeps a box a few seconds long visible when a day is in view.
    return pg.BarGraphItem(x=[], height=[], width=1, brush=pg.mkBrush(colour), pen=pg.mkPen(colour, width=1))


def _dots(colour: object, size: int) -> pg.ScatterPlotItem:
    return pg.ScatterPlotItem(size=size, brush=pg.mkBrush(colour), pen=None)


class TimelinePlot(pg.GraphicsLayoutWidget):  # type: ignore[misc]  # pyqtgraph ships no type hints: its classes are Any
    def __init__(self, parent: object = None) -> None:
        super().__init__(parent=parent)
        self.setBackground("w")
        self.words: dict[str, str] = {
            "rtt": "RTT (ms)",
            "loss": "loss %",
            "median": "median",
            "lost": "lost",
            "no_data": "no data",
            "replies": "replies",
            "attempts_n": "{n} attempts",
            "rounds_1": "1 round",
            "rounds_n": "{n} rounds",
            "bins_of": "bins of {width}",
            "units": "d h min s",
            "few_p5_p95": "Too little data for p5–p95 boxes: a box needs {need} replies, the fullest bin has {most}.",
            "some_few_p5_p95": "{count} of {total} bins have fewer than {need} replies: min–max only there.",
            "few_boxes": "Too little data for boxes: at most one reply per bin; the line joins the replies.",
            "all_lost": "No replies: every attempt was lost (the loss bars below).",
        }
        self.time_format: Callable[[float], str] = lambda t: datetime.fromtimestamp(t, UTC).strftime(
            "%Y-%m-%d %H:%M:%S UTC"
        )
        self.data: Timeline | None = None

        self.note = pg.LabelItem(justify="left", color="#455a64")
        self.addItem(self.note, row=0, col=0)
        self.main = self.addPlot(row=1, col=0, axisItems={"bottom": _TimeAxis()})
        self.main.showGrid(x=True, y=True, alpha=0.15)
        self.main.setMouseEnabled(x=True, y=False)
        self.main.getViewBox().setLimits(yMin=0)
        # Millions of points stay fluid: only the visible span is drawn, peak-downsampled to the pixels.
        # Set on the plot before any item is added (PlotItem.addItem applies its modes to each data item),
        # and the plot's own options menu is off: changing them there would also reach the smoke bars.
        self.main.setClipToView(True)
        self.main.setDownsampling(auto=True, mode="peak")
        self.main.setMenuEnabled(False, enableViewBoxMenu=True)
        self.range_bars = _bars(SMOKE_RANGE)
        self.pct_bars = _bars(SMOKE_P5_P95)
        self.main.addItem(self.range_bars)
        self.main.addItem(self.pct_bars)
        self.raw = pg.PlotDataItem(pen=pg.mkPen(RAW, width=1), connect="finite")
        self.raw.setZValue(-5)  # under the smoke: what shows beside it are the outliers
        # Out of the auto-range: the min–max boxes already span every raw point, and scanning a million
        # points for the visible y-range on every pan step would cost more than drawing them.
        self.main.addItem(self.raw, ignoreBounds=True)
        self.median = pg.PlotDataItem(pen=pg.mkPen(MEDIAN, width=2), connect="finite")
        self.main.addItem(self.median)
        self.lone = _dots(MEDIAN, 7)  # the median of a box that stands alone
        self.main.addItem(self.lone)
        self.v_line = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen("#78909c", style=Qt.PenStyle.DashLine)
        )
        self.h_line = pg.InfiniteLine(
            angle=0, movable=False, pen=pg.mkPen("#78909c", style=Qt.PenStyle.DashLine)
        )
        for line in (self.v_line, self.h_line):
            line.setVisible(False)  # until the mouse is over the plot
            self.main.addItem(line, ignoreBounds=True)
        self.main.getAxis("left").enableAutoSIPrefix(False)
        self.main.getAxis("bottom").setStyle(showValues=False)  # the dates show once, under the loss bars
        self.main.setAutoVisible(y=True)
        self.readout = pg.LabelItem(justify="left")
        self.addItem(self.readout, row=2, col=0)

        self.loss_plot = self.addPlot(row=3, col=0, axisItems={"bottom": _TimeAxis()})
        self.loss_plot.setMaximumHeight(110)
        self.loss_plot.setXLink(self.main)
        self.loss_plot.setMouseEnabled(x=True, y=False)
        self.loss_plot.setYRange(0, 100)
        self.loss_plot.getAxis("left").enableAutoSIPrefix(False)
        self.loss_plot.getViewBox().setLimits(yMin=0, yMax=100)
        self.loss_bars = _bars(LOSS)
        self.loss_plot.addItem(self.loss_bars)

        self.overview = self.addPlot(row=4, col=0, axisItems={"bottom": _TimeAxis()})
        self.overview.setMaximumHeight(90)
        self.overview.setMouseEnabled(x=False, y=False)
        self.overview.hideAxis("left")
        self.overview_line = pg.PlotDataItem(pen=pg.mkPen(MEDIAN, width=1), connect="finite")
        self.overview.addItem(self.overview_line)
        self.overview_lone = _dots(MEDIAN, 5)
        self.overview.addItem(self.overview_lone)
        self.region = pg.LinearRegionItem(brush=(33, 150, 243, 40))
        self.region.setZValue(10)
        self.overview.addItem(self.region, ignoreBounds=True)
        self.region.sigRegionChanged.connect(self._region_moved)
        self.main.sigXRangeChanged.connect(self._view_moved)
        self._mouse = pg.SignalProxy(self.main.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved)
        self.set_words(self.words)
        # Before any data: the last day, empty (not pyqtgraph's 0–1 s of 1970, whose ticks read "00.100").
        now = time.time()
        self.region.setRegion((now - 86400, now))
        self.overview.setXRange(now - 86400, now, padding=0)
        self.main.setXRange(now - 86400, now, padding=0)

    # -- data ------------------------------------------------------------------------------------------

    def set_time_zone(self, offset_east_s: int) -> None:
        for plot in (self.main, self.loss_plot, self.overview):
            axis = plot.getAxis("bottom")
            axis.utcOffset = -offset_east_s
            axis.picture = None
            axis.update()

    def set_timeline(
        self, data: Timeline | None, *, period: tuple[float, float] | None = None, empty_note: str = ""
    ) -> None:
        """Draw `data`; without attempts, show `period` (the time asked for, when known) empty, with
        `empty_note` above it."""
        self.data = data
        if data is None or data.bin_start_s.size == 0:
            for item in (self.raw, self.median, self.overview_line):
                item.setData([], [])
            for dots in (self.lone, self.overview_lone):
                dots.setData([], [])
            for bars in (self.range_bars, self.pct_bars, self.loss_bars):
                bars.setOpts(x=[], height=[], y0=[])
            if period is not None:
                self.region.setBounds(period)
                self.region.setRegion(period)
                self.overview.setXRange(*period, padding=0)
                self.main.setXRange(*period, padding=0)
            self.note.setText(empty_note)
            self.readout.setText(self.words["no_data"])
            return
        centre = (data.cover_start_s + data.cover_end_s) / 2
        width = data.cover_end_s - data.cover_start_s
        boxed = data.range_box
        self.range_bars.setOpts(
            x=centre[boxed],
            y0=data.min_ms[boxed],
            height=(data.max_ms - data.min_ms)[boxed],
            width=width[boxed],
        )
        inner = data.p5_p95_box
        self.pct_bars.setOpts(
            x=centre[inner],
            y0=data.p5_ms[inner],
            height=(data.p95_ms - data.p5_ms)[inner],
            width=width[inner],
        )
        steps = data.median_steps()
        self.median.setData(*steps, connect="finite")
        self.overview_line.setData(*steps, connect="finite")
        lone = data.isolated & ~np.isnan(data.median_ms)
        self.lone.setData(centre[lone], data.median_ms[lone])
        self.overview_lone.setData(centre[lone], data.median_ms[lone])
        few = data.t_s.size <= DOTS_UP_TO
        self.raw.setZValue(1 if few else -5)  # few attempts: each one shown on top of its box
        replied = bool(np.isfinite(data.rtt_ms).any())  # (no reply at all: no markers, pyqtgraph would warn)
        self.raw.setData(
            *(data.trace() if replied else (np.empty(0), np.empty(0))),
            connect="finite",
            symbol="o" if few else None,
            symbolSize=4,
            symbolBrush=RAW,
            symbolPen=None,
        )
        lossy = np.nan_to_num(data.loss, nan=0.0) > 0
        self.loss_bars.setOpts(x=centre[lossy], y0=0, height=data.loss[lossy] * 100, width=width[lossy])
        first, last = data.span_s() or (0.0, 0.0)
        pad = max((last - first) * 0.03, 0.25)
        start, end = first - pad, last + pad
        self.overview.setXRange(start, end, padding=0)
        self.main.enableAutoRange(axis="y")
        self.region.setBounds((start, end))
        self.region.setRegion((start, end))
        self.main.setXRange(start, end, padding=0)
        self.note.setText(self.note_text())
        self.readout.setText("")

    def note_text(self) -> str:
        """What the chart shows, and where there is too little data for a box."""
        data = self.data
        span = None if data is None else data.span_s()
        if data is None or span is None:
            return ""
        w = self.words
        first, last = self.time_format(span[0]), self.time_format(span[1])
        day, _, clock = last.partition(" ")
        if clock and first.startswith(day + " "):
            last = clock  # the same day: its time alone
        summary = [w["attempts_n"].format(n=int(data.sent.sum()))]
        if data.rounds:
            summary.append(w["rounds_1"] if data.rounds == 1 else w["rounds_n"].format(n=data.rounds))
        summary += [f"{first} – {last}", w["bins_of"].format(width=self._duration(data.bin_width_s))]
        parts = [" · ".join(summary)]
        measured = data.sent > 0
        most = int(data.received.max())
        if most == 0:
            parts.append(w["all_lost"])
        elif most < 2:
            parts.append(w["few_boxes"])
        elif not data.p5_p95_box.any():
            parts.append(w["few_p5_p95"].format(need=MIN_REPLIES_FOR_P5_P95, most=most))
        else:
            short = int((measured & ~data.p5_p95_box).sum())
            if short:
                parts.append(
                    w["some_few_p5_p95"].format(
                        count=short, total=int(measured.sum()), need=MIN_REPLIES_FOR_P5_P95
                    )
                )
        return "<br>".join(parts)

    # -- interaction -----------------------------------------------------------------------------------

    def _region_moved(self) -> None:
        low, high = self.region.getRegion()
        self.main.setXRange(low, high, padding=0)

    def _view_moved(self, _view: object, x_range: tuple[float, float]) -> None:
        self.region.blockSignals(True)
        self.region.setRegion(x_range)
        self.region.blockSignals(False)

    def _mouse_moved(self, event: tuple[object]) -> None:
        position = event[0]
        if self.data is None or not self.main.sceneBoundingRect().contains(position):
            return
        point = self.main.getViewBox().mapSceneToView(position)
        self.v_line.setPos(point.x())
        self.h_line.setPos(point.y())
        self.v_line.setVisible(True)
        self.h_line.setVisible(True)
        pixel_s = float(self.main.getViewBox().viewPixelSize()[0])
        self.readout.setText(self.describe(point.x(), PICK_PX * pixel_s))

    def describe(self, t_s: float, tolerance_s: float = 0.0) -> str:
        """The read-out for the box at time `t_s` (or within `tolerance_s` of it)."""
        data = self.data
        index = None if data is None else data.bin_at(t_s, tolerance_s)
        if data is None or index is None:
            return ""
        w = self.words
        if data.sent[index] == 0:
            return f"{self.time_format(t_s)} · {w['no_data']}"
        first, last = float(data.first_s[index]), float(data.last_s[index])
        when = self.time_format(first)
        if last > first:
            when += f" (+{self._duration(last - first)})"
        if data.received[index] == 0:
            return f"{when} · {w['lost']} 100% ({data.sent[index]})"
        p5_p95 = f"{data.p5_ms[index]:.1f}–{data.p95_ms[index]:.1f}" if data.p5_p95_box[index] else "–"
        return (
            f"{when} · {w['median']} {data.median_ms[index]:.1f} ms · p5–p95 {p5_p95} · "
            f"min–max {data.min_ms[index]:.1f}–{data.max_ms[index]:.1f} · "
            f"{w['lost']} {data.loss[index] * 100:.1f}% · "
            f"{w['replies']} {data.received[index]}/{data.sent[index]}"
        )

    def _duration(self, seconds: float) -> str:
        units = self.words["units"].split()
        return duration_text(seconds, units) if len(units) == 4 else duration_text(seconds)

    def set_words(self, words: dict[str, str]) -> None:
        self.words.update(words)
        self.main.setLabel("left", self.words["rtt"])
        self.loss_plot.setLabel("left", self.words["loss"])
        names = self.words.get("weekdays", "").split()
        months = self.words.get("months", "").split()
        for plot in (self.main, self.loss_plot, self.overview):
            axis = plot.getAxis("bottom")
            axis.weekdays = names
            axis.months = months
            axis.picture = None
            axis.update()
        if self.data is not None:
            self.note.setText(self.note_text())
