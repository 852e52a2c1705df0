"""Measured line quality for scoring: the analysis's LinkSummary dicts (`probes.analysis`) turned into
`catalogs.link_quality.LinkSummary` objects. Lives in `desktop` because it composes `probes` and
`catalogs`, which never import each other. No Qt."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from catalogs.link_quality import LinkSummary
from probes.analysis import Scope, link_summaries, route_verdicts
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store import Store


def to_link_summaries(dicts: Iterable[Mapping[str, Any]]) -> list[LinkSummary]:
    """`LinkSummary.from_dict` over the analysis's dicts (a wrong shape raises `LinkSummaryError`)."""
    return [LinkSummary.from_dict(d, where=f"{d.get('provider')}/{d.get('region')}") for d in dicts]


def measured_link_summaries(
    store: Store,
    scope: Scope | None = None,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
) -> list[LinkSummary]:
    """Every region's measured line (per vantage point) in the store, with its route check from the stored
    traces, ready for `catalogs.scoring.rank_offerings`."""
    scope = scope or Scope()
    return to_link_summaries(link_summaries(store, scope, windows, routes=route_verdicts(store, scope)))
