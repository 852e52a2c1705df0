"""Statistics over per-attempt RTTs, used everywhere linkvet reports latency.

Definitions (the same in the CLI, the store's rollups, analysis, the GUI and exports):
- `loss` is lost / sent, a fraction 0..1 (an attempt without a reply within the timeout, whatever the
  reason, is lost; a reply after the timeout too). `sent` counts the attempts that left this machine: one it
  could not send (`ErrorKind.SEND_FAILED`, `Sample.local_failure`) is an error of the machine, not loss on
  the line, and callers leave it out of what they summarize;
- percentiles interpolate linearly between closest ranks (NumPy's and pandas' default);
- `jitter_ms` is the mean absolute difference between consecutive received RTTs, in send order, lost
  attempts skipped: the |D(i-1, i)| of RFC 3550 §6.4.1 averaged over the run rather than exponentially
  smoothed (the same quantity icmplib and most ping tools call jitter).
No data is `None`, never 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Summary:
    sent: int
    received: int
    loss: float | None
    rtt_min_ms: float | None
    rtt_median_ms: float | None
    rtt_mean_ms: float | None
    rtt_p95_ms: float | None
    rtt_max_ms: float | None
    jitter_ms: float | None


EMPTY = Summary(0, 0, None, None, None, None, None, None, None)


class SummaryFields:
    """The summary statistics as properties of a result that holds a `summary` (icmplib's `Host` style)."""

    __slots__ = ()
    summary: Summary

    @property
    def sent(self) -> int:
        return self.summary.sent

    @property
    def received(self) -> int:
        return self.summary.received

    @property
    def loss(self) -> float | None:
        return self.summary.loss

    @property
    def rtt_min_ms(self) -> float | None:
        return self.summary.rtt_min_ms

    @property
    def rtt_median_ms(self) -> float | None:
        return self.summary.rtt_median_ms

    @property
    def rtt_mean_ms(self) -> float | None:
        return self.summary.rtt_mean_ms

    @property
    def rtt_p95_ms(self) -> float | None:
        return self.summary.rtt_p95_ms

    @property
    def rtt_max_ms(self) -> float | None:
        return self.summary.rtt_max_ms

    @property
    def jitter_ms(self) -> float | None:
        return self.summary.jitter_ms


def percentile(sorted_values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) of already sorted values, linear interpolation between closest ranks."""
    n = len(sorted_values)
    if n == 0:
        return None
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} outside 0..100")
    position = (n - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, n - 1)
    fraction = position - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction


def jitter(rtts_in_send_order: Sequence[float | None]) -> float | None:
    """Mean absolute difference of consecutive received RTTs (see the module docstring)."""
    total, pairs = jitter_parts(rtts_in_send_order)
    return total / pairs if pairs else None


def jitter_parts(rtts_in_send_order: Sequence[float | None]) -> tuple[float, int]:
    """(sum of |differences|, number of differences): the mergeable parts of `jitter`."""
    previous: float | None = None
    total = 0.0
    pairs = 0
    for rtt in rtts_in_send_order:
        if rtt is None:
            continue
        if previous is not None:
            total += abs(rtt - previous)
            pairs += 1
        previous = rtt
    return total, pairs


def summarize(rtts_in_send_order: Sequence[float | None]) -> Summary:
    """Summary of one run: one entry per attempt, the RTT in ms or None when it got no reply."""
    sent = len(rtts_in_send_order)
    if sent == 0:
        return EMPTY
    received_values = [r for r in rtts_in_send_order if r is not None]
    received = len(received_values)
    loss = (sent - received) / sent
    if not received_values:
        return Summary(sent, 0, loss, None, None, None, None, None, None)
    ordered = sorted(received_values)
    return Summary(
        sent=sent,
        received=received,
        loss=loss,
        rtt_min_ms=ordered[0],
        rtt_median_ms=percentile(ordered, 50),
        rtt_mean_ms=math.fsum(ordered) / received,
        rtt_p95_ms=percentile(ordered, 95),
        rtt_max_ms=ordered[-1],
        jitter_ms=jitter(rtts_in_send_order),
    )
