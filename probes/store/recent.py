"""What a store's writer wrote last, reused while nobody else writes the store: a round's target ids, and the
rollups of the periods the last round touched (the next round of a schedule usually adds to the same hour
and quarter hour), and the sample reach it stored. It saves the write path a query of the targets and of the
rollups, and decoding them.

Trust rests on the backend's `generation`: a token that stays equal between two writes only if no other
connection committed in between (SQLite's `PRAGMA data_version`), read inside the write transaction, when
nobody else can commit. A backend that cannot tell returns None and nothing is reused. A transaction that
fails forgets everything (its writes were rolled back).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from probes.store.backend import Row
from probes.store.rollup import Rollups


class RecentRows:
    """The rows one writer last wrote to one store (see the module docstring)."""

    def __init__(self) -> None:
        self._generation: object | None = None
        self._targets: dict[str, tuple[int, Row]] = {}  # key → (id, the stored target row)
        self._rollups: dict[int, Rollups] = {}  # period → the last round's rollups as stored
        self.sample_reach = 0  # the store's sample reach is at least this (`Backend.widen_sample_reach`)

    def begin(self, generation: object | None) -> None:
        """Start a write: forget everything if another connection wrote since (or nobody can tell)."""
        if generation is None or generation != self._generation:
            self.forget()
        self._generation = generation

    def forget(self) -> None:
        self._targets.clear()
        self._rollups.clear()
        self.sample_reach = 0

    # -- targets ---------------------------------------------------------------------------------------

    def target_ids(self, rows: Sequence[Row]) -> tuple[list[int | None], list[int]]:
        """Each row's target id where the store surely holds that target as the row would leave it (None
        elsewhere), and the positions of the rows still to be written."""
        ids: list[int | None] = []
        pending: list[int] = []
        for position, row in enumerate(rows):
            known = self._targets.get(row[0])
            if known is not None and (known[1] == row or _covers(known[1], row)):
                ids.append(known[0])
            else:
                ids.append(None)
                pending.append(position)
        return ids, pending

    def remember_targets(self, rows: Sequence[Row], ids: Sequence[int]) -> None:
        for row, target_id in zip(rows, ids, strict=True):
            old = self._targets.get(row[0])
            merged = row if old is None else _merged(old[1], row)
            self._targets[row[0]] = (target_id, merged)

    # -- rollups ---------------------------------------------------------------------------------------

    def rollups(
        self, period_s: int, keys: Sequence[tuple[int, int]]
    ) -> tuple[Rollups, list[tuple[int, int]]]:
        """The stored rollups among `keys` this writer knows, and the keys it does not know."""
        known = self._rollups.get(period_s)
        if known is None or not len(known):
            return Rollups.empty(period_s), list(keys)
        index = {key: i for i, key in enumerate(known.keys())}
        have = [index[key] for key in keys if key in index]
        missing = [key for key in keys if key not in index]
        return known.take(np.asarray(have, dtype=np.int64)), missing

    def remember_rollups(self, rollups: Rollups) -> None:
        self._rollups[rollups.period_s] = rollups


def _covers(stored: Row, row: Row) -> bool:
    """Whether writing `row` would leave the stored target as it is (TARGET_COLUMNS: key, name, method,
    host, port, url, provider, region, line_type; the name follows the row, the rest only where it has one)."""
    return stored[1] == row[1] and all(row[i] is None or row[i] == stored[i] for i in (4, 6, 7, 8))


def _merged(stored: Row, row: Row) -> Row:
    return tuple(
        row[i] if i == 1 or (i in (4, 6, 7, 8) and row[i] is not None) else stored[i] for i in range(len(row))
    )
