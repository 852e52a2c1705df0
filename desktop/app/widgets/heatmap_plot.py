"""The day × hour heatmap: one row per local day, one column per hour, coloured by median RTT (or loss);
empty cells (nothing measured) stay blank. Hovering a cell reads out its figures.

A short history keeps its rows a readable height (room for a week); the colour bar is labelled with its
values and unit, and a single value (every hour 0 % loss, or one RTT) gets a scale of round numbers around it
(0–1 %, a millisecond either side) rather than one too narrow to carry a label; a note above says how many
hours on how many days are measured."""

from __future__ import annotations

import math
from datetime import date

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF

from desktop.app.chart_data import DayHourMatrix

# Rows of room the heatmap keeps however few days there are (one day is a strip, not the whole chart).
MIN_ROWS = 7


def single_value_scale(value: float, *, loss: bool) -> tuple[float, float]:
    """The colour scale for a chart whose every cell has `value`: loss 0 to the next whole percent (at least
    1 %); a round trip the whole milliseconds around it (at least 1 ms either side)."""
    if loss:
        return 0.0, float(max(1, math.ceil(value * 1.25)))
    half = max(1.0, abs(value) * 0.1)
    return max(0.0, math.floor(value - half)), float(math.ceil(value + half))


class HeatmapPlot(pg.GraphicsLayoutWidget):  # type: ignore[misc]  # pyqtgraph ships no type hints: its classes are Any
    def __init__(self, parent: object = None) -> None:
        super().__init__(parent=parent)
        self.setBackground("w")
        self.words = {
            "hour": "hour of day",
            "median": "median RTT (ms)",
            "loss": "loss %",
            "p95": "p95",
            "lost": "lost",
            "attempts": "attempts",
            "no_data": "no data",
            "measured": "Hours measured: {cells} · days with data: {days} of {span}",
            "weekdays": "Mon Tue Wed Thu Fri Sat Sun",
        }
        self.matrix: DayHourMatrix | None = None
        self.show_loss = False
        self.note = pg.LabelItem(justify="left", color="#455a64")
        self.addItem(self.note, row=0, col=0)
        self.plot = self.addPlot(row=1, col=0)
        self.plot.invertY(True)
        self.plot.setMouseEnabled(x=False, y=True)
        self.plot.getAxis("bottom").setTicks([[(h + 0.5, f"{h:02d}") for h in range(0, 24, 2)]])
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)  # never "hour of day (x0.001)"
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.colour_bar = pg.ColorBarItem(colorMap=pg.colormap.get("viridis"), interactive=False, width=15)
        self.colour_bar.setImageItem(self.image, insert_in=self.plot)
        self.colour_bar.axis.enableAutoSIPrefix(False)  # 0.05 ms reads 0.05, not "50 (x0.001)"
        self.readout = pg.LabelItem(justify="left")
        self.addItem(self.readout, row=2, col=0)
        self._mouse = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved)
        self.set_words(self.words)

    def set_matrix(self, matrix: DayHourMatrix | None, *, show_loss: bool | None = None) -> None:
        if show_loss is not None:
            self.show_loss = show_loss
        self.matrix = matrix
        if matrix is None or not matrix.days:
            self.image.clear()
            self.note.setText("")
            self.readout.setText(self.words["no_data"])
            self.plot.getAxis("left").setTicks([[]])  # an empty week: the day, no day names
            self.plot.setXRange(0, 24, padding=0)
            self.plot.setYRange(0, MIN_ROWS, padding=0)
            return
        values = matrix.loss * 100 if self.show_loss else matrix.median_ms
        finite = values[np.isfinite(values)]
        low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if high <= low:  # one value: a scale of round numbers around it, wide enough for labels
            low, high = single_value_scale(low, loss=self.show_loss)
        # Float cells through the colour bar's map; NaN (nothing measured) is drawn transparent.
        self.colour_bar.setColorMap(pg.colormap.get("CET-L8" if self.show_loss else "viridis"))
        self.image.setImage(np.ascontiguousarray(values, dtype=np.float64), autoLevels=False)
        self.image.setRect(QRectF(0, 0, 24, len(matrix.days)))
        self.colour_bar.setLevels((low, high))
        self.colour_bar.setLabel("left", self.words["loss"] if self.show_loss else self.words["median"])
        step = max(1, len(matrix.days) // 12)
        self.plot.getAxis("left").setTicks(
            [[(i + 0.5, self.day_label(d)) for i, d in enumerate(matrix.days) if i % step == 0]]
        )
        self.plot.setXRange(0, 24, padding=0)
        self.plot.setYRange(0, max(len(matrix.days), MIN_ROWS), padding=0)
        self.note.setText(self.note_text())
        self.readout.setText("")

    def day_label(self, day: date) -> str:
        names = self.words["weekdays"].split()
        return f"{day:%m-%d} {names[day.weekday()] if len(names) == 7 else f'{day:%a}'}"

    def note_text(self) -> str:
        m = self.matrix
        if m is None or not m.days:
            return ""
        measured = m.sent > 0
        return self.words["measured"].format(
            cells=int(measured.sum()), days=int(measured.any(axis=1).sum()), span=len(m.days)
        )

    def describe(self, day_index: int, hour: int) -> str:
        m = self.matrix
        if m is None or not (0 <= day_index < len(m.days) and 0 <= hour < 24):
            return ""
        day = m.days[day_index]
        when = f"{day:%Y-%m-%d} {self.day_label(day).split()[-1]} {hour:02d}:00–{hour + 1:02d}:00 ({m.tz})"
        if m.sent[day_index, hour] == 0:
            return f"{when} · {self.words['no_data']}"
        median = m.median_ms[day_index, hour]
        p95 = m.p95_ms[day_index, hour]
        text = "–" if np.isnan(median) else f"{median:.1f} ms"
        text95 = "–" if np.isnan(p95) else f"{p95:.1f} ms"
        return (
            f"{when} · {self.words['median']} {text} · {self.words['p95']} {text95} · "
            f"{self.words['lost']} {m.loss[day_index, hour] * 100:.1f}% · "
            f"{self.words['attempts']} {m.sent[day_index, hour]}"
        )

    def _mouse_moved(self, event: tuple[object]) -> None:
        position = event[0]
        if not self.plot.sceneBoundingRect().contains(position):
            return
        point = self.plot.getViewBox().mapSceneToView(position)
        self.readout.setText(self.describe(int(np.floor(point.y())), int(np.floor(point.x()))))

    def set_words(self, words: dict[str, str]) -> None:
        self.words.update(words)
        self.plot.setLabel("bottom", self.words["hour"])
        self.colour_bar.setLabel("left", self.words["loss"] if self.show_loss else self.words["median"])
        if self.matrix is not None and self.matrix.days:
            self.set_matrix(self.matrix)  # day names and the note in the new language
