"""UTC timestamps as linkvet stores them: integer microseconds since the epoch (`*_us`), read from the wall
clock, for when something happened. Durations come from monotonic clocks (`time.perf_counter_ns`), never
from these, with one exception: an RTT between two kernel stamps (a packet's transmit and its reply's
receive stamp), which the kernel takes on the wall clock; the ICMP engine checks such an RTT against the
monotonic clock (`probes.icmp.engine`). `TimestampSource` says who timed an RTT's two ends."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from enum import StrEnum


class TimestampSource(StrEnum):
    """Who timed the two ends of an RTT (results record it as the `timestamps` metric)."""

    KERNEL = "kernel"  # the kernel stamped both the send and the reply (or measured the handshake itself)
    KERNEL_RX = "kernel-rx"  # the kernel stamped the reply; the send was timed in user space
    USER = "user"  # both ends timed in user space


_EXACTNESS = {source: rank for rank, source in enumerate(TimestampSource)}


def least_exact(sources: Iterable[TimestampSource]) -> TimestampSource | None:
    """The least exact of `sources` (what a result reports for its samples), None if there are none."""
    return max(sources, key=_EXACTNESS.__getitem__, default=None)


def now_us() -> int:
    """Wall-clock UTC time in microseconds since the epoch."""
    return time.time_ns() // 1000


def utc_from_us(us: int) -> datetime:
    return datetime.fromtimestamp(us / 1_000_000, tz=UTC)


def iso_utc(us: int) -> str:
    """e.g. `2026-12-01T20:15:00.123456Z`."""
    seconds, micro = divmod(us, 1_000_000)
    return f"{_iso_second(seconds)}.{micro:06d}Z"


def iso_second_utc(seconds: float) -> str:
    """e.g. `2026-12-01T20:15:00Z`: a moment to the whole second (a period's ends, a schedule's slots)."""
    return f"{_iso_second(int(seconds))}Z"


@functools.lru_cache(maxsize=64)
def _iso_second(seconds: int) -> str:
    """`2026-12-01T20:15:00`: the whole second, shared by the samples taken in it (a run prints thousands)."""
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat(timespec="seconds").removesuffix("+00:00")


def utc_seconds(us: int | None) -> datetime | None:
    """A stored time (µs since the epoch) as an aware UTC datetime in whole seconds, as a summary's period
    is published (`LinkSummary.period_start`, the export's period columns)."""
    return None if us is None else datetime.fromtimestamp(us // 1_000_000, tz=UTC)
