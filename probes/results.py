"""What a measurement returns: per-attempt `Sample`s and one `ProbeResult` per target, with the summary
statistics derived from the samples (definitions in `probes.stats`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from probes.errors import ErrorKind
from probes.stats import Summary, SummaryFields, summarize
from probes.target import Method, Target
from probes.timestamps import iso_utc

if TYPE_CHECKING:
    from probes.traceroute.result import TraceResult

MetricValue = float | int | str | None


def timed_by(metrics: Mapping[str, object]) -> str:
    """Which probe backend measured a result and who timed its RTTs, from its `backend` and `timestamps`
    metrics: `linux/kernel`, `portable/user`; '' when it names neither (HTTP, results from before)."""
    return "/".join(str(metrics[key]) for key in ("backend", "timestamps") if metrics.get(key))


@dataclass(frozen=True, slots=True)
class Sample:
    """One attempt: when it was sent (UTC, µs since the epoch), its RTT in ms, or why there was none.
    `phase` says what the line was doing when a `responsiveness` probe was sent (`idle`, `download`, …;
    `probes.methods.responsiveness.PHASES`); None for every other method. `tick`: the slot of the method's
    own schedule the attempt was sent in (a `responsiveness` probe: slot k is due k intervals after the
    start), what the method decided rather than when the machine got round to it; kept in memory only
    (not stored, not compared)."""

    seq: int
    sent_at_us: int
    rtt_ms: float | None
    error: ErrorKind | None = None
    phase: str | None = None
    tick: int | None = field(default=None, compare=False)

    @property
    def lost(self) -> bool:
        return self.rtt_ms is None and not self.local_failure

    @property
    def local_failure(self) -> bool:
        """This machine could not send the attempt (no route, bad scope id): it counts as neither sent nor
        lost (`probes.stats`), because it says nothing about the line."""
        return self.error is ErrorKind.SEND_FAILED

    def as_dict(self) -> dict[str, Any]:
        out = {
            "seq": self.seq,
            "sent_at": iso_utc(self.sent_at_us),
            "rtt_ms": self.rtt_ms,
            "error": None if self.error is None else str(self.error),
        }
        if self.phase is not None:
            out["phase"] = self.phase
        return out


@dataclass(frozen=True, slots=True)
class ProbeResult(SummaryFields):
    """Everything one target's measurement produced.

    `target` is what was actually measured (after an ICMP→TCP fallback, the TCP target). `error` is set when
    the target could not be measured at all (DNS failure, ICMP not permitted and no fallback, missing tool,
    no attempt this machine could send); per-attempt failures live on the samples. The summary leaves out
    the attempts this machine could not send (`Sample.local_failure`). `metrics` carries the method's own figures (HTTP phase timings,
    throughput) with units in their names. `trace` holds a `trace` probe's hops and route verdict (its
    samples are the probes that reached the destination, so its statistics are end-to-end).
    """

    target: Target
    started_at_us: int
    finished_at_us: int
    samples: tuple[Sample, ...] = ()
    error: ErrorKind | None = None
    message: str | None = None
    metrics: Mapping[str, MetricValue] = field(default_factory=dict)
    trace: TraceResult | None = None
    summary: Summary = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "metrics", MappingProxyType(dict(self.metrics)))
        rtts = [s.rtt_ms for s in self.samples if s.error is not ErrorKind.SEND_FAILED]  # not local failures
        object.__setattr__(self, "summary", summarize(rtts))

    @property
    def method(self) -> Method:
        return self.target.method

    @property
    def ok(self) -> bool:
        return self.error is None

    def metric(self, name: str) -> MetricValue:
        return self.metrics.get(name)

    def as_dict(self, *, samples: bool = True) -> dict[str, Any]:
        """A JSON-ready dict: the keys of `linkvet probe --json`."""
        t = self.target
        out: dict[str, Any] = {
            "target": t.name,
            "host": t.host,
            "port": t.port,
            "url": t.url,
            "method": str(t.method),
            "provider": t.provider,
            "region": t.region,
            "line_type": t.line_type,
            "started_at": iso_utc(self.started_at_us),
            "finished_at": iso_utc(self.finished_at_us),
            "sent": self.sent,
            "received": self.received,
            "loss": self.loss,
            "rtt_min_ms": self.rtt_min_ms,
            "rtt_median_ms": self.rtt_median_ms,
            "rtt_mean_ms": self.rtt_mean_ms,
            "rtt_p95_ms": self.rtt_p95_ms,
            "rtt_max_ms": self.rtt_max_ms,
            "jitter_ms": self.jitter_ms,
            "error": None if self.error is None else str(self.error),
            "message": self.message,
        }
        out.update(self.metrics)
        if self.trace is not None:
            out["trace"] = self.trace.as_dict()
        if samples:
            out["samples"] = [s.as_dict() for s in self.samples]
        return out


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a run stands; `result` is the target that just finished (None for the initial report)."""

    done: int
    total: int
    result: ProbeResult | None
    elapsed_s: float


ProgressHook = Callable[[Progress], None]


class Outcome(StrEnum):
    """What became of a measured round (`probes.store.delivery`)."""

    STORED = "stored"
    ALREADY_STORED = "already stored"
    SLOT_TAKEN = "slot taken"
    SPOOLED = "spooled"  # the store refused it; kept in the spool
    LOST = "lost"  # neither the store nor the spool took it


@dataclass(frozen=True, slots=True)
class PathHop:
    """One TTL of a traced path: the addresses that answered there (none: a silent hop)."""

    ttl: int
    addresses: tuple[str, ...] = ()
