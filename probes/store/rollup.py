"""The rollup maths: a round's samples → one additive delta per target and UTC hour, and how deltas merge.

Pure NumPy, no SQL: the write path (`probes.store.writing`) reads the stored rollups a round touches from
its backend, adds the round's deltas to them here, and hands the sums back.

A rollup holds what merges by addition: attempts sent and received, the RTT sum, min and max, the jitter
sum and pair count, and an RTT histogram (`probes.histogram`). A jitter pair is two consecutive received
RTTs of the same run and belongs to the period of its later sample. `PART_COLUMNS` name the additive parts
wherever they travel as columns (the `hourly` table, `Store.hourly_frame`, `probes.analysis.cells`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from probes import histogram
from probes.results import ProbeResult

HOUR_S = 3600
PART_COLUMNS = (
    "sent",
    "received",
    "rtt_sum_ms",
    "rtt_min_ms",
    "rtt_max_ms",
    "jitter_sum_ms",
    "jitter_pairs",
)
# A stored rollup: its key, its parts, and its histogram in sparse form (`histogram.encode`).
ROLLUP_COLUMNS = ("target_id", "hour_s", *PART_COLUMNS, "hist_index", "hist_count")


@dataclass(frozen=True, slots=True)
class RollupDelta:
    """The additive parts of some samples of one target in one period (`hist`: a dense histogram)."""

    sent: int
    received: int
    rtt_sum_ms: float
    rtt_min_ms: float | None
    rtt_max_ms: float | None
    jitter_sum_ms: float
    jitter_pairs: int
    hist: np.ndarray

    def plus(self, other: RollupDelta) -> RollupDelta:
        return RollupDelta(
            self.sent + other.sent,
            self.received + other.received,
            self.rtt_sum_ms + other.rtt_sum_ms,
            _opt(min, self.rtt_min_ms, other.rtt_min_ms),
            _opt(max, self.rtt_max_ms, other.rtt_max_ms),
            self.jitter_sum_ms + other.jitter_sum_ms,
            self.jitter_pairs + other.jitter_pairs,
            self.hist + other.hist,
        )

    def row(self, target_id: int, start_s: int) -> tuple[Any, ...]:
        """The stored form, in `ROLLUP_COLUMNS` order."""
        index_blob, count_blob = histogram.encode(self.hist)
        return (
            target_id,
            start_s,
            self.sent,
            self.received,
            self.rtt_sum_ms,
            self.rtt_min_ms,
            self.rtt_max_ms,
            self.jitter_sum_ms,
            self.jitter_pairs,
            index_blob,
            count_blob,
        )

    @staticmethod
    def of_row(row: tuple[Any, ...]) -> RollupDelta:
        """A stored rollup (in `ROLLUP_COLUMNS` order) as a delta."""
        return RollupDelta(
            row[2], row[3], row[4], row[5], row[6], row[7], row[8], histogram.decode(row[9], row[10])
        )


class RunSamples:
    """Samples of many runs gathered for one rollup pass, in send order within each run."""

    def __init__(self) -> None:
        self._target: list[int] = []
        self._run: list[int] = []
        self._ts: list[int] = []
        self._rtt: list[float] = []
        self._runs = 0

    @property
    def empty(self) -> bool:
        return not self._ts

    def add(self, target_id: int, result: ProbeResult) -> None:
        """A result's samples as one more run (not the attempts this machine could not send: they say nothing
        about the line, `Sample.local_failure`)."""
        self._runs += 1
        samples = [s for s in result.samples if not s.local_failure]
        self._target.extend([target_id] * len(samples))
        self._run.extend([self._runs] * len(samples))
        self._ts.extend([s.sent_at_us for s in samples])
        self._rtt.extend([math.nan if s.rtt_ms is None else s.rtt_ms for s in samples])

    def append(self, target_id: int, run: int, ts_us: int, rtt_ms: float | None) -> None:
        self._target.append(target_id)
        self._run.append(run)
        self._ts.append(ts_us)
        self._rtt.append(math.nan if rtt_ms is None else rtt_ms)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return (
            np.asarray(self._target, dtype=np.int64),
            np.asarray(self._run, dtype=np.int64),
            np.asarray(self._ts, dtype=np.int64),
            np.asarray(self._rtt, dtype=np.float64),
        )


def rollup_deltas(runs: RunSamples, period_s: int = HOUR_S) -> list[tuple[int, int, RollupDelta]]:
    """(target_id, period start in UTC seconds, delta) for every target and period the samples touch,
    ordered by target and period. Sums, counts and histograms are grouped with NumPy."""
    if runs.empty:
        return []
    target, run, ts_us, rtt = runs.arrays()
    periods = ts_us // 1_000_000 // period_s
    keys, group = np.unique(target * (1 << 32) + periods, return_inverse=True)
    n = len(keys)
    got = ~np.isnan(rtt)
    got_group, got_rtt = group[got], rtt[got]
    sent = np.bincount(group, minlength=n)
    received = np.bincount(got_group, minlength=n)
    rtt_sum = np.bincount(got_group, weights=got_rtt, minlength=n)
    rtt_min = np.full(n, np.inf)
    np.minimum.at(rtt_min, got_group, got_rtt)
    rtt_max = np.full(n, -np.inf)
    np.maximum.at(rtt_max, got_group, got_rtt)
    same_run = run[got][1:] == run[got][:-1]
    pair_group = got_group[1:][same_run]
    pair_diff = np.abs(np.diff(got_rtt))[same_run]
    jitter_sum = np.bincount(pair_group, weights=pair_diff, minlength=n)
    jitter_pairs = np.bincount(pair_group, minlength=n)
    hist = np.bincount(
        got_group * histogram.N_BUCKETS + histogram.bucket_of(got_rtt), minlength=n * histogram.N_BUCKETS
    ).reshape(n, histogram.N_BUCKETS)
    out = []
    for i, key in enumerate(keys.tolist()):
        delta = RollupDelta(
            sent=int(sent[i]),
            received=int(received[i]),
            rtt_sum_ms=float(rtt_sum[i]),
            rtt_min_ms=float(rtt_min[i]) if received[i] else None,
            rtt_max_ms=float(rtt_max[i]) if received[i] else None,
            jitter_sum_ms=float(jitter_sum[i]),
            jitter_pairs=int(jitter_pairs[i]),
            hist=hist[i].astype(np.int64),
        )
        out.append((key >> 32, (key & 0xFFFFFFFF) * period_s, delta))
    return out


def _opt(pick: Any, a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return float(pick(a, b))
