"""Measured line quality for scoring: the analysis's `probes.analysis.MeasuredLink` as the
`catalogs.link_quality.LinkSummary` scoring reads (`to_link_summary`), read from the result store (`linkvet score --db`, the Needs & score screen) or from a JSON file of
LinkSummary objects (`linkvet score --links FILE`). No Qt."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalogs.errors import LinkSummaryError
from catalogs.link_quality import LinkSummary, catalog_claims, to_link_summaries
from catalogs.loader import CatalogSet
from desktop.i18n import _
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store_location import StoreLocation, exists, location_or_default

if TYPE_CHECKING:  # the analysis and the store (numpy, pandas) load when measurements are read
    from probes.analysis import Scope
    from probes.store import Store


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
    (`probes.files.inputfile`: a FIFO or a device is refused, nesting and numbers bounded); a file that cannot be
    read, is not JSON or holds a wrong entry raises `LinkSummaryError` naming the file, the line or the entry."""
    from probes.files import inputfile

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


def candidate_lines(
    db: StoreLocation | None,
    regions: Collection[tuple[str, str]],
    windows: Sequence[PeakWindow],
    catalogs: CatalogSet,
    since_us: int | None = None,
    until_us: int | None = None,
) -> list[LinkSummary]:
    """The measured lines of the given (provider, region)s from every office, read in one pass over the store
    (each office's own rollups), every line's vantage point named (`THIS_MACHINE` for rounds that named
    none): what an evaluation's evidence table and ranking read. None measured yet: an empty list."""
    from probes.analysis import Scope
    from probes.store import Store
    from probes.vantage import THIS_MACHINE

    location = location_or_default(db)
    if not exists(location) or not regions:
        return []
    wanted = set(regions)
    with Store(location, readonly=True) as store:
        if len(wanted) == 1:
            ((provider, region),) = wanted
            scope = Scope(provider=provider, region=region, since_us=since_us, until_us=until_us)
        else:  # one pass: the analysis' fixed costs are paid once, not once per region
            scope = Scope(since_us=since_us, until_us=until_us)
        found = measured_link_summaries(store, scope, windows, catalogs)
    return [replace(s, vantage=s.vantage or THIS_MACHINE) for s in found if (s.provider, s.region) in wanted]
