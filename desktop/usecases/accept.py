"""`linkvet accept`'s use case, shared by every face (no Qt): read the machine (or a replay), then, when an
offering is named, check every fact against its catalog claims (`catalogs.acceptance`) and the return route
against the region's claimed line type (`probes.routes`), and put it all in one versioned report.

Lives in `desktop` because it composes `probes` and `catalogs`, which never import each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalogs.acceptance import Check, Verdict, check_offering, summarize
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.needs import NeedsProfile
from catalogs.schema import Offering, Region
from desktop.i18n import _
from desktop.usecases.errors import InputError
from probes.accept import AcceptOptions, collect

# The carrier whose endpoints a claimed line type is seen on, on the return path (CN2 and 163 are China
# Telecom's backbones, 9929 and 4837 China Unicom's, CMI China Mobile's: probes.routes.classify.CARRIER_OF_GROUP).
CARRIER_OF_CLAIM = {
    "cn2-gia": "telecom",
    "cn2-gt": "telecom",
    "163": "telecom",
    "cu-9929": "unicom",
    "cu-4837": "unicom",
    "cmi": "mobile",
}

# The return-route endpoints' carriers (`probes.accept.return_route`), as people write them.
_CARRIER_NAMES = {"telecom": "China Telecom", "unicom": "China Unicom", "mobile": "China Mobile"}


class ClaimLookupError(InputError):
    """The provider, offering or region named is not in the catalogs; `str()` lists what there is."""


@dataclass(frozen=True, slots=True)
class Claims:
    catalog: ProviderCatalog
    offering: Offering
    region: Region | None


def find_claims(catalogs: CatalogSet, provider_id: str, offering_id: str, region_id: str | None) -> Claims:
    catalog = catalogs.provider(provider_id)
    if catalog is None:
        known = ", ".join(sorted(p.provider.id for p in catalogs.providers))
        raise ClaimLookupError(
            _("no provider {provider!r} in the catalogs (known: {known})").format(
                provider=provider_id, known=known
            )
        )
    offering = next((o for o in catalog.offerings if o.id == offering_id), None)
    if offering is None:
        known = ", ".join(o.id for o in catalog.offerings) or _("none")
        raise ClaimLookupError(
            _("provider {provider!r} has no offering {offering!r} (offerings: {known})").format(
                provider=provider_id, offering=offering_id, known=known
            )
        )
    region = None
    if region_id is not None:
        region = catalog.region(region_id)
        if region is None:
            known = ", ".join(r.id for r in catalog.regions) or _("none")
            raise ClaimLookupError(
                _("provider {provider!r} has no region {region!r} (regions: {known})").format(
                    provider=provider_id, region=region_id, known=known
                )
            )
    elif len(offering.regions) == 1:
        region = catalog.region(offering.regions[0])
    return Claims(catalog, offering, region)


def route_check(report: dict[str, Any], claims: Claims, networks: Path | None = None) -> Check | None:
    """The region's claimed line type against the return-route traces to that line's carrier."""
    from catalogs.acceptance.check import _check
    from probes.routes import PathHop, classify_path, load_network_table, route_summary

    region = claims.region
    if region is None or not region.line_types:
        return None
    checkable = [t for t in region.line_types if t in CARRIER_OF_CLAIM]
    claimed = checkable[0] if checkable else region.line_types[0]
    prov = region.provenance("line_types")
    routes = (report.get("facts", {}).get("return_route") or {}).get("routes", [])
    carrier = CARRIER_OF_CLAIM.get(claimed)
    relevant = [
        r for r in routes if r.get("path") and (carrier is None or r.get("carrier") in (carrier, None))
    ]
    if not relevant:
        why = (
            _("no return-route trace read (--return-route traces from this server)")
            if not routes
            else _("no trace to a {carrier} endpoint").format(carrier=_carrier(carrier))
        )
        return _check("line_types", claimed, None, "unverified", why, scope="region", provenance=prov)
    table = load_network_table(networks)
    verdicts = [
        classify_path(
            [PathHop(ttl, tuple(addresses)) for ttl, addresses in r["path"]], table, reached=r.get("reached")
        )
        for r in relevant
    ]
    claimant = _("{provider} ({region})").format(provider=claims.catalog.provider.name, region=region.id)
    summary = route_summary(claimed, verdicts, claimant=claimant)
    assert summary is not None
    agrees = summary["agrees"]
    verdict: Verdict = "confirmed" if agrees is True else "contradicted" if agrees is False else "unverified"
    if carrier:
        evidence = _("return path (server → China {carrier}): {evidence}").format(
            carrier=_carrier(carrier), evidence=summary["evidence"]
        )
    else:
        evidence = _("return path (server → China carriers): {evidence}").format(evidence=summary["evidence"])
    return _check(
        "line_types",
        claimed,
        summary["measured_class"],
        verdict,
        evidence,
        scope="region",
        value=claimed if agrees else None,
        provenance=prov,
    )


def accept(
    options: AcceptOptions,
    *,
    catalogs: CatalogSet | None = None,
    provider: str | None = None,
    offering: str | None = None,
    region: str | None = None,
    needs: NeedsProfile | None = None,
    needs_path: Path | None = None,
) -> dict[str, Any]:
    """The whole report: facts always; claims, checks and summary when an offering is named."""
    report = collect(options)
    report["claims"] = None
    report["needs"] = None
    checks: Sequence[Check] = []
    if provider is not None and offering is not None and catalogs is not None:
        claims = find_claims(catalogs, provider, offering, region)
        report["claims"] = {
            "provider": claims.catalog.provider.id,
            "provider_name": claims.catalog.provider.name,
            "offering": claims.offering.id,
            "region": None if claims.region is None else claims.region.id,
            "catalog_file": None if claims.catalog.path is None else str(claims.catalog.path),
        }
        checks = list(check_offering(report, claims.catalog, claims.offering, claims.region, needs))
        route = route_check(report, claims, options.networks)
        if route is not None:
            checks.append(route)
    if needs is not None:
        report["needs"] = {"name": needs.name, "file": None if needs_path is None else str(needs_path)}
    report["checks"] = [c.as_dict() | {"provenance_when_verified": _verified_as(report)} for c in checks]
    report["summary"] = summarize(checks)
    return report


def _verified_as(report: dict[str, Any]) -> str:
    """How `linkvet accept import` will word a confirmed fact's source."""
    return f"verified on {report['host']['hostname']} at {report['created_at']} by linkvet accept ({report['mode']})"


def _carrier(carrier: str | None) -> str:
    from probes.routes.names import carrier_name

    return "?" if carrier is None else carrier_name(_CARRIER_NAMES.get(carrier, carrier))
