"""The rollup maths: samples → additive parts per series and period, and how parts merge. Pure NumPy, no SQL.

A rollup holds what merges by addition: attempts sent and received, the RTT sum, min and max, the jitter
sum and pair count, and an RTT histogram (`probes.histogram`). A jitter pair is two consecutive received
RTTs of the same run and belongs to the group of its later sample.

`sample_parts` is the one formula for these sums. The write path (`probes.store.writing`) groups a round's
samples by series and period with it and merges them into the stored rollups; the analysis
(`probes.analysis.cells`) groups raw samples by series, period and label with it where no rollup answers.

The store keeps rollups of two lengths (`PERIODS_S`): UTC hours, and quarter hours so that every time zone
in use (all offsets are multiples of 15 minutes: +05:30 Kolkata, +05:45 Kathmandu) and every window on a
quarter hour (`20:30-23:00`) is answered from rollups. `PART_COLUMNS` name the additive parts wherever they
travel as columns (the rollup tables, `Store.rollup_frame`, `probes.analysis.cells`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from probes import histogram
from probes.histogram import Hist

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

HOUR_S = 3600
QUARTER_S = 900
PERIODS_S = (HOUR_S, QUARTER_S)  # the rollups a store keeps, longest first; each divides the one before
PART_COLUMNS = (
    "sent",
    "received",
    "rtt_sum_ms",
    "rtt_min_ms",
    "rtt_max_ms",
    "jitter_sum_ms",
    "jitter_pairs",
)
# A stored rollup: its key (series, period start in UTC seconds), its parts, its histogram in sparse form.
ROLLUP_COLUMNS = ("series_id", "start_s", *PART_COLUMNS, "hist_index", "hist_count")


@dataclass(frozen=True, slots=True)
class Parts:
    """The additive parts of n groups of samples (one array entry per group; min and max NaN where nothing
    was received) and their RTT histograms (`hist.row` = the group)."""

    sent: IntArray
    received: IntArray
    rtt_sum_ms: FloatArray
    rtt_min_ms: FloatArray
    rtt_max_ms: FloatArray
    jitter_sum_ms: FloatArray
    jitter_pairs: IntArray
    hist: Hist

    def __len__(self) -> int:
        return int(self.sent.size)

    def columns(self) -> dict[str, IntArray | FloatArray]:
        """The parts by name, in `PART_COLUMNS` order."""
        return {name: getattr(self, name) for name in PART_COLUMNS}

    def regroup(self, number: IntArray, n: int) -> Parts:
        """Groups merged: group i becomes group `number[i]` of `n`."""
        number = np.asarray(number, dtype=np.int64)
        return Parts(
            _sums(number, self.sent, n).astype(np.int64),
            _sums(number, self.received, n).astype(np.int64),
            _sums(number, self.rtt_sum_ms, n),
            _reduce(np.fmin, number, self.rtt_min_ms, n),
            _reduce(np.fmax, number, self.rtt_max_ms, n),
            _sums(number, self.jitter_sum_ms, n),
            _sums(number, self.jitter_pairs, n).astype(np.int64),
            self.hist.regroup(number).compact(),
        )

    @staticmethod
    def concat(parts: Sequence[Parts]) -> Parts:
        """The groups of several Parts one after the other."""
        offsets = np.cumsum([0, *(len(p) for p in parts)])
        return Parts(
            np.concatenate([p.sent for p in parts]),
            np.concatenate([p.received for p in parts]),
            np.concatenate([p.rtt_sum_ms for p in parts]),
            np.concatenate([p.rtt_min_ms for p in parts]),
            np.concatenate([p.rtt_max_ms for p in parts]),
            np.concatenate([p.jitter_sum_ms for p in parts]),
            np.concatenate([p.jitter_pairs for p in parts]),
            Hist(
                np.concatenate([p.hist.row + offset for p, offset in zip(parts, offsets, strict=False)]),
                np.concatenate([p.hist.bucket for p in parts]),
                np.concatenate([p.hist.count for p in parts]),
            ),
        )


def sample_parts(
    run: IntArray, rtt_ms: FloatArray, group: IntArray, n: int, counted: BoolArray | None = None
) -> Parts:
    """The parts of samples grouped into `n` groups: sample i (in run and attempt order; `rtt_ms` NaN when
    lost) belongs to group `group[i]`. With `counted`, only those samples count; the others are there so that
    a counted sample meets the received sample before it in its run (its jitter predecessor)."""
    run = np.asarray(run, dtype=np.int64)
    rtt = np.asarray(rtt_ms, dtype=np.float64)
    group = np.asarray(group, dtype=np.int64)
    received = ~np.isnan(rtt)
    got = np.flatnonzero(received)
    same_run = run[got[1:]] == run[got[:-1]]
    later = got[1:][same_run]
    pair_diff = np.abs(rtt[got[1:]] - rtt[got[:-1]])[same_run]
    if counted is not None:
        counted = np.asarray(counted, dtype=np.bool_)
        keep_pair = counted[later]
        later, pair_diff = later[keep_pair], pair_diff[keep_pair]
        group_of_sample = group[counted]
        got = got[counted[got]]
    else:
        group_of_sample = group
    got_group, got_rtt = group[got], rtt[got]
    pair_group = group[later]
    rtt_min = np.full(n, np.inf)
    np.minimum.at(rtt_min, got_group, got_rtt)
    rtt_max = np.full(n, -np.inf)
    np.maximum.at(rtt_max, got_group, got_rtt)
    received_count = np.bincount(got_group, minlength=n).astype(np.int64)
    none = received_count == 0
    rtt_min[none] = np.nan
    rtt_max[none] = np.nan
    return Parts(
        sent=np.bincount(group_of_sample, minlength=n).astype(np.int64),
        received=received_count,
        rtt_sum_ms=_sums(got_group, got_rtt, n),
        rtt_min_ms=rtt_min,
        rtt_max_ms=rtt_max,
        jitter_sum_ms=_sums(pair_group, pair_diff, n),
        jitter_pairs=np.bincount(pair_group, minlength=n).astype(np.int64),
        hist=Hist(got_group, histogram.bucket_of(got_rtt), np.ones(got.size, dtype=np.int64)),
    )


@dataclass(frozen=True, slots=True)
class Rollups:
    """Rollups of one period length: one per (series_id, start_s) key, keys sorted, and their parts."""

    period_s: int
    series_id: IntArray
    start_s: IntArray
    parts: Parts

    def __len__(self) -> int:
        return int(self.series_id.size)

    @staticmethod
    def of_samples(
        period_s: int, series_id: IntArray, run: IntArray, ts_us: IntArray, rtt_ms: FloatArray
    ) -> Rollups:
        """The rollups of samples (in run and attempt order; `rtt_ms` NaN when lost)."""
        series = np.asarray(series_id, dtype=np.int64)
        period_number = np.asarray(ts_us, dtype=np.int64) // 1_000_000 // period_s
        keys, number = np.unique(_key(series, period_number), return_inverse=True)
        parts = sample_parts(run, rtt_ms, number, keys.size)
        return Rollups(period_s, keys >> 32, (keys & 0xFFFFFFFF) * period_s, parts)

    @staticmethod
    def of_rows(period_s: int, rows: Sequence[Sequence[Any]]) -> Rollups:
        """Stored rollups (rows in `ROLLUP_COLUMNS` order, keys unique; kept in their order). Raises
        ValueError or TypeError on rows that are not rollups (reported as a damaged store)."""
        if not rows:
            return Rollups.empty(period_s)
        columns = list(zip(*rows, strict=True))
        if len(columns) != len(ROLLUP_COLUMNS):
            raise ValueError(f"rollup rows have {len(columns)} columns, not {len(ROLLUP_COLUMNS)}")
        index_blobs, count_blobs = columns[9], columns[10]
        which, bucket, count = histogram.sparse_entries(index_blobs, count_blobs)  # TypeError: not blobs
        if which.size != count.size or (bucket.size and int(bucket.max()) >= histogram.N_BUCKETS):
            raise ValueError("a rollup's histogram is malformed")
        series, start, sent, received, pairs = (
            np.asarray(columns[i], dtype=np.int64) for i in (0, 1, 2, 3, 8)
        )
        rtt_sum, rtt_min, rtt_max, jitter = (np.asarray(columns[i], dtype=np.float64) for i in (4, 5, 6, 7))
        parts = Parts(sent, received, rtt_sum, rtt_min, rtt_max, jitter, pairs, Hist(which, bucket, count))
        return Rollups(period_s, series, start, parts)

    @staticmethod
    def empty(period_s: int) -> Rollups:
        nothing = np.zeros(0, dtype=np.int64)
        floats = np.zeros(0, dtype=np.float64)
        hist = Hist.empty()
        return Rollups(
            period_s, nothing, nothing, Parts(nothing, nothing, floats, floats, floats, floats, nothing, hist)
        )

    def coarsened(self, period_s: int) -> Rollups:
        """The same samples' rollups of a longer period (a multiple of this one): their parts add up."""
        if period_s % self.period_s:
            raise ValueError(f"{period_s} s is not a multiple of {self.period_s} s")
        keys, number = np.unique(_key(self.series_id, self.start_s // period_s), return_inverse=True)
        parts = self.parts.regroup(number, keys.size)
        return Rollups(period_s, keys >> 32, (keys & 0xFFFFFFFF) * period_s, parts)

    @staticmethod
    def concat(pieces: Sequence[Rollups]) -> Rollups:
        """Rollups of one length read in pieces (of distinct keys), one after the other."""
        if len(pieces) == 1:
            return pieces[0]
        return Rollups(
            pieces[0].period_s,
            np.concatenate([p.series_id for p in pieces]),
            np.concatenate([p.start_s for p in pieces]),
            Parts.concat([p.parts for p in pieces]),
        )

    def keys(self, which: BoolArray | None = None) -> list[tuple[int, int]]:
        """The (series_id, start_s) keys, all or those `which` marks."""
        series, start = (
            (self.series_id, self.start_s) if which is None else (self.series_id[which], self.start_s[which])
        )
        return list(zip(series.tolist(), start.tolist(), strict=True))

    def find(self, other: Rollups) -> tuple[IntArray, BoolArray]:
        """Where each of `other`'s keys is among these rollups' (keys sorted, as every `Rollups`' are), and
        whether it is there at all."""
        mine = _key(self.series_id, self.start_s // self.period_s)
        theirs = _key(other.series_id, other.start_s // self.period_s)
        at = np.minimum(np.searchsorted(mine, theirs), mine.size - 1)
        return at, mine[at] == theirs

    def take(self, order: IntArray) -> Rollups:
        """The rollups at these positions, in this order (a subset, or all of them reordered)."""
        order = np.asarray(order, dtype=np.int64)
        position = np.full(len(self), -1, dtype=np.int64)
        position[order] = np.arange(order.size)
        p = self.parts
        hist = p.hist.take(position[p.hist.row] >= 0)
        parts = Parts(
            p.sent[order],
            p.received[order],
            p.rtt_sum_ms[order],
            p.rtt_min_ms[order],
            p.rtt_max_ms[order],
            p.jitter_sum_ms[order],
            p.jitter_pairs[order],
            hist.regroup(position),
        )
        return Rollups(self.period_s, self.series_id[order], self.start_s[order], parts)

    def plus(self, other: Rollups) -> Rollups:
        """The sums of both, key by key (keys in either)."""
        if other.period_s != self.period_s:
            raise ValueError("rollups of different periods do not add")
        if not len(other):
            return self
        series = np.concatenate([self.series_id, other.series_id])
        start = np.concatenate([self.start_s, other.start_s])
        keys, number = np.unique(_key(series, start // self.period_s), return_inverse=True)
        parts = Parts.concat([self.parts, other.parts]).regroup(number, keys.size)
        return Rollups(self.period_s, keys >> 32, (keys & 0xFFFFFFFF) * self.period_s, parts)

    def rows(self) -> list[tuple[Any, ...]]:
        """The stored form, in `ROLLUP_COLUMNS` order (histograms encoded as `histogram.encode` does)."""
        n = len(self)
        index_blobs, count_blobs = _encode_many(self.parts.hist, n)
        p = self.parts
        rtt_min = [None if v != v else v for v in p.rtt_min_ms.tolist()]  # NaN: nothing received
        rtt_max = [None if v != v else v for v in p.rtt_max_ms.tolist()]
        return list(
            zip(
                self.series_id.tolist(),
                self.start_s.tolist(),
                p.sent.tolist(),
                p.received.tolist(),
                p.rtt_sum_ms.tolist(),
                rtt_min,
                rtt_max,
                p.jitter_sum_ms.tolist(),
                p.jitter_pairs.tolist(),
                index_blobs,
                count_blobs,
                strict=True,
            )
        )

    def dense_hist(self) -> IntArray:
        """The histograms as a (rollups × N_BUCKETS) array."""
        return self.parts.hist.dense(len(self))


def _key(series: IntArray, period_number: IntArray) -> IntArray:
    return np.asarray(series, dtype=np.int64) * (1 << 32) + np.asarray(period_number, dtype=np.int64)


def _encode_many(hist: Hist, n: int) -> tuple[list[bytes], list[bytes]]:
    """Each row's histogram in sparse form: its buckets ascending (uint16) and their counts (uint32)."""
    compact = hist.compact()
    bounds = np.searchsorted(compact.row, np.arange(n + 1)).tolist()
    index_bytes = compact.bucket.astype("<u2").tobytes()
    count_bytes = compact.count.astype("<u4").tobytes()
    index_blobs = [index_bytes[2 * a : 2 * b] for a, b in itertools.pairwise(bounds)]
    count_blobs = [count_bytes[4 * a : 4 * b] for a, b in itertools.pairwise(bounds)]
    return index_blobs, count_blobs


def _sums(number: IntArray, values: npt.ArrayLike, n: int) -> FloatArray:
    """The sum of the values of each of n groups (`number[i]`: the group of value i)."""
    return np.asarray(np.bincount(number, weights=values, minlength=n), dtype=np.float64)


def _reduce(ufunc: np.ufunc, number: IntArray, values: FloatArray, n: int) -> FloatArray:
    """`ufunc` (np.fmin / np.fmax: NaN only where every value is NaN) of the values of each new group."""
    out = np.full(n, np.nan)
    ufunc.at(out, number, values)
    return out
