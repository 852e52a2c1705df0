"""The rollup maths without a database: per target and hour deltas of raw samples, and how they merge."""

from __future__ import annotations

import numpy as np
import pytest

from probes import histogram
from probes.store.rollup import HOUR_S, ROLLUP_COLUMNS, RollupDelta, RunSamples, rollup_deltas

T0_US = 1_796_000_400 * 1_000_000  # a whole UTC hour
HOUR_US = HOUR_S * 1_000_000


def _runs(rows: list[tuple[int, int, int, float | None]]) -> RunSamples:
    runs = RunSamples()
    for target, run, ts_us, rtt in rows:
        runs.append(target, run, ts_us, rtt)
    return runs


def test_deltas_count_sum_and_bound_each_target_and_hour() -> None:
    rows = [
        (1, 1, T0_US + 10, 100.0),
        (1, 1, T0_US + 20, None),
        (1, 1, T0_US + 30, 104.0),
        (1, 1, T0_US + HOUR_US + 5, 101.0),  # the same run, the next hour
        (2, 2, T0_US + 40, 50.0),
    ]
    deltas = rollup_deltas(_runs(rows))
    assert [(target, start) for target, start, _ in deltas] == [
        (1, T0_US // 1_000_000),
        (1, T0_US // 1_000_000 + HOUR_S),
        (2, T0_US // 1_000_000),
    ]
    first, second, other = (d for _, _, d in deltas)
    assert (first.sent, first.received, first.rtt_sum_ms) == (3, 2, 204.0)
    assert (first.rtt_min_ms, first.rtt_max_ms) == (100.0, 104.0)
    # Consecutive received RTTs of a run pair up across the lost one; a pair belongs to its later sample's hour.
    assert (first.jitter_pairs, first.jitter_sum_ms) == (1, 4.0)
    assert (second.jitter_pairs, second.jitter_sum_ms) == (1, 3.0)
    assert (other.jitter_pairs, other.sent) == (0, 1)
    assert histogram.quantile(first.hist, 0.5) == pytest.approx(102.0, rel=histogram.RELATIVE_ERROR + 0.01)


def test_an_hour_without_replies_has_no_bounds() -> None:
    ((_, _, delta),) = rollup_deltas(_runs([(1, 1, T0_US, None), (1, 1, T0_US + 1, None)]))
    assert (delta.sent, delta.received, delta.rtt_min_ms, delta.rtt_max_ms) == (2, 0, None, None)
    assert delta.hist.sum() == 0
    assert rollup_deltas(RunSamples()) == []


def test_merging_deltas_equals_the_delta_of_all_samples() -> None:
    rng = np.random.default_rng(7)
    rows = []
    for run in range(1, 21):  # 20 runs of 30 attempts, one target, over ~3 hours, 10% loss
        start = T0_US + int(rng.integers(0, 3 * HOUR_US))
        for i in range(30):
            rtt = None if rng.random() < 0.1 else float(rng.normal(150, 10))
            rows.append((7, run, start + i * 1_000_000, rtt))
    whole = {(t, s): d for t, s, d in rollup_deltas(_runs(rows))}
    halves: dict[tuple[int, int], RollupDelta] = {}
    for part in (rows[: len(rows) // 2], rows[len(rows) // 2 :]):  # split between runs (30 divides it)
        for target, start, delta in rollup_deltas(_runs(part)):
            before = halves.get((target, start))
            halves[(target, start)] = delta if before is None else delta.plus(before)
    assert whole.keys() == halves.keys()
    for key, delta in whole.items():
        merged = halves[key]
        assert (merged.sent, merged.received, merged.jitter_pairs) == (
            delta.sent,
            delta.received,
            delta.jitter_pairs,
        )
        assert merged.rtt_sum_ms == pytest.approx(delta.rtt_sum_ms)
        assert merged.jitter_sum_ms == pytest.approx(delta.jitter_sum_ms)
        assert (merged.rtt_min_ms, merged.rtt_max_ms) == (delta.rtt_min_ms, delta.rtt_max_ms)
        assert np.array_equal(merged.hist, delta.hist)


def test_the_stored_form_round_trips() -> None:
    ((target, start, delta),) = rollup_deltas(_runs([(3, 1, T0_US, 12.5), (3, 1, T0_US + 1, 13.0)]))
    row = delta.row(target, start)
    assert len(row) == len(ROLLUP_COLUMNS) and row[:2] == (3, T0_US // 1_000_000)
    back = RollupDelta.of_row(row)
    assert (back.sent, back.received, back.rtt_sum_ms, back.jitter_pairs) == (2, 2, 25.5, 1)
    assert np.array_equal(back.hist, delta.hist)


def test_shorter_periods_split_the_hour() -> None:
    rows = [(1, 1, T0_US + minute * 60_000_000, 10.0) for minute in (0, 14, 15, 59)]
    deltas = rollup_deltas(_runs(rows), period_s=15 * 60)
    assert [(start - T0_US // 1_000_000, d.sent) for _, start, d in deltas] == [(0, 2), (900, 1), (2700, 1)]
