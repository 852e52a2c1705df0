"""The backend interface: the one layer that speaks SQL. `probes.store.sqlite.SqliteBackend` implements it;
another database (PostgreSQL) is a second implementation of the same methods, with the same schema version.

A backend moves rows: it inserts the tuples `probes.store.records` builds (in its `*_COLUMNS` order) and
answers queries with tuples (records' field order) or with `Rows` (column names + rows, for frames). It
translates its driver's errors into `StoreError` (opening, and every `transaction`), so nothing above it
knows which database it talks to.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NamedTuple, Protocol

Row = tuple[Any, ...]


class Rows(NamedTuple):
    """A query's column names and its rows."""

    columns: list[str]
    rows: list[Row]


class Backend(Protocol):
    path: Path
    readonly: bool

    @property
    def schema_version(self) -> int: ...

    def close(self) -> None: ...

    # -- writing: call inside `transaction` ---------------------------------------------------------------

    def transaction(self, action: str) -> AbstractContextManager[None]:
        """One transaction; a driver error inside it becomes StoreError("PATH: could not ACTION: …")."""
        ...

    def insert_round(self, row: Row) -> int: ...

    def upsert_target(self, row: Row) -> int:
        """The target's id; its labels are updated where the row has them, never erased."""
        ...

    def insert_result(self, row: Row) -> int: ...

    def insert_samples(self, rows: Sequence[Row]) -> None: ...

    def insert_trace(self, row: Row, replies: Sequence[Row]) -> None: ...

    def rollups_at(self, keys: Sequence[tuple[int, int]]) -> list[Row]:
        """The stored rollups (`ROLLUP_COLUMNS` rows) among these (target_id, hour_s) keys."""
        ...

    def put_rollups(self, rows: Sequence[Row]) -> None:
        """Insert or replace rollups (`ROLLUP_COLUMNS` rows)."""
        ...

    def clear_rollups(self) -> None: ...

    def samples_in_run_order(self) -> Iterable[Row]:
        """Every sample's (result_id, target_id, ts_us, rtt_ms), by result and attempt; not those this machine
        could not send (`Sample.local_failure`), which the rollups leave out."""
        ...

    # -- reading ------------------------------------------------------------------------------------------

    def targets(self, labels: dict[str, str | None]) -> list[Row]:
        """`StoredTarget` rows with these labels (None: any), by name and method."""
        ...

    def find_targets(self, text: str) -> list[Row]:
        """`StoredTarget` rows whose name, host, URL or key is `text`, by method."""
        ...

    def rounds(self, since_us: int | None, plan: str | None, limit: int | None) -> list[Row]:
        """`RoundInfo` rows (peak as stored), newest first."""
        ...

    def last_started_us(self, target_key: str) -> int | None: ...

    def timing_counts(self, since_us: int | None, until_us: int | None) -> list[Row]:
        """(probe backend, who timed, results) of the results started in [since_us, until_us), from their
        `backend` and `timestamps` metrics (None where a result has none), the most common first."""
        ...

    def target_spans(self, method: str | None, since_us: int | None, until_us: int | None) -> list[Row]:
        """Per target with results in [since_us, until_us): its `StoredTarget` row, then the first and last
        result's start and the number of rounds; by name and method."""
        ...

    def sample_counts(self, since_us: int | None, until_us: int | None) -> dict[int, tuple[int, int]]:
        """target_id → (samples, replies) of the attempts sent in [since_us, until_us)."""
        ...

    def results(self, target_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        """Results with their target's labels and their round's vantage, plan and peak, oldest first."""
        ...

    def samples(self, target_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        """Samples (target_id, ts_us, seq, rtt_ms, error, result_id) by time and attempt."""
        ...

    def rollups(self, target_ids: Sequence[int] | None, since_s: int | None, until_s: int | None) -> Rows:
        """Rollups (`ROLLUP_COLUMNS`) with `since_s <= hour_s < until_s`, by target and hour."""
        ...

    def traces(
        self,
        labels: dict[str, str | None],
        target_ids: Sequence[int] | None,
        since_us: int | None,
        until_us: int | None,
    ) -> Iterator[tuple[Row, list[Row]]]:
        """Each trace's row (`probes.store.records.stored_trace`'s order) with its replies' (ttl, address)."""
        ...

    def counts(self) -> dict[str, int]: ...
