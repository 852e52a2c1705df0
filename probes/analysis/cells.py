"""The additive parts of a set of samples, per target, UTC hour and label ("cells"), from the store's hourly
rollups where they answer exactly, from raw samples where they do not; and the statistics of merged cells.

A cell holds what merges by addition: attempts sent and received, the RTT sum, min and max, the jitter sum
and pair count, and a sparse RTT histogram (`probes.histogram` buckets). Every figure the analysis reports
is derived from merged cells with the definitions of `probes.stats`: loss = lost / sent, jitter = mean
absolute difference of consecutive received RTTs of a run (a pair belongs to the hour of its later sample),
percentiles ranked as `probes.stats.percentile` and read from the histogram (within ±1%, see
`probes.histogram`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from probes import histogram
from probes.analysis.clock import US_PER_HOUR, Labeler, label_hours
from probes.store import Store
from probes.store.rollup import PART_COLUMNS

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_SUMMED = ("sent", "received", "rtt_sum_ms", "jitter_sum_ms", "jitter_pairs")
_DENSE_LIMIT = 4_000_000  # rows × buckets up to which histograms are merged densely
_MAX_RUN_LOOKBACK_US = 7 * 24 * US_PER_HOUR
_RAW_CHUNK_S = 24 * 3600


@dataclass(frozen=True, slots=True)
class Hist:
    """Sparse histograms: entry i adds `count[i]` to bucket `bucket[i]` of row `row[i]`."""

    row: IntArray
    bucket: IntArray
    count: IntArray

    @staticmethod
    def empty() -> Hist:
        nothing = np.zeros(0, dtype=np.int64)
        return Hist(nothing, nothing, nothing)

    def regroup(self, row_to_group: IntArray) -> Hist:
        """The same entries assigned to groups of rows (`row_to_group[row]`)."""
        return Hist(np.asarray(row_to_group, dtype=np.int64)[self.row], self.bucket, self.count)

    def take(self, mask: npt.NDArray[np.bool_]) -> Hist:
        return Hist(self.row[mask], self.bucket[mask], self.count[mask])

    def dense(self, n_rows: int) -> IntArray:
        """A (n_rows × histogram.N_BUCKETS) array."""
        flat = np.bincount(
            self.row * histogram.N_BUCKETS + self.bucket,
            weights=self.count,
            minlength=n_rows * histogram.N_BUCKETS,
        )
        return np.rint(flat).astype(np.int64).reshape(n_rows, histogram.N_BUCKETS)


@dataclass(frozen=True, slots=True)
class Cells:
    """`frame`: one row per cell (target_id, hour_s, one column per label, the PART_COLUMNS, `raw` = answered
    from raw samples); `hist`: the cells' RTT histograms, `row` = the cell's position in `frame`."""

    frame: pd.DataFrame
    hist: Hist

    @property
    def raw_cells(self) -> int:
        return int(self.frame["raw"].sum()) if len(self.frame) else 0


# -- building cells ----------------------------------------------------------------------------------------


def cells_from_rollups(hourly: pd.DataFrame, labels: dict[str, IntArray]) -> Cells:
    """Cells of hourly rollup rows (as `Store.hourly_frame` returns them); `labels[name][i]` labels row i."""
    frame = pd.DataFrame(
        {
            "target_id": hourly["target_id"].to_numpy(dtype=np.int64),
            "hour_s": hourly["hour_s"].to_numpy(dtype=np.int64),
            **{name: np.asarray(values, dtype=np.int64) for name, values in labels.items()},
            "sent": hourly["sent"].to_numpy(dtype=np.int64),
            "received": hourly["received"].to_numpy(dtype=np.int64),
            "rtt_sum_ms": hourly["rtt_sum_ms"].to_numpy(dtype=np.float64),
            "rtt_min_ms": hourly["rtt_min_ms"].to_numpy(dtype=np.float64, na_value=np.nan),
            "rtt_max_ms": hourly["rtt_max_ms"].to_numpy(dtype=np.float64, na_value=np.nan),
            "jitter_sum_ms": hourly["jitter_sum_ms"].to_numpy(dtype=np.float64),
            "jitter_pairs": hourly["jitter_pairs"].to_numpy(dtype=np.int64),
            "raw": np.zeros(len(hourly), dtype=np.bool_),
        }
    )
    if hourly.empty:
        return Cells(frame, Hist.empty())
    row, bucket, count = histogram.sparse_entries(list(hourly["hist_index"]), list(hourly["hist_count"]))
    return Cells(frame, Hist(row, bucket, count))


def cells_from_samples(
    samples: pd.DataFrame,
    labelers: Sequence[Labeler],
    keep_hours: IntArray | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
) -> Cells:
    """Cells of raw samples (as `Store.samples_frame` returns them: whole runs, so that each received RTT
    meets its predecessor). Only samples in `keep_hours` (UTC hour starts, seconds) and in
    [since_us, until_us) become cells; the others serve as predecessors for jitter."""
    s = samples.sort_values(["result_id", "seq"], kind="stable")
    ts = s["ts_us"].to_numpy(dtype=np.int64)
    rtt = s["rtt_ms"].to_numpy(dtype=np.float64)
    run = s["result_id"].to_numpy(dtype=np.int64)
    received = ~np.isnan(rtt)
    got = np.flatnonzero(received)
    same_run = run[got[1:]] == run[got[:-1]]
    later = got[1:][same_run]
    jitter_sum = np.zeros(ts.size, dtype=np.float64)
    jitter_pairs = np.zeros(ts.size, dtype=np.int64)
    jitter_sum[later] = np.abs(rtt[got[1:]] - rtt[got[:-1]])[same_run]
    jitter_pairs[later] = 1
    hour_s = ts // US_PER_HOUR * 3600
    keep = np.ones(ts.size, dtype=np.bool_)
    if keep_hours is not None:
        keep &= np.isin(hour_s, keep_hours)
    if since_us is not None:
        keep &= ts >= since_us
    if until_us is not None:
        keep &= ts < until_us
    ts, rtt, received = ts[keep], rtt[keep], received[keep]
    parts = pd.DataFrame(
        {
            "target_id": s["target_id"].to_numpy(dtype=np.int64)[keep],
            "hour_s": hour_s[keep],
            **{labeler.name: labeler(ts) for labeler in labelers},
        }
    )
    keys = list(parts.columns)
    if parts.empty:
        empty = parts.assign(**{c: pd.Series(dtype="float64") for c in PART_COLUMNS}, raw=True)
        return Cells(empty, Hist.empty())
    cell = parts.groupby(keys, sort=True).ngroup().to_numpy(dtype=np.int64)
    n = int(cell.max()) + 1
    first = np.unique(cell, return_index=True)[1]
    frame = parts.iloc[first].reset_index(drop=True)
    rtt_or_nan = np.where(received, rtt, np.nan)
    extremes = pd.DataFrame({"cell": cell, "rtt": rtt_or_nan}).groupby("cell")["rtt"]
    frame["sent"] = np.bincount(cell, minlength=n).astype(np.int64)
    frame["received"] = np.bincount(cell, weights=received, minlength=n).astype(np.int64)
    frame["rtt_sum_ms"] = np.bincount(cell, weights=np.where(received, rtt, 0.0), minlength=n)
    frame["rtt_min_ms"] = extremes.min().reindex(range(n)).to_numpy(dtype=np.float64)
    frame["rtt_max_ms"] = extremes.max().reindex(range(n)).to_numpy(dtype=np.float64)
    frame["jitter_sum_ms"] = np.bincount(cell, weights=jitter_sum[keep], minlength=n)
    frame["jitter_pairs"] = np.bincount(cell, weights=jitter_pairs[keep], minlength=n).astype(np.int64)
    frame["raw"] = True
    hist = Hist(
        cell[received],
        histogram.bucket_of(rtt[received]),
        np.ones(int(received.sum()), dtype=np.int64),
    )
    return Cells(frame, hist)


def concat(parts: Sequence[Cells]) -> Cells:
    frames, rows, buckets, counts = [], [], [], []
    offset = 0
    for part in parts:
        if part.frame.empty:
            continue
        frames.append(part.frame)
        rows.append(part.hist.row + offset)
        buckets.append(part.hist.bucket)
        counts.append(part.hist.count)
        offset += len(part.frame)
    if not frames:
        return parts[0] if parts else Cells(pd.DataFrame(), Hist.empty())
    frame = pd.concat(frames, ignore_index=True)
    return Cells(frame, Hist(np.concatenate(rows), np.concatenate(buckets), np.concatenate(counts)))


def build_cells(
    store: Store,
    target_ids: Sequence[int],
    labelers: Sequence[Labeler],
    *,
    since_us: int | None = None,
    until_us: int | None = None,
    result_ids: npt.ArrayLike | None = None,
) -> Cells:
    """Cells of the targets' samples in [since_us, until_us), labelled by `labelers`.

    UTC hours that every labeler labels uniformly and that lie wholly inside the period come from the
    rollups; the others (a +05:30 zone, a window starting at :30, the period's ragged ends) from raw samples.
    With `result_ids`, only those runs count (e.g. one vantage point's), so every hour comes from raw samples.
    """
    hourly = store.hourly_frame(target_ids, since_us, until_us)
    names = [labeler.name for labeler in labelers]
    if hourly.empty:
        return cells_from_rollups(hourly, {name: np.zeros(0, dtype=np.int64) for name in names})
    hours = np.unique(hourly["hour_s"].to_numpy(dtype=np.int64))
    labels, uniform = label_hours(hours, labelers)
    inside = np.ones(hours.size, dtype=np.bool_)
    if since_us is not None:
        inside &= hours * 1_000_000 >= since_us
    if until_us is not None:
        inside &= (hours + 3600) * 1_000_000 <= until_us
    exact = uniform & inside if result_ids is None else np.zeros(hours.size, dtype=np.bool_)
    position = np.searchsorted(hours, hourly["hour_s"].to_numpy(dtype=np.int64))
    from_rollups = exact[position]
    rollup_rows = hourly.loc[from_rollups].reset_index(drop=True)
    parts = [cells_from_rollups(rollup_rows, {name: labels[name][position[from_rollups]] for name in names})]
    fallback = hours[~exact]
    allowed = None if result_ids is None else np.asarray(result_ids, dtype=np.int64)
    for start_s, end_s in _chunks(_runs(fallback), _RAW_CHUNK_S):
        start_us = start_s * 1_000_000 if since_us is None else max(start_s * 1_000_000, since_us)
        end_us = end_s * 1_000_000 if until_us is None else min(end_s * 1_000_000, until_us)
        samples = load_whole_runs(store, target_ids, start_us, end_us)
        if allowed is not None:
            samples = samples.loc[samples["result_id"].isin(allowed)]
        parts.append(cells_from_samples(samples, labelers, fallback, start_us, end_us))
    return concat(parts)


def load_whole_runs(store: Store, target_ids: Sequence[int], start_us: int, end_us: int) -> pd.DataFrame:
    """Samples of the targets in [start_us, end_us), plus the earlier samples of the runs they belong to
    (a run that started before `start_us` gives its first sample in range its jitter predecessor)."""
    lookback = US_PER_HOUR
    while True:
        samples = store.samples_frame(target_ids, start_us - lookback, end_us)
        in_range = samples["ts_us"].to_numpy() >= start_us
        first_seq = samples.groupby("result_id")["seq"].min()
        wanted = np.unique(samples.loc[in_range, "result_id"].to_numpy())
        # Runs number their attempts from 0: a wanted run whose first loaded attempt is later may have
        # begun before the loaded stretch.
        unsure = first_seq.loc[wanted][lambda seq: seq > 0].index.to_numpy()
        if unsure.size == 0 or lookback >= _MAX_RUN_LOOKBACK_US:
            return samples
        started = store.results_frame(target_ids, start_us - lookback, end_us)["result_id"].to_numpy()
        if np.isin(unsure, started).all():
            return samples  # they started inside the loaded stretch: nothing earlier to load
        lookback *= 4


def _chunks(runs: list[tuple[int, int]], size_s: int) -> list[tuple[int, int]]:
    """The stretches cut into pieces of at most `size_s` (whole hours), so raw samples are read a day at a
    time and memory stays bounded."""
    return [(start, min(start + size_s, end)) for begin, end in runs for start in range(begin, end, size_s)]


def _runs(hours_s: IntArray) -> list[tuple[int, int]]:
    """Contiguous stretches of sorted UTC hour starts, as [start_s, end_s) pairs."""
    if hours_s.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(hours_s) != 3600) + 1
    return [(int(chunk[0]), int(chunk[-1]) + 3600) for chunk in np.split(hours_s, breaks)]


# -- merging cells and reading statistics -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Merged:
    """Cells merged by key: `frame` has the key columns, the summed parts, `hours` (distinct UTC hours) and
    the derived statistics; `hist` the merged histograms (row = position in `frame`)."""

    frame: pd.DataFrame
    hist: Hist


def merge_cells(cells: Cells, keys: Sequence[str], quantiles: Sequence[float] = (0.5, 0.95)) -> Merged:
    """Merge cells that share `keys` (integer columns of `cells.frame`) and derive their statistics.
    The result is sorted by the keys."""
    keys = list(keys)
    frame = cells.frame
    if frame.empty:
        empty = pd.DataFrame(columns=[*keys, *PART_COLUMNS, "hours"])
        return Merged(with_statistics(empty, Hist.empty(), quantiles), Hist.empty())
    number, first = _group_numbers([frame[k].to_numpy(dtype=np.int64) for k in keys])
    n = first.size
    merged = pd.DataFrame({k: frame[k].to_numpy(dtype=np.int64)[first] for k in keys})
    for column in _SUMMED:
        total = np.bincount(number, weights=frame[column].to_numpy(dtype=np.float64), minlength=n)
        merged[column] = total if column.endswith("_ms") else np.rint(total).astype(np.int64)
    order = np.argsort(number, kind="stable")
    starts = np.searchsorted(number[order], np.arange(n))
    for column, reduce in (("rtt_min_ms", np.fmin), ("rtt_max_ms", np.fmax)):
        values = frame[column].to_numpy(dtype=np.float64)[order]
        merged[column] = reduce.reduceat(values, starts)
    hour_index = np.unique(frame["hour_s"].to_numpy(dtype=np.int64), return_inverse=True)[1]
    pairs = np.unique(number * (int(hour_index.max()) + 1) + hour_index)
    merged["hours"] = np.bincount(pairs // (int(hour_index.max()) + 1), minlength=n).astype(np.int64)
    hist = cells.hist.regroup(number)
    return Merged(with_statistics(merged, hist, quantiles), hist)


def _group_numbers(columns: Sequence[IntArray]) -> tuple[IntArray, IntArray]:
    """For rows keyed by several integer columns: each row's group number (groups ordered by the keys) and
    the first row of each group."""
    combined = np.zeros(columns[0].size, dtype=np.int64)
    for values in columns:
        uniques, inverse = np.unique(values, return_inverse=True)
        # Renumbered densely at each step, so the combined code never exceeds the number of rows².
        combined = np.unique(combined * uniques.size + inverse, return_inverse=True)[1].astype(np.int64)
    _, first, number = np.unique(combined, return_index=True, return_inverse=True)
    return number.astype(np.int64), first.astype(np.int64)


def with_statistics(
    frame: pd.DataFrame, hist: Hist, quantiles: Sequence[float] = (0.5, 0.95)
) -> pd.DataFrame:
    """Add loss, rtt_mean_ms, rtt_median_ms / rtt_pNN_ms and jitter_ms to merged parts (NaN when no data)."""
    out = frame.copy()
    sent = out["sent"].to_numpy(dtype=np.float64)
    received = out["received"].to_numpy(dtype=np.float64)
    pairs = out["jitter_pairs"].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["loss"] = np.where(sent > 0, (sent - received) / sent, np.nan)
        out["rtt_mean_ms"] = np.where(
            received > 0, out["rtt_sum_ms"].to_numpy(dtype=np.float64) / received, np.nan
        )
        out["jitter_ms"] = np.where(
            pairs > 0, out["jitter_sum_ms"].to_numpy(dtype=np.float64) / pairs, np.nan
        )
    for q, values in zip(quantiles, hist_quantiles_many(hist, len(out), quantiles), strict=True):
        out[quantile_column(q)] = values
    return out


def quantile_column(q: float) -> str:
    return "rtt_median_ms" if q == 0.5 else f"rtt_p{round(q * 100):02d}_ms"


def hist_quantiles(hist: Hist, n_rows: int, q: float) -> FloatArray:
    """The q-quantile (0..1) of each row's histogram, ranked as `probes.histogram.quantiles`; NaN for an
    empty row."""
    return hist_quantiles_many(hist, n_rows, (q,))[0]


def hist_quantiles_many(hist: Hist, n_rows: int, quantiles: Sequence[float]) -> list[FloatArray]:
    """`hist_quantiles` for several quantiles at once (the histograms are merged once)."""
    for q in quantiles:
        if not 0 <= q <= 1:
            raise ValueError(f"quantile {q} outside 0..1")
    if not quantiles:
        return []
    if n_rows == 0:
        return [np.zeros(0, dtype=np.float64) for _ in quantiles]
    if n_rows * histogram.N_BUCKETS <= _DENSE_LIMIT:
        dense = hist.dense(n_rows)
        return [dense_quantiles(dense, q) for q in quantiles]
    key = hist.row * histogram.N_BUCKETS + hist.bucket
    unique, inverse = np.unique(key, return_inverse=True)
    counts = np.bincount(inverse, weights=hist.count)
    rows, buckets = unique // histogram.N_BUCKETS, unique % histogram.N_BUCKETS
    totals = np.bincount(rows, weights=counts, minlength=n_rows)
    if buckets.size == 0:
        return [np.full(n_rows, np.nan) for _ in quantiles]
    cumulative = np.cumsum(counts)
    offsets = np.cumsum(totals) - totals
    last = len(cumulative) - 1
    out = []
    for q in quantiles:
        position = np.maximum(totals - 1, 0) * q
        low_rank, high_rank = np.floor(position), np.ceil(position)
        low = np.minimum(np.searchsorted(cumulative, offsets + low_rank, side="right"), last)
        high = np.minimum(np.searchsorted(cumulative, offsets + high_rank, side="right"), last)
        low_value = histogram.bucket_value(buckets[low])
        high_value = histogram.bucket_value(buckets[high])
        value = low_value + (high_value - low_value) * (position - low_rank)
        out.append(np.where(totals > 0, value, np.nan))
    return out


def dense_quantiles(dense: IntArray | FloatArray, q: float, values: FloatArray | None = None) -> FloatArray:
    """The q-quantile of each row of a dense histogram array; `values` are the columns' RTTs (default: all
    buckets' midpoints). NaN for an empty row."""
    if values is None:
        values = histogram.bucket_value(np.arange(histogram.N_BUCKETS))
    cumulative = np.cumsum(dense, axis=1)
    totals = cumulative[:, -1] if dense.shape[1] else np.zeros(dense.shape[0])
    position = np.maximum(totals - 1, 0) * q
    low_rank, high_rank = np.floor(position), np.ceil(position)
    low = (cumulative > low_rank[:, None]).argmax(axis=1)
    high = (cumulative > high_rank[:, None]).argmax(axis=1)
    value = values[low] + (values[high] - values[low]) * (position - low_rank)
    return np.where(totals > 0, value, np.nan)
