"""ICMP echo ("ping") through the shared `IcmpEngine`; falls back to TCP when ICMP is not permitted here.

The run's engine (the probe backend's, `probes.backends`) sends the target's echoes as one train on the
run's pacer; on Linux it times each reply with the kernel's stamps at both ends. The result's `backend`
metric names the backend, `timestamps` who timed its replies (`kernel`; `kernel-rx` where the kernel gave no
transmit stamp; `user`), with a note where that is less than the backend's best.
"""

from __future__ import annotations

import asyncio
import dataclasses

from probes.errors import ErrorKind, IcmpNotPermitted, ResolveFailed
from probes.i18n import _
from probes.icmp.echoes import EchoOutcome
from probes.methods import tcp
from probes.methods._attempts import attempt_notes, local_failure_result
from probes.methods._context import RunContext
from probes.resolve import resolve
from probes.results import MetricValue, ProbeResult, Sample
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
        privileged = ctx.icmp.privileged(resolved.family)
    except IcmpNotPermitted as exc:
        if target.port is not None:
            result = await tcp.measure(target.with_method(Method.TCP), options, ctx)
            if result.message is None:
                note = _("{reason} Measured TCP port {port} instead.").format(reason=exc, port=target.port)
            else:
                note = _("{reason} Measured TCP port {port} instead. {notes}").format(
                    reason=exc, port=target.port, notes=result.message
                )
            return dataclasses.replace(result, message=note)
        return ProbeResult(target, started, now_us(), error=ErrorKind.PERMISSION, message=str(exc))

    emitted: dict[int, Sample] = {}
    finished: dict[int, EchoOutcome] = {}

    def emit(seq: int, outcome: EchoOutcome) -> None:
        sample = emitted[seq] = _sample(seq, outcome)
        ctx.emit(target, sample)

    try:
        outcomes = await ctx.icmp.train(
            resolved.address,
            resolved.family,
            count=options.count,
            interval_s=options.interval_s,
            timeout_s=options.timeout_s,
            payload_bytes=options.payload_bytes,
            pacer=ctx.pacer,
            # Each echo's sample as it finishes where someone watches; else only the outcomes are kept (a
            # dict's own method: no Python code per echo), and become samples at the train's end.
            on_outcome=emit if ctx.watched else finished.__setitem__,
        )
    except asyncio.CancelledError:  # given up (the target's time budget): what finished is still measured
        for seq in sorted(finished):
            ctx.emit(target, _sample(seq, finished[seq]))
        raise
    samples = tuple(emitted.get(i) or _sample(i, o) for i, o in enumerate(outcomes))
    metrics: dict[str, MetricValue] = {
        "address": resolved.address,
        "privileged": privileged,
        "backend": ctx.backend.name,
    }
    details = [o.detail for o in outcomes if o.error is ErrorKind.SEND_FAILED]
    failed = local_failure_result(target, started, samples, details, metrics)
    if failed is not None:
        return failed
    responders = sorted({str(o.responder) for o in outcomes if o.error and o.responder})
    notes = attempt_notes(
        samples,
        "echoes",
        late_ms=[o.answered_ms for o in outcomes if o.error is ErrorKind.LATE and o.answered_ms],
        timeout_s=options.timeout_s,
        sources=[o.timestamps for o in outcomes if o.rtt_ms is not None and o.timestamps],
        tx_refused=ctx.icmp.tx_timestamps_refused(resolved.family),
        best=ctx.backend.best_timestamps,
        responders=responders,
        details=details,
    )
    return ProbeResult(
        target,
        started,
        now_us(),
        samples=samples,
        message=notes.message,
        metrics={**metrics, "timestamps": notes.timestamps},
    )


def _sample(seq: int, outcome: EchoOutcome) -> Sample:
    return Sample(seq, outcome.sent_at_us, outcome.rtt_ms, outcome.error)
