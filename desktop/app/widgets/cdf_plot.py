"""The RTT CDF comparing targets: for each, the share of replies at or below each RTT, flat where no reply
fell and rising across each occupied histogram bucket (`Cdf.curve`). A steep curve far left is a good line;
a long tail to the right is the bufferbloat or congestion users feel. A note says when a target has too few
replies for its tail to mean anything."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from desktop.app.chart_data import Cdf
from desktop.app.timeline_data import MIN_REPLIES_FOR_P5_P95
from desktop.app.widgets.live_rtt_plot import PALETTE
from probes import histogram


class CdfPlot(pg.GraphicsLayoutWidget):  # type: ignore[misc]  # pyqtgraph ships no type hints: its classes are Any
    def __init__(self, parent: object = None) -> None:
        super().__init__(parent=parent)
        self.setBackground("w")
        self.words = {
            "rtt": "RTT (ms)",
            "share": "replies at or below (%)",
            "no_data": "no data",
            "few": "Too little data for a distribution: {names} (fewer than {need} replies; n in the legend)",
        }
        self.cdfs: list[tuple[str, Cdf]] = []
        self.note = pg.LabelItem(justify="left", color="#455a64")
        self.addItem(self.note, row=0, col=0)
        self.plot = self.addPlot(row=1, col=0)
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)  # 0.05 ms reads 0.05, not "50 (x0.001)"
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setYRange(0, 100, padding=0.02)
        self.legend = self.plot.addLegend(
            offset=(-10, -10), labelTextColor="#263238", brush=(255, 255, 255, 210)
        )
        self.readout = pg.LabelItem(justify="left")
        self.addItem(self.readout, row=2, col=0)
        self._curves: list[pg.PlotDataItem] = []
        self.v_line = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen("#78909c", style=Qt.PenStyle.DashLine)
        )
        self.v_line.setVisible(False)
        self.plot.addItem(self.v_line, ignoreBounds=True)
        self._mouse = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved)
        self.set_words(self.words)

    def set_cdfs(self, cdfs: Sequence[tuple[str, Cdf]]) -> None:
        for curve in self._curves:
            self.plot.removeItem(curve)
        self._curves = []
        self.legend.clear()
        self.cdfs = [(name, cdf) for name, cdf in cdfs if cdf.received]
        upper = 0.0
        for i, (name, cdf) in enumerate(self.cdfs):
            colour = PALETTE[i % len(PALETTE)]
            x, y = cdf.curve()
            curve = self.plot.plot(
                x, y * 100, pen=pg.mkPen(colour, width=2), name=f"{name} (n={cdf.received})"
            )
            self._curves.append(curve)
            # Zoom to the 99.5th percentile so one outlier does not squash the curves.
            p995 = cdf.rtt_ms[min(int(np.searchsorted(cdf.fraction, 0.995)), cdf.rtt_ms.size - 1)]
            upper = max(upper, float(p995) * math.sqrt(histogram.GROWTH))  # to the bucket's upper edge
        if self.cdfs:
            lower = min(float(c.rtt_ms[0]) for _, c in self.cdfs) / math.sqrt(histogram.GROWTH)
            self.plot.setXRange(lower * 0.95, upper * 1.05, padding=0)
        self.note.setText(self.note_text())
        self.readout.setText("" if self.cdfs else self.words["no_data"])

    def note_text(self) -> str:
        few = [name for name, cdf in self.cdfs if cdf.received < MIN_REPLIES_FOR_P5_P95]
        if not few:
            return ""
        return self.words["few"].format(names=", ".join(few), need=MIN_REPLIES_FOR_P5_P95)

    def describe(self, rtt_ms: float) -> str:
        parts = [f"≤ {rtt_ms:.1f} ms"]
        for name, cdf in self.cdfs:
            share = cdf.fraction_at(rtt_ms)
            parts.append(f"{name}: {'–' if share is None else f'{share * 100:.1f}%'}")
        return " · ".join(parts)

    def _mouse_moved(self, event: tuple[object]) -> None:
        position = event[0]
        if not self.plot.sceneBoundingRect().contains(position):
            return
        x = self.plot.getViewBox().mapSceneToView(position).x()
        self.v_line.setPos(x)
        self.v_line.setVisible(True)
        self.readout.setText(self.describe(x))

    def set_words(self, words: dict[str, str]) -> None:
        self.words.update(words)
        self.plot.setLabel("bottom", self.words["rtt"])
        self.plot.setLabel("left", self.words["share"])
        self.note.setText(self.note_text())
