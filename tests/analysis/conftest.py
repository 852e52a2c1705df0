"""A week of synthetic measurements with a known Shanghai-evening peak, written through the store's API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from probes.store import Store
from tests.analysis.synthetic import Series, write_series
from tests.analysis.week import LA, SJC, WEEK_HOURS, WEEK_START, download_at, la_model, sjc_model


@pytest.fixture(scope="session")
def week_store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("week") / "week.sqlite3"
    with Store(path) as store:
        write_series(
            store,
            [Series(LA, la_model()), Series(SJC, sjc_model())],
            WEEK_START,
            WEEK_HOURS,
            extra=download_at,
        )
    return path


@pytest.fixture
def week_store(week_store_path: Path) -> Iterator[Store]:
    with Store(week_store_path, readonly=True) as store:
        yield store
