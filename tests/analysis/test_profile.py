"""Hour-of-day profile and day × hour matrix, checked against figures computed from the raw samples."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from probes.analysis import Scope, TimeZoneError, day_hour_matrix, hour_of_day, pivot_matrix
from probes.analysis.clock import local_hour
from probes.analysis.data import prepare
from probes.histogram import RELATIVE_ERROR
from probes.store import Store
from tests.analysis.reference import figures, labelled_samples
from tests.analysis.synthetic import HOUR_US, Series, StepModel, utc_us, write_series
from tests.analysis.week import LA, OFFPEAK_MS, PEAK_MS, WEEK_START

PERCENTILE_TOLERANCE = RELATIVE_ERROR * 1.0001


def assert_matches(row: pd.Series, expected: dict[str, float | int | None]) -> None:
    assert row["sent"] == expected["sent"]
    assert row["received"] == expected["received"]
    for key in ("loss", "rtt_mean_ms", "jitter_ms"):
        assert row[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12), key
    for key in ("rtt_median_ms", "rtt_p95_ms"):
        assert row[key] == pytest.approx(expected[key], rel=PERCENTILE_TOLERANCE), key


@pytest.mark.parametrize("tz", ["Asia/Shanghai", "America/Los_Angeles", "UTC"])
def test_hour_of_day_matches_raw_samples_and_uses_only_rollups(week_store: Store, tz: str) -> None:
    profile = hour_of_day(week_store, Scope(by="region"), tz=tz)
    reference = labelled_samples(week_store, tz)
    assert set(profile["label"]) == {"raksmart/los-angeles", "lambda/us-west-1"}
    assert len(profile) == 2 * 24
    for _, row in profile.iterrows():
        mine = reference.loc[
            (reference["provider"] == row["provider"])
            & (reference["region"] == row["region"])
            & (reference["hour"] == row["hour"])
        ]
        assert_matches(row, figures(mine))
        assert row["hours"] == 7  # one week: each local hour measured on 7 days
    # Whole-hour zones are answered from the rollups alone.
    prepared = prepare(week_store, Scope(), [local_hour(tz)])
    assert prepared.cells.raw_cells == 0


def test_known_peak_shows_in_the_shanghai_evening_hours(week_store: Store) -> None:
    profile = hour_of_day(week_store, Scope(provider="raksmart"), tz="Asia/Shanghai").set_index("hour")
    evening = profile.loc[[20, 21, 22]]
    rest = profile.drop(index=[20, 21, 22])
    assert (evening["rtt_median_ms"] == PEAK_MS).all()
    assert (rest["rtt_p95_ms"] == OFFPEAK_MS).all()
    assert (evening["throughput_mbps"] == 30.0).all()
    assert (rest["throughput_mbps"] == 80.0).all()
    assert (profile["transfers"] == 7).all()  # one download an hour, seven days


def test_half_hour_zone_is_answered_from_quarter_hours_and_agrees(week_store: Store) -> None:
    tz = "Asia/Kolkata"  # UTC+05:30: no UTC hour is one local hour, every quarter hour is
    prepared = prepare(week_store, Scope(), [local_hour(tz)])
    assert len(prepared.cells.frame) > 0
    assert prepared.cells.raw_cells == 0
    profile = hour_of_day(week_store, Scope(by="region"), tz=tz)
    reference = labelled_samples(week_store, tz)
    for _, row in profile.iterrows():
        mine = reference.loc[(reference["region"] == row["region"]) & (reference["hour"] == row["hour"])]
        assert_matches(row, figures(mine))


def test_kathmandu_quarter_hour_offset(week_store: Store) -> None:
    tz = "Asia/Kathmandu"  # UTC+05:45
    profile = hour_of_day(week_store, Scope(provider="lambda"), tz=tz)
    reference = labelled_samples(week_store, tz)
    reference = reference.loc[reference["provider"] == "lambda"]
    for _, row in profile.iterrows():
        assert_matches(row, figures(reference.loc[reference["hour"] == row["hour"]]))


def test_ragged_period_ends_count_exactly(week_store: Store) -> None:
    since, until = WEEK_START + 90 * 60 * 1_000_000, WEEK_START + 2 * 86_400_000_000 + 10 * 60 * 1_000_000
    profile = hour_of_day(week_store, Scope(since_us=since, until_us=until, by="line_type"), tz="UTC")
    reference = labelled_samples(week_store, "UTC")
    reference = reference.loc[(reference["ts_us"] >= since) & (reference["ts_us"] < until)]
    for _, row in profile.iterrows():
        mine = reference.loc[
            (reference["line_type"] == row["line_type"]) & (reference["hour"] == row["hour"])
        ]
        assert_matches(row, figures(mine))


def test_jitter_pairs_across_a_fallback_boundary_keep_their_predecessor(tmp_path: Path) -> None:
    """A run that starts before a raw-answered stretch still gives its first sample in the stretch a
    jitter predecessor (as the rollups do)."""
    with Store(tmp_path / "s.sqlite3") as store:
        # Runs of 4 attempts 80 minutes apart: a sample's predecessor is more than an hour earlier.
        model = StepModel(100.0, 100.0, noise_sd_ms=5.0, seed=3)
        write_series(
            store,
            [Series(LA, model)],
            utc_us(2026, 11, 2, 0, 45),
            6,
            runs_per_hour=1,
            attempts_per_run=4,
            spacing_us=80 * 60_000_000,
        )
        since = utc_us(2026, 11, 2, 2, 0)
        for tz in ("Asia/Kolkata", "UTC"):
            profile = hour_of_day(store, Scope(since_us=since), tz=tz)
            reference = labelled_samples(store, tz)
            reference = reference.loc[reference["ts_us"] >= since]
            for _, row in profile.loc[profile["sent"] > 0].iterrows():
                assert_matches(row, figures(reference.loc[reference["hour"] == row["hour"]]))


def test_day_hour_matrix_matches_raw_samples(week_store: Store) -> None:
    matrix = day_hour_matrix(week_store, Scope(provider="lambda"), tz="Asia/Shanghai")
    reference = labelled_samples(week_store, "Asia/Shanghai")
    reference = reference.loc[reference["provider"] == "lambda"]
    # The week starts at 08:00 Shanghai on Monday and ends at 08:00 the next Monday: 8 local dates.
    assert matrix["date"].nunique() == 8
    assert len(matrix) == 7 * 24
    for _, row in matrix.iterrows():
        mine = reference.loc[(reference["date"] == row["date"]) & (reference["hour"] == row["hour"])]
        expected = figures(mine)
        assert row["sent"] == expected["sent"]
        assert row["loss"] == pytest.approx(expected["loss"])
        assert row["rtt_p95_ms"] == pytest.approx(expected["rtt_p95_ms"], rel=PERCENTILE_TOLERANCE)
    table = pivot_matrix(matrix, "rtt_p95_ms")
    assert list(table.columns) == list(range(24))
    assert table.shape == (8, 24)
    assert math.isnan(table.iloc[0, 0])  # Monday 00:00 Shanghai was before the first sample
    assert not math.isnan(table.iloc[0, 8])


def test_empty_scope_gives_empty_profile(week_store: Store) -> None:
    assert hour_of_day(week_store, Scope(provider="nobody")).empty
    profile = hour_of_day(week_store, Scope(since_us=utc_us(2030, 1, 1)), tz="UTC")
    assert (profile["sent"] == 0).all()
    assert profile["rtt_median_ms"].isna().all()


def test_unknown_time_zone_is_a_clear_error(week_store: Store) -> None:
    with pytest.raises(TimeZoneError, match="Mars/Olympus"):
        hour_of_day(week_store, tz="Mars/Olympus")


def test_samples_are_never_counted_twice_across_hours(week_store: Store) -> None:
    total = len(week_store.samples_frame(week_store_ids(week_store)))
    for tz in ("Asia/Shanghai", "Asia/Kolkata"):
        assert int(hour_of_day(week_store, Scope(), tz=tz)["sent"].sum()) == total
    assert HOUR_US == 3_600_000_000
    assert np.isclose(total, 2 * 7 * 24 * 4 * 30)


def week_store_ids(store: Store) -> list[int]:
    return [t.id for t in store.series() if t.method in ("icmp", "tcp")]
