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

ACCEPTANCE_COLUMNS = (
    Column("provider", "Provider"),
    Column("offering", "Offering"),
    Column("region", "Region"),
    Column("host", "Server"),
    Column("checked_at", "Checked at", width=22),
    Column("fact", "Fact", width=28),
    Column("scope", "Scope", width=11),
    Column("claimed", "Claimed", width=18),
    Column("measured", "Measured", width=18),
    Column("verdict", "Verdict", width=13),
    Column("evidence", "Evidence", width=70, wrap=True),
    Column("report", "Report file", width=24),
)


def honest_columns(entry: RankedOffering) -> dict[str, Any]:
    """The Ranking sheet's columns on what is not known: the score at worst and at best, the share known,
    whether the place is decided (and by what), and what to ask next."""
    if entry.decided is None:
        place = None
    elif entry.decided:
        place = "decided"
    else:
        place = "depends on: " + ", ".join(
            (s.criterion if s.whose == "this" else f"#{entry.next_rank}'s {s.criterion}")
            for s in entry.deciding
        )
    return {
        "score_min": entry.score_min,
        "score_max": entry.score_max,
        "coverage": entry.coverage,
        "place": place,
        "ask_next": ", ".join(f"{s.criterion} (±{s.swing:.2f})" for s in entry.ask_next) or None,
    }


def fact_sources_text(catalog: ProviderCatalog, offering: Offering) -> str | None:
    parts = []
    for fact in candidate_facts(offering, None, None):
        p = fact.provenance
        value = ", ".join(str(v) for v in fact.value) if isinstance(fact.value, tuple) else fact.value
        where = p.file or (str(catalog.path) if catalog.path else "")
        parts.append(f"{fact.key} = {value} [{p.standing}]: {p.describe()}; {where}")
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
                    "verdict": check.get("verdict"),
                    "evidence": check.get("evidence"),
                    "report": check.get("report"),
                }
            )
    if not rows:
        return None
    return Sheet("Acceptance checks", ACCEPTANCE_COLUMNS, rows, freeze_columns=2)
