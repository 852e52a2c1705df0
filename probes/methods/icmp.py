"""ICMP echo ("ping") through the shared `IcmpEngine`; falls back to TCP when ICMP is not permitted here."""

from __future__ import annotations

import asyncio
import dataclasses

from probes.errors import ErrorKind, IcmpNotPermitted, ResolveFailed
from probes.icmp_engine import EchoOutcome
from probes.methods import tcp
from probes.methods._attempts import describe_losses, send_paced
from probes.methods._context import RunContext
from probes.resolve import resolve
from probes.results import ProbeResult, Sample
from probes.target import Method, ProbeOptions, Target
from probes.timestamps import now_us


async def measure(target: Target, options: ProbeOptions, ctx: RunContext) -> ProbeResult:
    started = now_us()
    assert target.host is not None
    try:
        resolved = await resolve(target.host)
    except ResolveFailed as exc:
        return ProbeResult(target, started, now_us(), error=ErrorKind.DNS, message=str(exc))
    try:
        ctx.icmp.privileged(resolved.family)
    except IcmpNotPermitted as exc:
        if target.port is not None:
            result = await tcp.measure(target.with_method(Method.TCP), options, ctx)
            note = f"{exc} Measured TCP port {target.port} instead."
            return dataclasses.replace(
                result, message=note if result.message is None else f"{note} {result.message}"
            )
        return ProbeResult(target, started, now_us(), error=ErrorKind.PERMISSION, message=str(exc))

    def start(seq: int) -> asyncio.Future[EchoOutcome]:
        future = ctx.icmp.send(resolved.address, resolved.family, options.timeout_s, options.payload_bytes)
        if ctx.on_sample is not None:
            future.add_done_callback(lambda f: ctx.emit(target, _sample(seq, f.result())))
        return future

    outcomes = await send_paced(options.count, options.interval_s, ctx.pacer, start)
    samples = tuple(_sample(i, o) for i, o in enumerate(outcomes))
    responders = sorted({str(o.responder) for o in outcomes if o.error and o.responder})
    message = describe_losses(samples, "echoes")
    if message and responders:
        message += f" (reported by {', '.join(responders)})"
    return ProbeResult(
        target,
        started,
        now_us(),
        samples=samples,
        message=message,
        metrics={"address": resolved.address, "privileged": ctx.icmp.privileged(resolved.family)},
    )


def _sample(seq: int, outcome: EchoOutcome) -> Sample:
    return Sample(seq, outcome.sent_at_us, outcome.rtt_ms, outcome.error)
