"""A measured round as the rows it becomes: what the write path stores, and what the spool keeps (as JSON)
until the store can take it.

A round carries a stable id (`uid`, random, made when the round is measured): the store keeps each uid once,
so a round forwarded from the spool twice (a kill between storing and forgetting it) is stored once. A
scheduled round also names its slot (`slot_us`, the moment the schedule meant it to start): the store keeps
one round per (vantage, plan, slot). No SQL: the rows are in `probes.store.records`' column orders.

The JSON form is versioned (`RECORD_VERSION`): version 2 carries each sample's `phase` (what the line was
doing when a `responsiveness` probe was sent); version 1, written before samples had phases, is still read,
its samples without a phase.
"""

from __future__ import annotations

import json
import platform
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from probes._version import __version__
from probes.i18n import _
from probes.results import ProbeResult
from probes.store import records

Row = tuple[Any, ...]

RECORD_FORMAT = "linkvet-round"
RECORD_VERSION = 2
_READ_VERSIONS = (1, 2)  # version 1: no `phase` column (every sample's phase None)


@dataclass(frozen=True, slots=True)
class ResultRows:
    """One result's rows without the ids the store gives them: its target (`TARGET_COLUMNS`), its summary
    (`RESULT_COLUMNS[2:]`), its samples as columns (ts_us, seq, rtt_ms, error, phase), its trace (`TRACE_COLUMNS[2:]`) and the trace's probes
    (`TRACE_REPLY_COLUMNS[1:]`)."""

    target: Row
    result: Row
    ts_us: tuple[int, ...]
    seq: tuple[int, ...]
    rtt_ms: tuple[float | None, ...]
    error: tuple[str | None, ...]
    phase: tuple[str | None, ...]
    trace: Row | None = None
    trace_replies: tuple[Row, ...] = ()

    @property
    def key(self) -> str:
        return str(self.target[0])


@dataclass(frozen=True, slots=True)
class MeasuredRound:
    """A finished round ready to be stored: its row (`ROUND_COLUMNS`) and its results' rows."""

    round: Row
    results: tuple[ResultRows, ...]

    @property
    def uid(self) -> str:
        return str(self.round[_UID])

    @property
    def started_us(self) -> int:
        return int(self.round[0])

    @property
    def plan(self) -> str | None:
        return None if self.round[3] is None else str(self.round[3])

    @property
    def vantage(self) -> str | None:
        return None if self.round[4] is None else str(self.round[4])

    @property
    def slot_us(self) -> int | None:
        return None if self.round[_SLOT] is None else int(self.round[_SLOT])

    @property
    def samples(self) -> int:
        return sum(len(r.ts_us) for r in self.results)


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


_UID = records.ROUND_COLUMNS.index("uid")
_SLOT = records.ROUND_COLUMNS.index("slot_us")


def measured_round(
    results: Sequence[ProbeResult],
    *,
    started_us: int,
    finished_us: int,
    source: str,
    plan: str | None = None,
    vantage: str | None = None,
    peak: bool | None = None,
    meta: dict[str, Any] | None = None,
    slot_us: int | None = None,
    uid: str | None = None,
) -> MeasuredRound:
    """The rows of a round of these results (a new uid unless one is given)."""
    row = records.round_row(
        started_us,
        finished_us,
        source,
        plan,
        vantage,
        peak,
        __version__,
        dict(meta or run_metadata()),
        uid or uuid.uuid4().hex,
        slot_us,
    )
    return MeasuredRound(row, tuple(_result_rows(r) for r in results))


def measured_results(
    results: Sequence[ProbeResult],
    *,
    source: str,
    plan: str | None = None,
    vantage: str | None = None,
    peak: bool | None = None,
    meta: dict[str, Any] | None = None,
    slot_us: int | None = None,
) -> MeasuredRound | None:
    """One run's results as a round: its span from the results, whether ICMP ran privileged in its metadata;
    None when there is nothing to store."""
    if not results:
        return None
    privileged = next(
        (bool(r.metrics["privileged"]) for r in results if r.metrics.get("privileged") is not None), None
    )
    backends = sorted({str(r.metrics["backend"]) for r in results if r.metrics.get("backend")})
    return measured_round(
        results,
        started_us=min(r.started_at_us for r in results),
        finished_us=max(r.finished_at_us for r in results),
        source=source,
        plan=plan,
        vantage=vantage,
        peak=peak,
        meta=run_metadata(privileged, backends[0] if len(backends) == 1 else None) | (meta or {}),
        slot_us=slot_us,
    )


