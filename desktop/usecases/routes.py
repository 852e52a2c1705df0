"""A region's route, for both faces: storing a run's traces and checking them against the claimed line type
(`linkvet trace`, the Routes screen's trace), and reading a region's route history back from the store
(the Routes screen's timeline): when the route class or the hop list of each traced target changed, beside
the region's RTT. No Qt; the store is opened here, so callers run these off the GUI thread.

Changes are found per traced series (a region's two endpoints may take two paths, and one endpoint traced
from two offices is two series): between two consecutive traces of one series, the *class* changed when the stored hops classify (with today's network table, as the
analysis does) into another class, and the *hop list* changed when a TTL that answered in both traces
answered from no common address, or the destination answered at another TTL. A hop silent in one trace
and answering in the other (a router's reply budget) is not a change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from probes.store_location import StoreLocation, exists

if TYPE_CHECKING:  # the store and the tracer (numpy, pandas, sockets) load when a use-case runs
    from probes.routes import NetworkTable
    from probes.target import Target
    from probes.traceroute import TraceResult

Hops = tuple[tuple[int, tuple[str, ...]], ...]  # (ttl, the addresses that answered there)

ROUTE_RTT_METHODS = ("icmp", "tcp")  # the region's RTT beside its route: echoes and handshakes, else traces


def store_traces(
    db_path: StoreLocation | None, target: Target, traces: Sequence[TraceResult], vantage: str | None
) -> None:
    """Save each trace as a round of its own (`source` "trace"), as `linkvet trace` does."""
    from probes.backends import choose_backend
    from probes.methods.trace import to_probe_result
    from probes.store import Store, measured_round, run_metadata

    backend = choose_backend().name  # what `trace_host` measures with when given none
    with Store(db_path) as store:
        for trace in traces:
            measured = measured_round(
                [to_probe_result(target, trace)],
                started_us=trace.started_at_us,
                finished_us=trace.finished_at_us,
                source="trace",
                vantage=vantage,
                meta=run_metadata(trace.privileged, backend) | {"trace_protocol": trace.protocol},
            )
            store.write_round(measured)


def stored_route_check(
    db_path: StoreLocation | None, provider: str, region: str, claimed: str | None, table: NetworkTable
) -> dict[str, Any] | None:
    """The region's claim check over every trace stored for it (the LinkSummary `route` dict)."""
    from probes.routes import route_summary_from_traces
    from probes.store import Store

    with Store(db_path) as store:
        stored = store.traces(provider=provider, region=region)
    return route_summary_from_traces(claimed, stored, table)


def claim_check(claimed: str | None, traces: Sequence[TraceResult]) -> dict[str, Any] | None:
    """This run's traces checked against a claimed line type (None without a claim or a classified trace)."""
    from probes.routes import route_summary

    if not claimed:
        return None
    return route_summary(claimed, [t.verdict for t in traces if t.verdict is not None and t.hops])


# -- history ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TracePoint:
    """One stored trace as the history shows it: when, of which series (the target, its labels and vantage
    point), its class today and its hops."""

    at_us: int
    series_id: int
    target: str
    line_class: str
    hops: Hops
    reached: bool


@dataclass(frozen=True, slots=True)
class RouteChange:
    """The route of `target` was one thing until `previous_us` and another from `at_us` on.
    `direction`: "down" to a less premium class, "up" to a more premium one, None when the class held."""

    at_us: int
    previous_us: int
    target: str
    before: str
    after: str
    class_changed: bool
    hops_changed: bool
    direction: str | None
    before_hops: Hops
    after_hops: Hops


@dataclass(frozen=True)
class RouteHistory:
    """A region's stored traces, the changes between them, its RTT over the same time (UTC µs, ms, from the
    echoes and handshakes of its targets, else the traces' destination replies) and the claim check over
    all its traces."""

    provider: str
    region: str
    points: list[TracePoint]
    changes: list[RouteChange]
    rtt: list[tuple[int, float]] = field(default_factory=list)
    rtt_method: str | None = None
    claim: dict[str, Any] | None = None


