"""The sensitivity check: does the first place change when any one weight moves ±20 %?"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from catalogs.scoring.methods import RankingMethod, rate, weighted_sums

FACTORS = (0.8, 1.2)


@dataclass(frozen=True, slots=True)
class WeightChange:
    criterion: str
    factor: float
    new_top: str


@dataclass(frozen=True, slots=True)
class Sensitivity:
    """Does the top of the ranking change when any one weight moves ±20 %?"""

    top: str | None
    changes: tuple[WeightChange, ...]

    @property
    def stable(self) -> bool:
        return not self.changes

    def describe(self) -> str:
        if self.top is None:
            return "no offering passes every gate"
        if self.stable:
            return f"stable: {self.top} stays first when any single weight moves ±20%"
        moved = ", ".join(f"{c.criterion} ×{c.factor:g} → {c.new_top}" for c in self.changes)
        return f"sensitive: the first place changes when {moved}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "top": self.top,
            "stable": self.stable,
            "changes": [
                {"criterion": c.criterion, "factor": c.factor, "new_top": c.new_top} for c in self.changes
            ],
            "summary": self.describe(),
        }


def sensitivity(
    matrix: np.ndarray,
    weights: np.ndarray,
    ids: Sequence[str],
    labels: Sequence[str],
    method: RankingMethod,
) -> Sensitivity:
    """Move each weight by ×0.8 and ×1.2 alone and see whether the first place changes. `matrix` holds the
    counted scores of the candidates that pass every gate, in key order, so the first of equal ratings
    (argmax) is the tie-break winner."""
    if matrix.shape[0] == 0:
        return Sensitivity(None, ())

    def top(moved: np.ndarray) -> int:
        return int(np.argmax(np.round(rate(matrix, moved, method), 12)))

    first = top(weights)
    trials = [(criterion, factor) for j, criterion in enumerate(ids) if weights[j] > 0 for factor in FACTORS]
    if method == "topsis":
        winners = []
        for criterion, factor in trials:
            moved = weights.copy()
            moved[ids.index(criterion)] *= factor
            winners.append(top(moved))
    else:  # every trial at once: one column of weights per trial
        columns = np.repeat(weights[:, None], len(trials), axis=1)
        for t, (criterion, factor) in enumerate(trials):
            columns[ids.index(criterion), t] *= factor
        winners = [int(i) for i in np.argmax(np.round(weighted_sums(matrix, columns), 12), axis=0)]
    changes = [
        WeightChange(criterion, factor, labels[winner])
        for (criterion, factor), winner in zip(trials, winners, strict=True)
        if winner != first
    ]
    return Sensitivity(labels[first], tuple(changes))
