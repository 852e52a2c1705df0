"""What the screens are given instead of reaching for globals: settings, the worker pool, the shared probe
list, and a place to report to the user."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from desktop.app.models.target_list import TargetListModel
from desktop.app.settings import AppSettings
from desktop.app.workers import Workers


class Reporter(QObject):
    """Messages for the status bar (`note`) and for a dialog (`fatal`); the main window shows them."""

    note = Signal(str)
    fatal = Signal(str, str)  # title, message

    def info(self, message: str) -> None:
        self.note.emit(message)

    def error(self, title: str, message: str) -> None:
        self.fatal.emit(title, message)


class StoreChanged(QObject):
    """Fires after the GUI wrote to the result store, so views that read it can refresh."""

    changed = Signal()


@dataclass
class AppContext:
    settings: AppSettings
    workers: Workers
    targets: TargetListModel
    reporter: Reporter = field(default_factory=Reporter)
    store_events: StoreChanged = field(default_factory=StoreChanged)


class Screen(Protocol):
    def retranslate(self) -> None: ...
