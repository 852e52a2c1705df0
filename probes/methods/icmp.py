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
from probes.resolve import Resolved, resolve
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
        train = EchoTrain.start(target, options, ctx, resolved, started)
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
    try:
        outcomes = await train.future
    except asyncio.CancelledError:  # given up (the target's time budget): what finished is still measured
        if not ctx.watched:  # (watched, each sample went to the hook as it finished)
            for sample in train.finished_samples():
                ctx.emit(target, sample)
        raise
    return train.result(outcomes)


class EchoTrain:
    """One target's echoes handed to the run's engine as a train, and the result made of their outcomes: what
    `measure` awaits, and what the runner starts for many targets at once without a task each
    (`probes.runner`)."""

    __slots__ = (
        "_emitted",
        "_finished",
        "ctx",
        "future",
        "options",
        "privileged",
        "resolved",
        "started_us",
        "target",
    )

    def __init__(
        self,
        target: Target,
        options: ProbeOptions,
        ctx: RunContext,
        resolved: Resolved,
        started_us: int,
        privileged: bool,
    ) -> None:
        self.target = target
        self.options = options
        self.ctx = ctx
        self.resolved = resolved
        self.started_us = started_us
        self.privileged = privileged
        self._emitted: dict[int, Sample] = {}
        self._finished: dict[int, EchoOutcome] = {}
        self.future = ctx.icmp.train(
            resolved.address,
            resolved.family,
            count=options.count,
            interval_s=options.interval_s,
            timeout_s=options.timeout_s,
            payload_bytes=options.payload_bytes,
            pacer=ctx.pacer,
            # Each echo's sample as it finishes where someone watches; else only the outcomes are kept (a
            # dict's own method: no Python code per echo), and become samples at the train's end.
            on_outcome=self._emit if ctx.watched else self._finished.__setitem__,
        )

    @classmethod
    def start(
        cls, target: Target, options: ProbeOptions, ctx: RunContext, resolved: Resolved, started_us: int
    ) -> EchoTrain:
        """Send the target's echoes (IcmpNotPermitted where no ICMP socket can be opened)."""
        return cls(target, options, ctx, resolved, started_us, ctx.icmp.privileged(resolved.family))

    def _emit(self, seq: int, outcome: EchoOutcome) -> None:
        sample = self._emitted[seq] = _sample(seq, outcome)
        self.ctx.emit(self.target, sample)

    def finished_samples(self) -> list[Sample]:
        """The samples of the echoes that have finished so far, in order (of a train given up)."""
        if self.ctx.watched:
            return [self._emitted[seq] for seq in sorted(self._emitted)]
        return [_sample(seq, self._finished[seq]) for seq in sorted(self._finished)]

    def result(self, outcomes: list[EchoOutcome]) -> ProbeResult:
        """The target's result, every echo's outcome in hand."""
        target, options, ctx, resolved = self.target, self.options, self.ctx, self.resolved
        emitted = self._emitted
        samples = tuple(emitted.get(i) or _sample(i, o) for i, o in enumerate(outcomes))
        metrics: dict[str, MetricValue] = {
            "address": resolved.address,
            "privileged": self.privileged,
            "backend": ctx.backend.name,
        }
        details = [o.detail for o in outcomes if o.error is ErrorKind.SEND_FAILED]
        failed = local_failure_result(target, self.started_us, samples, details, metrics)
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
            self.started_us,
            now_us(),
            samples=samples,
            message=notes.message,
            metrics={**metrics, "timestamps": notes.timestamps},
        )


def _sample(seq: int, outcome: EchoOutcome) -> Sample:
    return Sample(seq, outcome.sent_at_us, outcome.rtt_ms, outcome.error)
