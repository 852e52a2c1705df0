"""GUI tests run offscreen (no display needed) with pytest-qt, each with its own settings file, data folder
and result store. Run them on a display with `QT_QPA_PLATFORM=xcb python -m pytest tests/gui`."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from collections.abc import Iterator
from pathlib import Path

import pytest

GUI_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(GUI_DIR):
            item.add_marker(pytest.mark.gui)


@pytest.fixture(autouse=True)
def _no_store_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The window's store is the test's own (LINKVET_DB, if whoever runs the tests has it set, would win)."""
    monkeypatch.delenv("LINKVET_DB", raising=False)


@pytest.fixture
def qsettings(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A private QSettings file whose data folder is inside the test's temporary directory."""
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("data/dir", str(tmp_path / "data"))
    settings.setValue("display/language", "en")
    settings.sync()
    return settings


@pytest.fixture
def window(qtbot, qapp, qsettings) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """The main window, as `linkvet gui` builds it, on the test's settings."""
    from desktop.app.main import build_window

    win = build_window(qapp, qsettings, warm=False)
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()
    win.context.workers.wait(30_000)
    win.language.apply("en")


@pytest.fixture
def context(qapp, qsettings) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """The collaborators a screen is given, for testing one screen on its own."""
    from desktop.app.context import AppContext
    from desktop.app.models.target_list import TargetListModel
    from desktop.app.settings import AppSettings
    from desktop.app.workers import Workers

    ctx = AppContext(settings=AppSettings(qsettings), workers=Workers(), targets=TargetListModel())
    yield ctx
    ctx.workers.wait(30_000)
