"""What importing an answered questionnaire would change, before anything is written (the Catalog screen's
Questionnaire → Import… shows it and lets the user choose; `linkvet questionnaire import` writes at once).

    preview_questionnaire(path, catalogs, provider, …)   every valid answer beside what the catalog says now
    import_questionnaire(…, keep=preview.kept_back(...))  (in `desktop.usecases.questionnaire`) the answers
                                                          the user took, the rest left as the catalog says

Each answer is one of: `new` (the catalog does not say), `same` (it says the same; only the source and date
are refreshed), `conflict` (it says something else, with its own source: the user chooses which stands), or
`verified` (a verified fact stands; a claim is not put over it). Validation is the import's own
(`check_answers`): a refused answer makes the preview refuse too, with the same problems.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from catalogs.facts import Provenance
from catalogs.loader import CatalogSet
from catalogs.overlay import FactKey
from catalogs.questionnaire import all_questions, known_now, question_for, shown
from desktop.usecases.questionnaire import AnswerProblem, check_answers
from desktop.usecases.user_catalogs import Home, current_overlay

What = Literal["new", "same", "conflict", "verified"]


@dataclass(frozen=True, slots=True)
class AnswerPreview:
    """One answer beside what the catalog says now: its key and place in the workbook, the question,
    the current value (None: unknown) with its provenance, the answer as the catalog would hold it, and
    what importing it does."""

    key: str
    sheet: str
    row: int
    question: str
    unit: str
    now: Any
    now_source: Provenance | None
    answer: Any
    source: str
    as_of: str
    what: What


@dataclass(frozen=True)
class QuestionnairePreview:
    provider: str
    answers: list[AnswerPreview]
    problems: list[AnswerProblem] = field(default_factory=list)  # refused (skipped) answers

    @property
    def conflicts(self) -> list[AnswerPreview]:
        return [a for a in self.answers if a.what == "conflict"]

    def kept_back(self, taken: Iterable[str]) -> frozenset[str]:
        """The keys not to write: every conflict whose answer the user did not take (`taken`: their keys)."""
        chosen = set(taken)
        return frozenset(a.key for a in self.conflicts if a.key not in chosen)


def preview_questionnaire(
    path: Path,
    catalogs: CatalogSet,
    provider: str,
    *,
    source: str | None = None,
    as_of: str | None = None,
    skip_invalid: bool = False,
    folder: Home = None,
) -> QuestionnairePreview:
    """Every valid answer of the workbook beside what the catalog says now; nothing is written.
    `AnswersInvalid` (or `InputError`) exactly as the import would raise them."""
    checked = check_answers(
        path, catalogs, provider, source=source, as_of=as_of, skip_invalid=skip_invalid, folder=folder
    )
    catalog = catalogs.provider(provider)
    questions = all_questions(catalog)
    overlay = current_overlay(provider, folder)
    answers = []
    for answer, fact in checked.facts:
        question = question_for(fact.key, questions)
        parsed = FactKey.parse(fact.key)
        if question is None or parsed is None:  # check_answers refused these already
            continue
        now, provenance = known_now(catalog, question, parsed.ident)
        stored = overlay.fact(fact.key)
        if stored is not None and stored.standing == "verified":
            what: What = "verified"
        elif now is None:
            what = "new"
        elif question.kind == "endpoints":  # a region's test addresses are added to those listed
            what = "same" if _addresses(fact.value) <= _addresses(now) else "new"
        elif shown(now) == shown(fact.value):
            what = "same"
        else:
            what = "conflict"
        answers.append(
            AnswerPreview(
                fact.key,
                answer.sheet,
                answer.row,
                question.text,
                question.unit,
                now,
                provenance,
                fact.value,
                fact.source,
                fact.as_of,
                what,
            )
        )
    return QuestionnairePreview(provider, answers, checked.problems)


def _addresses(value: Any) -> set[str]:
    return {a for a in shown(value).split(", ") if a}
