"""Mergeable RTT histograms: the store keeps one per target and period (hour, quarter hour), so a month of hour-of-day
percentiles is a sum of small arrays rather than a scan of millions of samples.

Buckets are logarithmic: bucket k holds RTTs in [BASE_MS·GROWTH^k, BASE_MS·GROWTH^(k+1)), from 10 µs up to
two minutes; a bucket's value is its geometric midpoint, so a percentile read from a histogram is within
±1% (√1.02 − 1) of the exact one. On disk a histogram is sparse: a blob of uint16 bucket indexes and a blob of uint32 counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

BASE_MS = 0.01
GROWTH = 1.02
MAX_MS = 120_000.0
N_BUCKETS = math.floor(math.log(MAX_MS / BASE_MS) / math.log(GROWTH)) + 1
RELATIVE_ERROR = math.sqrt(GROWTH) - 1

_LOG_GROWTH = math.log(GROWTH)
_MIDPOINTS = BASE_MS * GROWTH ** (np.arange(N_BUCKETS) + 0.5)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Hist:
    """Many sparse histograms at once: entry i adds `count[i]` to bucket `bucket[i]` of histogram `row[i]`
    (a row may appear with the same bucket more than once; the counts add)."""

    row: IntArray
    bucket: IntArray
    count: IntArray

    @staticmethod
    def empty() -> Hist:
        nothing = np.zeros(0, dtype=np.int64)
        return Hist(nothing, nothing, nothing)

    def regroup(self, row_to_group: npt.ArrayLike) -> Hist:
        """The same entries assigned to groups of rows (`row_to_group[row]`)."""
        return Hist(np.asarray(row_to_group, dtype=np.int64)[self.row], self.bucket, self.count)

    def compact(self) -> Hist:
        """The same histograms with one entry per (row, bucket), sorted by row then bucket: the counts of a
        repeated pair added, pairs that add up to nothing left out. Merged histograms stay this size however
        many rounds are added to them (one entry per sample otherwise: an agent's hour of 10,000 targets once
        a minute held 12 million)."""
        key = self.row * N_BUCKETS + self.bucket
        order = np.argsort(key, kind="stable")
        key = key[order]
        first = np.empty(key.size, dtype=np.bool_)
        first[:1] = True
        np.not_equal(key[1:], key[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        if not starts.size:
            return Hist.empty()
        counts = np.add.reduceat(self.count[order], starts).astype(np.int64)
        unique = key[starts]
        counted = counts > 0
        if not counted.all():
            unique, counts = unique[counted], counts[counted]
        return Hist(unique // N_BUCKETS, unique % N_BUCKETS, counts)

    def take(self, mask: npt.NDArray[np.bool_]) -> Hist:
        return Hist(self.row[mask], self.bucket[mask], self.count[mask])

    def dense(self, n_rows: int) -> IntArray:
        """A (n_rows × N_BUCKETS) array."""
        flat = np.bincount(
            self.row * N_BUCKETS + self.bucket, weights=self.count, minlength=n_rows * N_BUCKETS
        )
        return np.rint(flat).astype(np.int64).reshape(n_rows, N_BUCKETS)


def bucket_of(rtt_ms: npt.ArrayLike) -> IntArray:
    """Bucket index of each RTT (values below 10 µs go to the first bucket, above two minutes to the last)."""
    values = np.maximum(np.asarray(rtt_ms, dtype=np.float64), BASE_MS)
    index = np.floor(np.log(values / BASE_MS) / _LOG_GROWTH).astype(np.int64)
    return np.clip(index, 0, N_BUCKETS - 1)


def bucket_value(index: npt.ArrayLike) -> FloatArray:
    """The value a bucket stands for: its geometric midpoint, in ms."""
    return np.asarray(_MIDPOINTS[np.asarray(index, dtype=np.int64)], dtype=np.float64)


def encode(dense: IntArray) -> tuple[bytes, bytes]:
    """Sparse form of a dense histogram: (bucket indexes as uint16, counts as uint32)."""
    index = np.flatnonzero(dense)
    return index.astype("<u2").tobytes(), dense[index].astype("<u4").tobytes()


def decode(index_blob: bytes, count_blob: bytes) -> IntArray:
    """The dense histogram of its sparse form."""
    dense = np.zeros(N_BUCKETS, dtype=np.int64)
    dense[np.frombuffer(index_blob, dtype="<u2")] = np.frombuffer(count_blob, dtype="<u4")
    return dense


def sparse_entries(
    index_blobs: Sequence[bytes], count_blobs: Sequence[bytes]
) -> tuple[IntArray, IntArray, IntArray]:
    """Every entry of many sparse histograms as three arrays: (which histogram, bucket, count). Vectorised:
    the blobs are joined and read at once. TypeError when a blob is not bytes, ValueError when a histogram's
    two blobs disagree on its length."""
    lengths = np.fromiter(map(len, index_blobs), dtype=np.int64, count=len(index_blobs))
    count_lengths = np.fromiter(map(len, count_blobs), dtype=np.int64, count=len(count_blobs))
    if lengths.size != count_lengths.size or not np.array_equal(count_lengths, 2 * lengths):
        raise ValueError("a histogram's bucket and count blobs differ in length")
    joined_index, joined_count = b"".join(index_blobs), b"".join(count_blobs)
    if len(joined_index) % 2:
        raise ValueError("a histogram's bucket blob has an odd length")
    which = np.repeat(np.arange(len(index_blobs), dtype=np.int64), lengths // 2)
    index = np.frombuffer(joined_index, dtype="<u2").astype(np.int64)
    count = np.frombuffer(joined_count, dtype="<u4").astype(np.int64)
    return which, index, count


def merge(
    index_blobs: Sequence[bytes],
    count_blobs: Sequence[bytes],
    groups: Sequence[int] | IntArray,
    n_groups: int,
) -> IntArray:
    """Sum many sparse histograms into one dense histogram per group: shape (n_groups, N_BUCKETS).

    `groups[i]` is the group of histogram i.
    """
    if len(index_blobs) == 0:
        return np.zeros((n_groups, N_BUCKETS), dtype=np.int64)
    which, index, count = sparse_entries(index_blobs, count_blobs)
    group = np.asarray(groups, dtype=np.int64)[which]
    summed = np.bincount(group * N_BUCKETS + index, weights=count, minlength=n_groups * N_BUCKETS)
    return np.rint(summed).astype(np.int64).reshape(n_groups, N_BUCKETS)


def quantile(dense: IntArray, q: float) -> float | None:
    """The q-quantile (0..1) of a histogram, ranks as in `probes.stats.percentile` (linear between ranks)."""
    return quantiles(dense.reshape(1, -1), q)[0]


def quantiles(dense_rows: IntArray, q: float) -> list[float | None]:
    """The q-quantile of each row of a (rows × N_BUCKETS) histogram array; None for an empty row."""
    if not 0 <= q <= 1:
        raise ValueError(f"quantile {q} outside 0..1")
    totals = dense_rows.sum(axis=1)
    cumulative = np.cumsum(dense_rows, axis=1)
    out: list[float | None] = []
    for row, n in enumerate(totals):
        if n == 0:
            out.append(None)
            continue
        position = (n - 1) * q
        low_rank, high_rank = math.floor(position), math.ceil(position)
        low = int(np.searchsorted(cumulative[row], low_rank, side="right"))
        high = int(np.searchsorted(cumulative[row], high_rank, side="right"))
        fraction = position - low_rank
        value = _MIDPOINTS[low] + (_MIDPOINTS[high] - _MIDPOINTS[low]) * fraction
        out.append(float(value))
    return out
