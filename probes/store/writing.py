"""The write path: a finished round (its results, samples, traces and the rollups they change) in one
transaction, so a kill at any moment loses at most the round in flight; and the rollups rebuilt from the raw
samples. No SQL: rows come from `probes.store.records`, rollup sums from `probes.store.rollup`.
"""

from __future__ import annotations

import platform
import socket
from collections.abc import Iterable, Sequence
from typing import Any

from probes._version import __version__
from probes.results import ProbeResult
from probes.store import records
from probes.store.backend import Backend
from probes.store.rollup import RollupDelta, RunSamples, rollup_deltas


def run_metadata(privileged: bool | None = None, probe_backend: str | None = None) -> dict[str, Any]:
    """What to record with a round so its figures can be interpreted later (the probe backend that
    measured it among them: each result also names it, in its `backend` metric)."""
    return {
        "tool_version": __version__,
        "python": platform.python_version(),
        "os": platform.platform(),
        "hostname": socket.gethostname(),
        "privileged_icmp": privileged,
        "probe_backend": probe_backend,
    }


def save_round(
    backend: Backend,
    results: Sequence[ProbeResult],
    *,
    started_us: int,
    finished_us: int,
    source: str,
    plan: str | None = None,
    vantage: str | None = None,
    peak: bool | None = None,
    meta: dict[str, Any] | None = None,
) -> int:
    """Write one finished round (its results, samples and rollups) in one transaction; its id."""
    meta = dict(meta or run_metadata())
    row = records.round_row(started_us, finished_us, source, plan, vantage, peak, __version__, meta)
    with backend.transaction("save the round"):
        round_id = backend.insert_round(row)
        runs = RunSamples()
        samples: list[tuple[Any, ...]] = []
        for result in results:
            target_id = _save_result(backend, round_id, result, samples)
            runs.add(target_id, result)
        backend.insert_samples(samples)  # the round's samples in one statement, in result and attempt order
        add_to_rollups(backend, runs)
    return round_id


def save_results(
    backend: Backend,
    results: Sequence[ProbeResult],
    *,
    source: str,
    plan: str | None = None,
    vantage: str | None = None,
    peak: bool | None = None,
    meta: dict[str, Any] | None = None,
) -> int | None:
    """Store one run's results as a round (its span from the results, whether ICMP ran privileged in its
    metadata); the round's id, or None when there was nothing to store."""
    if not results:
        return None
    privileged = next(
        (bool(r.metrics["privileged"]) for r in results if r.metrics.get("privileged") is not None), None
    )
    backends = sorted({str(r.metrics["backend"]) for r in results if r.metrics.get("backend")})
    return save_round(
        backend,
        results,
        started_us=min(r.started_at_us for r in results),
        finished_us=max(r.finished_at_us for r in results),
        source=source,
        plan=plan,
        vantage=vantage,
        peak=peak,
        meta=run_metadata(privileged, backends[0] if len(backends) == 1 else None) | (meta or {}),
    )


def _save_result(backend: Backend, round_id: int, result: ProbeResult, samples: list[tuple[Any, ...]]) -> int:
    """Write one result and its trace, add its sample rows to `samples`; the target's id."""
    target_id = backend.upsert_target(records.target_row(result.target))
    result_id = backend.insert_result(records.result_row(round_id, target_id, result))
    if result.trace is not None:
        backend.insert_trace(
            records.trace_row(result_id, target_id, result.trace),
            records.trace_reply_rows(result_id, result.trace),
        )
    samples.extend(records.sample_rows(result_id, target_id, result))
    return target_id


def add_to_rollups(backend: Backend, runs: RunSamples) -> int:
    """Merge samples into the stored rollups: read the rollups they touch, add, write the sums back; the
    number of rollups written."""
    deltas = rollup_deltas(runs)
    if not deltas:
        return 0
    stored = {
        (row[0], row[1]): RollupDelta.of_row(row)
        for row in backend.rollups_at([(target_id, hour_s) for target_id, hour_s, _ in deltas])
    }
    rows = []
    for target_id, hour_s, delta in deltas:
        before = stored.get((target_id, hour_s))
        rows.append((delta if before is None else delta.plus(before)).row(target_id, hour_s))
    backend.put_rollups(rows)
    return len(rows)


def rebuild_rollups(backend: Backend) -> int:
    """Recompute every hourly rollup from the raw samples; the number of rollup rows written."""
    with backend.transaction("rebuild the hourly rollups"):
        backend.clear_rollups()
        return add_to_rollups(backend, _runs_of(backend.samples_in_run_order()))


def _runs_of(rows: Iterable[tuple[Any, ...]]) -> RunSamples:
    runs = RunSamples()
    for result_id, target_id, ts_us, rtt_ms in rows:
        runs.append(target_id, result_id, ts_us, rtt_ms)
    return runs
