"""`rank_offerings`: pair every offering with each region it is offered in, judge every candidate (the
`ScoreTable`), order them (passing every gate first, then by the order's rating — the worst case by default,
`catalogs.scoring.bounds` — or its TOPSIS closeness; ties by coverage, total, then provider, offering and
region ids), say what puts each ahead of the next and whether that is decided, and check the first place's
sensitivity to the weights and to the unknowns."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from catalogs.checklist import Checklist, default_checklist
from catalogs.errors import ChecklistError
from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.i18n import _
from catalogs.link_quality import LinkSummary
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.needs import NeedsProfile
from catalogs.scoring.bounds import Place, RankOrder, decided_places, overtakers, rating_matrix
from catalogs.scoring.candidates import CandidateFacts, FactsBuilder, candidates
from catalogs.scoring.criteria import check_checklist
from catalogs.scoring.methods import RankingMethod, topsis
from catalogs.scoring.results import RankedOffering, Ranking
from catalogs.scoring.sensitivity import sensitivity, trial_ratings, weight_trials
from catalogs.scoring.table import ScoreTable, score_table


def rank_offerings(
    needs: NeedsProfile,
    catalogs: CatalogSet | Iterable[ProviderCatalog],
    link_summaries: Iterable[LinkSummary] = (),
    *,
    checklist: Checklist | None = None,
    weights: Mapping[str, float] | None = None,
    method: RankingMethod = "weighted-sum",
    gpus: GpuReference | None = None,
    order: RankOrder = "score-min",
) -> Ranking:
    """Rank every offering (in each of its regions) for `needs`, using measured line quality where a
    `LinkSummary` exists for the region. `weights` override the checklist's default weights by id; `order`
    says whether the weighted sum ranks with unknowns at their worst (`score-min`, the default) or at the
    unknown score (`total`); TOPSIS always rates closeness with unknowns at the unknown score."""
    checklist = checklist or default_checklist()
    check_checklist(checklist)
    weight_of = _weights(checklist, weights)
    build = FactsBuilder(needs, checklist, gpus or default_gpu_reference(), link_summaries)
    keyed = sorted(((c.key, c) for c in candidates(catalogs)), key=lambda pair: pair[0])
    keys = [key for key, _ in keyed]
    pool = [candidate for _, candidate in keyed]
    facts_of = [build(candidate) for candidate in pool]
    table = score_table(facts_of, checklist, weight_of)

    if method == "topsis":
        order = "total"  # TOPSIS rates closeness with unknowns at the unknown score (README: why)
    matrix = rating_matrix(table, order)
    rating = (table.totals_min if order == "score-min" else table.totals).tolist()
    totals = table.totals.tolist()
    coverage = table.coverage.tolist()
    eligible = table.eligible.tolist()
    eligible_rows = np.flatnonzero(table.eligible)
    closeness: dict[int, float] = {}
    if method == "topsis":
        rated = topsis(matrix[eligible_rows], table.weights)
        closeness = dict(zip(eligible_rows.tolist(), rated.tolist(), strict=True))

    def order_key(i: int) -> tuple[int, float, float, float, tuple[str, str, str]]:
        if order == "total":
            return (0 if eligible[i] else 1, -closeness.get(i, totals[i]), 0.0, 0.0, keys[i])
        # ties in the worst case: the total decides (a claim known to be poor is not preferred to an unknown),
        # then the coverage
        worst = round(closeness.get(i, rating[i]), 12)
        return (0 if eligible[i] else 1, -worst, -round(totals[i], 12), -coverage[i], keys[i])

    ordered = sorted(range(len(pool)), key=order_key)
    margins = _margins(table, matrix, ordered, eligible)
    trials = _trial_ratings(table, matrix, eligible_rows, method)
    trial_names = weight_trials(table.ids, table.weights)
    eligible_list = eligible_rows.tolist()
    label_of = {i: pool[i].label for i in eligible_list}
    labels = [label_of[i] for i in eligible_list]
    titles = {c.id: c.title for c in checklist.criterion}
    checked = sensitivity(
        matrix[eligible_rows], table.weights, table.ids, labels, method, titles, trials[eligible_rows]
    )
    if eligible_list:
        first = next(i for i in ordered if eligible[i])
        ranked = [i for i in ordered if eligible[i]]
        named = [label_of[i] for i in ranked]
        checked = dataclasses.replace(checked, overtakers=overtakers(table, first, ranked, named))
    placed = decided_places(table, ordered, eligible, trials, trial_names)
    if eligible_list and not checked.stable:  # TOPSIS's first place can move with the weights alone
        top = ordered.index(first)
        if placed[top].decided:
            change = checked.changes[0]
            winner = eligible_list[labels.index(change.new_top)]
            placed[top] = Place(False, winner, (change.criterion, change.factor))
    rank_of = {row: rank for rank, row in enumerate(ordered, start=1)}
    entries = tuple(
        _entry(
            rank,
            facts_of[i],
            table,
            i,
            eligible[i],
            closeness.get(i),
            margins[rank - 1],
            placed[rank - 1],
            rank_of,
            order,
        )
        for rank, i in enumerate(ordered, start=1)
    )
    named_weights = dict(zip(table.ids, table.weights.tolist(), strict=True))
    notes = _notes(needs, facts_of, build.summaries)
    return Ranking(entries, method, named_weights, checked, notes, order)


def _trial_ratings(
    table: ScoreTable, matrix: np.ndarray, eligible_rows: np.ndarray, method: RankingMethod
) -> np.ndarray:
    """Every row's rating under each single weight moved ±20 % (rows × trials), by what orders it: TOPSIS's
    closeness among those passing every gate, else the weighted sum of `matrix`."""
    rated = trial_ratings(matrix, table.weights, table.ids, "weighted-sum")
    if method == "topsis" and eligible_rows.size:
        rated[eligible_rows] = trial_ratings(matrix[eligible_rows], table.weights, table.ids, method)
    return rated


def _weights(checklist: Checklist, weights: Mapping[str, float] | None) -> dict[str, float]:
    """The checklist's default weights with `weights` put over them, checked."""
    weight_of = {c.id: c.weight for c in checklist.weighted}
    for key, value in (weights or {}).items():
        if key not in weight_of:
            raise ChecklistError(
                _("no weighted criterion {id!r}").format(id=key),
                field="weights",
                expected=_("one of {values}").format(values=", ".join(weight_of)),
            )
        if value < 0 or not math.isfinite(value):
            raise ChecklistError(
                _("weight of {id!r} must be 0 or more, not {value}").format(id=key, value=value),
                field="weights",
            )
        weight_of[key] = float(value)
    if sum(weight_of.values()) <= 0:
        raise ChecklistError(
            _("all weights are zero"), field="weights", expected=_("at least one weight > 0")
        )
    return weight_of


