"""The same rounds written to SQLite and to a real PostgreSQL server give the same analysis, to the last bit:
hour-of-day, the day × hour matrix, peak comparisons with their intervals, breaches, link summaries per vantage
point and route verdicts. The analysis never knows which backend it reads."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from probes.analysis import (
    Scope,
    breach_shares,
    compare_peak,
    day_hour_matrix,
    hour_of_day,
    link_summaries,
    route_verdicts,
)
from probes.routes import bundled_table
from probes.store import Store
from probes.target import Method, Target
from tests.analysis.synthetic import Series, StepModel, save_traces, utc_us, write_series
from tests.analysis.week import LA, SJC, download_at, la_model, sjc_model

START = utc_us(2026, 11, 2)
HOURS = 48
TRACED = Target(
    Method.TRACE, host="127.0.0.9", provider="raksmart", region="los-angeles", line_type="cn2-gia"
)


def _write(store: Store) -> None:
    """Two days from two offices (Beijing sees a worse evening than Shanghai), downloads, and traces."""
    write_series(
        store,
        [Series(LA, la_model()), Series(SJC, sjc_model())],
        START,
        HOURS,
        extra=download_at,
        vantage="shanghai",
    )
    write_series(
        store,
        [Series(LA, StepModel(160.0, 260.0, offpeak_loss_per_mille=3, peak_loss_per_mille=90))],
        START,
        HOURS,
        vantage="beijing",
    )
    paths = [["10.0.0.1", "202.97.12.1", "202.97.50.1"]] * 3 + [["10.0.0.1", "59.43.1.1", "59.43.2.2"]] * 5
    save_traces(store, TRACED, paths, utc_us(2026, 11, 2, 3))


@pytest.fixture
def both(tmp_path: Path, postgres_url: str) -> Iterator[tuple[Store, Store]]:
    with Store(tmp_path / "s.sqlite3") as sqlite, Store(postgres_url) as postgres:
        _write(sqlite)
        _write(postgres)
        yield sqlite, postgres


def _plain(value: Any) -> Any:
    """A result as plain data (dataclasses → dicts), NaN made comparable."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, pd.DataFrame):
        return _plain(value.to_dict("split"))
    return value


SCOPES = [
    Scope(),
    Scope(vantage="beijing"),
    Scope(region="los-angeles"),
    Scope(since_us=START + 7 * 3_600_000_000),
]


def test_the_stores_hold_the_same_rows(both: tuple[Store, Store]) -> None:
    sqlite, postgres = both
    assert sqlite.counts() == postgres.counts()
    pd.testing.assert_frame_equal(sqlite.results_frame(), postgres.results_frame())
    # Samples come by time and attempt; the order among samples of the same instant is SQL's to choose.
    order = ["ts_us", "seq", "result_id"]
    pd.testing.assert_frame_equal(
        sqlite.samples_frame().sort_values(order, ignore_index=True),
        postgres.samples_frame().sort_values(order, ignore_index=True),
    )
    for period_s in (3600, 900):
        pd.testing.assert_frame_equal(sqlite.rollup_frame(period_s), postgres.rollup_frame(period_s))
    assert sqlite.traces() == postgres.traces()
    assert sqlite.series() == postgres.series()
    assert sqlite.rounds() == postgres.rounds()
    assert sqlite.series_histories() == postgres.series_histories()


@pytest.mark.parametrize("scope", SCOPES, ids=["all", "beijing", "la", "since"])
def test_the_analysis_is_the_same_on_both(both: tuple[Store, Store], scope: Scope) -> None:
    sqlite, postgres = both
    for tz in ("Asia/Shanghai", "Asia/Kolkata"):  # a whole-hour zone and a half-hour one (raw samples)
        pd.testing.assert_frame_equal(hour_of_day(sqlite, scope, tz), hour_of_day(postgres, scope, tz))
        pd.testing.assert_frame_equal(
            day_hour_matrix(sqlite, scope, tz), day_hour_matrix(postgres, scope, tz)
        )
    assert _plain(compare_peak(sqlite, scope)) == _plain(compare_peak(postgres, scope))
    assert _plain(breach_shares(sqlite, scope)) == _plain(breach_shares(postgres, scope))
    table = bundled_table()
    routes = route_verdicts(sqlite, scope, table=table)
    assert routes == route_verdicts(postgres, scope, table=table)
    assert _plain(link_summaries(sqlite, scope, routes=routes)) == _plain(
        link_summaries(postgres, scope, routes=routes)
    )
    if scope == Scope():
        assert routes and {link.vantage for link in link_summaries(postgres, scope)} == {
            "shanghai",
            "beijing",
        }
