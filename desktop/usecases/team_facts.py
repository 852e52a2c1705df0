"""The team's vendor facts in a PostgreSQL store (`catalogs.team`, `probes.store.vendor_facts`): read for the
catalogs every command loads (`team_facts`, called by `desktop.usecases.offerings.load_catalog_set`), the
offices' conflicting answers (`team_conflicts`), a choice between them (`choose_answer`), and everything the
team knows written out as overlay files (`export_team_facts`, `linkvet catalog export`). No Qt.

With a SQLite store (or none) there is no team: the user's facts stay in their catalog folder, and `export`
writes those.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from catalogs.errors import CatalogFileError
from catalogs.loader import catalog_files
from catalogs.overlay import OverlayFile, render_overlay
from catalogs.team import TEAM_FACT_FORMAT, Conflict, TeamOverlay
from catalogs.user import TeamFacts, read_overlay, user_catalog_dir
from desktop.i18n import _
from desktop.usecases.errors import InputError
from desktop.usecases.files import write_text
from desktop.usecases.identity import default_office, who
from desktop.usecases.overlay_home import OVERLAY_HEADER, read_team_overlays, team_label, team_location
from probes.errors import StoreError
from probes.store import Store, VendorFact
from probes.store_location import StoreLocation, StoreUrl


def team_facts(db: StoreLocation | None = None) -> tuple[TeamFacts | None, list[CatalogFileError]]:
    """The team's facts when the store (`db`, else `LINKVET_DB`) is PostgreSQL, for the catalogs to merge
    (None: no team); a store that cannot be read is one problem, and the catalogs load without them."""
    location = team_location(db)
    if location is None:
        return None, []
    label = team_label(location)
    try:
        with Store(location) as store:
            overlays, problems = read_team_overlays(store)
    except StoreError as exc:
        return None, [
            CatalogFileError(
                _(
                    "{store}: the team's vendor facts could not be read ({reason}); ranking without them"
                ).format(store=label, reason=exc)
            )
        ]
    named = [_named(problem, label) for problem in problems]
    return TeamFacts(label, {p: o.overlay for p, o in overlays.items()}), named


def _named(problem: CatalogFileError, label: str) -> CatalogFileError:
    return type(problem)(
        _("{store}: {message}").format(store=label, message=problem.message),
        field=problem.field,
        expected=problem.expected,
    )


def _team(db: StoreLocation | None) -> StoreUrl:
    location = team_location(db)
    if location is None:
        raise InputError(
            _(
                "the store is not a PostgreSQL one, so there are no team facts: your own are in {folder} "
                "(give --db postgresql://… or set LINKVET_DB)"
            ).format(folder=user_catalog_dir())
        )
    return location


def team_overlays_of(db: StoreLocation | None, provider: str | None = None) -> dict[str, TeamOverlay]:
    """The team's overlays (every provider's, or one's) with their conflicts; InputError without a team."""
    with Store(_team(db)) as store:
        overlays, _problems = read_team_overlays(store, provider)
    return overlays


def team_conflicts(db: StoreLocation | None, provider: str | None = None) -> list[Conflict]:
    """Every key the offices answered differently since the last choice, by provider and key."""
    overlays = team_overlays_of(db, provider)
    return [c for p in sorted(overlays) for c in sorted(overlays[p].conflicts, key=lambda c: c.key)]


@dataclass(frozen=True, slots=True)
class Chosen:
    provider: str
    key: str
    record: int
    value: object


def choose_answer(
    db: StoreLocation | None, provider: str, key: str, record: int, *, office: str | None = None
) -> Chosen:
    """Settle a conflict: the answer of `record` stands for `key` (recorded with office, who and when);
    InputError naming the answers when `record` is not one of the key's."""
    location = _team(db)
    with Store(location) as store:
        overlays, _problems = read_team_overlays(store, provider)
        team = overlays.get(provider)
        conflict = next((c for c in team.conflicts if c.key == key), None) if team is not None else None
        answers = conflict.answers if conflict is not None else ()
        answer = next((a for a in answers if a.record == record), None)
        if answer is None:
            known = ", ".join(f"{a.record} ({a.office or a.recorded_by}: {a.value!r})" for a in answers)
            raise InputError(
                _("{provider} {key}: no answer {record} to choose (the answers in conflict: {known})").format(
                    provider=provider, key=key, record=record, known=known or "-"
                )
            )
        from probes.timestamps import now_us

        store.add_vendor_facts(
            [
                VendorFact(
                    0,
                    provider,
                    "choice",
                    key,
                    TEAM_FACT_FORMAT,
                    json.dumps({"record": record}),
                    office or default_office(),
                    who(),
                    now_us(),
                )
            ]
        )
    return Chosen(provider, key, record, answer.value)


def _with_who(team: TeamOverlay) -> OverlayFile:
    """The team's overlay with each fact's note saying where, by whom and when it was recorded (the overlay
    format has no field for it)."""
    facts = []
    for fact in team.overlay.facts:
        record = team.recorded.get(fact.key)
        if record is None:
            facts.append(fact)
            continue
        said = _("recorded at {office} by {user} on {day}").format(
            office=record.office or "-", user=record.recorded_by, day=record.recorded_on
        )
        facts.append(fact.model_copy(update={"note": f"{fact.note}; {said}" if fact.note else said}))
    return team.overlay.model_copy(update={"facts": tuple(facts)})


@dataclass(frozen=True, slots=True)
class Exported:
    files: tuple[Path, ...]
    source: str  # the team store, or the user's folder


def export_team_facts(db: StoreLocation | None, out: Path, provider: str | None = None) -> Exported:
    """Write the facts the team keeps (a PostgreSQL store; else the user's folder) as overlay files, one per
    provider (`PROVIDER.overlay.toml` in the folder `out`), each fact with its history and checks: what
    `linkvet catalog validate` reads and a catalog folder holds."""
    location = team_location(db)
    overlays: dict[str, OverlayFile] = {}
    if location is not None:
        source = team_label(location)
        overlays = {p: _with_who(o) for p, o in team_overlays_of(db, provider).items()}
        header = _("`linkvet catalog export`: the facts the team keeps in {store}").format(store=source)
    else:
        folder = user_catalog_dir()
        source = str(folder)
        for path in catalog_files([folder]) if folder.is_dir() else []:
            overlay, _text, _errors = read_overlay(path)
            if overlay is not None and (provider is None or overlay.provider == provider):
                overlays[overlay.provider] = overlay
        header = _("`linkvet catalog export`: your own facts from {folder}").format(folder=source)
    if provider is not None and provider not in overlays:
        raise InputError(_("{source} holds no facts of {provider}").format(source=source, provider=provider))
    written = [
        write_text(out / f"{p}.overlay.toml", render_overlay(overlays[p], f"{header}\n{OVERLAY_HEADER}"))
        for p in sorted(overlays)
        if overlays[p].facts or overlays[p].checks
    ]
    return Exported(tuple(written), source)
