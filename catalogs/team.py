"""A team's vendor facts, as records kept in a shared store (`probes.store.vendor_facts`), turned into the
overlays every office merges over its catalogs (`catalogs.overlay`), and an overlay's changes turned back into
records. Pure: no store, no files.

A record is one change, never rewritten, with its office, who recorded it and when:

    fact     a fact put in by key (a questionnaire answer, an acceptance report's verified fact, an edit);
             body: the overlay fact (value, standing, source, as_of, evidence, note), without history
    check    an acceptance check; body: the overlay's `[[checks]]` entry
    forget   the fact of this key taken out (an edit that clears it, an offering deleted); body: {}
    choice   someone chose between offices' conflicting answers; body: {"record": the chosen fact's id}

`team_overlays` replays a provider's records in the order recorded, with the overlay's own rules
(`catalogs.overlay.put_facts`: a changed value keeps the earlier one in its history, a claim never replaces a
verified fact), so the team's overlay says what one person's overlay file would say had they made every change
themselves. Where the offices' latest answers to a key disagree (each office's latest claim since the last
choice, a choice counting as its chooser's answer), the key is in conflict: every answer is kept, the newest
stands, and the conflict is listed until someone chooses (`choice`). A region's test addresses are added to
those listed rather than replaced, so two offices' addresses are never a conflict.

`changes_between(before, after)` is what a use-case that wrote an overlay file now records instead: the facts
added or changed, the keys taken out, the checks added.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from catalogs.errors import FormatVersionError, SchemaError
from catalogs.i18n import _
from catalogs.overlay import EarlierValue, OverlayFact, OverlayFile, StoredCheck, put_checks, put_facts

TEAM_FACT_FORMAT = 1  # the version of a record's body
_FACT_FIELDS = ("value", "standing", "source", "as_of", "evidence", "note")


@dataclass(frozen=True, slots=True)
class TeamRecord:
    """A record as the catalogs read it (`probes.store.vendor_facts.VendorFact`, its body parsed)."""

    id: int
    provider: str
    kind: str
    key: str
    body: Mapping[str, Any]
    office: str | None
    recorded_by: str
    recorded_us: int

    @property
    def origin(self) -> str:
        """Whose answer it is, for conflicts: the office, or who recorded it where no office was said."""
        return self.office or self.recorded_by

    @property
    def recorded_on(self) -> str:
        return dt.datetime.fromtimestamp(self.recorded_us / 1e6, tz=dt.UTC).date().isoformat()


@dataclass(frozen=True, slots=True)
class TeamAnswer:
    """One office's latest answer to a key in conflict."""

    record: int
    value: Any
    source: str
    as_of: str
    office: str | None
    recorded_by: str
    recorded_us: int


@dataclass(frozen=True, slots=True)
class Conflict:
    """Offices' answers to one key that disagree; `used` is the record whose value stands (the newest)."""

    provider: str
    key: str
    answers: tuple[TeamAnswer, ...]  # newest first
    used: int


@dataclass(frozen=True)
class TeamOverlay:
    """A provider's facts as the team's records say now: the overlay, its conflicts, and for each key the
    record its fact came from (office, who, when)."""

    provider: str
    overlay: OverlayFile
    conflicts: tuple[Conflict, ...] = ()
    recorded: Mapping[str, TeamRecord] = field(default_factory=dict)


def parse_record(
    id: int,
    provider: str,
    kind: str,
    key: str,
    format: int,
    body: str,
    office: str | None,
    recorded_by: str,
    recorded_us: int,
) -> TeamRecord:
    """A stored record read (SchemaError for a body that is not a JSON table; FormatVersionError for one a
    newer linkvet wrote)."""
    if format > TEAM_FACT_FORMAT:
        raise FormatVersionError(
            _(
                "record {record} of {provider} was written by a newer linkvet (format {format}, this one reads "
                "up to {known}); upgrade linkvet"
            ).format(record=id, provider=provider, format=format, known=TEAM_FACT_FORMAT)
        )
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise SchemaError(
            _("record {record} of {provider}: its body is not a JSON table").format(
                record=id, provider=provider
            )
        )
    return TeamRecord(id, provider, kind, key, parsed, office, recorded_by, recorded_us)


def team_overlays(records: Iterable[TeamRecord]) -> tuple[dict[str, TeamOverlay], list[SchemaError]]:
    """Every provider's overlay from its records (in the order recorded), and the records that could not be
    read (left out, each said)."""
    by_provider: dict[str, list[TeamRecord]] = {}
    for record in sorted(records, key=lambda r: r.id):
        by_provider.setdefault(record.provider, []).append(record)
    out: dict[str, TeamOverlay] = {}
    problems: list[SchemaError] = []
    for provider, mine in by_provider.items():
        out[provider] = _replay(provider, mine, problems)
    return out, problems


def _fact(record: TeamRecord) -> OverlayFact:
    body = {k: v for k, v in record.body.items() if k in _FACT_FIELDS}
    return OverlayFact.model_validate({"key": record.key, **body})


