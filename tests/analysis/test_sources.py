"""Which rollups answer which periods: every zone and window on a quarter hour from rollups, with the same
answer as the raw samples give; only periods split off the quarter hour from raw samples."""

from __future__ import annotations

import numpy as np
import pytest

from probes.analysis.cells import merge_cells
from probes.analysis.clock import Labeler, in_peak, label_periods, local_hour
from probes.analysis.sources import build_cells
from probes.peak import PeakWindow
from probes.store import Store
from tests.analysis.week import WEEK_START

MINUTE_US = 60_000_000

CASES = {
    "Asia/Kolkata (+05:30)": [local_hour("Asia/Kolkata")],
    "Asia/Kathmandu (+05:45)": [local_hour("Asia/Kathmandu")],
    "window 20:30-23:00": [in_peak([PeakWindow.parse("20:30-23:00 Asia/Shanghai")])],
    "window 20:45-22:15 and Kolkata hours": [
        in_peak([PeakWindow.parse("20:45-22:15 Asia/Shanghai")]),
        local_hour("Asia/Kolkata"),
    ],
}


def _ids(store: Store) -> list[int]:
    return [t.id for t in store.series() if t.method in ("icmp", "tcp")]


def _compare(store: Store, labelers: list[Labeler], **period: int) -> tuple[int, int]:
    """Rollup-answered and raw-answered cells merged by target and labels must agree: counts exactly, sums to
    rounding, histograms (hence every percentile) exactly. Returns (raw cells of the rollup answer, cells)."""
    ids = _ids(store)
    fast = build_cells(store, ids, labelers, **period)
    raw = build_cells(store, ids, labelers, raw_only=True, **period)  # every period from raw samples
    assert raw.raw_cells == len(raw.frame) > 0
    keys = ["series_id", *(labeler.name for labeler in labelers)]
    a, b = merge_cells(fast, keys), merge_cells(raw, keys)
    assert len(a.frame) == len(b.frame)
    for column in (*keys, "sent", "received", "jitter_pairs", "hours"):
        assert (a.frame[column].to_numpy() == b.frame[column].to_numpy()).all(), column
    for column in ("rtt_sum_ms", "jitter_sum_ms", "rtt_min_ms", "rtt_max_ms", "rtt_median_ms", "rtt_p95_ms"):
        assert np.allclose(a.frame[column], b.frame[column], rtol=1e-12, equal_nan=True), column
    assert (a.hist.dense(len(a.frame)) == b.hist.dense(len(b.frame))).all()
    return fast.raw_cells, len(fast.frame)


@pytest.mark.parametrize("case", sorted(CASES))
def test_quarter_hour_zones_and_windows_come_from_rollups_and_equal_the_raw_answer(
    week_store: Store, case: str
) -> None:
    raw_cells, cells = _compare(week_store, CASES[case])
    assert cells > 0 and raw_cells == 0


def test_a_window_off_the_quarter_hour_falls_back_to_raw_samples_for_those_quarters_only(
    week_store: Store,
) -> None:
    labelers = [in_peak([PeakWindow.parse("20:10-23:00 Asia/Shanghai")])]
    raw_cells, cells = _compare(week_store, labelers)
    # The quarter hour 20:00-20:15 of each evening is split (its run, 20:00:00-20:00:30, lies before 20:10):
    # one raw cell per target and evening; nothing else.
    assert raw_cells == 2 * 7
    assert cells > raw_cells


def test_a_period_starting_off_the_quarter_hour_reads_raw_samples_only_for_its_ragged_ends(
    week_store: Store,
) -> None:
    # Runs of 30 echoes a second apart start on every quarter hour: both ends cut a run in two.
    since = WEEK_START + 90 * MINUTE_US + 10_000_000
    until = WEEK_START + 3 * 86_400_000_000 + 15 * MINUTE_US + 20_000_000
    raw_cells, _cells = _compare(week_store, [local_hour("Asia/Kolkata")], since_us=since, until_us=until)
    assert raw_cells == 2 * 2  # two targets × the quarter hour at each end


def test_every_offset_in_use_is_uniform_over_quarter_hours() -> None:
    starts = np.arange(WEEK_START // 1_000_000, WEEK_START // 1_000_000 + 2 * 86_400, 900, dtype=np.int64)
    for tz in ("Asia/Kolkata", "Asia/Kathmandu", "Australia/Eucla", "Pacific/Chatham", "America/St_Johns"):
        _labels, uniform = label_periods(starts, 900, [local_hour(tz)])
        assert uniform.all(), tz
        _labels, uniform = label_periods(starts[::4], 3600, [local_hour(tz)])
        assert not uniform.any(), tz
