"""Line-type badges: the vendor's claimed line type drawn as a coloured pill (CN2 GIA, BGP, local …)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

# Premium lines green, ordinary international transit amber/grey, local blue.
BADGE_COLOURS = {
    "cn2-gia": "#2e7d32",
    "cn2-gt": "#689f38",
    "cu-9929": "#00897b",
    "cmi": "#0277bd",
    "bgp": "#f9a825",
    "cu-4837": "#ef6c00",
    "163": "#e65100",
    "standard": "#757575",
    "local": "#1565c0",
    "unknown": "#9e9e9e",
}
BADGE_LABELS = {
    "cn2-gia": "CN2 GIA",
    "cn2-gt": "CN2 GT",
    "cu-9929": "CU 9929",
    "cu-4837": "CU 4837",
    "cmi": "CMI",
    "bgp": "BGP",
    "163": "163",
    "standard": "Standard",
    "local": "Local",
    "unknown": "Unknown",
}


def badge_label(line_type: str) -> str:
    """The badge text; carrier products (CN2 GIA, BGP …) stay as they are, the plain words are translated."""
    words = {
        "standard": QCoreApplication.translate("LineType", "Standard"),
        "local": QCoreApplication.translate("LineType", "Local"),
        "unknown": QCoreApplication.translate("LineType", "Unknown"),
    }
    return words.get(line_type) or BADGE_LABELS.get(line_type, line_type.upper())


class LineTypeBadgeDelegate(QStyledItemDelegate):
    """Draws the cell's display text (a line-type id) as a badge."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        line_type = index.data(Qt.ItemDataRole.DisplayRole)
        if not line_type:
            return
        text = badge_label(str(line_type))
        metrics = QFontMetrics(option.font)
        width = metrics.horizontalAdvance(text) + 12
        height = min(metrics.height() + 4, option.rect.height() - 2)
        rect = QRectF(option.rect.left() + 4, option.rect.center().y() - height / 2 + 0.5, width, height)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(BADGE_COLOURS.get(str(line_type), "#9e9e9e")))
        painter.drawRoundedRect(rect, height / 2, height / 2)
        painter.setPen(QColor("white"))
        painter.setFont(option.font)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()
