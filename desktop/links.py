"""Measured line quality for scoring: the analysis's LinkSummary dicts (`probes.analysis`) turned into
`catalogs.link_quality.LinkSummary` objects. Lives in `desktop` because it composes `probes` and
`catalogs`, which never import each other. No Qt."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from catalogs.link_quality import LinkSummary
from catalogs.loader import CatalogSet
from probes.analysis import Scope, link_summaries, route_verdicts
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store import Store

# When a region claims several line types ("cn2-gia" and "bgp"), the one a trace can check and the buyer pays
# for: the most specific backbone first (every one of them is in `probes.routes.EXPECTED_CLASS`).
_CLAIM_ORDER = ("cn2-gia", "cn2-gt", "cu-9929", "cmi", "cu-4837", "163")


def catalog_claims(catalogs: CatalogSet) -> dict[tuple[str, str], str]:
    """(provider, region) → the line type the catalog claims for the region, for the route check of traces
    whose targets carry no `line_type` label: the most specific backbone a trace can check, else the first
    claim (`bgp`, which no trace can check). Regions that claim nothing are left out."""
    claims: dict[tuple[str, str], str] = {}
    for catalog in catalogs.providers:
        for region in catalog.regions:
            if not region.line_types:
                continue
            checkable = (t for t in _CLAIM_ORDER if t in region.line_types)
            claims[(catalog.provider.id, region.id)] = next(checkable, region.line_types[0])
    return claims


def to_link_summaries(dicts: Iterable[Mapping[str, Any]]) -> list[LinkSummary]:
    """`LinkSummary.from_dict` over the analysis's dicts (a wrong shape raises `LinkSummaryError`)."""
    return [LinkSummary.from_dict(d, where=f"{d.get('provider')}/{d.get('region')}") for d in dicts]


def measured_link_summaries(
    store: Store,
    scope: Scope | None = None,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
    catalogs: CatalogSet | None = None,
) -> list[LinkSummary]:
    """Every region's measured line (per vantage point) in the store, with its route check from the stored
    traces (against the targets' line-type label, else what `catalogs` claim for the region), ready for
    `catalogs.scoring.rank_offerings`."""
    scope = scope or Scope()
    claims = catalog_claims(catalogs) if catalogs is not None else None
    routes = route_verdicts(store, scope, claims=claims)
    return to_link_summaries(link_summaries(store, scope, windows, routes=routes))
