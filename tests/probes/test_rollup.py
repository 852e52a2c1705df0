"""The rollup maths without a database: per target and period parts of raw samples, and how they merge."""

from __future__ import annotations

import math

import numpy as np
import pytest

from probes import histogram
from probes.store.rollup import HOUR_S, QUARTER_S, ROLLUP_COLUMNS, Rollups, sample_parts

T0_US = 1_796_000_400 * 1_000_000  # a whole UTC hour
HOUR_US = HOUR_S * 1_000_000


def _rollups(rows: list[tuple[int, int, int, float | None]], period_s: int = HOUR_S) -> Rollups:
    target, run, ts, rtt = zip(*rows, strict=True) if rows else ((), (), (), ())
    return Rollups.of_samples(
        period_s,
        np.asarray(target, dtype=np.int64),
        np.asarray(run, dtype=np.int64),
        np.asarray(ts, dtype=np.int64),
        np.asarray([math.nan if v is None else v for v in rtt], dtype=np.float64),
    )


def _row(rollups: Rollups, i: int) -> dict[str, float | int | None]:
    row = rollups.rows()[i]
    return dict(zip(ROLLUP_COLUMNS, row, strict=True))


def test_parts_count_sum_and_bound_each_target_and_hour() -> None:
    rows = [
        (1, 1, T0_US + 10, 100.0),
        (1, 1, T0_US + 20, None),
        (1, 1, T0_US + 30, 104.0),
        (1, 1, T0_US + HOUR_US + 5, 101.0),  # the same run, the next hour
        (2, 2, T0_US + 40, 50.0),
    ]
    rollups = _rollups(rows)
    assert rollups.keys() == [
        (1, T0_US // 1_000_000),
        (1, T0_US // 1_000_000 + HOUR_S),
        (2, T0_US // 1_000_000),
    ]
    first, second, other = (_row(rollups, i) for i in range(3))
    assert (first["sent"], first["received"], first["rtt_sum_ms"]) == (3, 2, 204.0)
    assert (first["rtt_min_ms"], first["rtt_max_ms"]) == (100.0, 104.0)
    # Consecutive received RTTs of a run pair up across the lost one; a pair belongs to its later sample's hour.
    assert (first["jitter_pairs"], first["jitter_sum_ms"]) == (1, 4.0)
    assert (second["jitter_pairs"], second["jitter_sum_ms"]) == (1, 3.0)
    assert (other["jitter_pairs"], other["sent"]) == (0, 1)
    dense = rollups.dense_hist()
    assert histogram.quantile(dense[0], 0.5) == pytest.approx(102.0, rel=histogram.RELATIVE_ERROR + 0.01)


def test_an_hour_without_replies_has_no_bounds() -> None:
    rollups = _rollups([(1, 1, T0_US, None), (1, 1, T0_US + 1, None)])
    row = _row(rollups, 0)
    assert (row["sent"], row["received"], row["rtt_min_ms"], row["rtt_max_ms"]) == (2, 0, None, None)
    assert rollups.dense_hist().sum() == 0 and row["hist_index"] == b""
    assert len(_rollups([])) == 0


def test_merging_rollups_equals_the_rollups_of_all_samples() -> None:
    rng = np.random.default_rng(7)
    rows = []
    for run in range(1, 21):  # 20 runs of 30 attempts, one target, over ~3 hours, 10% loss
        start = T0_US + int(rng.integers(0, 3 * HOUR_US))
        for i in range(30):
            rtt = None if rng.random() < 0.1 else float(rng.normal(150, 10))
            rows.append((7, run, start + i * 1_000_000, rtt))
    for period_s in (HOUR_S, QUARTER_S):
        whole = _rollups(rows, period_s)
        # split between runs (30 divides it)
        halves = _rollups(rows[: len(rows) // 2], period_s).plus(_rollups(rows[len(rows) // 2 :], period_s))
        assert whole.keys() == halves.keys()
        a, b = whole.rows(), halves.rows()
        for got, want in zip(b, a, strict=True):
            assert got[:4] + got[8:] == want[:4] + want[8:]  # keys, counts, pairs and histograms exactly
            assert got[4] == pytest.approx(want[4]) and got[7] == pytest.approx(want[7])
            assert got[5:7] == want[5:7]


def test_rollups_merged_round_after_round_keep_one_histogram_entry_per_bucket() -> None:
    """An agent adds each round to the rollups it remembers: the merged histograms must stay the size of
    their distinct buckets, not grow by an entry per sample (an hour of 10,000 targets once a minute would
    hold 12 million), and count every sample."""
    rng = np.random.default_rng(11)
    targets, attempts = 50, 20
    merged = Rollups.empty(HOUR_S)
    for minute in range(30):  # half an hour of rounds, all in one hour
        rows = [
            (t, minute * targets + t, T0_US + minute * 60_000_000 + i * 1_000_000, float(rng.normal(80, 2)))
            for t in range(targets)
            for i in range(attempts)
        ]
        merged = _rollups(rows).plus(merged)
    hist = merged.parts.hist
    pairs = set(zip(hist.row.tolist(), hist.bucket.tolist(), strict=True))
    assert hist.row.size == len(pairs) < targets * 30  # one entry per (rollup, bucket): ~a dozen buckets each
    assert merged.dense_hist().sum(axis=1).tolist() == [30 * attempts] * targets
    assert (merged.parts.sent == 30 * attempts).all()


def test_the_stored_form_round_trips_and_matches_the_single_histogram_encoding() -> None:
    rollups = _rollups([(3, 1, T0_US, 12.5), (3, 1, T0_US + 1, 13.0), (4, 2, T0_US, 900.0)])
    rows = rollups.rows()
    assert len(rows[0]) == len(ROLLUP_COLUMNS) and rows[0][:2] == (3, T0_US // 1_000_000)
    dense = rollups.dense_hist()
    for row, hist in zip(rows, dense, strict=True):
        assert (row[9], row[10]) == histogram.encode(hist)
    back = Rollups.of_rows(HOUR_S, rows)
    assert back.rows() == rows


def test_rows_that_are_not_rollups_are_refused() -> None:
    good = list(_rollups([(3, 1, T0_US, 12.5)]).rows()[0])
    for column, garbage in ((2, "many"), (9, "not a blob"), (4, b"\x00")):
        bad = [*good]
        bad[column] = garbage
        with pytest.raises((TypeError, ValueError)):
            Rollups.of_rows(HOUR_S, [tuple(bad)])


def test_shorter_periods_split_the_hour() -> None:
    rows = [(1, 1, T0_US + minute * 60_000_000, 10.0) for minute in (0, 14, 15, 59)]
    rollups = _rollups(rows, QUARTER_S)
    assert [
        (start - T0_US // 1_000_000, row[2])
        for (_, start), row in zip(rollups.keys(), rollups.rows(), strict=True)
    ] == [
        (0, 2),
        (900, 1),
        (2700, 1),
    ]


def test_counted_samples_keep_their_predecessors_pairs() -> None:
    """Samples that only serve as jitter predecessors count for nothing but the next sample's pair."""
    run = np.array([1, 1, 1, 2, 2])
    rtt = np.array([10.0, 13.0, np.nan, 20.0, 26.0])
    group = np.array([0, 0, 0, 0, 0])
    counted = np.array([False, True, True, False, True])
    parts = sample_parts(run, rtt, group, 1, counted)
    assert (parts.sent[0], parts.received[0], parts.jitter_pairs[0]) == (3, 2, 2)
    assert parts.jitter_sum_ms[0] == pytest.approx(3.0 + 6.0)
    assert (parts.rtt_min_ms[0], parts.rtt_max_ms[0]) == (13.0, 26.0)


def test_quarter_hours_coarsened_are_the_hours() -> None:
    rng = np.random.default_rng(5)
    rows = []
    for run in range(1, 40):  # runs of 12 attempts 2 minutes apart, crossing quarter hours and hours
        start = T0_US + int(rng.integers(0, 3 * HOUR_US))
        for i in range(12):
            rtt = None if rng.random() < 0.1 else float(rng.normal(80, 9))
            rows.append((run % 3, run, start + i * 120_000_000, rtt))
    hours, coarsened = _rollups(rows, HOUR_S), _rollups(rows, QUARTER_S).coarsened(HOUR_S)
    assert hours.keys() == coarsened.keys()
    assert sum(row[8] for row in hours.rows()) > 300  # jitter pairs, many across period edges
    for a, b in zip(hours.rows(), coarsened.rows(), strict=True):
        assert a[:4] + a[5:7] + a[8:] == b[:4] + b[5:7] + b[8:]
        assert a[4] == pytest.approx(b[4]) and a[7] == pytest.approx(b[7])
