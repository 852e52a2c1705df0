"""Keeping a team's store small (the manual's team-mode page, "How to keep it"): the raw samples of rounds
older than a cut-off are deleted with the SQL the manual gives, and the analysis of whole hours and quarter
hours still says the same to the last bit, on SQLite and a real PostgreSQL server alike, because it reads
the rollups (kept) wherever they answer. What needs the deleted samples (a window or scope edge that splits a
quarter hour inside the pruned days) is then answered from what is left."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from probes.analysis import Scope, compare_peak, comparisons_frame, hour_of_day, link_summaries
from probes.peak import PeakWindow
from probes.store import Store
from tests.analysis.synthetic import HOUR_US, Series, write_series
from tests.analysis.week import LA, SJC, WEEK_START, la_model, sjc_model

# The manual's statement, as it is written there (a cut-off at a quarter hour, in UTC µs).
PRUNE = "DELETE FROM samples WHERE result_id IN (SELECT id FROM results WHERE started_us < {cutoff})"
WINDOWS = (PeakWindow.parse("20:00-23:00 Asia/Shanghai"),)


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "team.sqlite3")
    return str(request.getfixturevalue("postgres_url"))


def _analysis(store: Store, since_us: int = WEEK_START) -> tuple[pd.DataFrame, pd.DataFrame, list[object]]:
    scope = Scope(since_us=since_us, until_us=WEEK_START + 72 * HOUR_US)
    frame = hour_of_day(store, scope)
    hours = frame.sort_values(list(frame.columns[:3])).reset_index(drop=True)
    peaks = comparisons_frame(compare_peak(store, scope, WINDOWS))
    return hours, peaks, list(link_summaries(store, scope, WINDOWS))


def test_the_analysis_of_pruned_days_is_the_same_from_the_rollups(location: str) -> None:
    with Store(location) as store:
        write_series(store, [Series(LA, la_model()), Series(SJC, sjc_model())], WEEK_START, 72)
        before = _analysis(store)
        ragged = _analysis(store, WEEK_START + 10_000_000)  # a scope edge 10 s into a run
        samples = store.counts()["samples"]
        cutoff = WEEK_START + 48 * HOUR_US  # the first two days' raw samples go
        with store.backend.transaction("prune"):
            store.backend._execute(PRUNE.format(cutoff=cutoff))  # type: ignore[attr-defined]
        left = store.counts()["samples"]
        assert 0 < left < samples / 2
        after = _analysis(store)
        ragged_after = _analysis(store, WEEK_START + 10_000_000)
    pd.testing.assert_frame_equal(before[0], after[0])
    pd.testing.assert_frame_equal(before[1], after[1])
    assert before[2] == after[2]
    # The edge's quarter hour came from raw samples: pruned, it is answered from what is left (less).
    assert not ragged[0].equals(ragged_after[0])