def _replay(provider: str, records: list[TeamRecord], problems: list[SchemaError]) -> TeamOverlay:
    overlay = OverlayFile(provider=provider)
    facts: dict[int, tuple[TeamRecord, OverlayFact]] = {}
    recorded: dict[str, TeamRecord] = {}
    answers: dict[str, list[tuple[TeamRecord, OverlayFact]]] = {}  # since the key's last choice
    for record in records:
        try:
            if record.kind == "fact":
                fact = _fact(record)
                facts[record.id] = (record, fact)
                overlay, changes = put_facts(overlay, [fact], today=record.recorded_on)
                if changes[0].what in ("added", "changed"):
                    recorded[record.key] = record
                answers.setdefault(record.key, []).append((record, fact))
            elif record.kind == "check":
                check = StoredCheck.model_validate(dict(record.body))
                overlay, _added = put_checks(overlay, [check])
            elif record.kind == "forget":
                overlay = overlay.model_copy(
                    update={"facts": tuple(f for f in overlay.facts if f.key != record.key)}
                )
                recorded.pop(record.key, None)
                answers.pop(record.key, None)
            elif record.kind == "choice":
                chosen = facts.get(int(record.body.get("record", 0)))
                if chosen is None or chosen[1].key != record.key:
                    raise ValueError(f"no fact record {record.body.get('record')!r} of {record.key}")
                overlay = _chosen(overlay, chosen[1], record.recorded_on)
                recorded[record.key] = chosen[0]
                answers[record.key] = [(record, chosen[1])]
            else:
                raise ValueError(f"unknown kind {record.kind!r}")
        except (ValidationError, ValueError, TypeError) as exc:
            problems.append(
                SchemaError(
                    _("record {record} of {provider} ({key}) cannot be read: {reason}").format(
                        record=record.id, provider=provider, key=record.key, reason=str(exc).splitlines()[0]
                    )
                )
            )
    conflicts = tuple(
        c for key, given in answers.items() if (c := _conflict(provider, key, given, overlay)) is not None
    )
    return TeamOverlay(provider, overlay, conflicts, recorded)


def _chosen(overlay: OverlayFile, fact: OverlayFact, today: str) -> OverlayFile:
    """The chosen answer stands (a choice is explicit: it replaces even a verified value), the value it
    replaces kept in the history."""
    facts = []
    for current in overlay.facts:
        if current.key != fact.key:
            facts.append(current)
            continue
        if current.same_as(fact):
            facts.append(current)
            continue
        earlier = EarlierValue(
            value=current.value,
            standing=current.standing,
            source=current.source,
            as_of=current.as_of,
            evidence=current.evidence,
            replaced_on=today,
        )
        facts.append(fact.model_copy(update={"history": (*current.history, earlier)}))
    if not any(f.key == fact.key for f in overlay.facts):
        facts.append(fact)
    return overlay.model_copy(update={"facts": tuple(facts)})


def _conflict(
    provider: str, key: str, given: list[tuple[TeamRecord, OverlayFact]], overlay: OverlayFile
) -> Conflict | None:
    current = overlay.fact(key)
    if current is None or current.standing != "claimed" or key.endswith(".endpoints"):
        return None
    latest: dict[str, tuple[TeamRecord, OverlayFact]] = {}
    for record, fact in given:
        if fact.standing == "claimed":
            latest[record.origin] = (record, fact)
    values = {json.dumps(fact.value, sort_keys=True) for _record, fact in latest.values()}
    if len(values) < 2:
        return None
    ordered = sorted(latest.values(), key=lambda pair: pair[0].id, reverse=True)
    answers = tuple(
        TeamAnswer(
            _answer_record(record),
            fact.value,
            fact.source,
            fact.as_of,
            record.office,
            record.recorded_by,
            record.recorded_us,
        )
        for record, fact in ordered
    )
    return Conflict(provider, key, answers, answers[0].record)


def _answer_record(record: TeamRecord) -> int:
    """The fact record an answer is (a choice stands for the record it chose)."""
    return int(record.body.get("record", record.id)) if record.kind == "choice" else record.id


def changes_between(before: OverlayFile, after: OverlayFile) -> list[tuple[str, str, dict[str, Any]]]:
    """What turns the team's overlay `before` into `after`, as (kind, key, body) records: each fact added or
    changed (its value or provenance; history is the team's to keep), each key taken out, each check added."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for fact in after.facts:
        old = before.fact(fact.key)
        if old is None or not old.same_as(fact) or old.note != fact.note:
            body = fact.model_dump(mode="json", exclude_none=True, include=set(_FACT_FIELDS))
            out.append(("fact", fact.key, body))
    kept = {f.key for f in after.facts}
    out += [("forget", f.key, {}) for f in before.facts if f.key not in kept]
    known = {c.identity() for c in before.checks}
    out += [
        ("check", check.fact or "check", check.model_dump(mode="json", exclude_none=True))
        for check in after.checks
        if check.identity() not in known
    ]
    return out


def combined(folder: OverlayFile | None, team: OverlayFile) -> OverlayFile:
    """A provider's overlay from the user's folder with the team's facts put over it by key (the team's
    verified facts and claims win over the folder's claims; a verified folder fact stands against a team
    claim, as in one overlay) and both their checks."""
    if folder is None:
        return team
    merged, _changes = put_facts(folder, team.facts)
    with_checks, _added = put_checks(merged, team.checks)
    return with_checks
