"""What the runner lends every method for one run: the pacer, the shared ICMP engine, the sample hook."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from probes.icmp_engine import IcmpEngine
from probes.results import Sample
from probes.target import Target

SampleHook = Callable[[Target, Sample], None]


class Pacer:
    """Spaces out packets across all targets: at most one send every `gap_s` seconds (fping's `-i`).

    Each caller reserves the next free slot; a caller that wakes late does not push later slots back, so a
    late wake-up is caught up and the average rate holds at 1/gap.
    """

    def __init__(self, gap_s: float) -> None:
        self.gap_s = max(0.0, gap_s)
        self._next_free = 0.0

    async def turn(self) -> None:
        if self.gap_s == 0:
            return
        now = time.monotonic()
        slot = max(now, self._next_free)
        self._next_free = slot + self.gap_s
        if slot > now:
            await asyncio.sleep(slot - now)


def now_us() -> int:
    """Wall-clock UTC time in microseconds since the epoch (for timestamps, never for durations)."""
    return time.time_ns() // 1000


@dataclass
class RunContext:
    pacer: Pacer
    icmp: IcmpEngine
    on_sample: SampleHook | None = None
    iperf3_binary: str = "iperf3"
    extra: dict[str, object] = field(default_factory=dict)

    def emit(self, target: Target, sample: Sample) -> None:
        if self.on_sample is not None:
            self.on_sample(target, sample)
