"""A table-cell sparkline: the last attempts' RTTs as a line, lost attempts as red ticks on the baseline."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QPointF, QRect
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

LINE = QColor("#1565c0")
LOST = QColor("#d32f2f")


def _line_pen() -> QPen:
    # A cosmetic 1-pixel pen: antialiased, it strokes ~20x faster than a 1.4-pixel one (which goes through
    # the path stroker), and the live table repaints a sparkline per visible row several times a second.
    pen = QPen(LINE, 1.0)
    pen.setCosmetic(True)
    return pen


class SparklineDelegate(QStyledItemDelegate):
    """Paints the numpy array a model returns for `role` (NaN = lost) instead of text."""

    def __init__(self, role: int, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.role = role

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        values = index.data(self.role)
        if not isinstance(values, np.ndarray) or values.size == 0:
            return
        rect = option.rect.adjusted(3, 3, -3, -3)
        if rect.width() < 4 or rect.height() < 4:
            return
        received = values[~np.isnan(values)]
        low, high = (float(received.min()), float(received.max())) if received.size else (0.0, 1.0)
        span = high - low or max(abs(high), 1.0) * 0.1 or 1.0
        n = values.size
        step = rect.width() / max(n - 1, 1)

        def y_of(v: float) -> float:
            return rect.bottom() - (v - low) / span * rect.height() if span else rect.center().y()

        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(_line_pen())
        tick = max(2, round(rect.height() * 0.35))
        run: list[QPointF] = []
        for i, v in enumerate(values):
            x = rect.left() + i * step
            if math.isnan(v):
                if len(run) > 1:
                    painter.drawPolyline(QPolygonF(run))
                elif len(run) == 1:
                    painter.drawPoint(run[0])
                run = []
                # A lost attempt: a red tick on the baseline (a filled pixel-aligned rectangle: no stroking).
                painter.fillRect(QRect(round(x) - 1, rect.bottom() - tick + 1, 2, tick), LOST)
            else:
                run.append(QPointF(x, y_of(float(v))))
        if len(run) > 1:
            painter.drawPolyline(QPolygonF(run))
        elif len(run) == 1:
            painter.drawPoint(run[0])
        painter.restore()
