"""A live RTT plot for the running probe: one curve per shown target, lost attempts as gaps in the curve
and red ticks along the bottom. The screen calls `set_series` from its redraw timer (2-5 Hz)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg

PALETTE = ("#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#5d4037", "#455a64")
LOST = "#d32f2f"


class LiveRttPlot(pg.PlotWidget):
    def __init__(self, parent: object = None) -> None:
        super().__init__(parent=parent, axisItems={"bottom": pg.DateAxisItem(orientation="bottom")})
        self.setBackground("w")
        self.showGrid(x=True, y=True, alpha=0.2)
        self.setMouseEnabled(x=True, y=False)
        # Before any item is added (PlotItem applies these to each data item it holds, the scatter too).
        self.getPlotItem().setClipToView(True)
        self.getPlotItem().setDownsampling(auto=True, mode="peak")
        self.getPlotItem().setMenuEnabled(False, enableViewBoxMenu=True)
        self.legend = self.addLegend(offset=(10, 5), labelTextColor="#263238", brush=(255, 255, 255, 210))
        self.getAxis("left").enableAutoSIPrefix(False)
        self._curves: list[pg.PlotDataItem] = []
        self._lost = pg.ScatterPlotItem(symbol="t1", size=8, pen=None, brush=pg.mkBrush(LOST))
        self.addItem(self._lost)
        self.set_labels("RTT", "ms")

    def set_labels(self, rtt_label: str, unit: str) -> None:
        self.setLabel("left", rtt_label, units=None)
        self.getAxis("left").setLabel(f"{rtt_label} ({unit})")

    def set_series(self, series: Sequence[tuple[str, np.ndarray, np.ndarray]]) -> None:
        """Each series: (name, x as epoch seconds, RTT ms with NaN where lost), drawn with setData."""
        while len(self._curves) < len(series):
            colour = PALETTE[len(self._curves) % len(PALETTE)]
            curve = self.plot(
                pen=pg.mkPen(colour, width=1.6),
                symbol="o",
                symbolSize=3,
                symbolBrush=colour,
                symbolPen=None,
                connect="finite",
            )
            self._curves.append(curve)
        lost_x: list[np.ndarray] = []
        self.legend.clear()
        for i, curve in enumerate(self._curves):
            if i < len(series):
                name, x, y = series[i]
                if np.isfinite(y).any():
                    curve.setData(x, y, connect="finite")
                else:  # nothing came back: no curve, only the loss ticks
                    curve.setData([], [])
                curve.setVisible(True)
                self.legend.addItem(curve, name)
                lost_x.append(x[np.isnan(y)])
            else:
                curve.setData([], [])
                curve.setVisible(False)
        xs = np.concatenate(lost_x) if lost_x else np.empty(0)
        self._lost.setData(xs, np.zeros(xs.size))
