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


def decided_places(table: ScoreTable, order: Sequence[int], eligible: Sequence[bool]) -> list[bool | None]:
    """For each ranked position: whether its place against the next of the same group (passing / failing)
    is decided (its worst case above the next one's best case); None for the last of a group."""
    result: list[bool | None] = [None] * len(order)
    if len(order) < 2:
        return result
    rows = np.asarray(order)
    decided = (table.totals_min[rows[:-1]] > table.totals_max[rows[1:]] + 1e-12).tolist()
    for position in range(len(order) - 1):
        if eligible[order[position]] == eligible[order[position + 1]]:
            result[position] = bool(decided[position])
    return result


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
    """Who among `rows` could still overtake the first place with their unknowns: their best case reaches
    its worst case (best cases first)."""
    worst = table.totals_min[first]
    found = [(float(table.totals_max[r]), label) for r, label in zip(rows, labels, strict=True) if r != first]
    return tuple(label for best, label in sorted(found, key=lambda x: (-x[0], x[1])) if best >= worst - 1e-12)
