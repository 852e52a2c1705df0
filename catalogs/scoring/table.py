"""The score table: every candidate judged against every checklist item, numbers only. The ranking orders
by it, the margins and the sensitivity check read it, and every entry's judgements show its numbers (their
reasons come from the same judging functions, `catalogs.scoring.explanation`): one path for every number.

The hot path of a ranking: each judging function is called once per candidate with `explain=False`, and
the node-shape scaling (`catalogs.scoring.scaling`) is applied to whole columns. Each row is judged on its
own: every criterion scores on a fixed scale, so no row's numbers depend on which other rows are in the
table (a candidate scores the same alone and among every bundled offering).

Beside what each criterion counts, the table holds what it could count at worst and at best: a known score
is itself at either end; an unknown one is 0 at worst and 1 at best, scaled for the plan's node shape like
any score (`counted_with`, the one formula for all three). Their weighted sums are an entry's `score_min`
and `score_max`; the share of the weight that is known is its `coverage`. A criterion resting on a fact an
acceptance check contradicted counts 0 (`catalogs.scoring.standing`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from catalogs.checklist import Checklist
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.criteria import CRITERIA, PARTIAL, CriterionFunction
from catalogs.scoring.gates import GATES, GateFunction
from catalogs.scoring.judgement import Status
from catalogs.scoring.methods import weighted_sums
from catalogs.scoring.scaling import plan_shape, scaled
from catalogs.scoring.standing import contradicted_criteria


@dataclass(frozen=True)
class ScoreTable:
    """Rows are candidates (in the order given), columns the checklist's weighted criteria (`ids`).
    NaN is an unknown score. A judgement's score is its `counted` value where `unscaled` is known, else
    unknown (None)."""

    checklist: Checklist
    ids: tuple[str, ...]
    gate_functions: tuple[tuple[str, GateFunction, Mapping[str, float]], ...]  # (id, judge, params) per gate
    criterion_functions: tuple[tuple[str, CriterionFunction, Mapping[str, float]], ...]  # per criterion
    weights: np.ndarray  # per criterion
    gates: Sequence[tuple[Status, ...]]  # per candidate, one status per checklist gate (in checklist order)
    eligible: np.ndarray  # per candidate: no gate fails
    unscaled: np.ndarray  # each criterion's own score on its fixed scale, NaN unknown
    counted: np.ndarray  # what the total counts: the score or the unknown score, scaled for the node shape
    totals: np.ndarray  # per candidate: the weighted sum of `counted`
    scaled_columns: frozenset[int]  # the columns the plan's node shape can scale
    counted_min: np.ndarray  # what each criterion counts at worst (an unknown at 0), scaled alike
    counted_max: np.ndarray  # … and at best (an unknown at 1)
    totals_min: np.ndarray  # per candidate: the weighted sum of `counted_min` (`score_min`)
    totals_max: np.ndarray  # … of `counted_max` (`score_max`)
    coverage: np.ndarray  # per candidate: the share of the weight whose score is known, 0..1
    confidence: np.ndarray  # per cell: how much of the score is known (1 known, 0 unknown, between: thin)
    contradicted: frozenset[tuple[int, int]]  # (row, column) of criteria resting on a contradicted fact

    @property
    def unknown_score(self) -> float:
        return self.checklist.unknown_score


def score_table(
    facts_of: Sequence[CandidateFacts], checklist: Checklist, weights: Mapping[str, float]
) -> ScoreTable:
    """Judge every candidate (numbers only) and turn the raw values into counted scores."""
    weighted = checklist.weighted
    ids = tuple(c.id for c in weighted)
    gate_functions = tuple((g.id, GATES[g.id], g.params) for g in checklist.gates)
    criterion_functions = tuple((c.id, CRITERIA[c.id], c.params) for c in weighted)
    statuses: list[tuple[Status, ...]] = []
    raw_rows: list[list[float | None]] = []
    shapes: list[tuple[float, float]] = []
    full_node = checklist.multi_node.full_node_gpus
    for facts in facts_of:  # the hot path: numbers only, no text
        statuses.append(tuple([judge(facts, params, False)[0] for _, judge, params in gate_functions]))
        raw_rows.append([judge(facts, params, False)[0] for _, judge, params in criterion_functions])
        shapes.append(plan_shape(facts, full_node))

    eligible = np.array(["fail" not in row for row in statuses], dtype=bool)
    raw = np.array(raw_rows, dtype=float).reshape(len(raw_rows), len(ids))  # None → NaN
    contradicted = _contradicted_cells(facts_of, ids)
    for row, column in contradicted:
        raw[row, column] = 0.0
    unscaled = raw  # every criterion scores on its own fixed scale: no column depends on the other rows

    multiplier = np.ones_like(unscaled)
    ratio = np.ones_like(unscaled)
    intra = [j for j, criterion in enumerate(ids) if criterion == "intra_node"]
    fabric = [j for j, criterion in enumerate(ids) if criterion in checklist.multi_node.criteria]
    shape = np.array(shapes, dtype=float).reshape(len(shapes), 2)  # (m, r) per candidate
    if intra:
        multiplier[:, intra] = shape[:, :1]
    if fabric:
        ratio[:, fabric] = shape[:, 1:]
    columns = sorted(set(intra) | set(fabric))
    confidence = (~np.isnan(unscaled)).astype(float)
    measured = unscaled.copy()
    for j, criterion in enumerate(ids):
        if criterion in PARTIAL:
            _partial_column(facts_of, j, criterion_functions[j], PARTIAL[criterion], measured, confidence)
    for row, column in contradicted:  # settled by an acceptance check: known, 0
        measured[row, column], confidence[row, column] = 0.0, 1.0
    counted = counted_with(unscaled, checklist.unknown_score, multiplier, ratio, columns)
    counted_min = counted_with(bounded(measured, confidence, 0.0), 0.0, multiplier, ratio, columns)
    counted_max = counted_with(bounded(measured, confidence, 1.0), 1.0, multiplier, ratio, columns)
    weight_vector = np.array([weights[i] for i in ids], dtype=float)
    return ScoreTable(
        checklist=checklist,
        ids=ids,
        gate_functions=gate_functions,
        criterion_functions=criterion_functions,
        weights=weight_vector,
        gates=statuses,
        eligible=eligible,
        unscaled=unscaled,
        counted=counted,
        totals=weighted_sums(counted, weight_vector),
        scaled_columns=frozenset(columns),
        counted_min=counted_min,
        counted_max=counted_max,
        totals_min=weighted_sums(counted_min, weight_vector),
        totals_max=weighted_sums(counted_max, weight_vector),
        coverage=weighted_sums(confidence, weight_vector),
        confidence=confidence,
        contradicted=contradicted,
    )


def bounded(measured: np.ndarray, confidence: np.ndarray, fill: float) -> np.ndarray:
    """Scores with their untrusted share read as `fill`: confidence × measured + (1 − confidence) × fill
    (a known score is itself; an unknown one NaN, filled later)."""
    return np.asarray(confidence * measured + (1.0 - confidence) * fill)


def _partial_column(
    facts_of: Sequence[CandidateFacts],
    column: int,
    judged: tuple[str, CriterionFunction, Mapping[str, float]],
    evidence: Callable[[CandidateFacts, Mapping[str, float]], tuple[float, float] | None],
    measured: np.ndarray,
    confidence: np.ndarray,
) -> None:
    """Put a thin-evidence criterion's measured part and confidence in their arrays (only candidates with a
    measured line have one)."""
    params = judged[2]
    for row, facts in enumerate(facts_of):
        if facts.link is None or confidence[row, column] == 0.0:
            continue
        parts = evidence(facts, params)
        if parts is not None:
            measured[row, column], confidence[row, column] = parts


def counted_with(
    unscaled: np.ndarray, fill: float, multiplier: np.ndarray, ratio: np.ndarray, columns: Sequence[int]
) -> np.ndarray:
    """What each criterion counts with an unknown score read as `fill` (the unknown score; 0 at worst; 1 at
    best): known scores as they are, then the node-shape scaling on its columns, for every score alike."""
    counted = np.where(np.isnan(unscaled), fill, unscaled)
    if columns:
        counted[:, columns] = scaled(counted[:, columns], multiplier[:, columns], ratio[:, columns])
    return np.asarray(counted)


def _contradicted_cells(facts_of: Sequence[CandidateFacts], ids: Sequence[str]) -> frozenset[tuple[int, int]]:
    """(row, column) of every criterion resting on a fact an acceptance check contradicted."""
    column_of = {criterion: j for j, criterion in enumerate(ids)}
    cells: set[tuple[int, int]] = set()
    for row, facts in enumerate(facts_of):
        found = contradicted_criteria(facts.offering, facts.service, facts.candidate.region)
        cells.update((row, column_of[c]) for c in found if c in column_of)
    return frozenset(cells)
