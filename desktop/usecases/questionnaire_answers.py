"""A questionnaire's answers checked one by one (`desktop.usecases.questionnaire` reads and imports the
workbook): each answer held to its question — a key a question has, an offering or region the workbook asks
about (`Asked`), a value in the list or range the question states (`catalogs.questionnaire.answer_problem`)
— and turned into the fact it becomes; the catalog's own problems put back on the answers they come from
(`located`); an answer the overlay already holds kept as it is (`as_before`), so that importing the same
answers again changes nothing. Problems are `AnswerProblem`s (sheet, row, key, what was given, why, what
was expected); `AnswersInvalid` carries them, one line each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from catalogs.errors import CatalogFileError
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.overlay import FactKey, OverlayFact
from catalogs.questionnaire import Question, answer_problem, answer_value, question_for
from desktop.i18n import _
from desktop.usecases.errors import InputError
from desktop.usecases.overlay_home import OverlayHome, overlay_home
from desktop.usecases.questionnaire_workbook import Answer, too_long

QUESTIONNAIRE_ANSWER = (
    "answer to the linkvet questionnaire"  # in every answer's source (data: not translated)
)


def is_questionnaire_source(source: str | None) -> bool:
    """Whether a fact's source is a vendor's answer to the linkvet questionnaire."""
    return source is not None and QUESTIONNAIRE_ANSWER in source


@dataclass(frozen=True, slots=True)
class AnswerProblem:
    """An answer the catalog's rules refuse: where it is, its key, what was given, why and what was
    expected."""

    sheet: str
    row: int
    key: str
    given: Any
    message: str
    expected: str | None

    def describe(self) -> str:
        return _("{sheet}, row {row}, {key}: {message}; given {given}, expected {expected}").format(
            sheet=self.sheet,
            row=self.row,
            key=_short(self.key),
            message=self.message,
            given=_short(repr(self.given)),
            expected=self.expected or "?",
        )


def _short(text: str, limit: int = 200) -> str:
    """A value as a message echoes it: at most `limit` characters."""
    return text if len(text) <= limit else text[:limit] + "…"


class AnswersInvalid(InputError):
    """Some answers are not valid; nothing was written. `problems` lists each one."""

    def __init__(self, file: Path, problems: list[AnswerProblem]) -> None:
        self.problems = problems
        head = _("{file}: {count} answer(s) not valid, nothing written:").format(
            file=file, count=len(problems)
        )
        self.lines = [head, *("  " + p.describe() for p in problems)]  # printed line by line
        super().__init__("\n".join(self.lines))


@dataclass(frozen=True, slots=True)
class Asked:
    """The offerings and regions a workbook asks about (its About sheet's `offerings` and `regions`; a
    workbook written before they were listed asks about the catalog's own)."""

    offerings: frozenset[str]
    regions: frozenset[str]


def asked_in(about: Mapping[str, Any], catalog: ProviderCatalog | None) -> Asked:
    def listed(name: str, known: list[str]) -> frozenset[str]:
        value = about.get(name)
        if value is None:
            return frozenset(known)
        return frozenset(item.strip() for item in str(value).split(",") if item.strip())

    offerings = [o.id for o in catalog.offerings] if catalog is not None else []
    regions = [r.id for r in catalog.regions] if catalog is not None else []
    return Asked(listed("offerings", offerings), listed("regions", regions))


def answer_fact(
    answer: Answer,
    questions: Sequence[Question],
    catalog: ProviderCatalog | None,
    who: str,
    document: str,
    answered_on: str,
    asked: Asked,
) -> tuple[AnswerProblem | None, OverlayFact | None]:
    def problem(message: str, expected: str | None) -> tuple[AnswerProblem, None]:
        return AnswerProblem(answer.sheet, answer.row, answer.key, answer.value, message, expected), None

    if answer.formula:
        return problem(_("a formula is not an answer"), _("the value itself, typed in (not a formula)"))
    if too_long(answer):
        return problem(_("the answer is too long"), _("at most 4000 characters"))
    question = question_for(answer.key, questions)
    if question is None:
        return problem(
            _("no question has this key (was the hidden key column changed?)"),
            _("a key this questionnaire asks"),
        )
    parsed = FactKey.parse(answer.key)
    ident = parsed.ident if parsed is not None else None
    if question.section == "offering" and ident not in asked.offerings:
        return problem(
            _("the questionnaire did not ask about offering {offering}").format(
                offering=_short(str(ident), 80)
            ),
            _("an offering it asks about: {offerings}").format(
                offerings=", ".join(sorted(asked.offerings)) or "-"
            ),
        )
    if question.section == "region" and ident not in asked.regions:
        return problem(
            _("the questionnaire did not ask about region {region}").format(region=_short(str(ident), 80)),
            _("a region it asks about: {regions}").format(regions=", ".join(sorted(asked.regions)) or "-"),
        )
    value = answer_value(question, answer.value)
    refused = answer_problem(question, value)
    if refused is not None:
        return problem(*refused)
    name = catalog.provider.name if catalog is not None else answer.key
    source = f"{name}'s {QUESTIONNAIRE_ANSWER} ({who}; {document})"
    try:
        fact = OverlayFact(
            key=answer.key,
            value=value,
            source=source,
            as_of=answered_on,
            evidence=answer.evidence,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        return problem(_plain(first), None)
    return None, fact


def _plain(error: Any) -> str:
    """A validation problem in our words, without the validation library's own text or links."""
    where = ".".join(str(part) for part in error.get("loc", ()))
    kind = error.get("type", "")
    if kind in ("string_too_long", "too_long"):
        return _("{field}: too long").format(field=where)
    if kind == "string_pattern_mismatch":
        return _("{field}: not in the form expected").format(field=where)
    if kind == "implausible":
        return str(error.get("msg", ""))
    return _("{field}: not a value this fact takes").format(field=where or _("the value"))


def _answerer(source: str) -> str:
    """The part of an answer's source that names who answered (the workbook's file name left out: a copy
    of the same answers is the same answer)."""
    return source.rsplit(";", 1)[0]


def as_before(
    facts: list[tuple[Answer, OverlayFact]],
    catalogs: CatalogSet,
    provider: str,
    folder: Path | OverlayHome | None,
    *,
    dated: bool,
) -> list[tuple[Answer, OverlayFact]]:
    """The facts with each one that repeats the answer already held (the same value, standing, evidence and
    answerer; the same date when the workbook states one) replaced by the held fact, so that importing the
    same answers again — from the same workbook or a copy of it — changes nothing and adds no history."""
    try:
        held = {f.key: f for f in overlay_home(folder).current(provider).facts}
    except CatalogFileError:
        return facts  # the overlay's own problem is reported when it is written
    kept = []
    for answer, fact in facts:
        old = held.get(fact.key)
        same = (
            old is not None
            and (old.value, old.standing, old.evidence) == (fact.value, fact.standing, fact.evidence)
            and _answerer(old.source) == _answerer(fact.source)
            and (old.as_of == fact.as_of or not dated)
        )
        kept.append((answer, old if same and old is not None else fact))
    return kept


def located(
    errors: Sequence[CatalogFileError], facts: Sequence[tuple[Answer, OverlayFact]]
) -> list[AnswerProblem]:
    """The catalog's problems with the answers they come from (a problem of a fact not answered — a field
    another answer needs — is put on that answer's row)."""
    by_key: Mapping[str, Answer] = {f.key: a for a, f in facts}
    located = []
    for error in errors:
        key = error.field or ""
        answer = by_key.get(key) or _nearest(key, by_key)
        if answer is None:
            located.append(AnswerProblem("?", 0, key, None, error.message, error.expected))
        else:
            given = answer.value if answer.key == key else None
            located.append(AnswerProblem(answer.sheet, answer.row, key, given, error.message, error.expected))
    return located


def cannot_stand(
    error: CatalogFileError,
    kept: Sequence[tuple[Answer, OverlayFact]],
    refused: Mapping[str, AnswerProblem],
) -> list[AnswerProblem]:
    """The kept answers that cannot stand without the field the catalog's `error` is about, a field none of
    them answers (its answer refused, or not given): the answers of that field's table
    (`offering[x].inter_node.*` for `offering[x].inter_node.fabric`), else of its offering, region or
    section; each refused with a reason naming the field (and the refused answer's sheet and row). Empty
    when no kept answer is near the field."""
    key = error.field or ""
    reason = error.message
    for scope in _scopes(key):
        near = [(a, f) for a, f in kept if f.key.startswith(scope + ".")]
        if near:
            break
    else:
        return []
    cause = refused.get(key)
    if cause is not None:
        why = _(
            "not written: it needs the answer to {key} ({sheet}, row {row}), which was refused: {reason}"
        ).format(key=_short(key, 120), sheet=cause.sheet, row=cause.row, reason=reason)
    else:
        why = _("not written: it needs an answer to {key}, which these answers do not give: {reason}").format(
            key=_short(key, 120), reason=reason
        )
    expected = _("a valid answer to {key} as well").format(key=_short(key, 120))
    return [AnswerProblem(a.sheet, a.row, a.key, a.value, why, expected) for a, _f in near]


def _scopes(key: str) -> list[str]:
    """The tables a fact key lies in, nearest first: the key itself (when it names a table or an offering,
    `offering[x].inter_node`), then its table and its offering, region or section:
    `offering[x].inter_node.fabric` lies in `offering[x].inter_node`, then in `offering[x]`."""
    if not key:
        return []
    parsed = FactKey.parse(key)
    if parsed is None:
        found = re.match(r"^(?:region|offering)\[[^\]]*\]", key)
        return [key, *([found.group()] if found is not None and found.group() != key else [])]
    if parsed.ident is None:
        return [key, parsed.section]
    item = f"{parsed.section}[{parsed.ident}]"
    return [key, f"{item}.{parsed.table}", item] if parsed.table else [key, item]


def _nearest(key: str, answers: Mapping[str, Answer]) -> Answer | None:
    """The answer whose key shares the longest start with `key` (the same table of the same offering)."""
    best, length = None, 0
    for other, answer in answers.items():
        shared = len(_common(key, other))
        if shared > length and "." in _common(key, other):
            best, length = answer, shared
    return best


def _common(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]
