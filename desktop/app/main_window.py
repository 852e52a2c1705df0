"""The main window: the screen list on the left (the evaluation's home first; Targets and Probe stay for
one-off measuring), the current screen, the status bar, the menus (Help opens the user guide,
`desktop/app/help_viewer.py`; the first start opens its Getting started page by itself).

Screens are built the first time they are shown, so the window appears before the charting and analysis
libraries are loaded; a background thread warms those imports meanwhile.

Closing the window: the evaluation's background agents measure on (`desktop.usecases.agent_process`); the
window asks whether to keep them measuring, and says that the Probe screen's scheduler, which runs inside the
window, stops with it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.app.context import AppContext
from desktop.app.errors import error_text
from desktop.app.i18n import LANGUAGE_NAMES, LanguageSwitcher
from desktop.app.settings import AppSettings
from desktop.app.widgets.screen_fit import fit_to_screen
from desktop.manual import GETTING_STARTED, INDEX

if TYPE_CHECKING:
    from desktop.app.help_viewer import HelpViewer

STYLE = """
QListWidget#nav { background: #263238; color: #eceff1; border: none; font-size: 14px; outline: 0; }
QListWidget#nav::item { padding: 10px 16px; }
QListWidget#nav::item:selected { background: #37474f; color: white; border-left: 3px solid #4fc3f7; }
QLabel#screenTitle { font-size: 20px; font-weight: 600; padding: 2px 0 4px 0; }
QLabel#screenHint { color: #546e7a; }
QPushButton#primary { font-weight: 600; padding: 6px 18px; }
"""


@dataclass
class ScreenSpec:
    key: str
    title: Callable[[], str]
    factory: Callable[[AppContext], QWidget]


def _home(context: AppContext) -> QWidget:
    from desktop.app.home_screen import HomeScreen

    return HomeScreen(context)


def _targets(context: AppContext) -> QWidget:
    from desktop.app.targets_screen import TargetsScreen

    return TargetsScreen(context)


def _probe(context: AppContext) -> QWidget:
    from desktop.app.probe_screen import ProbeScreen

    return ProbeScreen(context)


def _charts(context: AppContext) -> QWidget:
    from desktop.app.charts_screen import ChartsScreen

    return ChartsScreen(context)


def _routes(context: AppContext) -> QWidget:
    from desktop.app.routes_screen import RoutesScreen

    return RoutesScreen(context)


def _catalog(context: AppContext) -> QWidget:
    from desktop.app.catalog_screen import CatalogScreen

    return CatalogScreen(context)


def _score(context: AppContext) -> QWidget:
    from desktop.app.score_screen import ScoreScreen

    return ScoreScreen(context)


def _export(context: AppContext) -> QWidget:
    from desktop.app.export_screen import ExportScreen

    return ExportScreen(context)


def warm_imports() -> None:
    """Load the heavy libraries the later screens need while the user looks at the first one."""
    import importlib

    for name in ("numpy", "pandas", "pyqtgraph", "probes.store", "catalogs.loader", "catalogs.scoring"):
        try:
            importlib.import_module(name)
        except Exception:  # a failed warm-up is only slower, the real import reports it
            return


class MainWindow(QMainWindow):
    def __init__(
        self,
        context: AppContext,
        language: LanguageSwitcher,
        *,
        warm: bool = True,
        welcome: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.language = language
        self.help_viewer: HelpViewer | None = None
        self.quit_box: QMessageBox | None = None
        self._closing = False
        self.specs = [
            ScreenSpec("home", lambda: self.tr("Evaluation"), _home),
            ScreenSpec("targets", lambda: self.tr("Targets"), _targets),
            ScreenSpec("probe", lambda: self.tr("Probe"), _probe),
            ScreenSpec("charts", lambda: self.tr("Charts"), _charts),
            ScreenSpec("routes", lambda: self.tr("Routes"), _routes),
            ScreenSpec("catalog", lambda: self.tr("Catalog"), _catalog),
            ScreenSpec("score", lambda: self.tr("Needs & score"), _score),
            ScreenSpec("export", lambda: self.tr("Export"), _export),
        ]
        self.screens: dict[str, QWidget] = {}
        self.nav = QListWidget()
        self.nav.setObjectName("nav")
        self.nav.setFixedWidth(180)
        self.stack = QStackedWidget()
        for spec in self.specs:
            self.nav.addItem(QListWidgetItem(spec.title()))
            placeholder = QLabel("…")  # replaced by the screen on first show
            placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.stack.addWidget(placeholder)
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.nav)
        page = QWidget()
        page_layout = QVBoxLayout(page)
        page_layout.addWidget(self.stack)
        layout.addWidget(page, 1)
        self.setCentralWidget(central)
        self.setStyleSheet(STYLE)
        fit_to_screen(self, 1280, 800)

        self.store_label = QLabel()
        self.statusBar().addPermanentWidget(self.store_label)
        self.last_error: QMessageBox | None = None
        context.reporter.note.connect(self.show_note)
        context.reporter.fatal.connect(self.show_error)
        context.settings.changed.connect(self._setting_changed)
        self._build_menus()

        context.go_to = self.go_to
        from desktop.app.probe_list_book import ProbeListBook

        self.probe_list = ProbeListBook(context, self)
        self.probe_list.load()  # after the reporter is connected: a damaged file is said in a dialog
        self.nav.currentRowChanged.connect(self.show_screen)
        keys = [spec.key for spec in self.specs]
        start = keys.index(context.settings.screen) if context.settings.screen in keys else 0
        self.retranslate()
        if start == 0:
            self.nav.setCurrentRow(0)
        else:  # a heavier screen is built once the window is up, so the window shows at once
            self.nav.blockSignals(True)
            self.nav.setCurrentRow(start)
            self.nav.blockSignals(False)
            self.stack.setCurrentIndex(start)
            QTimer.singleShot(0, self, self._show_current)
        if warm:
            threading.Thread(target=warm_imports, name="warm-imports", daemon=True).start()
        if welcome and context.settings.first_start:  # a new user: the guided path, once
            QTimer.singleShot(0, self, self.greet)

    # -- screens -----------------------------------------------------------------------------------------

    def built_screen(self, key: str) -> QWidget:
        """The screen with this key, built now if it was not yet shown. (Not named `screen`: that is
        QWidget.screen(), the display the window is on.)"""
        if key not in self.screens:
            index = next(i for i, s in enumerate(self.specs) if s.key == key)
            widget = self.specs[index].factory(self.context)
            placeholder = self.stack.widget(index)
            self.stack.insertWidget(index, widget)
            if placeholder is not None:  # every index has its placeholder until its screen is built
                self.stack.removeWidget(placeholder)
                placeholder.deleteLater()
            self.screens[key] = widget
            # The screen lives as long as the window: keep its objects out of the collector's full passes,
            # which would otherwise walk them again and again (pauses during live updates).
            gc.collect()
            gc.freeze()
        return self.screens[key]

    def show_screen(self, index: int) -> None:
        if not 0 <= index < len(self.specs):
            return
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            widget = self.built_screen(self.specs[index].key)
        finally:
            QApplication.restoreOverrideCursor()
        self.stack.setCurrentWidget(widget)
        if self.nav.currentRow() != index:
            self.nav.setCurrentRow(index)
        self.context.settings.screen = self.specs[index].key

    def _show_current(self) -> None:
        self.show_screen(self.nav.currentRow())

    def go_to(self, key: str) -> QWidget:
        index = next(i for i, s in enumerate(self.specs) if s.key == key)
        self.show_screen(index)
        return self.screens[key]

    # -- menus -------------------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("")
        self.settings_action = QAction(self)
        self.settings_action.setShortcut(QKeySequence.StandardKey.Preferences)
        self.settings_action.triggered.connect(self.open_settings)
        self.quit_action = QAction(self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.file_menu.addAction(self.settings_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.language_menu = bar.addMenu("")
        group = QActionGroup(self)
        self.language_actions: dict[str, QAction] = {}
        for code, name in LANGUAGE_NAMES.items():
            action = QAction(name, self, checkable=True)
            action.setChecked(code == self.language.code)
            action.triggered.connect(lambda _=False, c=code: self.set_language(c))
            group.addAction(action)
            self.language_menu.addAction(action)
            self.language_actions[code] = action
        self.help_menu = bar.addMenu("")
        self.getting_started_action = QAction(self)
        self.getting_started_action.triggered.connect(lambda: self.show_help(GETTING_STARTED))
        self.user_guide_action = QAction(self)
        self.user_guide_action.setShortcut(QKeySequence.StandardKey.HelpContents)
        self.user_guide_action.triggered.connect(lambda: self.show_help(INDEX))
        self.about_action = QAction(self)
        self.about_action.triggered.connect(self.about)
        self.help_menu.addAction(self.getting_started_action)
        self.help_menu.addAction(self.user_guide_action)
        self.help_menu.addSeparator()
        self.help_menu.addAction(self.about_action)

    def set_language(self, code: str) -> None:
        """Switch the language now (and remember it)."""
        self.context.settings.language = code

    def _setting_changed(self, key: str) -> None:
        settings = self.context.settings
        if key == AppSettings.LANGUAGE and settings.language != self.language.code:
            try:
                self.language.apply(settings.language)
            except OSError as exc:
                self.show_error(self.tr("Language not available"), error_text(exc))
            self.language_actions[self.language.code].setChecked(True)
        if key in (AppSettings.DATA_DIR, AppSettings.STORE_URL):
            self.context.store_events.changed.emit()
        if key == AppSettings.STORE_URL:  # another store: another team's vendor facts (or none)
            self.context.catalog_events.changed.emit()
        self._update_store_label()

    def open_settings(self) -> None:
        from desktop.app.settings_dialog import SettingsDialog

        SettingsDialog(self.context.settings, self).exec()

    def show_help(self, page: str) -> HelpViewer:
        """The user guide's viewer on `page` (a page name of `desktop.manual`), in the window's language."""
        if self.help_viewer is None:
            from desktop.app.help_viewer import HelpViewer

            self.help_viewer = HelpViewer(self.language.code, self)
            self.help_viewer.missing.connect(
                lambda path: self.show_note(self.tr("Not found: {path}").format(path=path))
            )
            self.language.switched.connect(self.help_viewer.set_language)
            self.help_viewer.resize(self.help_viewer.sizeHint().boundedTo(self.size()))
        self.help_viewer.show_page(page)
        return self.help_viewer

    def greet(self) -> None:
        """The first start: Getting started, once."""
        self.context.settings.getting_started_shown = True
        self.show_help(GETTING_STARTED)

    def about(self) -> None:
        from probes import __version__

        QMessageBox.about(
            self,
            self.tr("About linkvet"),
            self.tr(
                "linkvet {version}\n\nMeasures the line from your office to GPU-hosting regions, "
                "above all at peak hours, and scores providers on the measured data."
            ).format(version=__version__),
        )

    # -- reporting ---------------------------------------------------------------------------------------

    def show_note(self, message: str) -> None:
        self.statusBar().showMessage(message, 15_000)

    def show_error(self, title: str, message: str) -> None:
        """A dialog for errors the user must see; it does not block the event loop."""
        box = QMessageBox(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Ok, self)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.open()
        self.last_error = box
        self.statusBar().showMessage(f"{title}: {message.splitlines()[0] if message else ''}", 30_000)

    def _update_store_label(self) -> None:
        self.store_label.setText(self.tr("Store: {path}").format(path=self.context.settings.store_location))

    # -- language and closing ----------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("linkvet — line and GPU vendor check"))
        for row, spec in enumerate(self.specs):
            item = self.nav.item(row)
            if item is not None:
                item.setText(spec.title())
        self.file_menu.setTitle(self.tr("&File"))
        self.settings_action.setText(self.tr("&Settings…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.language_menu.setTitle(self.tr("&Language"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.getting_started_action.setText(self.tr("&Getting started"))
        self.user_guide_action.setText(self.tr("&User guide"))
        self.about_action.setText(self.tr("&About linkvet"))
        self.probe_list.retranslate()
        self._update_store_label()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing and self.ask_before_closing() is not None:
            event.ignore()  # the question is open; its answer closes the window, or not
            return
        for widget in self.screens.values():
            stop = getattr(widget, "shutdown", None)
            if callable(stop):
                stop()
        self.context.workers.wait(10_000)
        super().closeEvent(event)

    def ask_before_closing(self) -> QMessageBox | None:
        """The quit question, when there is one to ask (None: close at once): with the evaluation's agent
        measuring, keep it measuring (it goes on without the window), stop it, or stay; with the Probe
        screen's scheduler running (it runs inside the window), quit or stay. Window-modal; the answer closes
        the window or leaves it open."""
        from desktop.usecases.agent_process import running_agents

        agents = running_agents(self.context.settings.store_location)
        scheduler = getattr(self.screens.get("probe"), "scheduler", None)
        in_window = bool(getattr(scheduler, "running", False))
        if not agents and not in_window:
            return None
        if self.quit_box is not None:
            return self.quit_box
        lines = []
        if agents:
            names = ", ".join(sorted({a.evaluation for a in agents}))
            lines.append(
                self.tr(
                    "linkvet is measuring {evaluations} in the background. It can keep measuring after the "
                    "window closes (the next window shows it and can stop it)."
                ).format(evaluations=names)
            )
        if in_window:
            lines.append(self.tr("The Probe screen's scheduler runs inside the window: it stops with it."))
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Quit linkvet"), "\n\n".join(lines), parent=self)
        keep = box.addButton(
            self.tr("Keep measuring") if agents else self.tr("Quit"), QMessageBox.ButtonRole.AcceptRole
        )
        stop = (
            box.addButton(self.tr("Stop measuring and quit"), QMessageBox.ButtonRole.DestructiveRole)
            if agents
            else None
        )
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(keep)
        box.setWindowModality(Qt.WindowModality.WindowModal)

        def answered(clicked: object) -> None:
            self.quit_box = None
            if clicked is not keep and (stop is None or clicked is not stop):
                return  # stay
            if clicked is stop:
                from desktop.usecases.agent_process import stop_agent

                for agent in agents:  # each stores the round in flight and ends by itself
                    stop_agent(agent, wait_s=0)
            self._closing = True
            self.close()

        box.buttonClicked.connect(answered)
        self.quit_box = box
        box.open()
        return box
