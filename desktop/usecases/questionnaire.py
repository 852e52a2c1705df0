"""`linkvet questionnaire`: a workbook of questions to send to a vendor, and its answers read back into the
user's own catalog (the provider's overlay, never the bundled files).

Export: the provider sheet (service, support, DDoS, delivery, each region's line types and test
addresses) and one block of rows per offering (hardware, storage, operations, price, capacity), each
question with why it matters, its unit, the allowed answers (as drop-down lists and number ranges) and what
linkvet knows now with its source, so the vendor corrects rather than retypes. With a needs profile the
questions are ordered by how much their answer could move the ranking (`catalogs.scoring.bounds`: weight ×
swing) and each block says what the job needs.

Import: every answer held to its question first (a value in the list or range the question states, an
endpoint an IP address, host name or http(s) URL: `catalogs.questionnaire.answer_problem`; an offering or
region the workbook's About sheet does not list, a key no question has or a key answered twice is refused),
then validated as the loader validates a catalog (the answers merged over the catalog; same rules, same
messages); a bad one reported with sheet, row, key, what was given and what was expected; nothing written
unless every answer is valid (or `skip_invalid`: the rest written, each answer refused reported, and with
it each answer that cannot stand without it, naming it). Each fact keeps its provenance (the vendor's
answer: who, the workbook, the evidence; the answer date; standing `claimed`) and a changed answer its
earlier value; importing the same answers twice — the same workbook or a copy of it — changes nothing
(`_as_before`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catalogs.errors import CatalogFileError
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.needs import NeedsProfile
from catalogs.overlay import Change, OverlayFact
from catalogs.questionnaire import (
    Question,
    all_questions,
    known_now,
    offering_questions,
    offerings_of,
    order_by_swing,
    provider_questions,
    region_questions,
    shown,
)
from desktop.i18n import _, language
from desktop.usecases.errors import InputError
from desktop.usecases.questionnaire_answers import (
    AnswerProblem,
    AnswersInvalid,
    Asked,
    answer_fact,
    as_before,
    asked_in,
    cannot_stand,
    located,
)
from desktop.usecases.questionnaire_workbook import (
    FORMAT,
    FORMAT_VERSION,
    Answer,
    QuestionnaireModel,
    Row,
    SheetModel,
    Validation,
    read_answers,
    write_questionnaire,
)
from desktop.usecases.user_catalogs import Home, apply_facts

META_BY, META_ON = "meta.answered_by", "meta.answered_on"
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


# -- export ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionnaireRequest:
    catalogs: CatalogSet
    provider: str
    out: Path
    offerings: tuple[str, ...] = ()  # default: every offering of the provider; a new id asks about a new one
    needs: NeedsProfile | None = None
    language: str = "en"


@dataclass(frozen=True)
class QuestionnaireWritten:
    path: Path
    questions: int
    offerings: tuple[str, ...]
    ordered_by_needs: bool


def export_questionnaire(request: QuestionnaireRequest) -> QuestionnaireWritten:
    """Write the questionnaire workbook for one provider (`InputError` for an unknown provider)."""
    catalog = request.catalogs.provider(request.provider)
    if catalog is None:
        known = ", ".join(sorted(p.provider.id for p in request.catalogs.providers))
        raise InputError(
            _("no provider {provider} in the catalogs (known: {known})").format(
                provider=request.provider, known=known
            )
        )
    with language(request.language):
        model = build_model(request, catalog)
        count = write_questionnaire(model, request.out)
    offerings = tuple(ident for ident, _offering in offerings_of(catalog, request.offerings))
    return QuestionnaireWritten(request.out, count, offerings, request.needs is not None)


def build_model(request: QuestionnaireRequest, catalog: ProviderCatalog) -> QuestionnaireModel:
    swings, needs_lines = _needs_order(request, catalog)
    provider_sheet = SheetModel(
        _("Provider"), _("{provider}: service and regions").format(provider=catalog.provider.name)
    )
    provider_sheet.rows.append(
        Row(None, (_("Please answer in the yellow cells; leave unknown ones empty."),))
    )
    provider_sheet.rows.append(_meta_row(META_BY, _("Answered by (name, role)"), None))
    provider_sheet.rows.append(_meta_row(META_ON, _("Date of these answers"), Validation("date")))
    for question in order_by_swing(provider_questions(), swings.get("", {})):
        provider_sheet.rows.append(_row(catalog, question, None))
    for region in catalog.regions:
        title = _("Region {region} ({city})").format(region=region.id, city=region.city or region.name or "?")
        provider_sheet.rows.append(Row(None, (title,), heading=True))
        for question in region_questions():
            provider_sheet.rows.append(_row(catalog, question, region.id))
    offerings_sheet = SheetModel(
        _("Offerings"), _("{provider}: servers").format(provider=catalog.provider.name)
    )
    regions = [r.id for r in catalog.regions]
    for ident, offering in offerings_of(catalog, request.offerings):
        name = offering.name if offering is not None and offering.name else ident
        offerings_sheet.rows.append(
            Row(None, (_("Offering {offering}: {name}").format(offering=ident, name=name),), heading=True)
        )
        for line in needs_lines.get(ident, []):
            offerings_sheet.rows.append(Row(None, (line,)))
        for question in order_by_swing(offering_questions(regions), swings.get(ident, swings.get("", {}))):
            offerings_sheet.rows.append(_row(catalog, question, ident))
    from probes import __version__

    about: list[tuple[str, Any]] = [
        ("format", FORMAT),
        ("format_version", FORMAT_VERSION),
        ("provider", catalog.provider.id),
        ("provider_name", catalog.provider.name),
        ("language", request.language),
        ("exported_at", dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")),
        ("tool", f"linkvet {__version__}"),
        ("needs", request.needs.name if request.needs is not None else ""),
        ("offerings", ", ".join(ident for ident, _offering in offerings_of(catalog, request.offerings))),
        ("regions", ", ".join(regions)),
        (
            "note",
            _(
                "Answers go in the Answer column of the other sheets; the key column is hidden and must not change."
            ),
        ),
    ]
    return QuestionnaireModel(
        catalog.provider.id, catalog.provider.name, request.language, [provider_sheet, offerings_sheet], about
    )


def _meta_row(key: str, text: str, validation: Validation | None) -> Row:
    return Row(
        key,
        (text, _("Who answered, and when: kept as each fact's source and date."), "", "", "", ""),
        validation,
    )


def _row(catalog: ProviderCatalog, question: Question, ident: str | None) -> Row:
    value, provenance = known_now(catalog, question, ident)
    source = provenance.describe() if provenance is not None and value is not None else ""
    known = shown(value) if value is not None else _("unknown")
    cells = (question.text, question.why, question.unit, question.allowed_text(), known, source)
    return Row(question.key(ident), cells, _validation(question))


def _validation(question: Question) -> Validation | None:
    if question.kind in ("choice", "yes-no") and question.allowed:
        return Validation("list", question.allowed)
    if question.kind == "number":
        return Validation("decimal", minimum=question.minimum, maximum=question.maximum)
    if question.kind == "integer":
        return Validation("integer", minimum=question.minimum, maximum=question.maximum)
    return None


def _needs_order(
    request: QuestionnaireRequest, catalog: ProviderCatalog
) -> tuple[dict[str, dict[str, float]], dict[str, list[str]]]:
    """Per offering id ("" for the provider sheet and new offerings): each criterion's swing (weight ×
    swing, the largest over the offering's regions), and the lines saying what the job needs."""
    if request.needs is None:
        return {}, {}
    from catalogs.checklist import default_checklist
    from catalogs.scoring import rank_offerings

    ranking = rank_offerings(request.needs, request.catalogs)
    checklist = default_checklist()
    total = sum(ranking.weights.values()) or 1.0
    generic = {c: w / total for c, w in ranking.weights.items()}  # an unknown criterion's swing, at most
    swings: dict[str, dict[str, float]] = {"": generic}
    lines: dict[str, list[str]] = {}
    for entry in ranking.entries:
        if entry.provider != catalog.provider.id:
            continue
        mine = swings.setdefault(entry.offering, {})
        for judgement in entry.judgements:
            if judgement.kind == "weighted" and judgement.score is None:
                swing = (
                    judgement.weight
                    / total
                    * ((judgement.counted_max or 0.0) - (judgement.counted_min or 0.0))
                )
                mine[judgement.criterion] = max(mine.get(judgement.criterion, 0.0), swing)
        lines.setdefault(entry.offering, _needs_lines(entry, request.needs, checklist))
    for ident, _offering in offerings_of(catalog, request.offerings):
        lines.setdefault(ident, _needs_lines(None, request.needs, checklist))
    return swings, lines