def hops_changed(before: Hops, after: Hops) -> bool:
    """Whether two traces of one target took different paths (see the module docstring)."""
    old, new = dict(before), dict(after)
    for ttl in old.keys() & new.keys():
        if old[ttl] and new[ttl] and not set(old[ttl]) & set(new[ttl]):
            return True
    return _last_ttl(before) != _last_ttl(after)


def _last_ttl(hops: Hops) -> int | None:
    answered = [ttl for ttl, addresses in hops if addresses]
    return max(answered) if answered else None


def route_changes(points: Sequence[TracePoint]) -> list[RouteChange]:
    """Every change between consecutive traces of the same series, oldest first (pure)."""
    from probes.routes.classify import premium_rank

    last: dict[int, TracePoint] = {}
    changes: list[RouteChange] = []
    for point in sorted(points, key=lambda p: (p.at_us, p.series_id)):
        before = last.get(point.series_id)
        last[point.series_id] = point
        if before is None or not point.hops or not before.hops:
            continue
        class_changed = before.line_class != point.line_class
        path_changed = hops_changed(before.hops, point.hops)
        if not (class_changed or path_changed):
            continue
        direction = None
        if class_changed:
            rise = premium_rank(point.line_class) - premium_rank(before.line_class)
            direction = "up" if rise > 0 else "down" if rise < 0 else None
        changes.append(
            RouteChange(
                at_us=point.at_us,
                previous_us=before.at_us,
                target=point.target,
                before=before.line_class,
                after=point.line_class,
                class_changed=class_changed,
                hops_changed=path_changed,
                direction=direction,
                before_hops=before.hops,
                after_hops=point.hops,
            )
        )
    return changes


def traced_regions(db_path: StoreLocation) -> list[tuple[str, str, int, int]]:
    """(provider, region, stored traces, last trace's start in UTC µs) of every region with traces, by
    provider and region; none when there is no store yet."""
    if not exists(db_path):
        return []
    from probes.store import Store

    regions: dict[tuple[str, str], list[int]] = {}
    with Store(db_path, readonly=True) as store:
        for trace in store.traces():
            if trace.provider and trace.region:
                regions.setdefault((trace.provider, trace.region), []).append(trace.started_us)
    return [(p, r, len(times), max(times)) for (p, r), times in sorted(regions.items())]


def route_history(
    db_path: StoreLocation,
    provider: str,
    region: str,
    *,
    table: NetworkTable | None = None,
    since_us: int | None = None,
    claimed: str | None = None,
) -> RouteHistory:
    """The region's stored traces since `since_us`, classified with `table` (default: the bundled table
    merged with the user's), the changes between them, its RTT and the claim check (against `claimed`, else
    the traced targets' line-type label)."""
    from probes.routes import load_network_table, route_summary_from_traces
    from probes.routes.classify import classify_path
    from probes.store import Store

    table = table or load_network_table()
    with Store(db_path, readonly=True) as store:
        traces = store.traces(provider=provider, region=region, since_us=since_us)
        series = store.series(provider=provider, region=region)
        rtt, method = _region_rtt(store, series, since_us)
    points = [
        TracePoint(
            at_us=t.started_us,
            series_id=t.series_id,
            target=t.name,
            line_class=classify_path(t.path, table, reached=t.reached).line_class,
            hops=t.hops,
            reached=t.reached,
        )
        for t in traces
        if t.hops
    ]
    label = next((t.line_type for t in traces if t.line_type), None)
    claim = route_summary_from_traces(claimed or label, traces, table) if traces else None
    return RouteHistory(provider, region, points, route_changes(points), rtt, method, claim)


def _region_rtt(
    store: Any, series: Sequence[Any], since_us: int | None
) -> tuple[list[tuple[int, float]], str | None]:
    for methods in (ROUTE_RTT_METHODS, ("trace",)):
        ids = [s.id for s in series if s.method in methods]
        if not ids:
            continue
        frame = store.results_frame(ids, since_us)
        frame = frame.loc[frame["rtt_median_ms"].notna()]
        if len(frame):
            points = list(
                zip(frame["started_us"].astype(int), frame["rtt_median_ms"].astype(float), strict=True)
            )
            return [(int(t), float(v)) for t, v in points], "/".join(methods)
    return [], None
