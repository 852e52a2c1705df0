"""The store's records: what reading gives back (`StoredSeries`, `StoredTrace`, `SeriesHistory`, `RoundInfo`)
and the rows writing puts in, built from the engine's objects in the tables' column order (`*_COLUMNS`).

A series is what was measured (a target's method and address: `Target.key`) with the labels it was measured
under (name, provider, region, line type) and from which vantage point; rounds without one belong to
`THIS_MACHINE`. A series is never rewritten: a round with other labels, or from another vantage point, adds
to another series, so every row keeps the attribution it was measured with.

No SQL here: a backend (`probes.store.sqlite`) inserts these tuples and turns its rows into these records.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from probes.results import PathHop, ProbeResult
from probes.target import Target
from probes.vantage import vantage_of

if TYPE_CHECKING:
    from probes.traceroute.result import TraceResult

# The columns each write fills, in the order of the row tuples below (the id columns come from the backend).
# A target row (what a measured round carries per result, in the spool too) and a series row (the target row
# and the vantage point of its round).
TARGET_COLUMNS = ("key", "name", "method", "host", "port", "url", "provider", "region", "line_type")
SERIES_COLUMNS = (*TARGET_COLUMNS, "vantage")
ROUND_COLUMNS = (
    "started_us",
    "finished_us",
    "source",
    "plan",
    "vantage",
    "peak",
    "tool_version",
    "meta_json",
    "uid",
    "slot_us",
)
RESULT_COLUMNS = (
    "round_id",
    "series_id",
    "started_us",
    "finished_us",
    "sent",
    "received",
    "loss",
    "rtt_min_ms",
    "rtt_median_ms",
    "rtt_mean_ms",
    "rtt_p95_ms",
    "rtt_max_ms",
    "jitter_ms",
    "throughput_mbps",
    "bytes",
    "seconds",
    "ttfb_ms",
    "error",
    "message",
    "metrics_json",
)
# A sample's key is its run and its position in it (`pos`: 0, 1, … in attempt order, as written). Its phase
# comes last: rows of runs without phases (every method but responsiveness) are written without it.
SAMPLE_COLUMNS = ("result_id", "series_id", "ts_us", "seq", "rtt_ms", "error", "pos", "phase")
TRACE_COLUMNS = (
    "result_id",
    "series_id",
    "started_us",
    "address",
    "protocol",
    "port",
    "probes_per_hop",
    "max_hops",
    "privileged",
    "reached",
    "route_class",
    "route_rule",
    "route_evidence",
    "route_doubts_json",
)
TRACE_REPLY_COLUMNS = (
    "result_id",
    "ttl",
    "probe",
    "sent_us",
    "kind",
    "address",
    "rtt_ms",
    "error",
    "asn",
    "prefix",
)

# The text columns of `Store.results_frame` (an all-NULL one must read as None, not as a float NaN).
RESULT_TEXT_COLUMNS = (
    "key",
    "name",
    "method",
    "host",
    "url",
    "provider",
    "region",
    "line_type",
    "error",
    "message",
    "metrics_json",
    "vantage",
    "plan",
)


@dataclass(frozen=True, slots=True)
class StoredSeries:
    """A stored series: its id, what was measured (`key`: method and address; host, port, URL), the labels
    it was measured under and the vantage point it was measured from (`THIS_MACHINE` when its rounds named
    none)."""

    id: int
    key: str
    name: str
    method: str
    host: str | None
    port: int | None
    url: str | None
    provider: str | None
    region: str | None
    line_type: str | None
    vantage: str

    @property
    def address(self) -> str:
        """What was measured, as people write it: the URL; `host:port` where the port is part of what was
        measured (TCP, iperf3); the host alone for ICMP and traces (an ICMP target's port is only the TCP
        port it falls back to)."""
        return address(self.method, self.host, self.port, self.url)


def address(method: str, host: str | None, port: int | None, url: str | None) -> str:
    """A measured thing's address as people write it (see `StoredSeries.address`)."""
    if url:
        return url
    if host and port is not None and method in _PORTED_METHODS:
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return host or ""


_PORTED_METHODS = ("tcp", "iperf3")  # whose key names the port (`probes.target.Target.key`)


@dataclass(frozen=True, slots=True)
class StoredTrace:
    """One stored traceroute: its series' labels (those it was traced under), the addresses that answered
    per TTL, the route verdict it got when it was traced (`route_class` None when the trace failed) and the
    vantage point it was traced from (`THIS_MACHINE` when its round named none)."""

    result_id: int
    series_id: int
    name: str
    host: str | None
    provider: str | None
    region: str | None
    line_type: str | None
    started_us: int
    address: str | None
    protocol: str
    reached: bool
    route_class: str | None
    route_rule: str | None
    route_evidence: str | None
    route_doubts: tuple[str, ...]
    hops: tuple[tuple[int, tuple[str, ...]], ...]
    vantage: str

    @property
    def path(self) -> tuple[PathHop, ...]:
        """The hops as the route classifier takes them (to classify again with another network table)."""
        return tuple(PathHop(ttl, addresses) for ttl, addresses in self.hops)


@dataclass(frozen=True, slots=True)
class SeriesHistory:
    """What the store holds of one series: when its first and last result started (UTC µs), in how many
    rounds, its stored attempts (`samples`) and the replies among them."""

    series: StoredSeries
    first_us: int
    last_us: int
    rounds: int
    samples: int
    replies: int


@dataclass(frozen=True, slots=True)
class RoundInfo:
    """One stored round: when, from what (`source`: probe, schedule, gui, …), which plan and vantage point."""

    id: int
    started_us: int
    finished_us: int
    source: str
    plan: str | None
    vantage: str | None
    peak: bool | None


