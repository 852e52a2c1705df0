"""The window as a whole: screens built on first show, preferences kept, errors shown where users look,
work kept off the GUI thread, and the `linkvet gui` entry point."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QSettings, Slot

from desktop.app.settings import AppSettings
from desktop.app.settings_dialog import SettingsDialog
from desktop.app.workers import Workers
from tests.conftest import REPO_ROOT, cli_env


def test_screens_are_built_when_first_shown_and_the_last_one_is_remembered(window, qtbot, qsettings) -> None:
    assert set(window.screens) == {"home"}  # the evaluation's home is the first screen
    window.nav.setCurrentRow(2)
    assert set(window.screens) == {"home", "probe"}
    assert window.stack.currentWidget() is window.screens["probe"]
    qsettings.sync()
    assert AppSettings(qsettings).screen == "probe"


def test_first_run_offers_loopback_and_an_unreadable_list_is_kept_aside(
    window, qtbot, qapp, tmp_path
) -> None:
    entries = window.context.targets.entries()
    assert [e.target.host for e in entries] == ["127.0.0.1"]
    # A damaged probe list: the next start says so in a dialog and keeps the file.
    from desktop.app.main import build_window

    path = window.context.settings.targets_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{broken")
    other = build_window(qapp, window.context.settings.qsettings, warm=False)
    qtbot.addWidget(other)
    assert other.last_error is not None and "not valid JSON" in other.last_error.text()
    assert path.with_suffix(".unreadable").read_text() == "{broken"
    assert other.context.targets.rowCount() == 0


def test_settings_dialog_rejects_a_bad_peak_window_and_saves_good_ones(qapp, qtbot, tmp_path) -> None:
    settings = AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.peak.setPlainText("20:00-23:00 Asia/Shanghai\n25:00-26:00 Mars/Olympus")
    dialog.accept()
    assert "peak window 2" in dialog.error.text() and dialog.result() == 0
    dialog.peak.setPlainText("20:00-23:00 Asia/Shanghai\n12:00-13:30 Europe/Berlin mon,fri")
    dialog.time_zone.setCurrentText("Europe/Berlin")
    dialog.data_dir.setText(str(tmp_path / "elsewhere"))
    dialog.accept()
    assert dialog.result() == 1
    again = AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert [str(w) for w in again.peak_windows] == [
        "20:00-23:00 Asia/Shanghai",
        "12:00-13:30 Europe/Berlin mon,fri",
    ]
    assert again.time_zone == "Europe/Berlin"
    assert again.db_path == tmp_path / "elsewhere" / "linkvet.sqlite3"


class Receiver(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []
        self.values: list[object] = []
        self.errors: list[str] = []

    @Slot(object)
    def done(self, value: object) -> None:
        self.threads.append(threading.get_ident())
        self.values.append(value)

    @Slot(str)
    def failed(self, message: str) -> None:
        self.threads.append(threading.get_ident())
        self.errors.append(message)


def test_workers_compute_off_the_gui_thread_and_deliver_on_it(qapp, qtbot) -> None:
    workers = Workers()
    receiver = Receiver()
    workers.submit(threading.get_ident, on_done=receiver.done, on_error=receiver.failed)
    workers.submit(lambda: [][1], on_done=receiver.done, on_error=receiver.failed)
    qtbot.waitUntil(lambda: len(receiver.threads) == 2, timeout=5_000)
    assert receiver.values[0] != threading.get_ident()  # computed on a pool thread
    assert receiver.threads == [threading.get_ident()] * 2  # delivered on the GUI thread
    assert receiver.errors == ["IndexError: list index out of range"]
    qtbot.waitUntil(lambda: workers.busy == 0, timeout=5_000)


def test_linkvet_gui_starts_and_quits(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    env["QT_QPA_PLATFORM"] = "offscreen"
    done = subprocess.run(
        [sys.executable, "-m", "desktop.cli", "gui", "--quit-after-startup"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_linkvet_gui_without_a_display_explains(tmp_path: Path) -> None:
    # (`linkvet` alone without a display runs the headless main job: tests/cli/test_cli.py)
    env = {
        k: v
        for k, v in cli_env(tmp_path).items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    gui = subprocess.run(
        [sys.executable, "-m", "desktop.cli", "gui"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert gui.returncode == 3 and "no display" in gui.stderr


def test_the_headless_command_does_not_load_qt_even_with_gui_registered() -> None:
    code = (
        "import sys; from desktop.cli import build_parser; build_parser(); import desktop.cli.gui;"
        "print(','.join(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert out.stdout.strip() == ""


def test_a_remembered_heavy_screen_is_built_after_the_window_is_up(qapp, qtbot, qsettings) -> None:
    from desktop.app.main import build_window
    from desktop.app.main_window import warm_imports

    qsettings.setValue("window/screen_key", "charts")
    win = build_window(qapp, qsettings, warm=False)
    qtbot.addWidget(win)
    win.show()
    assert "charts" not in win.screens and win.nav.currentRow() == 3
    qtbot.waitUntil(lambda: "charts" in win.screens, timeout=10_000)
    assert win.stack.currentWidget() is win.screens["charts"]
    warm_imports()  # the warm-up the real start runs on a thread: harmless once everything is loaded
    win.close()
    win.context.workers.wait(10_000)


def test_the_window_takes_db_lang_and_linkvet_db(
    qapp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QSettings

    from desktop.app.settings import AppSettings

    qsettings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    qsettings.setValue("data/dir", str(tmp_path / "data"))
    qsettings.setValue("display/language", "en")
    monkeypatch.delenv("LINKVET_DB", raising=False)
    assert AppSettings(qsettings).store_location == tmp_path / "data" / "linkvet.sqlite3"
    assert AppSettings(qsettings).store_fixed_by is None
    monkeypatch.setenv("LINKVET_DB", str(tmp_path / "env.sqlite3"))
    settings = AppSettings(qsettings)
    assert settings.store_location == tmp_path / "env.sqlite3" and settings.store_fixed_by == "LINKVET_DB"
    given = AppSettings(qsettings, store_override=tmp_path / "given.sqlite3", language_override="zh_CN")
    assert given.store_location == tmp_path / "given.sqlite3" and given.store_fixed_by == "--db"
    assert given.language == "zh_CN"  # for this run: the saved choice stays English
    assert qsettings.value("display/language") == "en"
    given.language = "en"  # chosen in the window: it counts from now on
    assert given.language == "en"
