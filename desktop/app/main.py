"""Start the desktop application: `linkvet gui` (or `linkvet` alone where a display is present)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from desktop.app.context import AppContext
from desktop.app.i18n import LanguageSwitcher
from desktop.app.main_window import MainWindow
from desktop.app.models.target_list import TargetListModel
from desktop.app.settings import AppSettings
from desktop.app.workers import Workers


def build_window(app: QApplication, qsettings: QSettings | None = None, *, warm: bool = True) -> MainWindow:
    """The main window with its collaborators (tests pass their own QSettings)."""
    settings = AppSettings(qsettings)
    language = LanguageSwitcher(app)
    try:
        language.apply(settings.language)
    except OSError:
        language.apply("en")
    context = AppContext(settings=settings, workers=Workers(), targets=TargetListModel())
    window = MainWindow(context, language, warm=warm)
    # Keep the collaborators alive as long as the window.
    context.workers.setParent(window)
    context.targets.setParent(window)
    settings.setParent(window)
    language.setParent(window)
    return window


def run(argv: Sequence[str] | None = None, *, quit_after_shown: bool = False) -> int:
    """Open the window and run the event loop; the exit code."""
    app = QApplication.instance() or QApplication(list(argv if argv is not None else sys.argv))
    assert isinstance(app, QApplication)
    app.setOrganizationName("linkvet")
    app.setApplicationName("linkvet")
    app.setApplicationDisplayName("linkvet")
    app.setDesktopFileName("linkvet")
    window = build_window(app, warm=not quit_after_shown)
    window.show()
    if quit_after_shown:  # startup benchmark: leave as soon as the first frame is up
        QTimer.singleShot(0, app.quit)
    return int(app.exec())
