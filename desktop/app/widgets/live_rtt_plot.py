"""A live RTT plot for the running probe: one curve per shown target, lost attempts as gaps in the curve
and red ticks along the bottom, against the seconds since the run started (a run lasts seconds to minutes:
a clock axis would show only the seconds digits of the time of day). The screen calls `set_series` from its
redraw timer (2-5 Hz); each call is a `setData` per curve, and the legend is rebuilt only when the set of
targets shown changes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg

PALETTE = ("#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#5d4037", "#455a64")
LOST = "#d32f2f"
MARKERS_UP_TO = 300  # points per curve drawn with a marker (so a lone reply between losses shows)


class LiveRttPlot(pg.PlotWidget):  # type: ignore[misc]  # pyqtgraph ships no type hints: its classes are Any
    def __init__(self, parent: object = None) -> None:
        super().__init__(parent=parent)
        self.setBackground("w")
        # Horizontal grid lines only, at the major and minor ticks: replaying the axes' grid is most of what a
        # redraw costs (a full grid of three tick levels doubled it), and RTT levels are what one reads here.
        self.showGrid(x=False, y=True, alpha=0.25)
        for side in ("left", "bottom"):
            self.getAxis(side).setStyle(maxTickLevel=1)
        self.setMouseEnabled(x=True, y=False)
        # Before any item is added (PlotItem applies these to each data item it holds, the scatter too).
        self.getPlotItem().setClipToView(True)
        self.getPlotItem().setDownsampling(auto=True, mode="peak")
        self.getPlotItem().setMenuEnabled(False, enableViewBoxMenu=True)
        self.getAxis("left").enableAutoSIPrefix(False)
        self.getAxis("left").setWidth(56)  # fixed: a wider tick label must not re-lay out the plot mid-run
        self.getAxis("bottom").enableAutoSIPrefix(False)
        self.legend = self.addLegend(offset=(10, 5), labelTextColor="#263238", brush=(255, 255, 255, 210))
        self._curves: list[pg.PlotDataItem] = []
        self._names: list[str] = []
        self._key: object = None
        self._span: tuple[float, float] | None = None
        self.origin_s: float | None = None  # epoch seconds of x = 0: the run's start
        self._lost = pg.ScatterPlotItem(symbol="t1", size=8, pen=None, brush=pg.mkBrush(LOST))
        self.addItem(self._lost)
        self.set_labels("RTT", "ms", "Seconds since the run started")

    def show_span(self, start_s: float, length_s: float) -> None:
        """A run starts at `start_s` (epoch seconds): x counts seconds from there, and the axis is fixed to
        the run's expected length (it follows the data again once that is exceeded)."""
        self.origin_s = start_s
        self._span = (0.0, max(length_s, 1.0) * 1.05)
        self.setXRange(*self._span, padding=0)

    def set_origin(self, start_s: float | None) -> None:
        """Count x from `start_s` (None: from the first attempt shown), with the axis following the data."""
        self.origin_s = start_s
        self._span = None
        self._key = None
        self.enableAutoRange(axis="x")

    def set_labels(self, rtt_label: str, unit: str, time_label: str) -> None:
        self.getAxis("left").setLabel(f"{rtt_label} ({unit})")
        self.getAxis("bottom").setLabel(time_label)

    def set_series(self, series: Sequence[tuple[str, np.ndarray, np.ndarray]], key: object = None) -> None:
        """Each series: (name, x as epoch seconds, RTT ms with NaN where lost), drawn with setData against
        the seconds since `origin_s`.

        `key` identifies the data: a call with the key of the previous call draws nothing again.
        """
        if key is not None and key == self._key:
            return
        self._key = key
        if self.origin_s is None:
            self.origin_s = min((float(x[0]) for _, x, _ in series if x.size), default=None)
        origin = self.origin_s or 0.0
        series = [(name, x - origin, y) for name, x, y in series]
        while len(self._curves) < len(series):
            colour = PALETTE[len(self._curves) % len(PALETTE)]
            self._curves.append(self.plot(pen=pg.mkPen(colour, width=1.6), connect="finite"))
        names = [name for name, _, _ in series]
        lost_x: list[np.ndarray] = []
        for i, curve in enumerate(self._curves):
            if i < len(series):
                _, x, y = series[i]
                colour = PALETTE[i % len(PALETTE)]
                marker = {"symbol": "o", "symbolSize": 4, "symbolBrush": colour, "symbolPen": None}
                if not np.isfinite(y).any():  # nothing came back: no curve, only the loss ticks
                    curve.setData([], [])
                elif x.size <= MARKERS_UP_TO:
                    curve.setData(x, y, connect="finite", **marker)
                else:
                    curve.setData(x, y, connect="finite", symbol=None)
                curve.setVisible(True)
                lost_x.append(x[np.isnan(y)])
            else:
                curve.setData([], [])
                curve.setVisible(False)
        if names != self._names:
            self.legend.clear()
            for name, curve in zip(names, self._curves, strict=False):
                self.legend.addItem(curve, name)
            self._names = names
        xs = np.concatenate(lost_x) if lost_x else np.empty(0)
        self._lost.setData(xs, np.zeros(xs.size))
        last = max((float(x[-1]) for _, x, _ in series if x.size), default=None)
        if self._span is not None and last is not None and last > self._span[1]:
            self._span = None
            self.enableAutoRange(axis="x")
