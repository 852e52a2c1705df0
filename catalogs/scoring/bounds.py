"""Honest about unknowns: what each entry could score at worst and at best, whether its place is decided, the
unknowns that decide it, and what to ask its vendor next. Every number is read from the `ScoreTable`
(`counted_min`, `counted_max`, `coverage`); nothing here judges a criterion.

- An entry's `score_min` / `score_max` are its total with every unknown at its worst (0) and at its best
  (1), scaled for the plan's node shape like any score; `coverage` is the share of the weight that is known.
- The order (`RankOrder`): by default `score-min`, the total with every unknown at its worst (ties: the
  larger coverage, then the total). So an entry never ranks above another that is at least as good on
  everything both know merely because its unknowns are counted generously: whatever it leads by, it leads
  on facts. `total` ranks by the total with unknowns at the checklist's unknown score (the older order).
- A place is decided when the entry's worst case is above the next entry's best case; otherwise the
  unknowns that decide it are the ones whose answers could close the gap (this entry's falling, the next
  one's rising), largest first.
- What to ask next: an entry's unknown criteria by weight × swing (its total's best minus worst for that
  criterion), largest first; the questionnaire asks in this order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from catalogs.scoring.table import ScoreTable

RankOrder = Literal["score-min", "total"]  # `--order`; the JSON value of `Ranking.order`
RANK_ORDERS: tuple[RankOrder, ...] = get_args(RankOrder)


@dataclass(frozen=True, slots=True)
class Swing:
    """An unknown criterion and how far its answer could move a total (a share of the whole weight)."""

    criterion: str
    swing: float
    whose: Literal["this", "next"] = "this"

    def as_dict(self) -> dict[str, Any]:
        return {"criterion": self.criterion, "swing": self.swing, "whose": self.whose}


@dataclass(frozen=True, slots=True)
class Place:
    """Whether an entry's place against the next one is decided, and if not, the unknowns that decide it."""

    decided: bool
    deciding: tuple[Swing, ...] = ()


def rating_matrix(table: ScoreTable, order: RankOrder) -> np.ndarray:
    """The counted values the order ranks by: the worst case, or what each criterion counts."""
    return table.counted_min if order == "score-min" else table.counted


def ask_next(table: ScoreTable, row: int, limit: int = 5) -> tuple[Swing, ...]:
    """The row's unknown criteria whose answers could move its total most (weight share × swing)."""
    share = table.weights / (table.weights.sum() or 1.0)
    swing = (table.counted_max[row] - table.counted_min[row]) * share
    unknown = np.isnan(table.unscaled[row])
    ranked = sorted(
        (j for j in np.flatnonzero(unknown & (swing > 1e-12)).tolist()),
        key=lambda j: (-swing[j], table.ids[j]),
    )
    return tuple(Swing(table.ids[j], float(swing[j])) for j in ranked[:limit])


def places(
    table: ScoreTable, order: Sequence[int], eligible: Sequence[bool], matrix: np.ndarray
) -> list[Place | None]:
    """For each ranked position: its place against the next of the same group (passing / failing), None for
    the last of a group."""
    result: list[Place | None] = [None] * len(order)
    share = table.weights / (table.weights.sum() or 1.0)
    rating = matrix @ share
    for position in range(len(order) - 1):
        this, following = order[position], order[position + 1]
        if eligible[this] != eligible[following]:
            continue
        if table.totals_min[this] > table.totals_max[following] + 1e-12:
            result[position] = Place(True)
            continue
        gap = float(rating[this] - rating[following])
        falls = (matrix[this] - table.counted_min[this]) * share
        rises = (table.counted_max[following] - matrix[following]) * share
        moves = [Swing(table.ids[j], float(falls[j]), "this") for j in range(len(share)) if falls[j] > 1e-12]
        moves += [Swing(table.ids[j], float(rises[j]), "next") for j in range(len(share)) if rises[j] > 1e-12]
        moves.sort(key=lambda s: (-s.swing, s.whose, s.criterion))
        deciding: list[Swing] = []
        covered = 0.0
        for move in moves:
            deciding.append(move)
            covered += move.swing
            if covered > gap:
                break
        result[position] = Place(False, tuple(deciding))
    return result


def overtakers(table: ScoreTable, first: int, rows: Sequence[int], labels: Sequence[str]) -> tuple[str, ...]:
    """Who among `rows` could still overtake the first place with their unknowns: their best case reaches
    its worst case (best cases first)."""
    worst = table.totals_min[first]
    found = [(float(table.totals_max[r]), label) for r, label in zip(rows, labels, strict=True) if r != first]
    return tuple(label for best, label in sorted(found, key=lambda x: (-x[0], x[1])) if best >= worst - 1e-12)
