"""The attempt loop shared by the packet methods (paced sends, a fixed interval per target, replies awaited
concurrently: a slow reply never delays the next send), and the words a result carries about its attempts:
what was lost and why, replies that came too late, attempts this machine could not send, and who timed
the replies."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from probes.errors import ErrorKind
from probes.i18n import _, clauses, items, ngettext
from probes.pacing import Pacer
from probes.results import MetricValue, ProbeResult, Sample
from probes.target import Target
from probes.timestamps import TimestampSource, least_exact, now_us

T = TypeVar("T")
Noun = Literal["echoes", "connects"]  # what a method's attempts are called in its notes


async def send_paced(
    count: int, interval_s: float, pacer: Pacer, start: Callable[[int], Awaitable[T]]
) -> list[T]:
    """Call `start(i)` `count` times, each after the pacer's turn and at least `interval_s` after the
    previous one; `start` sends at once and returns an awaitable of the outcome. Returns outcomes in order."""
    pending: list[Awaitable[T]] = []
    try:
        for i in range(count):
            await pacer.turn()
            sent = time.monotonic()
            try:
                pending.append(start(i))
            finally:
                pacer.sent()
            if i + 1 < count:
                delay = sent + interval_s - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
        return list(await asyncio.gather(*pending))
    except BaseException:
        for awaitable in pending:
            if isinstance(awaitable, asyncio.Future):
                awaitable.cancel()
        raise


def describe_losses(samples: Sequence[Sample], noun: Noun, responders: Sequence[str] = ()) -> str | None:
    """One line on what went wrong across the attempts that left this machine, e.g. '3 of 10 echoes lost:
    2 timeout, 1 unreachable' (attempts this machine could not send are `attempt_notes`' to tell).
    `noun`: "echoes" or "connects"; `responders`: the addresses that reported the errors. The error kinds
    stay their enumerated values (`timeout`, `unreachable`), as in --json."""
    on_line = [s for s in samples if not s.local_failure]
    failed = [s for s in on_line if s.error is not None]
    if not failed:
        return None
    counts: dict[ErrorKind, int] = {}
    for s in failed:
        assert s.error is not None
        counts[s.error] = counts.get(s.error, 0) + 1
    kinds = items(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    lost = sum(1 for s in on_line if s.rtt_ms is None)
    n = lost or len(failed)
    message = _loss_message(noun, lost=bool(lost), reported=bool(responders), n=n)
    return message.format(n=n, total=len(on_line), kinds=kinds, responders=items(responders))


def _loss_message(noun: Noun, *, lost: bool, reported: bool, n: int) -> str:
    """The loss line's message: one per noun, lost or with errors, with or without who reported them."""
    if noun == "echoes":
        if lost and reported:
            return ngettext(
                "{n} of {total} echoes lost: {kinds} (reported by {responders})",
                "{n} of {total} echoes lost: {kinds} (reported by {responders})",
                n,
            )
        if lost:
            return ngettext("{n} of {total} echoes lost: {kinds}", "{n} of {total} echoes lost: {kinds}", n)
        if reported:
            return ngettext(
                "{n} of {total} echoes with errors: {kinds} (reported by {responders})",
                "{n} of {total} echoes with errors: {kinds} (reported by {responders})",
                n,
            )
        return ngettext(
            "{n} of {total} echoes with errors: {kinds}", "{n} of {total} echoes with errors: {kinds}", n
        )
    if lost and reported:
        return ngettext(
            "{n} of {total} connects lost: {kinds} (reported by {responders})",
            "{n} of {total} connects lost: {kinds} (reported by {responders})",
            n,
        )
    if lost:
        return ngettext("{n} of {total} connects lost: {kinds}", "{n} of {total} connects lost: {kinds}", n)
    if reported:
        return ngettext(
            "{n} of {total} connects with errors: {kinds} (reported by {responders})",
            "{n} of {total} connects with errors: {kinds} (reported by {responders})",
            n,
        )
    return ngettext(
        "{n} of {total} connects with errors: {kinds}", "{n} of {total} connects with errors: {kinds}", n
    )


