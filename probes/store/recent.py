"""What a store's writer wrote last, reused while nobody else writes the store: the series ids it wrote to, and
the rollups of the periods the last round touched (the next round of a schedule usually adds to the same hour
and quarter hour), and the sample reach it stored. It saves the write path a query of the series and of the
rollups, and decoding them.

Trust rests on the backend's `generation`: a token that stays equal between two writes only if no other
connection committed in between (SQLite's `PRAGMA data_version`), read inside the write transaction, when
nobody else can commit. A series, once stored, never changes: its id is good as long as the store holds it. A backend that cannot tell returns None and nothing is reused. A transaction that
fails forgets everything (its writes were rolled back).
"""

from __future__ import annotations

from collections.abc import Sequence

from probes.store.backend import Row
from probes.store.rollup import Rollups
from probes.store.statements import series_identity


class RecentRows:
    """The rows one writer last wrote to one store (see the module docstring)."""

    def __init__(self) -> None:
        self._generation: object | None = None
        self._series: dict[tuple[object, ...], int] = {}  # a series' identity → its id
        self._rollups: dict[int, Rollups] = {}  # period → the last round's rollups as stored
        self.sample_reach = 0  # the store's sample reach is at least this (`Backend.widen_sample_reach`)

    def begin(self, generation: object | None) -> None:
        """Start a write: forget everything if another connection wrote since (or nobody can tell)."""
        if generation is None or generation != self._generation:
            self.forget()
        self._generation = generation

    def forget(self) -> None:
        self._series.clear()
        self._rollups.clear()
        self.sample_reach = 0

    # -- series ----------------------------------------------------------------------------------------

    def series_ids(self, rows: Sequence[Row]) -> tuple[list[int | None], list[int]]:
        """Each series row's id where this writer stored it (None elsewhere), and the positions of the rows
        still to be looked up."""
        ids = [self._series.get(series_identity(row, full=True)) for row in rows]
        return ids, [position for position, known in enumerate(ids) if known is None]

    def remember_series(self, rows: Sequence[Row], ids: Sequence[int]) -> None:
        for row, series_id in zip(rows, ids, strict=True):
            self._series[series_identity(row, full=True)] = series_id

    # -- rollups ---------------------------------------------------------------------------------------

    def rollups(self, new: Rollups) -> tuple[Rollups, list[tuple[int, int]]]:
        """The stored rollups this writer knows among the keys of `new` (rollups of one length), and the
        keys it does not know."""
        known = self._rollups.get(new.period_s)
        if known is None or not len(known):
            return Rollups.empty(new.period_s), new.keys()
        have, found = known.find(new)
        return known.take(have[found]), new.keys(~found)

    def remember_rollups(self, rollups: Rollups) -> None:
        self._rollups[rollups.period_s] = rollups
