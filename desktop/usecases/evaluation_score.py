"""An evaluation ranked: only its candidates (the bundled market beside them with `market`), for its job, on the
line its offices measured, read with its peak windows (`linkvet score --eval`, `linkvet export --eval`, the
window's home, the report). Which office's line counts is the evaluation's choice (`decide_by`):

    worst     each candidate on the worse of its offices' lines (the lower line-quality score at peak)
    OFFICE    every candidate on that office's line
    each      one ranking per office

Scores do not depend on what else is ranked (fixed scales: `catalogs.scoring`), so the candidates' figures are
the same with and without the market beside them. No Qt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from catalogs.checklist import Checklist, default_checklist
from catalogs.evaluation.candidates import candidate_catalogs
from catalogs.evaluation.model import Evaluation
from catalogs.link_quality import LinkSummary
from catalogs.loader import CatalogSet
from catalogs.scoring import Ranking, RankingMethod, RankOrder
from catalogs.scoring.criteria.line import line_period_score
from desktop.usecases.evidence import office_names
from desktop.usecases.ranking import ScoreRequest, rank
from probes.store_location import StoreLocation


@dataclass(frozen=True, slots=True)
class OfficeRanking:
    """One ranking and whose line it was made on (an office, or "worst": each candidate's worse office)."""

    office: str
    ranking: Ranking
    deciding_offices: Mapping[tuple[str, str], str] = field(default_factory=dict)  # region → its office


@dataclass(frozen=True, slots=True)
class EvaluationRanking:
    evaluation: Evaluation
    rankings: tuple[OfficeRanking, ...]
    market: bool


def rank_evaluation(
    db: StoreLocation | None,
    name: str,
    catalogs: CatalogSet,
    *,
    market: bool = False,
    weights: Mapping[str, float] | None = None,
    method: RankingMethod = "weighted-sum",
    order: RankOrder = "score-min",
    checklist: Checklist | None = None,
    summaries: Sequence[LinkSummary] | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
) -> EvaluationRanking:
    """The evaluation's candidates ranked (with `summaries`, those lines instead of the store's)."""
    from desktop.usecases.evaluation import load_evaluation

    evaluation = load_evaluation(db, name)
    checklist = _planned(checklist or default_checklist(), evaluation)
    ranked = catalogs if market else candidate_catalogs(evaluation, catalogs)
    lines = (
        list(summaries)
        if summaries is not None
        else _stored_lines(db, evaluation, catalogs, since_us, until_us)
    )
    needs = evaluation.needs.model_copy(
        update={"location": evaluation.needs.location.model_copy(update={"vantage": None})}
    )
    offices = office_names(evaluation)
    views: list[tuple[str, list[LinkSummary], dict[tuple[str, str], str]]] = []
    if evaluation.decide_by == "each":
        for office in offices:
            views.append((office, [s for s in lines if s.vantage == office], {}))
    elif evaluation.decide_by == "worst":
        chosen, deciding = _worst_lines(lines, offices, checklist)
        views.append(("worst", chosen, deciding))
    else:
        views.append((evaluation.decide_by, [s for s in lines if s.vantage == evaluation.decide_by], {}))
    rankings = tuple(
        OfficeRanking(
            office,
            rank(ranked, ScoreRequest(needs, dict(weights or {}), method, chosen_lines, checklist, order)),
            deciding,
        )
        for office, chosen_lines, deciding in views
    )
    return EvaluationRanking(evaluation, rankings, market)


def _stored_lines(
    db: StoreLocation | None,
    evaluation: Evaluation,
    catalogs: CatalogSet,
    since_us: int | None = None,
    until_us: int | None = None,
) -> list[LinkSummary]:
    from desktop.usecases.links import candidate_lines

    regions = {(c.provider, c.region) for c in evaluation.candidates}
    return candidate_lines(db, regions, evaluation.peak_windows, catalogs, since_us, until_us)


def _line_score(summary: LinkSummary, checklist: Checklist) -> float | None:
    """The line-quality score of a line's peak (its off-peak where it has no peak yet)."""
    params = next((c.params for c in checklist.weighted if c.id == "line_quality"), None)
    if params is None:
        return None
    for stats in (summary.peak, summary.offpeak):
        if stats is not None and stats.samples:
            return line_period_score(stats, params)
    return None


def _worst_lines(
    lines: Sequence[LinkSummary], offices: Sequence[str], checklist: Checklist
) -> tuple[list[LinkSummary], dict[tuple[str, str], str]]:
    """Per region, the line of the office that sees it worse (the lower line score); a region measured by
    one office only keeps that office's line."""
    by_region: dict[tuple[str, str], list[LinkSummary]] = {}
    for summary in lines:
        if summary.vantage in offices:
            by_region.setdefault((summary.provider, summary.region), []).append(summary)
    chosen: list[LinkSummary] = []
    deciding: dict[tuple[str, str], str] = {}
    for region, found in by_region.items():
        scored = [(s, _line_score(s, checklist)) for s in found]
        measured = [(s, score) for s, score in scored if score is not None]
        worst = min(measured, key=lambda pair: pair[1])[0] if measured else found[0]
        chosen.append(replace(worst))
        deciding[region] = str(worst.vantage)
    return chosen, deciding


def _planned(checklist: Checklist, evaluation: Evaluation) -> Checklist:
    """The checklist counting the evenings still needed at the evaluation's planned peak samples."""
    from desktop.usecases.evaluation_plan import planned_peak_samples

    evidence = checklist.evidence.model_copy(
        update={"planned_peak_samples": planned_peak_samples(evaluation)}
    )
    return checklist.model_copy(update={"evidence": evidence})
