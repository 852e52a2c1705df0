"""UTC timestamps as linkvet stores them: integer microseconds since the epoch (`*_us`), read from the wall
clock, for when something happened. Durations come from monotonic clocks (`time.perf_counter_ns`), never
from these."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import UTC, datetime
from enum import StrEnum


class TimestampSource(StrEnum):
    """Who timed the two ends of an RTT (results record it as the `timestamps` metric)."""

    KERNEL = "kernel"  # the kernel stamped both the send and the reply (or measured the handshake itself)
    KERNEL_RX = "kernel-rx"  # the kernel stamped the reply; the send was timed in user space
    USER = "user"  # both ends timed in user space


def least_exact(sources: Iterable[TimestampSource]) -> TimestampSource | None:
    """The least exact of `sources` (what a result reports for its samples), None if there are none."""
    order = list(TimestampSource)
    return max(sources, key=order.index, default=None)


def now_us() -> int:
    """Wall-clock UTC time in microseconds since the epoch."""
    return time.time_ns() // 1000


def utc_from_us(us: int) -> datetime:
    return datetime.fromtimestamp(us / 1_000_000, tz=UTC)


def iso_utc(us: int) -> str:
    """e.g. `2026-12-01T20:15:00.123456Z`."""
    return utc_from_us(us).isoformat(timespec="microseconds").replace("+00:00", "Z")
