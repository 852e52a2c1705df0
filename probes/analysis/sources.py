"""Where each cell's figures come from: the longest rollups that answer exactly, then shorter ones, then the
raw samples.

A rollup answers a question exactly when every labeler gives its whole period one label and the period lies
wholly inside the scope's [since, until). The store keeps hourly and quarter-hourly rollups
(`probes.store.rollup.PERIODS_S`): an hour that a +05:30 zone or a window starting at 20:30 splits is
answered by its four quarter hours; only a quarter hour that is split too (a window edge at 20:10, a period
that starts at 10:07) is answered from the raw samples, a day at a time, with each run's earlier samples read
as well so jitter pairs are never lost. Rollups are kept per series, and a series is measured from one
vantage point: one office's figures come from its own rollups.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from probes.analysis.cells import Cells, cells_from_rollups, cells_from_samples, concat
from probes.analysis.clock import US_PER_HOUR, Labeler, label_periods
from probes.store import Store
from probes.store.rollup import PERIODS_S, Rollups

IntArray = npt.NDArray[np.int64]

_MAX_RUN_LOOKBACK_US = 7 * 24 * US_PER_HOUR
_RAW_CHUNK_S = 24 * 3600
_MAX_RANGE_QUERIES = 64  # stretches read one by one; more, and the whole span is read once and filtered
_MAX_GRID = 100_000  # periods checked on the time grid before reading rollups (decides whether to read)


def build_cells(
    store: Store,
    series_ids: Sequence[int],
    labelers: Sequence[Labeler],
    *,
    since_us: int | None = None,
    until_us: int | None = None,
    periods_s: Sequence[int] | None = None,
    raw_only: bool = False,
) -> Cells:
    """Cells of the series' samples in [since_us, until_us), labelled by `labelers`, each period from the
    longest rollups (of `periods_s`, longest first; default the store's) that answer it exactly, else from
    the raw samples. `raw_only`: every period from the raw samples (the answer the rollups must equal)."""
    periods_s = PERIODS_S if periods_s is None else periods_s
    names = [labeler.name for labeler in labelers]
    parts: list[Cells] = []
    pending: list[tuple[int, int]] | None = None  # the stretches still to answer; None: all of them
    fallback, finest = np.zeros(0, dtype=np.int64), periods_s[-1]
    for level, period_s in enumerate(periods_s):
        last = level == len(periods_s) - 1 or raw_only
        if not last and pending is None and not _may_answer(store, period_s, labelers, since_us, until_us):
            continue  # no period of this length could answer (a +05:30 zone and hours): skip reading them
        rollups = _rollups_in(store, period_s, series_ids, since_us, until_us, pending)
        if not len(rollups):
            if pending is None:
                fallback = np.zeros(0, dtype=np.int64)  # nothing measured at all
            break  # (else the longer periods still pending come from raw samples)
        starts = np.unique(rollups.start_s)
        exact = _exact(starts, period_s, labelers, since_us, until_us) & (not raw_only)
        labels = label_periods(starts, period_s, labelers)[0]
        position = np.searchsorted(starts, rollups.start_s)
        answered = np.flatnonzero(exact[position])
        parts.append(
            cells_from_rollups(
                rollups.take(answered), {name: labels[name][position[answered]] for name in names}
            )
        )
        fallback, finest = starts[~exact], period_s
        if not fallback.size or last:
            break
        pending = _stretches(fallback, period_s)
    if fallback.size:
        for start_s, end_s in _chunks(_stretches(fallback, finest), _RAW_CHUNK_S):
            start_us = start_s * 1_000_000 if since_us is None else max(start_s * 1_000_000, since_us)
            end_us = end_s * 1_000_000 if until_us is None else min(end_s * 1_000_000, until_us)
            samples = load_whole_runs(store, series_ids, start_us, end_us)
            parts.append(cells_from_samples(samples, labelers, fallback, finest, start_us, end_us))
    if not parts:
        return cells_from_rollups(
            Rollups.empty(periods_s[0]), {name: np.zeros(0, dtype=np.int64) for name in names}
        )
    return concat(parts)


def _exact(
    starts: IntArray, period_s: int, labelers: Sequence[Labeler], since_us: int | None, until_us: int | None
) -> npt.NDArray[np.bool_]:
    """Whether each period answers exactly: every labeler labels it uniformly, and it lies inside the scope."""
    exact = label_periods(starts, period_s, labelers)[1]
    if since_us is not None:
        exact &= starts * 1_000_000 >= since_us
    if until_us is not None:
        exact &= (starts + period_s) * 1_000_000 <= until_us
    return exact


def _may_answer(
    store: Store, period_s: int, labelers: Sequence[Labeler], since_us: int | None, until_us: int | None
) -> bool:
    """Whether any period of this length in the store's span could answer (checked on the time grid alone,
    so rollups nobody can use are not read); True when the span is too long to check cheaply."""
    span = store.rollup_span(period_s)
    if span is None:
        return True
    low = span[0] if since_us is None else max(span[0], since_us // 1_000_000 // period_s * period_s)
    high = span[1] if until_us is None else min(span[1], until_us // 1_000_000)
    if high < low:
        return True
    grid = np.arange(low, high + 1, period_s, dtype=np.int64)
    return grid.size > _MAX_GRID or bool(_exact(grid, period_s, labelers, since_us, until_us).any())


def _rollups_in(
    store: Store,
    period_s: int,
    series_ids: Sequence[int],
    since_us: int | None,
    until_us: int | None,
    stretches: list[tuple[int, int]] | None,
) -> Rollups:
    """The rollups of this length in the period, only those inside `stretches` ([start_s, end_s) pairs) when
    given: read stretch by stretch, or (many stretches) the whole span at once and filtered."""
    if stretches is None:
        return store.rollups(period_s, series_ids, since_us, until_us)
    if not stretches:
        return Rollups.empty(period_s)
    if len(stretches) > _MAX_RANGE_QUERIES:
        span = _clamped(stretches[0][0], stretches[-1][1], since_us, until_us)
        found = store.rollups(period_s, series_ids, *span)
        begins = np.asarray([b for b, _ in stretches], dtype=np.int64)
        ends = np.asarray([e for _, e in stretches], dtype=np.int64)
        which = np.searchsorted(begins, found.start_s, side="right") - 1
        keep = (which >= 0) & (found.start_s < ends[np.maximum(which, 0)])
        return found.take(np.flatnonzero(keep))
    pieces = [
        store.rollups(period_s, series_ids, *_clamped(begin, end, since_us, until_us))
        for begin, end in stretches
    ]
    return Rollups.concat(pieces)


def _clamped(begin_s: int, end_s: int, since_us: int | None, until_us: int | None) -> tuple[int, int]:
    start, end = begin_s * 1_000_000, end_s * 1_000_000
    return (
        start if since_us is None else max(start, since_us),
        end if until_us is None else min(end, until_us),
    )


def load_whole_runs(store: Store, series_ids: Sequence[int], start_us: int, end_us: int) -> pd.DataFrame:
    """Samples of the series in [start_us, end_us), plus the earlier samples of the runs they belong to
    (a run that started before `start_us` gives its first sample in range its jitter predecessor)."""
    lookback = US_PER_HOUR
    while True:
        samples = store.samples_frame(series_ids, start_us - lookback, end_us)
        in_range = samples["ts_us"].to_numpy() >= start_us
        first_seq = samples.groupby("result_id")["seq"].min()
        wanted = np.unique(samples.loc[in_range, "result_id"].to_numpy())
        # Runs number their attempts from 0: a wanted run whose first loaded attempt is later may have
        # begun before the loaded stretch.
        unsure = first_seq.loc[wanted][lambda seq: seq > 0].index.to_numpy()
        if unsure.size == 0 or lookback >= _MAX_RUN_LOOKBACK_US:
            return samples
        started = store.results_frame(series_ids, start_us - lookback, end_us)["result_id"].to_numpy()
        if np.isin(unsure, started).all():
            return samples  # they started inside the loaded stretch: nothing earlier to load
        lookback *= 4


def _chunks(stretches: list[tuple[int, int]], size_s: int) -> list[tuple[int, int]]:
    """The stretches cut into pieces of at most `size_s`, so raw samples are read a day at a time and memory
    stays bounded."""
    return [
        (start, min(start + size_s, end)) for begin, end in stretches for start in range(begin, end, size_s)
    ]


def _stretches(starts_s: IntArray, period_s: int) -> list[tuple[int, int]]:
    """Contiguous stretches of sorted period starts, as [start_s, end_s) pairs."""
    if starts_s.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(starts_s) != period_s) + 1
    return [(int(chunk[0]), int(chunk[-1]) + period_s) for chunk in np.split(starts_s, breaks)]
