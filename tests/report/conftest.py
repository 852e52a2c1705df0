"""A made evaluation in a real SQLite store, made once per test session (copied per test that writes)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.report.lab_store import make_evaluation


@pytest.fixture(scope="session")
def _measured_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(store, the user catalog folder it was made with): q1, three days at a 20-minute cadence."""
    folder = tmp_path_factory.mktemp("report-store")
    catalogs = folder / "catalogs"
    before = os.environ.get("LINKVET_CATALOG_DIR")
    os.environ["LINKVET_CATALOG_DIR"] = str(catalogs)
    try:
        yield make_evaluation(folder / "team.sqlite3", days=3, every_min=20), catalogs
    finally:
        if before is None:
            os.environ.pop("LINKVET_CATALOG_DIR", None)
        else:
            os.environ["LINKVET_CATALOG_DIR"] = before


@pytest.fixture
def measured_db(_measured_store: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the made store for this test, with the user catalogs it was made with."""
    store, catalogs = _measured_store
    copy = tmp_path / "team.sqlite3"
    shutil.copyfile(store, copy)
    if catalogs.exists():
        shutil.copytree(catalogs, tmp_path / "catalogs", dirs_exist_ok=True)
    monkeypatch.setenv("LINKVET_CATALOG_DIR", str(tmp_path / "catalogs"))
    return copy


@pytest.fixture
def empty_db(tmp_path: Path) -> Path:
    """q1 with its candidates and offices, nothing measured."""
    return make_evaluation(tmp_path / "empty.sqlite3", measured=False)