def _needs_lines(entry: Any, needs: NeedsProfile, checklist: Any) -> list[str]:
    """What the training job needs, in words, for the vendor (from the sizing on this offering's GPU when
    known, else from the documents' scale table)."""
    text = [
        _(
            "Questions are in the order their answers could change our ranking most (training job: {needs})."
        ).format(needs=needs.name)
    ]
    facts = getattr(entry, "_facts", None) if entry is not None else None
    sizing = facts.sizing if facts is not None else None
    if sizing is not None and sizing.planned_gpus is not None:
        text.append(
            _("On {gpu}, we need {gpus} GPUs ({nodes} servers of {per_node}).").format(
                gpu=entry.gpu, gpus=sizing.planned_gpus, nodes=sizing.nodes, per_node=sizing.gpus_per_node
            )
        )
        if sizing.internode_gbit_s:
            text.append(
                _("We need at least {bandwidth:,.0f} Gbit/s per server between servers.").format(
                    bandwidth=sizing.internode_gbit_s
                )
            )
    row = checklist.scale_row(needs.model.params)
    if row is not None:
        text.append(
            _(
                "For a model of this size the documents ask {low:,.0f}–{high:,.0f} Gbit/s per server between servers, and {intra} inside a server."
            ).format(low=row.min_gbit_s, high=row.preferred_gbit_s, intra=row.intra_node)
        )
    return text


