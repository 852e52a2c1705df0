"""What a traceroute returns: one `TraceResult` with a `TraceHop` per TTL and a `HopReply` per probe.

Per-hop statistics are mtr's: every probe sent to a TTL counts, a probe without an answer is lost, the
RTT is the time until the answer came back (ICMP time exceeded from a router, the destination's reply at
the last hop). Definitions of loss, percentiles and jitter are those of `probes.stats`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from probes.errors import ErrorKind
from probes.i18n import _
from probes.results import PathHop
from probes.routes.classify import RULES, RouteVerdict
from probes.routes.table import NetworkMatch
from probes.stats import Summary, SummaryFields, summarize
from probes.timestamps import iso_utc

TraceProtocol = Literal["icmp", "udp", "tcp"]  # what a trace sends: ICMP echoes, UDP datagrams or TCP SYNs
PROTOCOLS: tuple[TraceProtocol, ...] = ("icmp", "udp", "tcp")

# What came back for one probe:
#   time-exceeded  a router on the way answered (ICMP time exceeded): the hop's address and RTT
#   reached        the destination answered (echo reply, port unreachable for UDP, SYN-ACK or RST for TCP)
#   unreachable    a router said the destination cannot be reached (!H, !N, !X): the trace stops there
#   lost           nothing came back within the timeout (or the probe could not be sent: see `error`)
ReplyKind = Literal["time-exceeded", "reached", "unreachable", "lost"]


@dataclass(frozen=True, slots=True)
class HopReply:
    """One probe: which round, when it left (UTC µs), what answered and after how long."""

    probe: int
    sent_at_us: int
    kind: ReplyKind
    address: str | None = None
    rtt_ms: float | None = None
    error: ErrorKind | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "probe": self.probe,
            "sent_at": iso_utc(self.sent_at_us),
            "kind": self.kind,
            "address": self.address,
            "rtt_ms": self.rtt_ms,
            "error": None if self.error is None else str(self.error),
        }


@dataclass(frozen=True, slots=True)
class TraceHop(SummaryFields):
    """One TTL: its probes, who answered, and the network each answering address belongs to."""

    ttl: int
    replies: tuple[HopReply, ...]
    networks: tuple[tuple[str, NetworkMatch | None], ...] = ()
    summary: Summary = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "summary", summarize([r.rtt_ms for r in self.replies]))

    @property
    def addresses(self) -> tuple[str, ...]:
        """Every address that answered at this TTL, most frequent first (more than one: load balancing)."""
        counts = Counter(r.address for r in self.replies if r.address is not None)
        first_seen = {a: i for i, a in reversed(list(enumerate(r.address for r in self.replies)))}
        return tuple(sorted(counts, key=lambda a: (-counts[a], first_seen[a])))

    @property
    def address(self) -> str | None:
        """The address that answered most often, or None for a silent hop."""
        addresses = self.addresses
        return addresses[0] if addresses else None

    def network_of(self, address: str) -> NetworkMatch | None:
        return dict(self.networks).get(address)

    @property
    def network(self) -> NetworkMatch | None:
        """The listed backbone of the main address, or None when it is in none."""
        return None if self.address is None else self.network_of(self.address)

    @property
    def reached(self) -> bool:
        return any(r.kind == "reached" for r in self.replies)

    @property
    def rtt_last_ms(self) -> float | None:
        """The RTT of the last probe that was answered (mtr's "Last")."""
        answered = [r.rtt_ms for r in self.replies if r.rtt_ms is not None]
        return answered[-1] if answered else None

    def as_dict(self) -> dict[str, Any]:
        networks = dict(self.networks)
        return {
            "ttl": self.ttl,
            "address": self.address,
            "addresses": list(self.addresses),
            "network": _network_dict(self.network),
            "networks": {a: _network_dict(networks.get(a)) for a in self.addresses},
            "sent": self.sent,
            "received": self.received,
            "loss": self.loss,
            "rtt_min_ms": self.rtt_min_ms,
            "rtt_mean_ms": self.rtt_mean_ms,
            "rtt_median_ms": self.rtt_median_ms,
            "rtt_max_ms": self.rtt_max_ms,
            "rtt_last_ms": self.rtt_last_ms,
            "jitter_ms": self.jitter_ms,
            "replies": [r.as_dict() for r in self.replies],
        }


@dataclass(frozen=True, slots=True)
class TraceResult:
    """One traceroute from this machine (the office) to `target`: the path *to* the region.

    `error` is set when no trace could be made at all (the name did not resolve, ICMP not permitted);
    a path that never reaches the destination is a result (`reached` False), not an error.
    """

    target: str
    address: str | None
    protocol: TraceProtocol
    port: int | None
    probes_per_hop: int
    max_hops: int
    started_at_us: int
    finished_at_us: int
    hops: tuple[TraceHop, ...] = ()
    privileged: bool | None = None
    error: ErrorKind | None = None
    message: str | None = None
    verdict: RouteVerdict | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def reached(self) -> bool:
        return any(hop.reached for hop in self.hops)

    @property
    def destination_hop(self) -> TraceHop | None:
        """The hop at which the destination answered, or None."""
        return next((hop for hop in self.hops if hop.reached), None)

    @property
    def path(self) -> tuple[PathHop, ...]:
        """The hops as the route classifier takes them."""
        return tuple(PathHop(hop.ttl, hop.addresses) for hop in self.hops)

    def as_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "address": self.address,
            "direction": _("office to region (outbound); the return path may differ"),
            "protocol": self.protocol,
            "port": self.port,
            "privileged": self.privileged,
            "probes_per_hop": self.probes_per_hop,
            "max_hops": self.max_hops,
            "started_at": iso_utc(self.started_at_us),
            "finished_at": iso_utc(self.finished_at_us),
            "reached": self.reached,
            "error": None if self.error is None else str(self.error),
            "message": self.message,
            "hops": [hop.as_dict() for hop in self.hops],
            "verdict": None if self.verdict is None else verdict_dict(self.verdict),
        }


def verdict_dict(verdict: RouteVerdict) -> dict[str, Any]:
    """A route verdict as JSON: class, rule, the deciding hops with their prefix and its source, doubts."""
    rule = next((r for r in RULES if r.id == verdict.rule), None)
    return {
        "class": verdict.line_class,
        "rule": verdict.rule,
        "rule_text": verdict.rule_text,
        "rule_source": None if rule is None else rule.source,
        "explanation": verdict.explanation(),
        "evidence": [
            {
                "ttl": item.ttl,
                "address": item.address,
                "asn": item.match.asn,
                "backbone": item.match.backbone,
                "label": item.match.as_info.label,
                "prefix": item.match.prefix.cidr,
                "source": item.match.prefix.source,
            }
            for item in verdict.evidence
        ],
        "doubts": list(verdict.doubts),
        "reached": verdict.reached,
    }


def _network_dict(match: NetworkMatch | None) -> dict[str, Any] | None:
    if match is None:
        return None
    return {
        "asn": match.asn,
        "backbone": match.backbone,
        "label": match.as_info.label,
        "name": match.as_info.name,
        "prefix": match.prefix.cidr,
        "source": match.prefix.source,
    }