def _entry(
    rank: int,
    facts: CandidateFacts,
    table: ScoreTable,
    row: int,
    eligible: bool,
    closeness: float | None,
    margins: tuple[tuple[str, float], ...] | None,
    place: Place,
    rank_of: Mapping[int, int],
    order: RankOrder,
) -> RankedOffering:
    candidate = facts.candidate
    return RankedOffering(
        rank=rank,
        provider=candidate.catalog.provider.id,
        provider_name=candidate.catalog.provider.name,
        offering=candidate.offering.id,
        offering_name=candidate.offering.name,
        region=candidate.region.id if candidate.region else None,
        gpu=facts.gpu.describe() if facts.gpu else None,
        gpus_per_node=facts.gpus_per_node,
        eligible=eligible,
        total=float(table.totals[row]),
        topsis=closeness,
        score_min=float(table.totals_min[row]),
        score_max=float(table.totals_max[row]),
        coverage=float(table.coverage[row]),
        planned_gpus=facts.planned_gpus,
        nodes=facts.nodes,
        price_gpu_hour=facts.price_gpu_hour,
        currency=facts.price_currency,
        next_rank=rank + 1 if margins is not None else None,
        margins=margins or (),
        decided=place.decided,
        challenger_rank=None if place.challenger is None else rank_of[place.challenger],
        swayed_by=place.weight,
        _facts=facts,
        _table=table,
        _row=row,
        _challenger_row=place.challenger,
        _order=order,
    )


def _margins(
    table: ScoreTable, matrix: np.ndarray, order: Sequence[int], eligible: Sequence[bool]
) -> list[tuple[tuple[str, float], ...] | None]:
    """For each ranked position: the (up to) three criteria on which it leads the next position most, by
    weighted difference of what the order ranks by (`matrix`); None for the last position of its group
    (passing / failing)."""
    result: list[tuple[tuple[str, float], ...] | None] = [None] * len(order)
    if len(order) < 2:
        return result
    weights = table.weights
    ordered = matrix[list(order)] * (weights / weights.sum())
    differences = ordered[:-1] - ordered[1:]
    top = np.argsort(-differences, axis=1, kind="stable")[:, :3]
    for position in range(len(order) - 1):
        if eligible[order[position]] != eligible[order[position + 1]]:
            continue
        result[position] = tuple(
            (table.ids[j], float(differences[position, j]))
            for j in top[position]
            if differences[position, j] > 1e-9
        )
    return result


def _notes(
    needs: NeedsProfile,
    facts_of: Sequence[CandidateFacts],
    summaries: Mapping[tuple[str, str], list[LinkSummary]],
) -> tuple[str, ...]:
    notes = []
    if not summaries:
        notes.append(_("no link summaries given: line quality is 'not measured' for every region"))
    unconverted: dict[str, int] = {}
    budget = needs.budget
    for facts in facts_of:
        code = facts.price_currency
        if (
            facts.price_gpu_hour is not None
            and code is not None
            and budget.in_budget_currency(1.0, code) is None
        ):
            unconverted[code] = unconverted.get(code, 0) + 1
    if unconverted:
        listed = ", ".join(f"{code} ({count})" for code, count in sorted(unconverted.items()))
        notes.append(
            _(
                "prices in {currencies} are not compared with {budget} prices: no exchange rate given (add them "
                "under [budget.exchange_rates] in the needs profile, e.g. CNY = 0.14)"
            ).format(currencies=listed, budget=budget.currency)
        )
    return tuple(notes)