# -- import ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionnaireImported:
    overlay: Path | str  # the overlay file, or the team store
    changes: list[Change]
    skipped: list[AnswerProblem] = field(default_factory=list)
    answers: int = 0


@dataclass(frozen=True)
class CheckedAnswers:
    """A workbook's answers checked against the catalog: each valid answer as the fact it becomes, and the
    answers refused (empty unless `skip_invalid`: otherwise a refusal raises)."""

    facts: list[tuple[Answer, OverlayFact]]
    problems: list[AnswerProblem]


def check_answers(
    path: Path,
    catalogs: CatalogSet,
    provider: str,
    *,
    source: str | None = None,
    as_of: str | None = None,
    skip_invalid: bool = False,
    folder: Home = None,
    today: str | None = None,
) -> CheckedAnswers:
    """Read and validate a questionnaire workbook's answers as the loader validates a catalog (the answers
    merged over the provider's catalog and overlay); nothing is written. `AnswersInvalid` when an answer is
    not valid, unless `skip_invalid`, which keeps the valid ones and returns the rest in `problems`."""
    workbook = read_answers(path)
    named = str(workbook.about.get("provider") or "")
    if named != provider:
        raise InputError(
            _("{file}: this questionnaire is for provider {named}, not {provider}").format(
                file=path, named=named, provider=provider
            )
        )
    catalog = catalogs.provider(provider)
    questions = all_questions(catalog)
    meta = {a.key: a for a in workbook.answers if a.key.startswith("meta.")}
    who = source or _text(meta.get(META_BY)) or "not named"
    problems: list[AnswerProblem] = []
    answered_on = as_of or _date(meta.get(META_ON)) or today or dt.date.today().isoformat()
    if not _DATE.match(answered_on):
        problems.append(_not_a_date(meta.get(META_ON), as_of, answered_on))
        answered_on = today or dt.date.today().isoformat()  # so the other answers are still checked
    asked = asked_in(workbook.about, catalog)
    facts = _answer_facts(workbook.answers, questions, catalog, who, path.name, answered_on, asked, problems)
    facts = as_before(facts, catalogs, provider, folder, dated=bool(as_of or _date(meta.get(META_ON))))
    _overlay, _changes, errors = apply_facts(catalogs, provider, [f for _a, f in facts], folder, write=False)
    if skip_invalid:
        facts = _without_refused(facts, errors, problems, catalogs, provider, folder)
        return CheckedAnswers(facts, problems)
    problems += located(errors, facts)
    if problems:
        raise AnswersInvalid(path, problems)
    return CheckedAnswers(facts, problems)


def _not_a_date(dated: Answer | None, as_of: str | None, answered_on: str) -> AnswerProblem:
    """The answers' date refused, where it was given: `--as-of`, else the workbook's date row."""
    return AnswerProblem(
        dated.sheet if dated and not as_of else "--as-of",
        dated.row if dated and not as_of else 0,
        META_ON,
        answered_on,
        _("not a date"),
        "YYYY-MM-DD",
    )