def target_row(target: Target) -> tuple[Any, ...]:
    """What a result measured, with its labels (`TARGET_COLUMNS`): the series row without its vantage."""
    return (
        target.key,
        target.name,
        str(target.method),
        target.host,
        target.port,
        target.url,
        target.provider,
        target.region,
        target.line_type,
    )


def round_row(
    started_us: int,
    finished_us: int,
    source: str,
    plan: str | None,
    vantage: str | None,
    peak: bool | None,
    tool_version: str,
    meta: Mapping[str, Any],
    uid: str,
    slot_us: int | None,
) -> tuple[Any, ...]:
    return (
        started_us,
        finished_us,
        source,
        plan,
        vantage,
        None if peak is None else int(peak),
        tool_version,
        json.dumps(meta, sort_keys=True),
        uid,
        slot_us,
    )


def result_row(result: ProbeResult) -> tuple[Any, ...]:
    """A result's summary row without its round and target ids (`RESULT_COLUMNS[2:]`); the figures the
    method names in its metrics get their own columns too."""
    summary = result.summary
    metrics = result.metrics
    figures = (
        (
            _number(metrics.get("throughput_mbps")),
            _number(metrics.get("bytes")),
            _number(metrics.get("seconds")),
            _number(metrics.get("ttfb_ms")),
        )
        if metrics
        else (None, None, None, None)
    )
    return (
        result.started_at_us,
        result.finished_at_us,
        summary.sent,
        summary.received,
        summary.loss,
        summary.rtt_min_ms,
        summary.rtt_median_ms,
        summary.rtt_mean_ms,
        summary.rtt_p95_ms,
        summary.rtt_max_ms,
        summary.jitter_ms,
        *figures,
        None if result.error is None else str(result.error),
        result.message,
        json.dumps(dict(metrics), sort_keys=True) if metrics else None,
    )


def sample_columns(
    result: ProbeResult,
) -> tuple[
    tuple[int, ...], tuple[int, ...], tuple[float | None, ...], tuple[str | None, ...], tuple[str | None, ...]
]:
    """A result's samples as columns (ts_us, seq, rtt_ms, error, phase: `SAMPLE_COLUMNS` but the ids and the
    position), in attempt order."""
    samples = result.samples
    errors = tuple(map(_ERROR, samples))
    return (
        tuple(map(_TS, samples)),
        tuple(map(_SEQ, samples)),
        tuple(map(_RTT, samples)),
        tuple(None if e is None else str(e) for e in errors) if any(errors) else errors,
        tuple(map(_PHASE, samples)),
    )


_TS, _SEQ, _RTT, _ERROR, _PHASE = (
    operator.attrgetter(name) for name in ("sent_at_us", "seq", "rtt_ms", "error", "phase")
)


def trace_row(trace: TraceResult) -> tuple[Any, ...]:
    """A trace and the route verdict it got, without its result and target ids (`TRACE_COLUMNS[2:]`)."""
    verdict = trace.verdict
    return (
        trace.started_at_us,
        trace.address,
        trace.protocol,
        trace.port,
        trace.probes_per_hop,
        trace.max_hops,
        None if trace.privileged is None else int(trace.privileged),
        int(trace.reached),
        None if verdict is None else verdict.line_class,
        None if verdict is None else verdict.rule,
        None if verdict is None else verdict.explanation(),
        None if verdict is None else json.dumps(list(verdict.doubts), ensure_ascii=False),
    )


def trace_reply_rows(trace: TraceResult) -> list[tuple[Any, ...]]:
    """A trace's probes, each with the network its answering address was labelled with, without their result
    id (`TRACE_REPLY_COLUMNS[1:]`)."""
    rows = []
    for hop in trace.hops:
        for reply in hop.replies:
            match = None if reply.address is None else hop.network_of(reply.address)
            rows.append(
                (
                    hop.ttl,
                    reply.probe,
                    reply.sent_at_us,
                    reply.kind,
                    reply.address,
                    reply.rtt_ms,
                    None if reply.error is None else str(reply.error),
                    None if match is None else match.asn,
                    None if match is None else match.prefix.cidr,
                )
            )
    return rows


def series_row(target: tuple[Any, ...], vantage: str | None) -> tuple[Any, ...]:
    """A series row (`SERIES_COLUMNS`) of a target row and its round's vantage point (`THIS_MACHINE` for
    none); empty labels are none (the series' identity treats them alike)."""
    labels = TARGET_COLUMNS.index("provider")
    return (*target[:labels], *(value or None for value in target[labels:]), vantage_of(vantage))


def stored_trace(row: tuple[Any, ...], replies: list[tuple[Any, ...]]) -> StoredTrace:
    """A trace from its row (the `StoredTrace` fields up to `route_doubts`, the doubts as JSON, then its
    series' vantage point) and its replies' (ttl, address) in TTL and probe order; each TTL keeps its
    distinct answering addresses."""
    hops: dict[int, list[str]] = {}
    for ttl, address in replies:
        addresses = hops.setdefault(int(ttl), [])
        if address is not None and address not in addresses:
            addresses.append(str(address))
    return StoredTrace(
        result_id=row[0],
        series_id=row[1],
        name=row[2],
        host=row[3],
        provider=row[4],
        region=row[5],
        line_type=row[6],
        started_us=row[7],
        address=row[8],
        protocol=row[9],
        reached=bool(row[10]),
        route_class=row[11],
        route_rule=row[12],
        route_evidence=row[13],
        route_doubts=tuple(json.loads(row[14])) if row[14] else (),
        hops=tuple((ttl, tuple(addresses)) for ttl, addresses in sorted(hops.items())),
        vantage=row[15],
    )


def _number(value: object) -> float | int | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None