def _result_rows(result: ProbeResult) -> ResultRows:
    ts, seq, rtt, error, phase = records.sample_columns(result)
    trace = result.trace
    return ResultRows(
        records.target_row(result.target),
        records.result_row(result),
        ts,
        seq,
        rtt,
        error,
        phase,
        None if trace is None else records.trace_row(trace),
        () if trace is None else tuple(records.trace_reply_rows(trace)),
    )


# -- the spool's form ----------------------------------------------------------------------------------------


def to_json(measured: MeasuredRound) -> str:
    """The round as one versioned JSON document."""
    return json.dumps(
        {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "round": list(measured.round),
            "results": [
                {
                    "target": list(r.target),
                    "result": list(r.result),
                    "ts_us": list(r.ts_us),
                    "seq": list(r.seq),
                    "rtt_ms": list(r.rtt_ms),
                    "error": list(r.error),
                    "phase": list(r.phase),
                    "trace": None if r.trace is None else list(r.trace),
                    "trace_replies": [list(t) for t in r.trace_replies],
                }
                for r in measured.results
            ],
        },
        separators=(",", ":"),
    )


def from_json(text: str) -> MeasuredRound:
    """A round from `to_json`'s form; ValueError saying what is wrong with anything else."""
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(_("not JSON: {reason}").format(reason=exc)) from None
    if not isinstance(doc, dict) or doc.get("format") != RECORD_FORMAT:
        raise ValueError(_("not a {format} document").format(format=RECORD_FORMAT))
    version = doc.get("version")
    if type(version) is not int or version not in _READ_VERSIONS:
        raise ValueError(
            _("{format} version {version}; this linkvet reads versions 1 to {newest}").format(
                format=RECORD_FORMAT, version=repr(version), newest=RECORD_VERSION
            )
        )
    round_row = _row(doc.get("round"), len(records.ROUND_COLUMNS), "round")
    if not isinstance(round_row[_UID], str) or not isinstance(round_row[0], int):
        raise ValueError(_("the round has no id or no start"))
    results = doc.get("results")
    if not isinstance(results, list):
        raise ValueError(_("results: expected a list"))
    return MeasuredRound(round_row, tuple(_result_of(r, i, version) for i, r in enumerate(results)))


def _result_of(doc: object, index: int, version: int) -> ResultRows:
    where = f"results[{index}]"
    if not isinstance(doc, dict):
        raise ValueError(_("{where}: expected an object").format(where=where))
    columns = [doc.get(name) for name in ("ts_us", "seq", "rtt_ms", "error")]
    if version >= 2:
        columns.append(doc.get("phase"))
    if not all(isinstance(c, list) for c in columns) or len({len(c) for c in columns}) != 1:  # type: ignore[arg-type]
        raise ValueError(_("{where}: the sample columns are not lists of one length").format(where=where))
    ts, seq, rtt, error = columns[:4]
    phase = columns[4] if version >= 2 else [None] * len(ts)  # type: ignore[arg-type]
    assert (
        isinstance(ts, list)
        and isinstance(seq, list)
        and isinstance(rtt, list)
        and isinstance(error, list)
        and isinstance(phase, list)
    )
    if not all(isinstance(v, int) for v in (*ts, *seq)):
        raise ValueError(_("{where}: a sample's time or number is not an integer").format(where=where))
    if not all(v is None or isinstance(v, int | float) for v in rtt):
        raise ValueError(_("{where}: a sample's RTT is not a number").format(where=where))
    if not all(v is None or isinstance(v, str) for v in error):
        raise ValueError(_("{where}: a sample's error is not text").format(where=where))
    if not all(v is None or isinstance(v, str) for v in phase):
        raise ValueError(_("{where}: a sample's phase is not text").format(where=where))
    trace = doc.get("trace")
    replies = doc.get("trace_replies", [])
    if not isinstance(replies, list):
        raise ValueError(_("{where}: trace_replies: expected a list").format(where=where))
    return ResultRows(
        _row(doc.get("target"), len(records.TARGET_COLUMNS), f"{where}.target"),
        _row(doc.get("result"), len(records.RESULT_COLUMNS) - 2, f"{where}.result"),
        tuple(ts),
        tuple(seq),
        tuple(None if v is None else float(v) for v in rtt),
        tuple(error),
        tuple(phase),
        None if trace is None else _row(trace, len(records.TRACE_COLUMNS) - 2, f"{where}.trace"),
        tuple(_row(t, len(records.TRACE_REPLY_COLUMNS) - 1, f"{where}.trace_replies") for t in replies),
    )


def _row(value: object, width: int, where: str) -> Row:
    if not isinstance(value, list) or len(value) != width:
        raise ValueError(_("{where}: expected a list of {width} values").format(where=where, width=width))
    if not all(v is None or isinstance(v, str | int | float) for v in value):
        raise ValueError(_("{where}: a value is not text or a number").format(where=where))
    return tuple(value)
