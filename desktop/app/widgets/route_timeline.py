"""A region's route over time, above its RTT: one lane per traced target, coloured by the route class each
stored trace got (a bar from that trace to the next one of the target), a dashed line where the class or
the hop list changed (named with the change), and below, on the same time axis, the region's RTT.

Only draws: `desktop.usecases.routes.route_history` (in a worker) computes what it is given.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg

from desktop.app.widgets.timeline_plot import _TimeAxis
from desktop.usecases.routes import RouteChange, TracePoint

CLASS_COLOURS = {
    "cn2-gia": "#2e7d32",
    "cn2-gt": "#9e9d24",
    "163": "#ef6c00",
    "cu-premium": "#1565c0",
    "cu-4837": "#6a1b9a",
    "cmi": "#00838f",
    "other": "#78909c",
    "unknown": "#bdbdbd",
}
CHANGE = "#c62828"
RTT = "#0d47a1"
LONE_S = 600.0  # the last trace of a target is drawn this long (it has no next trace to reach)


class RouteTimeline(pg.GraphicsLayoutWidget):  # type: ignore[misc]  # pyqtgraph ships no type hints
    def __init__(self, parent: object = None) -> None:
        super().__init__(parent=parent)
        self.setBackground("w")
        self.lanes = self.addPlot(row=0, col=0, axisItems={"bottom": _TimeAxis()})
        self.rtt = self.addPlot(row=1, col=0, axisItems={"bottom": _TimeAxis()})
        self.ci.layout.setRowStretchFactor(0, 2)
        self.ci.layout.setRowStretchFactor(1, 3)
        self.rtt.setXLink(self.lanes)
        self.lanes.setMouseEnabled(y=False)
        self.rtt.setMouseEnabled(y=False)
        self.lanes.hideButtons()
        self.lanes.getAxis("left").enableAutoSIPrefix(False)
        self.rtt.hideButtons()
        self.rtt.showGrid(x=True, y=True, alpha=0.2)
        self.rtt_curve = self.rtt.plot([], [], pen=pg.mkPen(RTT, width=1.5), symbol="o", symbolSize=4)
        self.rtt_curve.setSymbolBrush(RTT)
        self.rtt_curve.setSymbolPen(None)
        self._items: list[tuple[pg.PlotItem, pg.GraphicsObject]] = []
        self.class_names: dict[str, str] = {}
        self.rtt_label = "RTT (ms)"
        self.lane_label = "route"
        self.change_text = "{before} → {after}"
        self.hops_text = "hops changed"
        self.segments: list[tuple[float, float, int, str]] = []  # (start s, end s, lane, class): for tests
        self.markers: list[tuple[float, str]] = []

    def set_time_zone(self, offset_east_s: int) -> None:
        for plot in (self.lanes, self.rtt):
            axis = plot.getAxis("bottom")
            axis.utcOffset = -offset_east_s
            axis.picture = None
            axis.update()

    def set_weekdays(self, names: list[str]) -> None:
        for plot in (self.lanes, self.rtt):
            plot.getAxis("bottom").weekdays = names

    def set_history(
        self,
        points: Sequence[TracePoint],
        changes: Sequence[RouteChange],
        rtt: Sequence[tuple[int, float]],
    ) -> None:
        for plot, item in self._items:
            plot.removeItem(item)
        self._items = []
        self.segments, self.markers = [], []
        names = sorted({p.target for p in points})
        lane_of = {name: i for i, name in enumerate(names)}
        by_target: dict[str, list[TracePoint]] = {}
        for point in sorted(points, key=lambda p: p.at_us):
            by_target.setdefault(point.target, []).append(point)
        for name, mine in by_target.items():
            lane = lane_of[name]
            for index, point in enumerate(mine):
                start = point.at_us / 1e6
                end = mine[index + 1].at_us / 1e6 if index + 1 < len(mine) else start + LONE_S
                self.segments.append((start, end, lane, point.line_class))
        for line_class in {s[3] for s in self.segments}:
            mine_segments = [s for s in self.segments if s[3] == line_class]
            bars = pg.BarGraphItem(
                x0=[s[0] for s in mine_segments],
                x1=[s[1] for s in mine_segments],
                y0=[s[2] - 0.35 for s in mine_segments],
                y1=[s[2] + 0.35 for s in mine_segments],
                brush=pg.mkBrush(CLASS_COLOURS.get(line_class, "#9e9e9e")),
                pen=pg.mkPen(CLASS_COLOURS.get(line_class, "#9e9e9e")),
            )
            self._add(self.lanes, bars)
        for name, mine in by_target.items():
            previous = None
            for point in mine:
                if point.line_class != previous:
                    text = pg.TextItem(
                        self.class_names.get(point.line_class, point.line_class), color="#212121"
                    )
                    text.setAnchor((0, 1))
                    text.setPos(point.at_us / 1e6, lane_of[name] + 0.35)
                    self._add(self.lanes, text)
                previous = point.line_class
        for change in changes:
            x = change.at_us / 1e6
            if change.class_changed:
                label = self.change_text.format(
                    before=self.class_names.get(change.before, change.before),
                    after=self.class_names.get(change.after, change.after),
                )
            else:
                label = self.hops_text
            self.markers.append((x, label))
            for plot in (self.lanes, self.rtt):
                line = pg.InfiniteLine(
                    pos=x, angle=90, pen=pg.mkPen(CHANGE, width=1, style=pg.QtCore.Qt.PenStyle.DashLine)
                )
                self._add(plot, line)
            marker = pg.TextItem(label, color=CHANGE, anchor=(0, 0))
            marker.setPos(x, self._top(rtt))
            self._add(self.rtt, marker)
        axis = self.lanes.getAxis("left")
        axis.setTicks([[(lane, name) for name, lane in lane_of.items()]])
        self.lanes.setYRange(-0.6, max(len(names), 1) - 0.4, padding=0)
        times = [t / 1e6 for t, _ in rtt]
        y = np.array([v for _, v in rtt], dtype=np.float64)
        self.rtt_curve.setData(np.array(times, dtype=np.float64), y)
        self.rtt.setLabel("left", self.rtt_label)
        self.lanes.setLabel("left", self.lane_label)
        starts = [s[0] for s in self.segments] + times
        ends = [s[1] for s in self.segments] + times
        if starts:
            low, high = min(starts), max(ends)
            pad = max((high - low) * 0.03, 60.0)
            self.lanes.setXRange(low - pad, high + pad, padding=0)
        if y.size:
            self.rtt.setYRange(0, float(np.nanmax(y)) * 1.15 or 1.0, padding=0)

    def _top(self, rtt: Sequence[tuple[int, float]]) -> float:
        values = [v for _, v in rtt]
        return max(values) * 1.12 if values else 1.0

    def _add(self, plot: pg.PlotItem, item: pg.GraphicsObject) -> None:
        plot.addItem(item)
        self._items.append((plot, item))