@dataclass(frozen=True, slots=True)
class AttemptNotes:
    """What a result says about its attempts: the message, and the `timestamps` metric."""

    message: str | None
    timestamps: str | None


def attempt_notes(
    samples: Sequence[Sample],
    noun: Noun,
    *,
    timeout_s: float,
    late_ms: Sequence[float] = (),
    sources: Sequence[TimestampSource] = (),
    tx_refused: str | None = None,
    responders: Sequence[str] = (),
    details: Sequence[str | None] = (),
    best: TimestampSource = TimestampSource.KERNEL,
) -> AttemptNotes:
    """The notes of a measured result. `late_ms`: the answer times of replies that came after the timeout;
    `sources`: who timed each answered attempt (a note when some are less exact than `best`, what the probe
    backend gives at best); `tx_refused`: why the kernel gives no transmit stamps;
    `details`: the system's words for each attempt this machine could not send."""
    notes: list[str] = []
    losses = describe_losses(samples, noun, responders)
    if losses:
        notes.append(losses)
    if late_ms:
        notes.append(
            ngettext(
                "{n} reply came after the {timeout} s timeout (after {slowest} ms): counted as lost",
                "{n} replies came after the {timeout} s timeout (the slowest after {slowest} ms): "
                "counted as lost",
                len(late_ms),
            ).format(n=len(late_ms), timeout=f"{timeout_s:g}", slowest=f"{max(late_ms):.1f}")
        )
    local = sum(1 for s in samples if s.local_failure)
    if local:
        notes.append(
            ngettext(
                "{n} of {total} attempts could not be sent from this machine ({why}): "
                "counted neither as sent nor as lost",
                "{n} of {total} attempts could not be sent from this machine ({why}): "
                "counted neither as sent nor as lost",
                local,
            ).format(n=local, total=len(samples), why=_most_common(details))
        )
    weakest = least_exact(sources)
    if weakest is not None and least_exact((weakest, best)) is not best:
        if tx_refused is not None:
            notes.append(
                _(
                    "send times taken in user space: the kernel gives this socket no transmit timestamps ({why})"
                ).format(why=tx_refused)
            )
        else:
            untimed = sum(1 for s in sources if least_exact((s, best)) is not best)
            notes.append(
                ngettext(
                    "the kernel stamped {n} of {total} answered attempts at one end only: "
                    "those were timed partly in user space",
                    "the kernel stamped {n} of {total} answered attempts at one end only: "
                    "those were timed partly in user space",
                    untimed,
                ).format(n=untimed, total=len(sources))
            )
    return AttemptNotes(clauses(notes) or None, None if weakest is None else str(weakest))


def local_failure_result(
    target: Target,
    started_us: int,
    samples: Sequence[Sample],
    details: Sequence[str | None],
    metrics: Mapping[str, MetricValue],
) -> ProbeResult | None:
    """The result of a target none of whose attempts this machine could send (no route, bad scope id):
    it could not be measured (`ErrorKind.SEND_FAILED`), which says nothing about the line. None otherwise."""
    if not samples or not all(s.local_failure for s in samples):
        return None
    message = ngettext(
        "could not be measured: this machine could not send the attempt ({why})",
        "could not be measured: this machine could not send any of the {n} attempts ({why})",
        len(samples),
    ).format(n=len(samples), why=_most_common(details))
    return ProbeResult(
        target,
        started_us,
        now_us(),
        samples=tuple(samples),
        error=ErrorKind.SEND_FAILED,
        message=message,
        metrics=metrics,
    )


def _most_common(details: Sequence[str | None]) -> str:
    counted = Counter(d for d in details if d)
    return counted.most_common(1)[0][0] if counted else _("the system gave no reason")
