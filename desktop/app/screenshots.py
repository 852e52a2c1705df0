"""`linkvet gui --screenshot DIR [--lang zh_CN] [--size WxH] [--db …]`: a PNG of every screen (and of the guide's
pages and the main dialogs), offscreen, then exit. The window reads the store as `--db`/`LINKVET_DB` say; a
store without an evaluation is replaced, for the pictures, by a temporary one holding the bundled example
evaluation, so the home is never empty. The window's own settings (data folder, probe list, last screen) are a
temporary copy: the user's are not touched.

`packaging/screenshots.py` renders the manual's pictures with this very function, after writing synthetic
history into a store and with a `Stage` that sets each screen up (a probe run, a trace, chosen series).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEventLoop,
    QMessageLogContext,
    QSettings,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtWidgets import QApplication, QWidget

from desktop.app.main import build_window

if TYPE_CHECKING:
    from desktop.app.main_window import MainWindow
    from desktop.launch import WindowOptions
    from probes.store_location import StoreLocation

DEFAULT_SIZE = (1280, 800)
CHART_TABS = ("charts-timeline", "charts-hour-of-day", "charts-day-hour", "charts-cdf", "charts-offices")


class Stage:
    """Sets a screen up before its picture (the default leaves each as it opens)."""

    def before(self, window: MainWindow, name: str) -> None:
        """Called before the picture `name` is taken."""


def settle(ms: int = 200) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_idle(
    window: MainWindow, timeout_s: float = 90.0, condition: Callable[[], bool] | None = None
) -> None:
    """Until the window's workers are done (three looks in a row) and `condition` holds."""
    deadline = time.monotonic() + timeout_s
    calm = 0
    while calm < 3 and time.monotonic() < deadline:
        settle(100)
        ready = window.context.workers.busy == 0 and (condition is None or condition())
        calm = calm + 1 if ready else 0


def picture_store(db: StoreLocation | None, work: Path) -> StoreLocation:
    """The store to picture: the one given (or the default) when it holds an evaluation, else a temporary one
    with the bundled example evaluation."""
    from desktop.usecases.evaluation import ensure_example, list_evaluations
    from probes.store_location import location_or_default

    location = location_or_default(db)
    if list_evaluations(location):
        return location
    example = work / "example.sqlite3"
    ensure_example(example)
    return example


def write_screenshots(
    app: QApplication,
    options: WindowOptions,
    *,
    qsettings: QSettings | None = None,
    stage: Stage | None = None,
    suffix: str = "",
    only: set[str] | None = None,
) -> int:
    """Write the pictures into `options.screenshot` (`only` those named, when given), each named
    `NAME{suffix}.png`; 0. Each path is printed as it is written."""
    assert options.screenshot is not None
    out = options.screenshot
    out.mkdir(parents=True, exist_ok=True)
    stage = stage or Stage()
    work = Path(tempfile.mkdtemp(prefix="linkvet-screenshots-"))
    if qsettings is None:
        qsettings = QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat)
        qsettings.setValue("data/dir", str(work / "data"))
    qsettings.setValue("help/getting_started_shown", "true")
    db = picture_store(options.db, work)
    language = options.language or "en"
    width, height = options.size or DEFAULT_SIZE
    from desktop.i18n import _

    print(
        _("screenshots of the store {store} ({language}), {width}×{height}, into {folder}").format(
            store=db, language=language, width=width, height=height, folder=out
        ),
        flush=True,
    )
    previous = qInstallMessageHandler(_quiet)
    window = build_window(app, qsettings, warm=False, welcome=False, db=db, language=language)
    window.resize(width, height)
    window.show()

    def shoot(name: str, widget: QWidget | None = None) -> None:
        if only is not None and name not in only:
            return
        stage.before(window, name)
        wait_idle(window)
        settle(300)
        path = out / f"{name}{suffix}.png"
        (widget or window).grab().save(str(path), "PNG")
        print(path, flush=True)

    from desktop.app.home_screen import HomeScreen

    home = window.go_to("home")
    assert isinstance(home, HomeScreen)
    wait_idle(window, condition=lambda: home.data is not None)
    shoot("home")
    _shoot_wizard(window, home, shoot)
    for key in ("targets", "probe"):
        window.go_to(key)
        shoot(key)
    charts = window.go_to("charts")
    for index, name in enumerate(CHART_TABS):
        charts.tabs.setCurrentIndex(index)  # type: ignore[attr-defined]
        shoot(name)
    for key in ("routes", "catalog"):
        window.go_to(key)
        shoot(key)
    _shoot_offering_form(window, shoot)
    score = window.go_to("score")
    shoot("score")
    score.needs_toggle.setChecked(True)  # type: ignore[attr-defined]  # the needs and weights unfolded
    score.left_tabs.setCurrentIndex(1)  # type: ignore[attr-defined]
    score.scorecard.detail_tabs.setCurrentIndex(1)  # type: ignore[attr-defined]
    shoot("score-weights")
    window.go_to("export")
    shoot("export")
    from desktop.app.settings_dialog import SettingsDialog

    dialog = SettingsDialog(window.context.settings, window)
    dialog.show()
    shoot("settings", dialog)
    dialog.close()
    window.context.settings.screen = ""  # the private settings only
    window.close()
    window.context.workers.wait(30_000)
    qInstallMessageHandler(previous)
    return 0


def _quiet(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """Qt's messages, less the offscreen platform's notes on what it cannot do (they say nothing here)."""
    if "does not support propagateSizeHints" in message:
        return
    print(message, file=sys.stderr)


def _shoot_wizard(window: MainWindow, home: object, shoot: Callable[..., None]) -> None:
    """The guide's pages, filled in as a user would: a name, an office, one candidate from the catalogs and
    one vendor created in place."""
    from desktop.app.home_screen import HomeScreen

    assert isinstance(home, HomeScreen)
    wizard = home.new_evaluation()
    if wizard is None:
        return
    wizard.job.name.setText("q1-gpu")
    shoot("wizard-job", wizard)
    wizard.next()
    wizard.offices.add_office("shanghai", "ct")
    shoot("wizard-offices", wizard)
    wizard.next()
    page = wizard.candidates
    page.provider.setCurrentIndex(max(0, page.provider.findData("aws")))
    page.region.setCurrentIndex(max(0, page.region.findData("ap-northeast-1")))
    page.add_candidate()
    page.provider.setEditText("vendorb")
    page.provider_name.setText("Vendor B")
    page.region.setEditText("tokyo-2")
    page.region_name.setText("Tokyo 2")
    page.addresses.setText("198.18.0.10")
    page.add_candidate()
    shoot("wizard-candidates", wizard)
    wizard.next()
    shoot("wizard-peak", wizard)
    wizard.reject()


def _shoot_offering_form(window: MainWindow, shoot: Callable[..., None]) -> None:
    from desktop.app.catalog_screen import CatalogScreen

    catalog = window.screens.get("catalog")
    if not isinstance(catalog, CatalogScreen):
        return
    wait_idle(window, condition=lambda: catalog.view is not None)
    if catalog.proxy.rowCount() and not catalog.table.selectionModel().hasSelection():
        catalog.table.selectRow(0)
    form = catalog.edit_bar.edit_selected()
    if form is None:
        return
    shoot("offering-editor", form)
    form.reject()
