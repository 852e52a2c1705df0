"""A window's size held to the screen it opens on: a dialog sized for a large monitor (the offering editor's
1120×820) still fits a 1366×768 laptop, with room for the title bar and the task bar."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

MARGIN_W, MARGIN_H = 24, 72  # the window frame and title bar, a task bar


def fit_to_screen(widget: QWidget, width: int, height: int) -> None:
    """Resize `widget` to `width`×`height`, or less where its screen (that of its parent, else the primary
    one) is smaller."""
    parent = widget.parentWidget()
    screen = (parent.screen() if parent is not None else None) or QGuiApplication.primaryScreen()
    if screen is not None:
        room = screen.availableGeometry()
        width = min(width, room.width() - MARGIN_W)
        height = min(height, room.height() - MARGIN_H)
    widget.resize(max(width, 320), max(height, 240))
