"""The additive parts of a set of samples, per series, period and label ("cells"), and the statistics of
merged cells.

A cell holds what merges by addition: attempts sent and received, the RTT sum, min and max, the jitter sum
and pair count, and a sparse RTT histogram (`probes.histogram` buckets). Cells come from the store's rollups
(`cells_from_rollups`) or from raw samples (`cells_from_samples`, with `probes.store.rollup.sample_parts`: the
same formula the store's rollups are made with). Each cell names the UTC hour it lies in (`hour_s`: hours
measured, breach intervals and bootstrap clusters are UTC hours). Every figure the analysis reports is derived
from merged cells with the definitions of `probes.stats`: loss = lost / sent, jitter = mean absolute
difference of consecutive received RTTs of a run (a pair belongs to the cell of its later sample),
percentiles ranked as `probes.stats.percentile` and read from the histogram (within ±1%, see
`probes.histogram`). Which cells come from which rollups is `probes.analysis.sources`' business.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from probes import histogram
from probes.analysis.clock import US_PER_HOUR, Labeler
from probes.errors import ErrorKind
from probes.histogram import Hist
from probes.store.rollup import HOUR_S, PART_COLUMNS, Rollups, sample_parts

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_LOCAL_FAILURE = str(ErrorKind.SEND_FAILED)  # a stored sample's error when this machine could not send it

_SUMMED = ("sent", "received", "rtt_sum_ms", "jitter_sum_ms", "jitter_pairs")
_DENSE_LIMIT = 4_000_000  # rows × buckets up to which histograms are merged densely


@dataclass(frozen=True, slots=True)
class Cells:
    """`frame`: one row per cell (series_id, hour_s, one column per label, the PART_COLUMNS, `raw` = answered
    from raw samples); `hist`: the cells' RTT histograms, `row` = the cell's position in `frame`."""

    frame: pd.DataFrame
    hist: Hist

    @property
    def raw_cells(self) -> int:
        return int(self.frame["raw"].sum()) if len(self.frame) else 0


# -- building cells ----------------------------------------------------------------------------------------


def cells_from_rollups(rollups: Rollups, labels: dict[str, IntArray]) -> Cells:
    """Cells of rollups (as `Store.rollups` reads them, any length); `labels[name][i]` labels rollup i."""
    p = rollups.parts
    frame = pd.DataFrame(
        {
            "series_id": rollups.series_id,
            "hour_s": rollups.start_s // HOUR_S * HOUR_S,
            **{name: np.asarray(values, dtype=np.int64) for name, values in labels.items()},
            **p.columns(),
            "raw": np.zeros(len(rollups), dtype=np.bool_),
        }
    )
    return Cells(frame, p.hist)


def cells_from_samples(
    samples: pd.DataFrame,
    labelers: Sequence[Labeler],
    keep_starts: IntArray | None = None,
    period_s: int = HOUR_S,
    since_us: int | None = None,
    until_us: int | None = None,
) -> Cells:
    """Cells (per series, UTC hour and label) of raw samples (as `Store.samples_frame` returns them: whole
    runs, so that each received RTT meets its predecessor). Only samples in the periods of `period_s` that
    start at `keep_starts` (UTC seconds) and in [since_us, until_us) become cells; the others serve as
    predecessors for jitter. Attempts this machine could not send (`Sample.local_failure`) are in no cell,
    as in no rollup: they were never on the line (and, unanswered, are no jitter predecessor either)."""
    s = samples.sort_values(["result_id", "seq"], kind="stable")
    ts = s["ts_us"].to_numpy(dtype=np.int64)
    keep = (s["error"] != _LOCAL_FAILURE).to_numpy(dtype=np.bool_, copy=True)
    if keep_starts is not None:
        keep &= np.isin(ts // 1_000_000 // period_s * period_s, keep_starts)
    if since_us is not None:
        keep &= ts >= since_us
    if until_us is not None:
        keep &= ts < until_us
    kept_ts = ts[keep]
    keys = {
        "series_id": s["series_id"].to_numpy(dtype=np.int64)[keep],
        "hour_s": kept_ts // US_PER_HOUR * HOUR_S,
        **{labeler.name: labeler(kept_ts) for labeler in labelers},
    }
    if not kept_ts.size:
        empty = pd.DataFrame({k: pd.Series(dtype="int64") for k in keys})
        empty = empty.assign(**{c: pd.Series(dtype="float64") for c in PART_COLUMNS}, raw=True)
        return Cells(empty, Hist.empty())
    number, first = _group_numbers(list(keys.values()))
    group = np.zeros(ts.size, dtype=np.int64)
    group[keep] = number
    parts = sample_parts(
        s["result_id"].to_numpy(dtype=np.int64),
        s["rtt_ms"].to_numpy(dtype=np.float64),
        group,
        first.size,
        counted=keep,
    )
    frame = pd.DataFrame({name: values[first] for name, values in keys.items()})
    for name, values in parts.columns().items():
        frame[name] = values
    frame["raw"] = True
    return Cells(frame, parts.hist)


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
