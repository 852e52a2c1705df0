"""`linkvet accept import report.json` (on the office machine): an acceptance report's checks into the
provider's overlay where the user's facts are kept (their catalog folder, or the team store with a PostgreSQL
store: `desktop.usecases.overlay_home`), so that scoring prefers what the trial server showed.

For each check of a catalog field (`scope` offering, service or region; `measurement` checks are kept with
the others but change no fact):
- a measured value that can stand in the catalog (`catalog_value`) becomes a *verified* fact, with the
  report's provenance ("verified on HOST at TIME by linkvet accept"); a claim it contradicts, or confirms,
  stays in the fact's history;
- a contradicted claim with no measured value to put in its place is marked *contradicted*: scoring counts
  it 0, below an unverified claim and below an unknown;
- a claimed line type the return route confirms is marked verified, one it contradicts contradicted.
Every check is also stored with the provider (`[[checks]]`), shown by `linkvet score`, the scorecard and the
export's Acceptance checks sheet. Importing the same report twice changes nothing. A fact the catalog's rules
refuse (say, a fabric bandwidth where the catalog knows no fabric) is not written, and is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from catalogs.facts import Standing
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.overlay import Change, OverlayFact, StoredCheck, in_words, put_checks, put_facts
from desktop.i18n import _
from desktop.usecases.errors import InputError
from desktop.usecases.overlay_home import overlay_home
from desktop.usecases.user_catalogs import Home, validate_overlay


@dataclass(frozen=True)
class AcceptImported:
    overlay: Path | str  # the overlay file, or the team store
    provider: str
    offering: str
    region: str | None
    host: str
    created_at: str
    checks_added: int
    changes: list[Change] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # facts the catalog's rules refused, with why


def import_report(path: Path, catalogs: CatalogSet, folder: Home = None) -> AcceptImported:
    """Store the report's checks and turn them into verified or contradicted facts (see the module)."""
    from probes.accept import load_report

    report = load_report(path)
    claims = report.get("claims")
    if not isinstance(claims, dict) or not claims.get("provider") or not claims.get("offering"):
        raise InputError(
            _(
                "{file}: the report checks no claims (run linkvet accept with --provider and --offering)"
            ).format(file=path)
        )
    provider_id, offering_id = str(claims["provider"]), str(claims["offering"])
    region_id = str(claims["region"]) if claims.get("region") else None
    catalog = catalogs.provider(provider_id)
    if catalog is None or not any(o.id == offering_id for o in catalog.offerings):
        raise InputError(
            _("{file}: the report checks {provider}/{offering}, which is not in the catalogs").format(
                file=path, provider=provider_id, offering=offering_id
            )
        )
    host = str((report.get("host") or {}).get("hostname") or "?")
    created = str(report.get("created_at") or "")
    checks = [c for c in report.get("checks") or [] if isinstance(c, dict)]
    facts: list[OverlayFact] = []
    stored: list[StoredCheck] = []
    for index, check in enumerate(checks):
        model: type[OverlayFact | StoredCheck] = OverlayFact
        try:
            fact = _fact(check, catalog, offering_id, region_id, host, created)
            model = StoredCheck
            stored.append(_stored(check, offering_id, region_id, host, created, path.name))
        except ValidationError as exc:  # a report changed by hand (or by someone else): said, never stored
            raise InputError(
                _("{file}: checks[{index}] ({fact}): {problem}").format(
                    file=path, index=index, fact=str(check.get("fact"))[:80], problem=in_words(exc, model)
                )
            ) from None
        if fact is not None:
            facts.append(fact)
    home = overlay_home(folder)
    overlay = home.current(provider_id)
    with_checks, added = put_checks(overlay, stored)
    refused: list[str] = []
    kept = list(facts)
    for _attempt in range(len(facts) + 1):
        changed, changes = put_facts(with_checks, kept)
        _merged, errors = validate_overlay(catalogs, changed, home=home)
        if not errors:
            break
        bad = {e.field for e in errors}
        refused += [str(e) for e in errors]
        remaining = [f for f in kept if f.key not in bad]
        if len(remaining) == len(kept):  # a problem not tied to one fact: store the checks only
            changed, changes, kept = with_checks, [], []
            break
        kept = remaining
    if added or any(c.what in ("added", "changed") for c in changes):
        home.write(changed)
    return AcceptImported(
        home.where(provider_id), provider_id, offering_id, region_id, host, created, added, changes, refused
    )


def _stored(
    check: dict[str, Any], offering: str, region: str | None, host: str, created: str, report: str
) -> StoredCheck:
    def value(name: str) -> Any:
        item = check.get(name)
        return item if isinstance(item, str | int | float | bool | list) else None

    return StoredCheck(
        offering=offering,
        region=region,
        host=host,
        created_at=created,
        fact=str(check.get("fact") or "?"),
        scope=str(check.get("scope") or "offering"),
        verdict=check.get("verdict", "unverified"),
        claimed=value("claimed"),
        measured=value("measured"),
        evidence=str(check.get("evidence") or ""),
        report=report,
    )


def _key(check: dict[str, Any], offering: str, region: str | None) -> str | None:
    scope, fact = check.get("scope"), str(check.get("fact") or "")
    if scope == "offering":
        return f"offering[{offering}].{fact}"
    if scope == "service":
        return f"service.{fact}"
    if scope == "region" and region is not None:
        return f"region[{region}].{fact}"
    return None  # a measurement no catalog field holds


def _fact(
    check: dict[str, Any],
    catalog: ProviderCatalog,
    offering: str,
    region: str | None,
    host: str,
    created: str,
) -> OverlayFact | None:
    key = _key(check, offering, region)
    if key is None:
        return None
    verdict = check.get("verdict")
    measured = check.get("catalog_value")
    verified_as = str(
        check.get("provenance_when_verified") or f"verified on {host} at {created} by linkvet accept"
    )
    evidence = str(check.get("evidence") or "") or None
    when = created[:10] if len(created) >= 10 else created
    if check.get("scope") == "region":
        current = catalog.region(region or "")
        line_types = list(current.line_types) if current is not None else []
        if not line_types or verdict not in ("confirmed", "contradicted"):
            return None
        standing: Standing = "verified" if verdict == "confirmed" else "contradicted"
        source = (
            verified_as
            if verdict == "confirmed"
            else verified_as.replace("verified on", "contradicted on", 1)
        )
        return OverlayFact(
            key=key, value=line_types, standing=standing, source=source, as_of=when, evidence=evidence
        )
    if measured is not None and verdict in ("confirmed", "contradicted", "unverified"):
        note = None
        if verdict == "contradicted":
            note = f"contradicts the claim {check.get('claimed')!r}"
        return OverlayFact(
            key=key,
            value=measured,
            standing="verified",
            source=verified_as,
            as_of=when,
            evidence=evidence,
            note=note,
        )
    if verdict == "contradicted" and check.get("claimed") is not None:
        return OverlayFact(
            key=key,
            value=check["claimed"],
            standing="contradicted",
            source=verified_as.replace("verified on", "contradicted on", 1),
            as_of=when,
            evidence=evidence,
        )
    return None
