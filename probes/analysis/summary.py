"""The link-quality summary per region that scoring consumes: the LinkSummary dict that
`catalogs.link_quality.LinkSummary.from_dict` reads.

`catalogs` must not import `probes`, so the summary is a plain dict; the CLI/GUI turn it into
`catalogs.link_quality.LinkSummary` with `from_dict`. Route verdicts come from the route analysis, which
the caller passes in (`routes`); until then `route` is null.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from probes.analysis.clock import in_peak
from probes.analysis.compare import PeakComparison, compare_peak_from
from probes.analysis.data import Prepared, prepare, vantages
from probes.analysis.scope import Scope
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store import Store
from probes.timestamps import iso_utc

RouteVerdicts = Mapping[tuple[str, str], Mapping[str, Any]]


def link_summaries(
    store: Store,
    scope: Scope | None = None,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
    *,
    routes: RouteVerdicts | None = None,
) -> list[dict[str, Any]]:
    """One LinkSummary dict per region (provider + region labels) in the scope, and per vantage point when
    the period holds rounds from several.

    `routes` maps (provider, region) to that region's route verdict dict (claimed_line_type,
    measured_class, agrees, traces, agreeing_traces, evidence); regions it does not cover get `route: null`.
    The period is the scope's when it gives one, else the span of the data found.
    """
    summaries: list[dict[str, Any]] = []
    for vantage, narrowed in vantage_scopes(store, replace(scope or Scope(), by="region")):
        prepared = prepare(store, narrowed, [in_peak(windows)])
        for comparison in compare_peak_from(prepared, windows, intervals=False):
            summaries.append(summary_dict(comparison, prepared, vantage, routes))
    return summaries


def vantage_scopes(store: Store, scope: Scope) -> list[tuple[str | None, Scope]]:
    """The scope split by vantage point: [(vantage, scope)], one entry per vantage point in the period
    when there are several (each reading only its own rounds), else one entry for all rounds."""
    if scope.filters_vantage:
        return [(scope.vantage, scope)]
    found = vantages(store, scope.since_us, scope.until_us)
    if len(found) <= 1:
        # One vantage (or none recorded) in the period: every round is from it and the rollups answer.
        return [(found[0] if found else None, scope)]
    return [
        (v, replace(scope, vantage=v) if v is not None else replace(scope, no_vantage=True)) for v in found
    ]


def summary_dict(
    comparison: PeakComparison,
    prepared: Prepared,
    vantage: str | None,
    routes: RouteVerdicts | None = None,
) -> dict[str, Any]:
    """The LinkSummary dict of one region's peak comparison."""
    scope = prepared.scope
    first = scope.since_us if scope.since_us is not None else prepared.first_us
    last = scope.until_us if scope.until_us is not None else prepared.last_us
    provider, region = comparison.labels["provider"], comparison.labels["region"]
    route = None if routes is None else routes.get((provider, region))
    return {
        "provider": provider,
        "region": region,
        "vantage": vantage,
        "period_start": None if first is None else _iso_seconds(first),
        "period_end": None if last is None else _iso_seconds(last),
        "peak_windows": [str(w) for w in comparison.windows],
        "peak": comparison.peak.as_dict(),
        "offpeak": comparison.offpeak.as_dict(),
        "route": None if route is None else dict(route),
    }


def _iso_seconds(us: int) -> str:
    return iso_utc(us // 1_000_000 * 1_000_000).replace(".000000Z", "Z")
