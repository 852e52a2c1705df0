"""The measured line per region that scoring consumes: one `MeasuredLink` per region (and vantage point),
the peak and off-peak sides of its comparison, its period and its route check.

`catalogs` must not import `probes`, so scoring's `catalogs.link_quality.LinkSummary` is built from a
`MeasuredLink` field by field in the desktop's shared layer (`desktop.usecases.links`). `as_dict()` is the
same summary in the published JSON shape (`LinkSummary.as_dict`, the `linkvet score --links FILE` format).
Route checks come from the route analysis, which the caller passes in (`routes`, per vantage point); without
one `route` is None. Only pairs of a region and a vantage point with data become links.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from probes.analysis.breaches import Thresholds, breach_shares_from
from probes.analysis.clock import in_peak
from probes.analysis.compare import PeakComparison, Side, compare_peak_from
from probes.analysis.data import prepare, vantages
from probes.analysis.scope import Scope
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store import Store
from probes.timestamps import iso_second_utc

RouteVerdicts = Mapping[tuple[str, str], Mapping[str, Any]]
# The route checks of a scope (narrowed to one vantage point), e.g. `lambda s: route_verdicts(store, s)`.
RouteChecks = Callable[[Scope], RouteVerdicts]


@dataclass(frozen=True, slots=True)
class MeasuredLink:
    """The measured line from one vantage point to one provider region over a period.

    `comparison` holds the labels (provider, region), the peak and off-peak sides (`Side`) and the windows,
    with confidence intervals when they were asked for. The period is the scope's when it gives one, else
    the span of the data found (µs since the epoch, UTC). `route` is the region's route check (the dict of
    `probes.routes.route_summary`), or None without traces. With thresholds, the shares of its peak and
    off-peak hours that breach them (`breach_shares`' `any_breach_share_*`; None where no hour was judged).
    """

    comparison: PeakComparison
    vantage: str | None  # THIS_MACHINE for rounds that named none
    period_start_us: int | None
    period_end_us: int | None
    route: Mapping[str, Any] | None = None
    breach_share_peak: float | None = None
    breach_share_offpeak: float | None = None

    @property
    def provider(self) -> str:
        return str(self.comparison.labels["provider"])

    @property
    def region(self) -> str:
        return str(self.comparison.labels["region"])

    @property
    def peak(self) -> Side:
        return self.comparison.peak

    @property
    def offpeak(self) -> Side:
        return self.comparison.offpeak

    @property
    def windows(self) -> tuple[PeakWindow, ...]:
        return self.comparison.windows

    def as_dict(self) -> dict[str, Any]:
        """The summary in the LinkSummary JSON shape (the period in whole seconds)."""
        return {
            "provider": self.provider,
            "region": self.region,
            "vantage": self.vantage,
            "period_start": None
            if self.period_start_us is None
            else iso_second_utc(self.period_start_us // 1_000_000),
            "period_end": None
            if self.period_end_us is None
            else iso_second_utc(self.period_end_us // 1_000_000),
            "peak_windows": [str(w) for w in self.windows],
            "peak": self.peak.as_dict(),
            "offpeak": self.offpeak.as_dict(),
            "route": None if self.route is None else dict(self.route),
        }


def link_summaries(
    store: Store,
    scope: Scope | None = None,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
    *,
    routes: RouteChecks | RouteVerdicts | None = None,
    intervals: bool = False,
    confidence: float = 0.95,
    replicates: int = 1000,
    thresholds: Thresholds | None = None,
) -> list[MeasuredLink]:
    """One `MeasuredLink` per region (provider + region labels) in the scope, and per vantage point when
    the period holds rounds from several (`vantage_scopes`): for each pair with data, i.e. samples or
    transfers in the period from that vantage point, or a route check from its traces.

    `routes` gives each region's route check dict (claimed_line_type, measured_class, agrees, traces,
    agreeing_traces, evidence; `route_verdicts`) by (provider, region): a function of the scope, called
    for each vantage point's scope so that each link's check comes from its own vantage point's traces, or
    one mapping used for every vantage point; regions it does not cover get None. With
    `intervals`, each comparison carries its confidence intervals (`compare_peak`'s bootstrap and Newcombe
    intervals at `confidence`); the figures are the same either way. With `thresholds`, each link carries
    the shares of its hours breaching them, from the same reading of the store.
    """
    links: list[MeasuredLink] = []
    for vantage, narrowed in vantage_scopes(store, replace(scope or Scope(), by="region")):
        prepared = prepare(store, narrowed, [in_peak(windows)])
        first = narrowed.since_us if narrowed.since_us is not None else prepared.first_us
        last = narrowed.until_us if narrowed.until_us is not None else prepared.last_us
        comparisons = compare_peak_from(
            prepared, windows, confidence=confidence, replicates=replicates, intervals=intervals
        )
        checks = routes(narrowed) if callable(routes) else routes
        shares: dict[tuple[str, str], dict[str, Any]] = {}
        if thresholds is not None:
            rows = breach_shares_from(prepared, thresholds).to_dict("records")
            shares = {(str(r["provider"]), str(r["region"])): r for r in rows}
        for comparison in comparisons:
            key = (comparison.labels["provider"], comparison.labels["region"])
            route = None if checks is None else checks.get(key)
            if route is None and not _has_data(comparison):
                continue  # a region this vantage point never measured (in the period)
            share = shares.get(key, {})
            links.append(
                MeasuredLink(
                    comparison,
                    vantage,
                    first,
                    last,
                    route,
                    _share(share.get("any_breach_share_peak")),
                    _share(share.get("any_breach_share_offpeak")),
                )
            )
    return links


def _has_data(comparison: PeakComparison) -> bool:
    sides = (comparison.peak, comparison.offpeak)
    return any(side.sent or side.transfers for side in sides)


def _share(value: Any) -> float | None:
    """A share from the breach frame: None for NaN (no hour judged) or a missing row."""
    return None if value is None or value != value else float(value)


def vantage_scopes(store: Store, scope: Scope) -> list[tuple[str | None, Scope]]:
    """The scope split by vantage point: [(vantage, scope)], one entry per vantage point in the period
    when there are several (each reading only its own series), else one entry for all of them (its
    vantage point; None when nothing was measured in the period). Rounds that named no vantage point are
    `THIS_MACHINE`'s."""
    if scope.vantage is not None:
        return [(scope.vantage, scope)]
    found = vantages(store, scope.since_us, scope.until_us)
    if len(found) <= 1:
        return [(found[0] if found else None, scope)]
    return [(v, replace(scope, vantage=v)) for v in found]
