"""The sensitivity check: does the first place change when any one weight moves ±20 %, and does it survive the
unknowns (no other candidate's best case reaches its worst case; `catalogs.scoring.bounds`)?"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from catalogs.i18n import _, clauses, items
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
    overtakers: tuple[str, ...] = ()  # candidates whose best case reaches the first place's worst case

    @property
    def stable(self) -> bool:
        return not self.changes

    @property
    def survives_unknowns(self) -> bool | None:
        """Whether the first place holds whatever the unknowns turn out to be (None: no first place)."""
        return None if self.top is None else not self.overtakers

    def describe(self) -> str:
        if self.top is None:
            return _("no offering passes every gate")
        if self.stable:
            text = _("stable: {top} stays first when any single weight moves ±20%").format(top=self.top)
        else:
            moved = items(
                _("{criterion} ×{factor:g} → {top}").format(
                    criterion=c.criterion, factor=c.factor, top=c.new_top
                )
                for c in self.changes
            )
            text = _("sensitive: the first place changes when {changes}").format(changes=moved)
        return clauses((text, self.describe_unknowns()))

    def describe_unknowns(self) -> str:
        """Whether the first place survives the unknowns, in words."""
        if not self.overtakers:
            return _("it also survives the unknowns: no other candidate's best case reaches its worst case")
        shown = items(self.overtakers[:3])
        more = len(self.overtakers) - 3
        if more > 0:
            return _(
                "the unknowns could still change it: {candidates} and {more} more could overtake it if "
                "their unknowns turn out well"
            ).format(candidates=shown, more=more)
        return _(
            "the unknowns could still change it: {candidates} could overtake it if their unknowns turn out well"
        ).format(candidates=shown)

    def as_dict(self) -> dict[str, Any]:
        return {
            "top": self.top,
            "stable": self.stable,
            "changes": [
                {"criterion": c.criterion, "factor": c.factor, "new_top": c.new_top} for c in self.changes
            ],
            "survives_unknowns": self.survives_unknowns,
            "overtakers": list(self.overtakers),
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
