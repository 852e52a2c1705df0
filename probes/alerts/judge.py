"""Judging a rule on a target's recent rounds (pure functions, no I/O).

A `Point` is what one result gives a rule: attempts sent and lost, the reply RTTs, a transfer's rate, a
trace's route class. A rule judges its last `rounds` points together:

    loss        lost / sent over the points, in percent, breaching when above the threshold
    p95         the p95 (probes.stats' percentile) of every reply of the points pooled, above the threshold
    throughput  the mean rate of the points, below the threshold
    route       breaching when every point's class differs from the expected one, ok when every point's
                class is the expected one (mixed: no change)
    no_data     the time since the target's last result without an error, above `for`

Too few points (a window not yet full, no replies at all for p95) is no judgement (`breaching` None): the
alert's state stays as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from probes.alerts.rules import AlertRule
from probes.peak import in_any
from probes.results import ProbeResult
from probes.stats import percentile
from probes.target import Method

UNKNOWN_ROUTE = "unknown"  # the classifier had nothing to go on: never a change of route


@dataclass(frozen=True, slots=True)
class Point:
    at_us: int
    sent: int = 0
    lost: int = 0
    rtts_ms: tuple[float, ...] = ()
    mbps: float | None = None
    route_class: str | None = None


@dataclass(frozen=True, slots=True)
class RuleReading:
    breaching: bool | None  # None: not enough to judge
    value: float | None = None  # percent, ms, Mbit/s or seconds without data
    observed: str | None = None  # the route class seen (route rules)


def counts(rule: AlertRule, at_us: int) -> bool:
    """Whether a round at `at_us` is one the rule judges (its windows, if it has any)."""
    return not rule.windows or in_any(rule.windows, datetime.fromtimestamp(at_us / 1e6, tz=UTC))


def point_for(rule: AlertRule, result: ProbeResult) -> Point | None:
    """What `result` gives `rule`, or None when it gives nothing to judge (a failed target, a trace
    without a verdict, a transfer without a figure)."""
    if result.error is not None and rule.kind in ("loss", "p95"):
        return None
    at = result.started_at_us
    if rule.kind in ("loss", "p95"):
        # As the stored result's sent and received: attempts this machine could not send count in neither.
        rtts = tuple(s.rtt_ms for s in result.samples if s.rtt_ms is not None)
        return Point(at, sent=result.sent, lost=result.sent - len(rtts), rtts_ms=rtts)
    if rule.kind == "throughput":
        name = "upload_mbps" if rule.direction == "upload" else "download_mbps"
        if result.method is not Method.IPERF3:
            name = "throughput_mbps"
        value = result.metric(name)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None
        return Point(at, mbps=float(value))
    if rule.kind == "route":
        verdict = result.trace.verdict if result.trace is not None else None
        if verdict is None or verdict.line_class == UNKNOWN_ROUTE:
            return None
        return Point(at, route_class=verdict.line_class)
    return None


def judge(rule: AlertRule, points: Sequence[Point], baseline: str | None = None) -> RuleReading:
    """The rule on the target's last points (oldest first; only the last `rule.rounds` are read)."""
    if len(points) < rule.rounds:
        return RuleReading(None)
    window = points[-rule.rounds :]
    threshold = rule.threshold
    if rule.kind == "loss":
        sent = sum(p.sent for p in window)
        if sent == 0 or threshold is None:
            return RuleReading(None)
        value = 100.0 * sum(p.lost for p in window) / sent
        return RuleReading(value > threshold, value)
    if rule.kind == "p95":
        rtts = sorted(r for p in window for r in p.rtts_ms)
        p95 = percentile(rtts, 95)
        if p95 is None or threshold is None:
            return RuleReading(None)
        return RuleReading(p95 > threshold, p95)
    if rule.kind == "throughput":
        rates = [p.mbps for p in window if p.mbps is not None]
        if len(rates) < rule.rounds or threshold is None:
            return RuleReading(None)
        value = sum(rates) / len(rates)
        return RuleReading(value < threshold, value)
    if rule.kind == "route":
        expected = rule.expect or baseline
        classes = [p.route_class for p in window]
        if expected is None or any(c is None for c in classes):
            return RuleReading(None)
        if all(c != expected for c in classes):
            return RuleReading(True, observed=classes[-1])
        if all(c == expected for c in classes):
            return RuleReading(False, observed=expected)
        return RuleReading(None, observed=classes[-1])
    raise ValueError(f"{rule.kind} rules are judged by judge_no_data")


def judge_no_data(rule: AlertRule, last_data_us: int, now_us: int) -> RuleReading:
    assert rule.for_s is not None
    quiet_s = max(0.0, (now_us - last_data_us) / 1e6)
    return RuleReading(quiet_s > rule.for_s, quiet_s)
