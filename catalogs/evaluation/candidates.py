"""An evaluation's candidates against the catalogs: their ids checked (an unknown one named with the nearest
ids), the offerings each covers, the catalogs narrowed to them (so scoring ranks exactly the candidates),
and the addresses each is measured at (the evaluation's own endpoints, then the region's catalog endpoints:
the bundled ones and those a vendor's questionnaire answers added, each with its source).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, replace

from catalogs.errors import EvaluationError
from catalogs.evaluation.model import Candidate, Evaluation
from catalogs.i18n import _
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.schema import Offering
from catalogs.targets import region_targets


@dataclass(frozen=True, slots=True)
class CandidateEndpoint:
    """An address a candidate is measured at, and who gave it."""

    address: str  # as `probes.target.parse_target` reads it (an address, host, host:port or URL)
    source: str  # "evaluation" (the team gave it) or the catalog endpoint's source (a vendor's answer, …)
    method: str | None = None  # the catalog endpoint's method (icmp, tcp, http, download, iperf3), if any


def _nearest(word: str, known: Iterable[str]) -> str:
    """Up to three known ids a person may have meant: those that contain what was typed (shortest first),
    then those spelt most alike."""
    ids = list(dict.fromkeys(known))
    containing = sorted((k for k in ids if word and word in k), key=len)
    close = difflib.get_close_matches(word, ids, n=3, cutoff=0.5)
    chosen = list(dict.fromkeys([*containing, *close]))[:3]
    return ", ".join(chosen) if chosen else "-"


def check_candidate(candidate: Candidate, catalogs: CatalogSet) -> ProviderCatalog:
    """The candidate's provider catalog; EvaluationError naming the nearest ids when the provider, region or
    offering is not in the catalogs (bundled and the user's)."""
    catalog = catalogs.provider(candidate.provider)
    if catalog is None:
        raise EvaluationError(
            _("no provider {provider!r} in the catalogs (nearest: {nearest})").format(
                provider=candidate.provider,
                nearest=_nearest(candidate.provider, (c.provider.id for c in catalogs.providers)),
            )
        )
    if catalog.region(candidate.region) is None:
        raise EvaluationError(
            _("{provider} has no region {region!r} (nearest: {nearest})").format(
                provider=candidate.provider,
                region=candidate.region,
                nearest=_nearest(candidate.region, (r.id for r in catalog.regions)),
            )
        )
    if candidate.offering is not None and not any(o.id == candidate.offering for o in catalog.offerings):
        raise EvaluationError(
            _("{provider} has no offering {offering!r} (nearest: {nearest})").format(
                provider=candidate.provider,
                offering=candidate.offering,
                nearest=_nearest(candidate.offering, (o.id for o in catalog.offerings)),
            )
        )
    return catalog


def offerings_of(candidate: Candidate, catalog: ProviderCatalog) -> list[Offering]:
    """The offerings the candidate stands for: the one it names, else every offering of the provider sold in
    its region (or whose source does not say where)."""
    if candidate.offering is not None:
        return [o for o in catalog.offerings if o.id == candidate.offering]
    return [o for o in catalog.offerings if not o.regions or candidate.region in o.regions]


def candidate_catalogs(evaluation: Evaluation, catalogs: CatalogSet) -> CatalogSet:
    """The catalogs narrowed to the evaluation's candidates: each candidate's provider with only the
    candidates' regions and offerings (an offering keeps only the candidates' regions), so a ranking over it
    ranks exactly the candidates."""
    providers: list[ProviderCatalog] = []
    for provider_id in dict.fromkeys(c.provider for c in evaluation.candidates):
        mine = [c for c in evaluation.candidates if c.provider == provider_id]
        catalog = check_candidate(mine[0], catalogs)
        for candidate in mine[1:]:
            check_candidate(candidate, catalogs)
        regions = {c.region for c in mine}
        offerings: dict[str, Offering] = {}
        for candidate in mine:
            for offering in offerings_of(candidate, catalog):
                kept = tuple(r for r in offering.regions if r in regions) or offering.regions
                offerings[offering.id] = offering.model_copy(update={"regions": kept})
        data = catalog.data.model_copy(
            update={
                "regions": tuple(r for r in catalog.regions if r.id in regions),
                "offerings": tuple(offerings.values()),
            }
        )
        providers.append(replace(catalog, data=data))
    return replace(catalogs, providers=tuple(providers))


def candidate_endpoints(candidate: Candidate, catalogs: CatalogSet) -> list[CandidateEndpoint]:
    """Where the candidate is measured: the evaluation's endpoints first, then (unless the candidate says
    not to) the catalog region's probe endpoints (a vendor's questionnaire answers add theirs there), none
    twice."""
    found = [CandidateEndpoint(address, "evaluation") for address in candidate.endpoints]
    if not candidate.catalog_endpoints:
        return found
    catalog = catalogs.provider(candidate.provider)
    region = catalog.region(candidate.region) if catalog is not None else None
    if region is not None:
        sources = {
            (e.url or e.host): (e.source or _("the catalog")) for e in region.endpoints if (e.url or e.host)
        }
        for target in region_targets(candidate.provider, region):
            url, host, port = target["url"], target["host"], target["port"]
            address = (
                str(url)
                if url
                else (f"{host}:{port}" if target["method"] in ("tcp", "iperf3") else str(host))
            )
            found.append(
                CandidateEndpoint(
                    address, sources.get(str(url or host), _("the catalog")), str(target["method"])
                )
            )
    seen: set[str] = set()
    unique = []
    for endpoint in found:
        if endpoint.address not in seen:
            seen.add(endpoint.address)
            unique.append(endpoint)
    return unique


def claimed_line_type(candidate: Candidate, catalogs: CatalogSet) -> str | None:
    """The line the vendor claims for the candidate: its own `line_type`, else the region's primary claim."""
    if candidate.line_type:
        return candidate.line_type
    catalog = catalogs.provider(candidate.provider)
    region = catalog.region(candidate.region) if catalog is not None else None
    return region.line_types[0] if region is not None and region.line_types else None
