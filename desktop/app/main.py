"""Start the desktop application: `linkvet gui` (or `linkvet` alone where a display is present), `linkvet-gui`
and `python -m desktop.app` reach `run` through `desktop.launch.open_window`, with the run's `--db` and
`--lang` (`desktop.launch.WindowOptions`); `--screenshot DIR` writes every screen instead
(`desktop.app.screenshots`)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from desktop.app.context import AppContext
from desktop.app.i18n import LanguageSwitcher
from desktop.app.main_window import MainWindow
from desktop.app.models.target_list import TargetListModel
from desktop.app.settings import AppSettings
from desktop.app.workers import Workers

if TYPE_CHECKING:
    from desktop.launch import WindowOptions
    from probes.store_location import StoreLocation


def build_window(
    app: QApplication,
    qsettings: QSettings | None = None,
    *,
    warm: bool = True,
    welcome: bool = True,
    db: StoreLocation | None = None,
    language: str | None = None,
) -> MainWindow:
    """The main window with its collaborators (tests pass their own QSettings). `welcome`: on the first
    start (no settings yet) open Help → Getting started once. `db` and `language`: the run's `--db` and
    `--lang` (not remembered)."""
    settings = AppSettings(qsettings, store_override=db, language_override=language)
    switcher = LanguageSwitcher(app)
    try:
        switcher.apply(settings.language)
    except OSError:
        switcher.apply("en")
    context = AppContext(settings=settings, workers=Workers(), targets=TargetListModel())
    window = MainWindow(context, switcher, warm=warm, welcome=welcome)
    # Keep the collaborators alive as long as the window.
    context.workers.setParent(window)
    context.targets.setParent(window)
    settings.setParent(window)
    switcher.setParent(window)
    # What exists now lives as long as the window: keep it out of the collector's full passes, whose
    # pauses would otherwise grow with every module and widget loaded.
    gc.collect()
    gc.freeze()
    return window


def application(argv: Sequence[str] | None = None) -> QApplication:
    """The process's QApplication, named as linkvet (made once; the window's run and the screenshots')."""
    app = QApplication.instance() or QApplication(list(argv if argv is not None else sys.argv))
    assert isinstance(app, QApplication)
    app.setOrganizationName("linkvet")
    app.setApplicationName("linkvet")
    app.setApplicationDisplayName("linkvet")
    app.setDesktopFileName("linkvet")
    return app


def run(argv: Sequence[str] | None, options: WindowOptions) -> int:
    """Open the window and run the event loop; the exit code. (`--screenshot`: `desktop.app.screenshots`.)"""
    quit_after_shown = options.quit_after_startup
    app = application(argv)
    # A start that only measures itself (the startup benchmark, the installers' smoke test) greets nobody.
    window = build_window(
        app,
        warm=not quit_after_shown,
        welcome=not quit_after_shown,
        db=options.db,
        language=options.language,
    )
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
