"""Honest about unknowns: what each entry could score at worst and at best, whether its place is decided, the
unknowns that decide it, and what to ask its vendor next. Every number is read from the `ScoreTable`
(`counted_min`, `counted_max`, `coverage`); nothing here judges a criterion.

- An entry's `score_min` / `score_max` are its total with every unknown at its worst (0) and at its best
  (1), scaled for the plan's node shape like any score; `coverage` is the share of the weight that is known.
- The order (`RankOrder`): by default `score-min`, the total with every unknown at its worst (ties: the
  larger coverage, then the total). So an entry never ranks above another that is at least as good on
  everything both know merely because its unknowns are counted generously: whatever it leads by, it leads
  on facts. `total` ranks by the total with unknowns at the checklist's unknown score (the older order).
- A place is decided when the entry's worst case is above the best case of every entry ranked below it
  (in its group), and no single weight moved ±20 % lets one of them overtake it; otherwise the candidate
  that could still overtake it is named (the challenger: the later one with the highest best case), and the
  unknowns that decide it are the ones whose answers could close the gap (this entry's falling, the
  challenger's rising), largest first.
- What to ask next: an entry's unknown criteria by weight × swing (its total's best minus worst for that
  criterion), largest first; the questionnaire asks in this order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from catalogs.i18n import _
from catalogs.scoring.table import ScoreTable

RankOrder = Literal["score-min", "total"]  # `--order`; the JSON value of `Ranking.order`
RANK_ORDERS: tuple[RankOrder, ...] = get_args(RankOrder)


def order_title(order: str) -> str:
    """What orders a ranking, as a sentence says it (the JSON keeps the id): its worst case, its score, or
    TOPSIS's closeness."""
    if order == "score-min":
        return _("the score at worst (every unknown at 0), then the score")
    if order == "topsis":
        return _("the TOPSIS closeness")
    return _("the score (every unknown at the checklist's unknown score)")


@dataclass(frozen=True, slots=True)
class Swing:
    """An unknown criterion and how far its answer could move a total (a share of the whole weight)."""

    criterion: str
    swing: float
    whose: Literal["this", "next"] = "this"

    def as_dict(self) -> dict[str, Any]:
        return {"criterion": self.criterion, "swing": self.swing, "whose": self.whose}


def rating_matrix(table: ScoreTable, order: RankOrder) -> np.ndarray:
    """The counted values the order ranks by: the worst case, or what each criterion counts."""
    return table.counted_min if order == "score-min" else table.counted


def ask_next(table: ScoreTable, row: int, limit: int = 5) -> tuple[Swing, ...]:
    """The row's unknown criteria whose answers could move its total most (weight share × swing)."""
    share = table.weights / (table.weights.sum() or 1.0)
    swing = ((table.counted_max[row] - table.counted_min[row]) * share).tolist()
    unknown = np.isnan(table.unscaled[row]).tolist()
    ranked = sorted(
        (j for j in range(len(swing)) if unknown[j] and swing[j] > 1e-12),
        key=lambda j: (-swing[j], table.ids[j]),
    )
    return tuple(Swing(table.ids[j], swing[j]) for j in ranked[:limit])


@dataclass(frozen=True, slots=True)
class Place:
    """Whether a ranked position is decided, and if not, who could still overtake it and how: `challenger`
    (a row of the table ranked below it, in its group) through its unknowns, or through a single weight
    moved ±20 % (`weight`: criterion and factor) when the unknowns alone could not."""

    decided: bool | None  # None: the last of its group (nothing below to overtake it)
    challenger: int | None = None
    weight: tuple[str, float] | None = None


def decided_places(
    table: ScoreTable,
    order: Sequence[int],
    eligible: Sequence[bool],
    trials: np.ndarray,
    trial_names: Sequence[tuple[str, float]],
) -> list[Place]:
    """For each ranked position: whether its place is decided against every candidate ranked below it in its
    group (passing / failing). Decided means both: its worst case is above every later candidate's best case
    (no unknown can reverse them), and no single weight moved ±20 % puts a later candidate above it by the
    rating that orders the ranking (`trials`: each row's rating under each of `trial_names`). So a place is
    never called decided while another candidate could still overtake it."""
    places = [Place(None)] * len(order)
    worst, best = table.totals_min.tolist(), table.totals_max.tolist()
    for group in (True, False):
        positions = [p for p, row in enumerate(order) if eligible[row] == group]
        rows = [order[p] for p in positions]
        if len(rows) < 2:
            continue
        # below[k]: the row after position k with the highest best case (the earlier one of equals)
        below: list[int] = [0] * len(rows)
        top = rows[-1]
        for k in range(len(rows) - 2, -1, -1):
            if best[rows[k + 1]] >= best[top]:
                top = rows[k + 1]
            below[k] = top
        rated = trials[rows] if trials.size else np.zeros((len(rows), 0))
        # later_max[k]: each trial's highest rating among the rows after position k
        later_max = np.maximum.accumulate(rated[::-1], axis=0)[::-1]
        for k in range(len(rows) - 1):
            row = rows[k]
            if worst[row] <= best[below[k]] + 1e-12:
                places[positions[k]] = Place(False, below[k])
                continue
            flipped = np.flatnonzero(later_max[k + 1] > rated[k] + 1e-12)
            if flipped.size:
                trial = int(flipped[0])
                overtaker = rows[k + 1 + int(np.argmax(rated[k + 1 :, trial]))]
                places[positions[k]] = Place(False, overtaker, trial_names[trial])
            else:
                places[positions[k]] = Place(True)
    return places


def deciding_unknowns(table: ScoreTable, this: int, following: int, order: RankOrder) -> tuple[Swing, ...]:
    """The unknowns whose answers could reverse `this` and the `following` row: this one's falling and the
    next one's rising, largest first, as many as it takes to close the gap between them."""
    matrix = rating_matrix(table, order)
    share = table.weights / (table.weights.sum() or 1.0)
    gap = float(matrix[this] @ share - matrix[following] @ share)
    falls = ((matrix[this] - table.counted_min[this]) * share).tolist()
    rises = ((table.counted_max[following] - matrix[following]) * share).tolist()
    moves = [Swing(table.ids[j], falls[j], "this") for j in range(len(falls)) if falls[j] > 1e-12]
    moves += [Swing(table.ids[j], rises[j], "next") for j in range(len(rises)) if rises[j] > 1e-12]
    moves.sort(key=lambda s: (-s.swing, s.whose, s.criterion))
    deciding: list[Swing] = []
    covered = 0.0
    for move in moves:
        deciding.append(move)
        covered += move.swing
        if covered > gap:
            break
    return tuple(deciding)


def overtakers(table: ScoreTable, first: int, rows: Sequence[int], labels: Sequence[str]) -> tuple[str, ...]:
    """Who among `rows` (in rank order) could still overtake the first place with their unknowns: their best
    case reaches its worst case; the highest best case first, then by rank (so the first named is the first
    place's challenger, `decided_places`)."""
    worst = table.totals_min[first]
    found = [
        (-float(table.totals_max[r]), position, label)
        for position, (r, label) in enumerate(zip(rows, labels, strict=True))
        if r != first
    ]
    return tuple(label for best, _position, label in sorted(found) if -best >= worst - 1e-12)
