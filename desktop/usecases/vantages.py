"""The offices compared: every region measured from two or more vantage points, side by side
(`probes.analysis.compare_vantages`), read from the result store with each vantage point's own route checks
(against the targets' line-type labels, else what the catalogs claim). What `linkvet vantages` prints and the
export's Vantage points sheet shows. No Qt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store_location import StoreLocation, exists

if TYPE_CHECKING:
    from catalogs.loader import CatalogSet
    from probes.analysis import Scope, VantageComparison


def stored_vantage_comparisons(
    location: StoreLocation,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
    catalogs: CatalogSet | None = None,
    scope: Scope | None = None,
) -> list[VantageComparison]:
    """The regions of the store at `location` measured from two or more vantage points, compared; none when
    there is no store there yet."""
    if not exists(location):
        return []
    from catalogs.link_quality import catalog_claims
    from catalogs.user import load_with_user
    from probes.analysis import Scope, compare_vantages, link_summaries, route_verdicts
    from probes.store import Store

    catalogs = catalogs if catalogs is not None else load_with_user()
    claims = catalog_claims(catalogs)
    with Store(location, readonly=True) as store:

        def routes(narrowed: Scope) -> dict[tuple[str, str], dict[str, Any]]:
            return route_verdicts(store, narrowed, claims=claims)

        return compare_vantages(link_summaries(store, scope or Scope(), windows, routes=routes))