def _answer_facts(
    answers: list[Answer],
    questions: Sequence[Question],
    catalog: ProviderCatalog | None,
    who: str,
    document: str,
    answered_on: str,
    asked: Asked,
    problems: list[AnswerProblem],
) -> list[tuple[Answer, OverlayFact]]:
    """Each answer held to its question, as the fact it becomes; the answers refused go to `problems`. A
    key answered twice is refused in both places, neither answer taken."""
    facts: list[tuple[Answer, OverlayFact]] = []
    first_at: dict[str, Answer] = {}
    for answer in answers:
        if answer.key in first_at:
            problems.append(_answered_twice(answer, first_at[answer.key]))
            continue
        first_at[answer.key] = answer
        if answer.key.startswith("meta.") or (answer.value is None and not answer.formula):
            continue
        problem, fact = answer_fact(answer, questions, catalog, who, document, answered_on, asked)
        if problem is not None:
            problems.append(problem)
        elif fact is not None:
            facts.append((answer, fact))
    bad_keys = {p.key for p in problems}
    return [(a, f) for a, f in facts if f.key not in bad_keys]


def _answered_twice(answer: Answer, earlier: Answer) -> AnswerProblem:
    return AnswerProblem(
        answer.sheet,
        answer.row,
        answer.key,
        answer.value,
        _("the key is answered twice: here and in {sheet}, row {row}").format(
            sheet=earlier.sheet, row=earlier.row
        ),
        _("one answer per question"),
    )


def _without_refused(
    facts: list[tuple[Answer, OverlayFact]],
    errors: list[CatalogFileError],
    problems: list[AnswerProblem],
    catalogs: CatalogSet,
    provider: str,
    folder: Home,
) -> list[tuple[Answer, OverlayFact]]:
    """The answers left once the catalog's `errors` (the answers not refused yet, checked over the catalog)
    are taken out (`skip_invalid`), each refusal added to `problems`: an answer the catalog refuses, and the
    answers that cannot stand without a field none of them answers (`cannot_stand`: the rest of
    `offering[x].inter_node` when its `fabric` was refused). The rest is checked again until the catalog
    takes it; every round takes out at least one answer (a few rounds in practice), or the catalog's
    problems that no answer stands for are reported as they are and the rest is kept: writing it refuses."""
    refused = {p.key: p for p in reversed(problems)}  # the first problem of each key
    kept = facts
    while errors:
        out: dict[str, AnswerProblem] = {}
        at_answers = {f.key for _a, f in kept}
        for error in errors:
            if (error.field or "") in at_answers:
                taken = located([error], kept)
            else:
                taken = cannot_stand(error, kept, refused)
            for problem in taken:
                out.setdefault(problem.key, problem)
        if not out:
            problems += [p for p in located(errors, kept) if p not in problems]
            break
        problems += out.values()
        refused = {**out, **refused}
        kept = [(a, f) for a, f in kept if f.key not in out]
        _overlay, _changes, errors = apply_facts(
            catalogs, provider, [f for _a, f in kept], folder, write=False
        )
    return kept


def import_questionnaire(
    path: Path,
    catalogs: CatalogSet,
    provider: str,
    *,
    source: str | None = None,
    as_of: str | None = None,
    skip_invalid: bool = False,
    keep: Collection[str] = (),
    folder: Home = None,
    today: str | None = None,
) -> QuestionnaireImported:
    """Read the answers of a questionnaire workbook into the provider's overlay. `AnswersInvalid` (nothing
    written) when an answer is not valid, unless `skip_invalid`, which writes the valid ones and returns
    the rest in `skipped`. The answers for the keys in `keep` are not written: what the catalog says there
    stays (the user chose it over the answer, `desktop.usecases.questionnaire_preview`)."""
    checked = check_answers(
        path,
        catalogs,
        provider,
        source=source,
        as_of=as_of,
        skip_invalid=skip_invalid,
        folder=folder,
        today=today,
    )
    facts = [(a, f) for a, f in checked.facts if f.key not in keep]
    overlay_file, changes, errors = apply_facts(catalogs, provider, [f for _a, f in facts], folder)
    if errors:  # an answer kept back that another needed, or the catalogs changed meanwhile
        raise AnswersInvalid(path, located(errors, facts))
    return QuestionnaireImported(overlay_file, changes, checked.problems if skip_invalid else [], len(facts))


def _text(answer: Answer | None) -> str | None:
    if answer is None or answer.value is None:
        return None
    return str(answer.value).strip() or None


def _date(answer: Answer | None) -> str | None:
    if answer is None or answer.value is None:
        return None
    value = answer.value
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value).strip()
    return (text[:10] if re.match(r"^\d{4}-\d{2}-\d{2}[T ]", text) else text) or None


__all__ = [  # the answers' problems are checked in questionnaire_answers; every face imports them from here
    "AnswerProblem",
    "AnswersInvalid",
    "CheckedAnswers",
    "QuestionnaireImported",
    "QuestionnaireRequest",
    "QuestionnaireWritten",
    "build_model",
    "check_answers",
    "export_questionnaire",
    "import_questionnaire",
]
