"""What the screens are given instead of reaching for globals: settings, the worker pool, the shared probe
list, a place to report to the user, the signals that say the store or the user's catalogs changed, and a way
to show another screen."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desktop.app.errors import error_text
from desktop.app.models.target_list import TargetListModel
from desktop.app.settings import AppSettings
from desktop.app.workers import Workers

if TYPE_CHECKING:
    from desktop.usecases.overlay_home import OverlayHome


class Reporter(QObject):
    """Messages for the status bar (`note`) and for a dialog (`fatal`); the main window shows them.
    An exception is worded by `desktop.app.errors.error_text` (`failure`), the app's one way to say it."""

    note = Signal(str)
    fatal = Signal(str, str)  # title, message

    def info(self, message: str) -> None:
        self.note.emit(message)

    def error(self, title: str, message: str) -> None:
        self.fatal.emit(title, message)

    def failure(self, title: str, exc: BaseException) -> None:
        """A dialog titled `title` saying what `exc` says."""
        self.error(title, error_text(exc))


class StoreChanged(QObject):
    """Fires after the GUI wrote to the result store, so views that read it can refresh."""

    changed = Signal()


class CatalogsChanged(QObject):
    """Fires after the GUI wrote to the user's catalogs (an offering saved, copied or deleted, a
    questionnaire imported), so the screens that read catalogs load them again (the scorecard re-ranks)."""

    changed = Signal()


@dataclass
class AppContext:
    settings: AppSettings
    workers: Workers
    targets: TargetListModel
    reporter: Reporter = field(default_factory=Reporter)
    store_events: StoreChanged = field(default_factory=StoreChanged)
    catalog_events: CatalogsChanged = field(default_factory=CatalogsChanged)
    # Show another screen by its key (the main window sets it): the home's Trace and Write the report….
    go_to: Callable[[str], QWidget] | None = None

    def facts_home(self) -> OverlayHome:
        """Where the window keeps what the user learns about vendors (an offering edited, a questionnaire
        imported): the team's store when the window's store is PostgreSQL (each change a record with this
        machine's office and user, read by every office), else the user's catalog folder."""
        from desktop.usecases.overlay_home import overlay_home

        return overlay_home(db=self.settings.store_location)
