"""The score table: every candidate judged against every checklist item, numbers only. The ranking orders
by it, the margins and the sensitivity check read it, and every entry's judgements show its numbers (their
reasons come from the same judging functions, `catalogs.scoring.explanation`): one path for every number.

The hot path of a ranking: each judging function is called once per candidate with `explain=False`, and
the relative scores and node-shape scaling (`catalogs.scoring.scaling`) are applied to whole columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from catalogs.checklist import Checklist
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.criteria import CRITERIA, RELATIVE, CriterionFunction
from catalogs.scoring.gates import GATES, GateFunction
from catalogs.scoring.judgement import Status
from catalogs.scoring.methods import weighted_sums
from catalogs.scoring.scaling import best_value, plan_shape, relative_scores, scaled


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
    unscaled: np.ndarray  # each criterion's own score (relative ones scored against the best), NaN unknown
    counted: np.ndarray  # what the total counts: the score or the unknown score, scaled for the node shape
    totals: np.ndarray  # per candidate: the weighted sum of `counted`
    scaled_columns: frozenset[int]  # the columns the plan's node shape can scale

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
    unscaled = raw.copy()
    for j, criterion in enumerate(ids):
        if criterion in RELATIVE:
            unscaled[:, j] = relative_scores(raw[:, j], best_value(raw[:, j], eligible))

    counted = np.where(np.isnan(unscaled), checklist.unknown_score, unscaled)
    multiplier = np.ones_like(counted)
    ratio = np.ones_like(counted)
    intra = [j for j, criterion in enumerate(ids) if criterion == "intra_node"]
    fabric = [j for j, criterion in enumerate(ids) if criterion in checklist.multi_node.criteria]
    shape = np.array(shapes, dtype=float).reshape(len(shapes), 2)  # (m, r) per candidate
    if intra:
        multiplier[:, intra] = shape[:, :1]
    if fabric:
        ratio[:, fabric] = shape[:, 1:]
    columns = sorted(set(intra) | set(fabric))
    if columns:  # for known scores and the unknown score alike
        counted[:, columns] = scaled(counted[:, columns], multiplier[:, columns], ratio[:, columns])
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
    )
