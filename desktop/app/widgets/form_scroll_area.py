"""A vertically scrolling form that is never narrower than the form: a splitter beside it stops there, so no
field is reached by scrolling sideways."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QScrollArea


class FormScrollArea(QScrollArea):
    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        form = self.widget()
        if form is not None:
            bar = self.verticalScrollBar().sizeHint().width()
            hint.setWidth(form.minimumSizeHint().width() + bar + 2 * self.frameWidth())
        return hint
