"""The attempt loop shared by the packet methods: paced sends, a fixed interval per target, replies awaited
concurrently (a slow reply never delays the next send)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from probes.errors import ErrorKind
from probes.pacing import Pacer
from probes.results import Sample

T = TypeVar("T")


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
            pending.append(start(i))
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


def describe_losses(samples: Sequence[Sample], noun: str) -> str | None:
    """One line on what went wrong across attempts, e.g. '3 of 10 echoes lost: 2 timeout, 1 unreachable'."""
    failed = [s for s in samples if s.error is not None]
    if not failed:
        return None
    counts: dict[ErrorKind, int] = {}
    for s in failed:
        assert s.error is not None
        counts[s.error] = counts.get(s.error, 0) + 1
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    lost = sum(1 for s in samples if s.rtt_ms is None)
    if lost:
        return f"{lost} of {len(samples)} {noun} lost: {kinds}"
    return f"{len(failed)} of {len(samples)} {noun} with errors: {kinds}"
