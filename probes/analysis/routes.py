"""Route verdicts per region for the link-quality summary: the stored traces of each region (each under the
labels it was traced with; from the scope's vantage point when it names one), classified again with the
network table (so a corrected table corrects old verdicts too) and compared with the line type its traces
were labelled with, or else the line type the provider's catalog claims for the region
(`probes.routes.route_summary_from_traces`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from probes.analysis.scope import Scope
from probes.routes import NetworkTable, load_network_table, route_summary_from_traces
from probes.store import Store, StoredTrace


def route_verdicts(
    store: Store,
    scope: Scope | None = None,
    table: NetworkTable | None = None,
    claims: Mapping[tuple[str, str], str] | None = None,
) -> dict[tuple[str, str], dict[str, Any]]:
    """(provider, region) → the region's LinkSummary `route` dict, for every region in the scope with
    stored traces; a scope narrowed to a vantage point takes only the traces from there. The claim is the
    line type its traces were labelled with (the most common one when they differ); when they carry none,
    `claims[(provider, region)]` (what the catalog claims for the region).
    `table` defaults to the bundled network table merged with the user's (as `linkvet trace`)."""
    scope = scope or Scope()
    traces = store.traces(
        provider=scope.provider,
        region=scope.region,
        line_type=scope.line_type,
        vantage=scope.vantage,
        series_ids=scope.series_ids,
        since_us=scope.since_us,
        until_us=scope.until_us,
    )
    by_region: dict[tuple[str, str], list[StoredTrace]] = {}
    for trace in traces:
        if trace.provider and trace.region:
            by_region.setdefault((trace.provider, trace.region), []).append(trace)
    if not by_region:
        return {}
    table = table or load_network_table()
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for key, mine in sorted(by_region.items()):
        labels = Counter(t.line_type for t in mine if t.line_type)
        claimant = ""
        if labels:
            claimed: str | None = min(labels, key=lambda c: (-labels[c], c))
        else:
            claimed = (claims or {}).get(key)
            claimant = "the catalog" if claimed else ""
        route = route_summary_from_traces(claimed, mine, table, claimant)
        if route is not None:
            out[key] = route
    return out
