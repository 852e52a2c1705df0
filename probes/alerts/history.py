"""What the alert rules knew before a restart: each rule's last points per target and each target's last
result without an error, read back from the store (this plan's rounds from this vantage point only), so a
restarted scheduler judges "loss over the last 3 rounds" on the same 3 rounds it would have judged."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from probes.alerts.judge import UNKNOWN_ROUTE, Point, counts
from probes.alerts.rules import AlertRule
from probes.store import Store
from probes.vantage import vantage_of

MAX_LOOKBACK_S = 30 * 86400.0


def lookback_s(rules: Sequence[AlertRule], longest_cadence_s: float) -> float:
    """How far back the rules may need to read: twice the rounds they judge at the slowest cadence (rounds
    outside a rule's windows are skipped), or the `for` of a no-data rule; at most 30 days."""
    spans = [
        rule.for_s * 2
        if rule.for_s is not None
        else (rule.rounds + 1) * longest_cadence_s * (8 if rule.windows else 2)
        for rule in rules
    ]
    return min(max(spans, default=0.0), MAX_LOOKBACK_S)


def seed(
    store: Store,
    rules: Sequence[AlertRule],
    keys: Sequence[str],
    *,
    plan: str,
    vantage: str | None,
    since_us: int,
) -> tuple[dict[tuple[str, str], list[Point]], dict[str, int]]:
    """(rule name, target key) → points, oldest first; target key → when its last error-free result started."""
    wanted = set(keys)
    # This vantage point's series of the targets (rounds that named none are THIS_MACHINE's).
    ids = {s.id: s.key for s in store.series(vantage=vantage_of(vantage)) if s.key in wanted}
    points: dict[tuple[str, str], list[Point]] = defaultdict(list)
    last_data: dict[str, int] = {}
    if not ids or not rules:
        return points, last_data
    frame = store.results_frame(ids, since_us=since_us)
    if frame.empty:
        return points, last_data
    frame = frame[frame["plan"].eq(plan)]
    rtts: Mapping[int, list[float]] = {}
    if any(rule.kind == "p95" for rule in rules):
        samples = store.samples_frame(ids, since_us=since_us)
        samples = samples[samples["rtt_ms"].notna() & samples["result_id"].isin(frame["result_id"])]
        rtts = samples.groupby("result_id")["rtt_ms"].apply(list).to_dict()
    routes: dict[int, str | None] = {}
    if any(rule.kind == "route" for rule in rules):
        routes = {t.result_id: t.route_class for t in store.traces(series_ids=ids, since_us=since_us)}
    for row in frame.itertuples(index=False):
        key = ids[int(row.series_id)]
        if row.error is None:
            last_data[key] = max(last_data.get(key, 0), int(row.started_us))
        for rule in rules:
            if key not in rule.target_keys or rule.kind == "no_data" or not counts(rule, int(row.started_us)):
                continue
            point = _point(rule, row, rtts, routes)
            if point is not None:
                points[(rule.name, key)].append(point)
    return points, last_data


def _point(
    rule: AlertRule, row: Any, rtts: Mapping[int, list[float]], routes: Mapping[int, str | None]
) -> Point | None:
    at = int(row.started_us)
    if rule.kind in ("loss", "p95"):
        if row.error is not None:
            return None
        replies = tuple(rtts.get(int(row.result_id), ()))
        sent = int(row.sent)
        return Point(at, sent=sent, lost=sent - int(row.received), rtts_ms=replies)
    if rule.kind == "throughput":
        if row.method == "iperf3" and row.metrics_json:
            figures = json.loads(row.metrics_json)
            value = figures.get("upload_mbps" if rule.direction == "upload" else "download_mbps")
        else:
            value = row.throughput_mbps
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return None
        return Point(at, mbps=float(value))
    route = routes.get(int(row.result_id))
    if route is None or route == UNKNOWN_ROUTE:
        return None
    return Point(at, route_class=route)
