"""What the ranking does not know and what was checked on the server: the Ranking sheet's columns on the
unknowns (score at worst and at best, the share known, whether a place is decided, what to ask next), the
GPU offerings sheet's per-fact sources (a vendor's answer, a verified measurement, with its file), and the
Acceptance checks sheet (every check imported by `linkvet accept import`)."""

from __future__ import annotations

from typing import Any

from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.schema import Offering
from catalogs.scoring import RankedOffering
from catalogs.scoring.standing import candidate_facts
from desktop.export.model import Column, Sheet
from desktop.i18n import N_, _

# An acceptance check's verdict in words (the stored value is the enumerated one: `confirmed` …).
VERDICTS = {"confirmed": N_("confirmed"), "contradicted": N_("contradicted"), "unverified": N_("unverified")}


def acceptance_columns() -> tuple[Column, ...]:
    return (
        Column("provider", _("Provider")),
        Column("offering", _("Offering")),
        Column("region", _("Region")),
        Column("host", _("Server")),
        Column("checked_at", _("Checked at"), width=22),
        Column("fact", _("Fact"), width=28),
        Column("scope", _("Scope"), width=11),
        Column("claimed", _("Claimed"), width=18),
        Column("measured", _("Measured"), width=18),
        Column("verdict", _("Verdict"), width=13),
        Column("evidence", _("Evidence"), width=70, wrap=True),
        Column("report", _("Report file"), width=24),
    )


def honest_columns(entry: RankedOffering) -> dict[str, Any]:
    """The Ranking sheet's columns on what is not known: the score at worst and at best, the share known,
    whether the place is decided (and if not, who could overtake it and by what), and what to ask next;
    criteria named by their titles."""
    return {
        "score_min": entry.score_min,
        "score_max": entry.score_max,
        "coverage": entry.coverage,
        "place": place_summary(entry),
        "ask_next": ", ".join(f"{entry.title(s.criterion)} (±{s.swing:.2f})" for s in entry.ask_next) or None,
    }


def place_summary(entry: RankedOffering) -> str | None:
    """ "decided", or who could still overtake it and by which unknowns (or weight move)."""
    if entry.decided is None:
        return None
    if entry.decided:
        return _("decided")
    rank = entry.challenger_rank or entry.next_rank
    if entry.swayed_by is not None:
        criterion, factor = entry.swayed_by
        return _("#{rank} could overtake with the weight of {criterion} ×{factor:g}").format(
            rank=rank, criterion=entry.title(criterion), factor=factor
        )
    deciding = ", ".join(
        entry.title(s.criterion)
        if s.whose == "this"
        else _("#{rank}'s {criterion}").format(rank=rank, criterion=entry.title(s.criterion))
        for s in entry.deciding
    )
    if not deciding:
        return _("#{rank} could overtake: level with it").format(rank=rank)
    return _("#{rank} could overtake; depends on: {criteria}").format(rank=rank, criteria=deciding)


def fact_sources_text(catalog: ProviderCatalog, offering: Offering) -> str | None:
    parts = []
    for fact in candidate_facts(offering, None, None):
        p = fact.provenance
        value = ", ".join(str(v) for v in fact.value) if isinstance(fact.value, tuple) else fact.value
        where = p.file or (str(catalog.path) if catalog.path else "")
        parts.append(
            _("{fact} = {value} [{standing}]: {source}; {file}").format(
                fact=fact.key, value=value, standing=p.standing, source=p.describe(), file=where
            )
        )
    return "\n".join(parts) or None


def _text(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return value


def acceptance_sheet(catalogs: CatalogSet) -> Sheet | None:
    """Every acceptance check stored with the catalogs (None when there is none)."""
    rows = []
    for catalog in catalogs.providers:
        for check in catalog.checks:
            rows.append(
                {
                    "provider": catalog.provider.id,
                    "offering": check.get("offering"),
                    "region": check.get("region"),
                    "host": check.get("host"),
                    "checked_at": check.get("created_at"),
                    "fact": check.get("fact"),
                    "scope": check.get("scope"),
                    "claimed": _text(check.get("claimed")),
                    "measured": _text(check.get("measured")),
                    "verdict": _(VERDICTS[verdict])
                    if (verdict := check.get("verdict")) in VERDICTS
                    else verdict,
                    "evidence": check.get("evidence"),
                    "report": check.get("report"),
                }
            )
    if not rows:
        return None
    return Sheet(
        "Acceptance checks", acceptance_columns(), rows, freeze_columns=2, title=_("Acceptance checks")
    )
