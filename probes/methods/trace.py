"""`trace` as a probe method: a traceroute from the office to the target through the run's shared ICMP
engine and pacer, classified against the network table (CN2 GIA, CN2 GT, 163, ...).

The result's samples are the probes that reached the destination (its statistics are end-to-end, like
an echo's); the hops and the route verdict ride along in `ProbeResult.trace` and are stored with it.
"""

from __future__ import annotations

import dataclasses

from probes.errors import ErrorKind, NetworkTableError, TargetError
from probes.methods._context import RunContext
from probes.results import ProbeResult, Sample
from probes.routes.table import NetworkTable, load_network_table
from probes.target import ProbeOptions, Target
from probes.timestamps import now_us
from probes.traceroute.engine import TraceOptions, trace_host
from probes.traceroute.result import HopReply, TraceResult

_TABLE_KEY = "route_network_table"


async def measure(target: Target, options: ProbeOptions, ctx: RunContext) -> ProbeResult:
    started = now_us()
    assert target.host is not None
    try:
        table = network_table(ctx)
    except NetworkTableError as exc:
        return ProbeResult(target, started, now_us(), error=ErrorKind.INVALID, message=str(exc))
    try:
        trace_options = trace_options_for(options, target.port)
    except TargetError as exc:
        return ProbeResult(target, started, now_us(), error=ErrorKind.INVALID, message=str(exc))
    result = await trace_host(
        target.host,
        trace_options,
        table,
        icmp=ctx.icmp,
        pacer=ctx.pacer,
        name=target.name,
        backend=ctx.backend,
    )
    probe_result = to_probe_result(target, result)
    return dataclasses.replace(probe_result, metrics={**probe_result.metrics, "backend": ctx.backend.name})


def network_table(ctx: RunContext) -> NetworkTable:
    """The run's network table (bundled + the user's), loaded once per run."""
    table = ctx.extra.get(_TABLE_KEY)
    if not isinstance(table, NetworkTable):
        table = load_network_table()
        ctx.extra[_TABLE_KEY] = table
    return table


def trace_options_for(options: ProbeOptions, port: int | None) -> TraceOptions:
    """Probe options read as a trace's: `count` probes per hop, rounds `interval_s` apart."""
    return TraceOptions(
        protocol=options.trace_protocol,  # type: ignore[arg-type]  # validated by ProbeOptions
        probes_per_hop=min(options.count, 100),
        max_hops=options.trace_max_hops,
        timeout_s=options.timeout_s,
        round_interval_s=options.interval_s,
        port=port,
        payload_bytes=min(options.payload_bytes, 1400),
    )


def to_probe_result(target: Target, trace: TraceResult) -> ProbeResult:
    """A trace as a probe result: destination probes as samples, the route verdict among the metrics."""
    last = trace.destination_hop or (trace.hops[-1] if trace.hops else None)
    samples = tuple(_sample(r) for r in last.replies) if last is not None else ()
    verdict = trace.verdict
    metrics: dict[str, float | int | str | None] = {
        "address": trace.address,
        "protocol": trace.protocol,
        "privileged": trace.privileged,
        "hops": len(trace.hops),
        "reached": int(trace.reached),
    }
    if verdict is not None:
        metrics |= {
            "route_class": verdict.line_class,
            "route_rule": verdict.rule,
            "route_evidence": verdict.explanation(),
        }
    return ProbeResult(
        target,
        trace.started_at_us,
        trace.finished_at_us,
        samples=samples,
        error=trace.error,
        message=trace.message,
        metrics=metrics,
        trace=trace,
    )


def _sample(reply: HopReply) -> Sample:
    if reply.kind == "reached":
        return Sample(reply.probe, reply.sent_at_us, reply.rtt_ms, None)
    if reply.kind == "time-exceeded":
        return Sample(reply.probe, reply.sent_at_us, None, ErrorKind.TTL_EXCEEDED)
    return Sample(reply.probe, reply.sent_at_us, None, reply.error or ErrorKind.TIMEOUT)
