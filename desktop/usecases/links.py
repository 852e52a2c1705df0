"""Measured line quality for scoring: the analysis's `probes.analysis.MeasuredLink` turned field by field into
`catalogs.link_quality.LinkSummary` (`probes` and `catalogs` never import each other, so the two meet
here), read from the result store (`linkvet score --db`, the Needs & score screen) or from a JSON file of
LinkSummary objects (`linkvet score --links FILE`). No Qt."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalogs.errors import LinkSummaryError
from catalogs.link_quality import LinkSummary, PeriodStats, RouteCheck
from catalogs.loader import CatalogSet
from desktop.i18n import _
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store_location import StoreLocation, exists

if TYPE_CHECKING:  # the analysis and the store (numpy, pandas) load when measurements are read
    from probes.analysis import MeasuredLink, Scope, Side
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


def utc_seconds(us: int | None) -> datetime | None:
    """A stored time (µs since the epoch) as an aware UTC datetime in whole seconds, as a summary's period
    is published (`LinkSummary.period_start`, the export's period columns)."""
    return None if us is None else datetime.fromtimestamp(us // 1_000_000, tz=UTC)


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def _period(side: Side) -> PeriodStats:
    return PeriodStats(
        rtt_median_ms=_float(side.rtt_median_ms),
        rtt_p95_ms=_float(side.rtt_p95_ms),
        loss=_float(side.loss),
        jitter_ms=_float(side.jitter_ms),
        throughput_mbps=_float(side.throughput_mbps),
        samples=int(side.sent),
        hours=float(side.hours),
        loaded_rtt_increase_ms=_float(side.loaded_rtt_increase_ms),
        rpm=_float(side.rpm),
        load_tests=int(side.load_tests),
    )


def to_link_summary(link: MeasuredLink) -> LinkSummary:
    """The LinkSummary scoring reads, built from the analysis's result field by field (the same object
    `LinkSummary.from_dict(link.as_dict())` gives)."""
    route = link.route
    return LinkSummary(
        provider=link.provider,
        region=link.region,
        vantage=link.vantage,
        period_start=utc_seconds(link.period_start_us),
        period_end=utc_seconds(link.period_end_us),
        peak_windows=tuple(str(w) for w in link.windows),
        peak=_period(link.peak),
        offpeak=_period(link.offpeak),
        route=None
        if route is None
        else RouteCheck(
            claimed_line_type=route.get("claimed_line_type"),
            measured_class=route.get("measured_class"),
            agrees=route.get("agrees"),
            traces=route.get("traces"),
            agreeing_traces=route.get("agreeing_traces"),
            evidence=route.get("evidence"),
        ),
    )


def to_link_summaries(links: Iterable[MeasuredLink]) -> list[LinkSummary]:
    return [to_link_summary(link) for link in links]


def measured_link_summaries(
    store: Store,
    scope: Scope | None = None,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
    catalogs: CatalogSet | None = None,
) -> list[LinkSummary]:
    """Every region's measured line (per vantage point that measured it) in the store, with its route check
    from the traces stored from that vantage point (against the targets' line-type label, else what
    `catalogs` claim for the region), ready for `catalogs.scoring.rank_offerings`."""
    from probes.analysis import Scope, link_summaries, route_verdicts

    scope = scope or Scope()
    claims = catalog_claims(catalogs) if catalogs is not None else None

    def routes(narrowed: Scope) -> dict[tuple[str, str], dict[str, Any]]:
        return route_verdicts(store, narrowed, claims=claims)

    return to_link_summaries(link_summaries(store, scope, windows, routes=routes))


def stored_link_summaries(
    db_path: StoreLocation,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
    catalogs: CatalogSet | None = None,
    scope: Scope | None = None,
) -> list[LinkSummary]:
    """`measured_link_summaries` of the store at `db_path`, opened read-only, route checks against the claims
    of `catalogs` (default: the bundled ones with the user's); none when there is no store there yet (nothing measured is
    not an error for a reader)."""
    if not exists(db_path):
        return []
    from catalogs.user import load_with_user
    from probes.store import Store

    catalogs = catalogs if catalogs is not None else load_with_user()
    with Store(db_path, readonly=True) as store:
        return measured_link_summaries(store, scope, windows, catalogs)


def read_link_file(path: Path) -> list[LinkSummary]:
    """A JSON list of LinkSummary objects (`linkvet score --links FILE`), read as every input is
    (`probes.inputfile`: a FIFO or a device is refused, nesting and numbers bounded); a file that cannot be
    read, is not JSON or holds a wrong entry raises `LinkSummaryError` naming the file, the line or the entry."""
    from probes import inputfile

    def error(message: str, line: int | None) -> LinkSummaryError:
        return LinkSummaryError(f"{path}: {message}" if line is None else f"{path}:{line}: {message}")

    data = inputfile.parse_json(inputfile.read_text(path, error), error)
    if not isinstance(data, list):
        raise LinkSummaryError(
            _("{file}: expected a JSON list of link summaries, got {kind}").format(
                file=path, kind=type(data).__name__
            )
        )
    links = [LinkSummary.from_dict(item, where=f"{path}: [{index}]") for index, item in enumerate(data)]
    first: dict[tuple[str, str, str | None], int] = {}
    for index, link in enumerate(links):
        key = (link.provider, link.region, link.vantage)
        if key in first:  # which of the two is the line? Neither is taken over the other
            raise LinkSummaryError(
                _("{file}: [{index}] is {provider}/{region} from {vantage} again (as [{first}])").format(
                    file=path,
                    index=index,
                    provider=link.provider,
                    region=link.region,
                    vantage=link.vantage or _("no vantage point"),
                    first=first[key],
                )
            )
        first[key] = index
    return links
