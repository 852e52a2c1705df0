"""The write path: a measured round (its results, samples, traces and the rollups they change) in one
transaction, so a kill at any moment loses at most the round in flight; and the rollups rebuilt from the raw
samples. No SQL: rows come from `probes.store.measured`, rollup sums from `probes.store.rollup`.

A round costs a handful of statements whatever its size: one look-up of its id and slot, one of all its
series (what each result measured, with its labels, from the round's vantage point: `records.series_row`;
none while this writer wrote them last), one insert of all its results and one of all its samples, and per rollup length one read of every
rollup it touches and one write of the sums.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from probes.errors import DamagedStoreError, ErrorKind
from probes.i18n import N_, _
from probes.store.backend import Backend
from probes.store.measured import MeasuredRound, ResultRows
from probes.store.recent import RecentRows
from probes.store.records import series_row
from probes.store.rollup import PERIODS_S, FloatArray, IntArray, Rollups

_LOCAL_FAILURE = str(ErrorKind.SEND_FAILED)  # a sample's stored error when this machine could not send it

_REBUILD_CHUNK = 500_000  # samples per step when rollups are rebuilt (memory stays bounded)


class WriteStatus(StrEnum):
    STORED = "stored"
    ALREADY_STORED = "already stored"  # a round with this uid is in the store (forwarded twice)
    SLOT_TAKEN = "slot taken"  # another round of this plan and vantage point measured this slot


@dataclass(frozen=True, slots=True)
class Written:
    """What writing a round did: the id of the round now in the store for it, and how it got there."""

    round_id: int
    status: WriteStatus


def write_round(backend: Backend, measured: MeasuredRound, recent: RecentRows | None = None) -> Written:
    """Store a measured round in one transaction, unless the store has it (its uid) or its slot already.
    `recent` (what this writer wrote last) spares look-ups while nobody else writes the store."""
    recent = recent if recent is not None else RecentRows()
    try:
        return _write_round(backend, measured, recent)
    except BaseException:
        recent.forget()  # the transaction was rolled back
        raise


def _write_round(backend: Backend, measured: MeasuredRound, recent: RecentRows) -> Written:
    with backend.transaction(N_("could not save the round")):
        recent.begin(backend.generation())
        existing = backend.round_of(measured.uid)
        if existing is not None:
            return Written(existing, WriteStatus.ALREADY_STORED)
        if measured.slot_us is not None and measured.plan is not None:
            holder = backend.round_in_slot(measured.vantage, measured.plan, measured.slot_us)
            if holder is not None:
                return Written(holder, WriteStatus.SLOT_TAKEN)
        round_id = backend.insert_round(measured.round)
        results = measured.results
        series_ids = _series_ids(backend, [series_row(r.target, measured.vantage) for r in results], recent)
        result_ids = backend.insert_results(
            [(round_id, series_id, *r.result) for r, series_id in zip(results, series_ids, strict=True)]
        )
        # The round's samples in result and attempt order (their key's order): those of runs without phases
        # (every method but responsiveness) in one statement without the phase, the others in another.
        runs = list(zip(results, series_ids, result_ids, strict=True))
        for phased in (False, True):
            these = [run for run in runs if (run[0].phase.count(None) != len(run[0].phase)) is phased]
            if these:
                backend.insert_samples(_sample_rows(these, phased), phased=phased)
        for r, series_id, result_id in zip(results, series_ids, result_ids, strict=True):
            if r.trace is not None:
                backend.insert_trace(
                    (result_id, series_id, *r.trace), [(result_id, *reply) for reply in r.trace_replies]
                )
        lengths = np.fromiter((len(r.ts_us) for r in results), dtype=np.int64, count=len(results))
        total = int(lengths.sum())
        series: IntArray = np.repeat(np.asarray(series_ids, dtype=np.int64), lengths)
        run: IntArray = np.repeat(np.asarray(result_ids, dtype=np.int64), lengths)
        ts = np.fromiter(itertools.chain.from_iterable(r.ts_us for r in results), dtype=np.int64, count=total)
        if total:
            # How far a sample lies from its run's start: readers find a window's samples through the runs
            # started within the store's reach of it.
            started = np.repeat(np.fromiter((r.result[0] for r in results), np.int64, len(results)), lengths)
            reach = int(np.abs(ts - started).max())
            if reach > recent.sample_reach:
                backend.widen_sample_reach(reach)
                recent.sample_reach = reach
        rtt = np.array(list(itertools.chain.from_iterable(r.rtt_ms for r in results)), dtype=np.float64)
        if any(_LOCAL_FAILURE in r.error for r in results):
            # Kept as samples, but the rollups count what went out on the line (`Sample.local_failure`).
            errors = itertools.chain.from_iterable(r.error for r in results)
            on_line = np.fromiter((e != _LOCAL_FAILURE for e in errors), dtype=np.bool_, count=total)
            series, run, ts, rtt = series[on_line], run[on_line], ts[on_line], rtt[on_line]
        add_to_rollups(backend, recent, series, run, ts, rtt)
    return Written(round_id, WriteStatus.STORED)


def _sample_rows(runs: list[tuple[ResultRows, int, int]], phased: bool) -> Iterator[tuple[Any, ...]]:
    """`SAMPLE_COLUMNS` rows of (result, series id, result id) runs; without the phase unless `phased`."""
    return itertools.chain.from_iterable(
        zip(
            itertools.repeat(result_id),
            itertools.repeat(series_id),
            r.ts_us,
            r.seq,
            r.rtt_ms,
            r.error,
            range(len(r.ts_us)),
            *((r.phase,) if phased else ()),
        )
        for r, series_id, result_id in runs
    )


def _series_ids(backend: Backend, rows: list[tuple[Any, ...]], recent: RecentRows) -> list[int]:
    ids, pending = recent.series_ids(rows)
    if pending:
        written = [rows[i] for i in pending]
        new_ids = backend.series_ids(written)
        recent.remember_series(written, new_ids)
        for position, series_id in zip(pending, new_ids, strict=True):
            ids[position] = series_id
    return [int(i) for i in ids if i is not None]


def add_to_rollups(
    backend: Backend,
    recent: RecentRows,
    series_id: IntArray,
    run: IntArray,
    ts_us: IntArray,
    rtt_ms: FloatArray,
) -> int:
    """Merge samples (in run and attempt order, `rtt_ms` NaN when lost) into the stored rollups of every
    length: read the rollups they touch, add, write the sums back; the number of rollups written."""
    written = 0
    shortest = Rollups.of_samples(PERIODS_S[-1], series_id, run, ts_us, rtt_ms)
    if not len(shortest):
        return 0
    for period_s in PERIODS_S:
        new = shortest if period_s == shortest.period_s else shortest.coarsened(period_s)
        known, unknown = recent.rollups(new)
        stored_rows = backend.rollups_at(period_s, unknown) if unknown else []
        try:
            stored = Rollups.of_rows(period_s, stored_rows)
        except (TypeError, ValueError) as exc:
            raise DamagedStoreError(
                backend.path, _("a stored rollup cannot be read: {problem}").format(problem=exc)
            ) from exc
        merged = new.plus(known).plus(stored)
        backend.put_rollups(period_s, merged.rows())
        recent.remember_rollups(merged)
        written += len(merged)
    return written


def rebuild_rollups(backend: Backend) -> int:
    """Recompute every rollup from the raw samples, in one transaction; the number of rollup rows written."""
    with backend.transaction(N_("could not rebuild the rollups")):
        return rebuild_rollups_in_transaction(backend)


def rebuild_rollups_in_transaction(backend: Backend) -> int:
    """`rebuild_rollups` inside a transaction the caller holds (a migration's). The samples are read in run
    order and merged a million at a time, whole runs only, so memory stays bounded on large stores."""
    backend.clear_rollups()
    recent = RecentRows()
    written = 0
    chunks = _whole_run_chunks(backend.samples_in_run_order(), _REBUILD_CHUNK)
    while True:
        try:
            series, run, ts, rtt = next(chunks)
        except StopIteration:
            return written
        except (TypeError, ValueError) as exc:
            raise DamagedStoreError(
                backend.path, _("a stored sample cannot be read: {problem}").format(problem=exc)
            ) from exc
        written += add_to_rollups(backend, recent, series, run, ts, rtt)


def _whole_run_chunks(
    rows: Iterable[Sequence[Any]], size: int
) -> Iterator[tuple[IntArray, IntArray, IntArray, FloatArray]]:
    """(series, run, ts_us, rtt_ms) arrays of about `size` samples each from (result_id, series_id, ts_us,
    rtt_ms) rows in run order; a run is never split between two chunks (its jitter pairs stay together)."""
    iterator = iter(rows)
    carry: list[Sequence[Any]] = []
    while True:
        chunk = carry + list(itertools.islice(iterator, size))
        if not chunk:
            return
        exhausted = len(chunk) - len(carry) < size
        carry = []
        if not exhausted:
            last_run = chunk[-1][0]
            cut = len(chunk)
            while cut > 0 and chunk[cut - 1][0] == last_run:
                cut -= 1
            if cut == 0:  # one run fills the chunk: read on until it ends
                carry = chunk
                continue
            chunk, carry = chunk[:cut], chunk[cut:]  # the last (maybe unfinished) run goes to the next chunk
        run, series, ts, rtt = zip(*chunk, strict=True)
        yield (
            np.asarray(series, dtype=np.int64),
            np.asarray(run, dtype=np.int64),
            np.asarray(ts, dtype=np.int64),
            np.array(rtt, dtype=np.float64),
        )
        if exhausted:
            return
