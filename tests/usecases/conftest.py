"""The synthetic week of `tests/analysis` (two regions with a known Shanghai-evening peak), for the use-cases
that read measurements."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from probes.store import Store
from tests.analysis.week import write_week


@pytest.fixture(scope="session")
def week_store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_week(tmp_path_factory.mktemp("week") / "week.sqlite3")


@pytest.fixture
def week_store(week_store_path: Path) -> Iterator[Store]:
    with Store(week_store_path, readonly=True) as store:
        yield store
