"""Start the desktop application: `linkvet gui` (or `linkvet` alone where a display is present) and `python -m
desktop.app` reach `run` through `desktop.launch.open_window`."""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from desktop.app.context import AppContext
from desktop.app.i18n import LanguageSwitcher
from desktop.app.main_window import MainWindow
from desktop.app.models.target_list import TargetListModel
from desktop.app.settings import AppSettings
from desktop.app.workers import Workers


def build_window(
    app: QApplication, qsettings: QSettings | None = None, *, warm: bool = True, welcome: bool = True
) -> MainWindow:
    """The main window with its collaborators (tests pass their own QSettings). `welcome`: on the first
    start (no settings yet) open Help → Getting started once."""
    settings = AppSettings(qsettings)
    language = LanguageSwitcher(app)
    try:
        language.apply(settings.language)
    except OSError:
        language.apply("en")
    context = AppContext(settings=settings, workers=Workers(), targets=TargetListModel())
    window = MainWindow(context, language, warm=warm, welcome=welcome)
    # Keep the collaborators alive as long as the window.
    context.workers.setParent(window)
    context.targets.setParent(window)
    settings.setParent(window)
    language.setParent(window)
    # What exists now lives as long as the window: keep it out of the collector's full passes, whose
    # pauses would otherwise grow with every module and widget loaded.
    gc.collect()
    gc.freeze()
    return window


def run(argv: Sequence[str] | None = None, *, quit_after_shown: bool = False) -> int:
    """Open the window and run the event loop; the exit code."""
    app = QApplication.instance() or QApplication(list(argv if argv is not None else sys.argv))
    assert isinstance(app, QApplication)
    app.setOrganizationName("linkvet")
    app.setApplicationName("linkvet")
    app.setApplicationDisplayName("linkvet")
    app.setDesktopFileName("linkvet")
    # A start that only measures itself (the startup benchmark, the installers' smoke test) greets nobody.
    window = build_window(app, warm=not quit_after_shown, welcome=not quit_after_shown)
    if quit_after_shown:  # the startup benchmark: leave once the first frame has been painted
        watcher = _FirstPaint(app)
        window.installEventFilter(watcher)
        QTimer.singleShot(30_000, app.quit)  # never hang a benchmark
    window.show()
    return int(app.exec())


class _FirstPaint(QObject):
    """Quits the application after the window's first paint has been handled."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.app = app

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, self.app.quit)
        return False
