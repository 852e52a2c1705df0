"""The timeline of one target, SmokePing-style: per time bin a light min–max box and a darker p5–p95 box
(the "smoke"), the median as a line, the raw attempts as a thin trace (gaps where lost), the share lost as red
bars underneath, and an overview strip whose region selects the time range shown above.

Drawing stays fluid with millions of attempts: the raw trace clips to the view and peak-downsamples, the
smoke is a few hundred boxes, and the crosshair read-out is rate-limited.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from desktop.app.chart_data import Timeline

MEDIAN = "#0d47a1"
RAW = (66, 165, 245, 140)
SMOKE_RANGE = (176, 190, 197, 200)
SMOKE_P5_P95 = (96, 125, 139, 220)
LOSS = "#d32f2f"


def _bars(**kwargs: object) -> pg.BarGraphItem:
    return pg.BarGraphItem(x=[], height=[], width=1, **kwargs)


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
        }
        self.time_format: Callable[[float], str] = lambda t: datetime.fromtimestamp(t, UTC).strftime(
            "%Y-%m-%d %H:%M:%S UTC"
        )
        self.data: Timeline | None = None

        self.main = self.addPlot(row=0, col=0, axisItems={"bottom": pg.DateAxisItem()})
        self.main.showGrid(x=True, y=True, alpha=0.15)
        self.main.setMouseEnabled(x=True, y=False)
        self.main.getViewBox().setLimits(yMin=0)
        # Millions of points stay fluid: only the visible span is drawn, peak-downsampled to the pixels.
        # Set on the plot before any item is added (PlotItem.addItem applies its modes to each data item),
        # and the plot's own options menu is off: changing them there would also reach the smoke bars.
        self.main.setClipToView(True)
        self.main.setDownsampling(auto=True, mode="peak")
        self.main.setMenuEnabled(False, enableViewBoxMenu=True)
        self.range_bars = _bars(brush=pg.mkBrush(SMOKE_RANGE), pen=None)
        self.pct_bars = _bars(brush=pg.mkBrush(SMOKE_P5_P95), pen=None)
        self.main.addItem(self.range_bars)
        self.main.addItem(self.pct_bars)
        self.raw = pg.PlotDataItem(pen=pg.mkPen(RAW, width=1), connect="finite")
        self.raw.setZValue(-5)  # under the smoke: what shows beside it are the outliers
        # Out of the auto-range: the min–max boxes already span every raw point, and scanning a million
        # points for the visible y-range on every pan step would cost more than drawing them.
        self.main.addItem(self.raw, ignoreBounds=True)
        self.median = pg.PlotDataItem(pen=pg.mkPen(MEDIAN, width=2), connect="finite")
        self.main.addItem(self.median)
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
        self.addItem(self.readout, row=1, col=0)

        self.loss_plot = self.addPlot(row=2, col=0, axisItems={"bottom": pg.DateAxisItem()})
        self.loss_plot.setMaximumHeight(110)
        self.loss_plot.setXLink(self.main)
        self.loss_plot.setMouseEnabled(x=True, y=False)
        self.loss_plot.setYRange(0, 100)
        self.loss_plot.getViewBox().setLimits(yMin=0, yMax=100)
        self.loss_bars = _bars(brush=pg.mkBrush(LOSS), pen=None)
        self.loss_plot.addItem(self.loss_bars)

        self.overview = self.addPlot(row=3, col=0, axisItems={"bottom": pg.DateAxisItem()})
        self.overview.setMaximumHeight(90)
        self.overview.setMouseEnabled(x=False, y=False)
        self.overview.hideAxis("left")
        self.overview_line = pg.PlotDataItem(pen=pg.mkPen(MEDIAN, width=1), connect="finite")
        self.overview.addItem(self.overview_line)
        self.region = pg.LinearRegionItem(brush=(33, 150, 243, 40))
        self.region.setZValue(10)
        self.overview.addItem(self.region, ignoreBounds=True)
        self.region.sigRegionChanged.connect(self._region_moved)
        self.main.sigXRangeChanged.connect(self._view_moved)
        self._mouse = pg.SignalProxy(self.main.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved)
        self.set_words(self.words)

    # -- data ------------------------------------------------------------------------------------------

    def set_time_zone(self, offset_east_s: int) -> None:
        for plot in (self.main, self.loss_plot, self.overview):
            axis = plot.getAxis("bottom")
            axis.utcOffset = -offset_east_s
            axis.picture = None
            axis.update()

    def set_timeline(self, data: Timeline | None) -> None:
        self.data = data
        if data is None or data.bin_start_s.size == 0:
            for item in (self.raw, self.median, self.overview_line):
                item.setData([], [])
            for bars in (self.range_bars, self.pct_bars, self.loss_bars):
                bars.setOpts(x=[], height=[], y0=[])
            self.readout.setText(self.words["no_data"])
            return
        width = data.bin_width_s
        centre = data.bin_centre_s
        has = ~np.isnan(data.median_ms)
        self.range_bars.setOpts(
            x=centre[has], y0=data.min_ms[has], height=(data.max_ms - data.min_ms)[has], width=width * 0.9
        )
        self.pct_bars.setOpts(
            x=centre[has], y0=data.p5_ms[has], height=(data.p95_ms - data.p5_ms)[has], width=width * 0.9
        )
        self.median.setData(centre, data.median_ms, connect="finite")
        self.raw.setData(data.t_s, data.rtt_ms, connect="finite")
        lossy = np.nan_to_num(data.loss, nan=0.0) > 0
        self.loss_bars.setOpts(x=centre[lossy], y0=0, height=data.loss[lossy] * 100, width=width * 0.9)
        self.overview_line.setData(centre, data.median_ms, connect="finite")
        start, end = float(data.bin_start_s[0]), float(data.bin_start_s[-1] + width)
        self.overview.setXRange(start, end, padding=0.01)
        self.main.enableAutoRange(axis="y")
        self.region.setBounds((start, end))
        measured = np.flatnonzero(data.sent)
        if measured.size:  # open on the measured stretch; the overview shows the whole period
            start = float(data.bin_start_s[measured[0]])
            end = float(data.bin_start_s[measured[-1]] + width)
        self.region.setRegion((start, end))
        self.main.setXRange(start, end, padding=0)
        self.readout.setText("")

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
        self.readout.setText(self.describe(point.x()))

    def describe(self, t_s: float) -> str:
        """The read-out for the bin under time `t_s`."""
        data = self.data
        index = None if data is None else data.bin_at(t_s)
        if data is None or index is None:
            return ""
        when = self.time_format(float(data.bin_start_s[index]))
        if data.sent[index] == 0:
            return f"{when} · {self.words['no_data']}"
        w = self.words
        if data.received[index] == 0:
            return f"{when} · {w['lost']} 100% ({data.sent[index]})"
        return (
            f"{when} · {w['median']} {data.median_ms[index]:.1f} ms · p5–p95 {data.p5_ms[index]:.1f}–"
            f"{data.p95_ms[index]:.1f} · min–max {data.min_ms[index]:.1f}–{data.max_ms[index]:.1f} · "
            f"{w['lost']} {data.loss[index] * 100:.1f}% · "
            f"{w['replies']} {data.received[index]}/{data.sent[index]}"
        )

    def set_words(self, words: dict[str, str]) -> None:
        self.words.update(words)
        self.main.setLabel("left", self.words["rtt"])
        self.loss_plot.setLabel("left", self.words["loss"])
