"""The sensitivity check: does the first place change when any one weight moves ±20 %, and does it survive the
unknowns (no other candidate's best case reaches its worst case; `catalogs.scoring.bounds`)?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from catalogs.i18n import _, clauses, items
from catalogs.scoring.methods import RankingMethod, rate, topsis, weighted_sums

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
    # criterion id → its title as the checklist writes it (translated when shown); the words name criteria so
    titles: Mapping[str, str] = field(default_factory=dict, compare=False)

    def title(self, criterion: str) -> str:
        """The criterion's title in the current language (its id when no title is known)."""
        title = self.titles.get(criterion)
        return _(title) if title else criterion

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
                    criterion=self.title(c.criterion), factor=c.factor, top=c.new_top
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


def weight_trials(ids: Sequence[str], weights: np.ndarray) -> list[tuple[str, float]]:
    """Every single-weight move the check tries: each criterion with a weight, ×0.8 and ×1.2."""
    return [(criterion, factor) for j, criterion in enumerate(ids) if weights[j] > 0 for factor in FACTORS]


def trial_ratings(
    matrix: np.ndarray, weights: np.ndarray, ids: Sequence[str], method: RankingMethod
) -> np.ndarray:
    """Each row's rating (rounded to 12 places) under each of `weight_trials`: rows × trials. `matrix` holds
    the counted scores the method rates, of one group (those passing every gate, say)."""
    trials = weight_trials(ids, weights)
    if matrix.shape[0] == 0 or not trials:
        return np.zeros((matrix.shape[0], len(trials)))
    columns = np.repeat(weights[:, None], len(trials), axis=1)
    for t, (criterion, factor) in enumerate(trials):
        columns[ids.index(criterion), t] *= factor
    if method == "topsis":
        rated = np.column_stack([topsis(matrix, columns[:, t]) for t in range(len(trials))])
    else:  # every trial at once: one column of weights per trial
        rated = weighted_sums(matrix, columns)
    return np.asarray(np.round(rated, 12))


def sensitivity(
    matrix: np.ndarray,
    weights: np.ndarray,
    ids: Sequence[str],
    labels: Sequence[str],
    method: RankingMethod,
    titles: Mapping[str, str] | None = None,
    rated: np.ndarray | None = None,
) -> Sensitivity:
    """Move each weight by ×0.8 and ×1.2 alone and see whether the first place changes. `matrix` holds the
    counted scores of the candidates that pass every gate, in key order, so the first of equal ratings
    (argmax) is the tie-break winner. `titles` name the criteria in words (the checklist's titles); `rated`
    is `trial_ratings` of the same matrix when the caller has it already."""
    if matrix.shape[0] == 0:
        return Sensitivity(None, (), titles=dict(titles or {}))
    first = int(np.argmax(np.round(rate(matrix, weights, method), 12)))
    trials = weight_trials(ids, weights)
    if rated is None:
        rated = trial_ratings(matrix, weights, ids, method)
    winners = np.argmax(rated, axis=0).tolist() if trials else []
    changes = [
        WeightChange(criterion, factor, labels[winner])
        for (criterion, factor), winner in zip(trials, winners, strict=True)
        if winner != first
    ]
    return Sensitivity(labels[first], tuple(changes), titles=dict(titles or {}))
