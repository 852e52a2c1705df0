"""A region's route over time, above its RTT: one lane per traced target, coloured by the route class each
stored trace got (a bar from that trace to the next one of the target; the last one reaches the region's last
measurement, never past it: a lone trace is a mark), a dashed line where the class or the hop list changed
(named with the change), and below, on the same time axis, the region's RTT. Both plots keep one left-axis
width, so their time axes line up; a label that would overlap the one before it in its lane is left out (the
lane's colour still says it), and change names are stacked where they are close.

Only draws: `desktop.usecases.routes.route_history` (in a worker) computes what it is given.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics

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
AXIS_WIDTH = 170  # px, both plots' left axis (lane names are elided to fit)
NAME_PX = AXIS_WIDTH - 40  # a lane's name at most (the axis' title and ticks take the rest)
LANE_PX = 16  # the least height a lane's name needs; fewer names are shown when lanes are thinner


def elided(name: str, metrics: QFontMetrics, width: int = NAME_PX) -> str:
    """`name`, its middle elided to fit `width` pixels (both ends say which target it is): a label wider than
    its axis is not drawn at all."""
    return metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, width)


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
        self.rtt.hideButtons()
        for plot in (self.lanes, self.rtt):
            plot.getAxis("left").enableAutoSIPrefix(False)  # 0.04 ms reads 0.04, not "40 (x0.001)"
            plot.getAxis("left").setWidth(AXIS_WIDTH)
        self.rtt.showGrid(x=True, y=True, alpha=0.2)
        self.rtt_curve = self.rtt.plot([], [], pen=pg.mkPen(RTT, width=1.5), symbol="o", symbolSize=4)
        self.rtt_curve.setSymbolBrush(RTT)
        self.rtt_curve.setSymbolPen(None)
        self._items: list[tuple[pg.PlotItem, pg.GraphicsObject]] = []
        self._rtt_top = 1.0
        self.class_names: dict[str, str] = {}
        self.rtt_label = "RTT (ms)"
        self.lane_label = "route"
        self.change_text = "{before} → {after}"
        self.hops_text = "hops changed"
        self.segments: list[tuple[float, float, int, str]] = []  # (start s, end s, lane, class): for tests
        self.markers: list[tuple[float, str]] = []
        # Before any history: the last day, empty (not pyqtgraph's 0–1 s of 1970, whose ticks read "00.250").
        now = time.time()
        self.lanes.setXRange(now - 86400, now, padding=0)

    def set_time_zone(self, offset_east_s: int) -> None:
        for plot in (self.lanes, self.rtt):
            axis = plot.getAxis("bottom")
            axis.utcOffset = -offset_east_s
            axis.picture = None
            axis.update()

    def set_weekdays(self, names: list[str], months: list[str] | None = None) -> None:
        """Day names (Monday first) and month names (January first) in the window's language."""
        for plot in (self.lanes, self.rtt):
            axis = plot.getAxis("bottom")
            axis.weekdays = names
            axis.months = months or []
            axis.picture = None
            axis.update()

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
        times = [t / 1e6 for t, _ in rtt]
        data_end = max([p.at_us / 1e6 for p in points] + times, default=0.0)
        self._lay_segments(by_target, lane_of, data_end)
        low = min([s[0] for s in self.segments] + times, default=0.0)
        span = max(data_end - low, 60.0)
        per_px = span / max(self.lanes.getViewBox().width(), 400.0)  # seconds a pixel covers, about
        metrics = QFontMetrics(QFont())
        self._draw_segments(per_px)
        self._draw_class_names(by_target, lane_of, per_px, metrics)
        placed = self._draw_changes(changes, per_px, metrics)
        self._draw_change_names(placed, rtt, metrics)
        self._lane_ticks(lane_of)
        y = np.array([v for _, v in rtt], dtype=np.float64)
        self.rtt_curve.setData(np.array(times, dtype=np.float64), y)
        self.rtt.setLabel("left", self.rtt_label)
        self.lanes.setLabel("left", self.lane_label)
        if self.segments or times:
            pad = max(span * 0.03, 60.0)
            self.lanes.setXRange(low - pad, data_end + pad, padding=0)
        if y.size or placed:
            self.rtt.setYRange(0, self._rtt_top, padding=0)

    def _lay_segments(
        self, by_target: dict[str, list[TracePoint]], lane_of: dict[str, int], data_end: float
    ) -> None:
        """Each trace's class from it until the target's next trace; the last one until the data ends."""
        for name, mine in by_target.items():
            lane = lane_of[name]
            for index, point in enumerate(mine):
                start = point.at_us / 1e6
                end = mine[index + 1].at_us / 1e6 if index + 1 < len(mine) else max(data_end, start)
                self.segments.append((start, end, lane, point.line_class))

    def _draw_segments(self, per_px: float) -> None:
        for line_class in {s[3] for s in self.segments}:
            colour = CLASS_COLOURS.get(line_class, "#9e9e9e")
            bars = [s for s in self.segments if s[3] == line_class and s[1] - s[0] > 2 * per_px]
            marks = [s for s in self.segments if s[3] == line_class and s[1] - s[0] <= 2 * per_px]
            if bars:
                self._add(
                    self.lanes,
                    pg.BarGraphItem(
                        x0=[s[0] for s in bars],
                        x1=[s[1] for s in bars],
                        y0=[s[2] - 0.35 for s in bars],
                        y1=[s[2] + 0.35 for s in bars],
                        brush=pg.mkBrush(colour),
                        pen=pg.mkPen(colour),
                    ),
                )
            if marks:  # a trace with nothing after it: a mark where it was, not a bar into the future
                self._add(
                    self.lanes,
                    pg.ScatterPlotItem(
                        x=[s[0] for s in marks],
                        y=[s[2] for s in marks],
                        symbol="s",
                        size=14,
                        brush=pg.mkBrush(colour),
                        pen=pg.mkPen(colour),
                    ),
                )

    def _draw_class_names(
        self,
        by_target: dict[str, list[TracePoint]],
        lane_of: dict[str, int],
        per_px: float,
        metrics: QFontMetrics,
    ) -> None:
        """A lane's route class named where it starts, where the previous name leaves room."""
        for name, mine in by_target.items():
            previous, free_from = None, -np.inf
            for point in mine:
                x = point.at_us / 1e6
                if point.line_class != previous and x >= free_from:
                    label = self.class_names.get(point.line_class, point.line_class)
                    text = pg.TextItem(label, color="#212121")
                    text.setAnchor((0, 1))
                    text.setPos(x, lane_of[name] + 0.35)
                    self._add(self.lanes, text)
                    free_from = x + (metrics.horizontalAdvance(label) + 12) * per_px
                previous = point.line_class

    def _draw_changes(
        self, changes: Sequence[RouteChange], per_px: float, metrics: QFontMetrics
    ) -> list[tuple[float, int, str, float]]:
        """A dashed line at each change on both plots; its name placed in the first row it fits: (where the
        name ends, its row, the name, where it starts) each."""
        placed: list[tuple[float, int, str, float]] = []
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
            row = next(
                r for r in range(len(placed) + 1) if all(end < x or rr != r for end, rr, _, _ in placed)
            )
            placed.append((x + (metrics.horizontalAdvance(label) + 8) * per_px, row, label, x))
        return placed

    def _draw_change_names(
        self,
        placed: list[tuple[float, int, str, float]],
        rtt: Sequence[tuple[int, float]],
        metrics: QFontMetrics,
    ) -> None:
        """The changes' names stand in rows above the highest RTT, never over the line: the plot's range is
        made tall enough for them at its present height."""
        values = [v for _, v in rtt if np.isfinite(v)]
        base = (max(values) if values else 1.0) * 1.03 or 1.0
        rows = 1 + max((row for _, row, _, _ in placed), default=-1)
        text_px = metrics.height() + 6
        plot_px = max(self.rtt.getViewBox().height(), 60.0)
        share = min(text_px * rows / plot_px, 0.6)
        self._rtt_top = base / (1 - share)
        row_units = (self._rtt_top - base) / rows if rows else 0.0
        for _, row, label, x in placed:
            marker = pg.TextItem(label, color=CHANGE, anchor=(0, 1))
            marker.setPos(x, base + row * row_units)
            self._add(self.rtt, marker)

    def _lane_ticks(self, lane_of: dict[str, int]) -> None:
        """The lanes' target names, elided to the axis, every lane's when they fit, else every n-th."""
        axis = self.lanes.getAxis("left")
        height = max(self.lanes.getViewBox().height(), 80.0)
        step = max(1, int(np.ceil(len(lane_of) * LANE_PX / height)))
        names_font = QFontMetrics(axis.style.get("tickFont") or QFont())
        axis.setTicks(
            [[(lane, elided(name, names_font)) for name, lane in lane_of.items() if lane % step == 0]]
        )
        self.lanes.setYRange(-0.6, max(len(lane_of), 1) - 0.05, padding=0)  # room for the top lane's label

    def _add(self, plot: pg.PlotItem, item: pg.GraphicsObject) -> None:
        plot.addItem(item)
        self._items.append((plot, item))
