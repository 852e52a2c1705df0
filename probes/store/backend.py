"""The backend interface: the one layer that speaks SQL. `probes.store.sqlite.SqliteBackend` and
`probes.store.postgres.PostgresBackend` implement it, with the same schema and version.

A backend moves rows: it inserts the tuples `probes.store.records` builds (in its `*_COLUMNS` order) and
answers queries with tuples (records' field order) or with `Rows` (column names + rows, for frames). It
translates its driver's errors into `StoreError` in every method (opening, `transaction`, every query), so
nothing above it knows which database it talks to, and a damaged store never surfaces as a driver's
traceback: `DamagedStoreError` for what is wrong with the data (missing tables or columns, damaged pages),
`StoreError` for what the machine refused (no space, read-only, locked).

Opening checks the store before anything is measured: the file is the database it should be, the schema
version is known (older: migrated, newer: `SchemaVersionError`), every table and column the schema needs is
there. A migration may ask for the rollups to be rebuilt from the raw samples (`rebuild`, given by the
store: the rollup maths is not the backend's); it runs in the migration's transaction.

Rollups come in lengths (`probes.store.rollup.PERIODS_S`: 3600 and 900 seconds); every rollup method names
the length it reads or writes.

Locks (`probes.store.locks` holds the policy; the backend keeps the rows): a named lock is one row of
`LOCK_COLUMNS` (name, token, pid, host, what, since_us, heartbeat_us). Taking one is a read and a write in one
`transaction`, so two processes cannot both take it. On SQLite the row and its heartbeat are the lock (a
crashed holder's row goes stale: its heartbeat stops, or its pid is gone on the same host). PostgreSQL keeps
the same rows and takes a session advisory lock beside the row in `put_lock` (keyed by the schema and the
name; released in `delete_lock` or when the session ends, taken again when a broken connection is made
again): a dead agent's lock ends with its connection, and `lock_row` reports a row whose advisory lock nobody
holds as stale (heartbeat 0).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from probes.store_location import StoreUrl

Row = tuple[Any, ...]

LOCK_COLUMNS = ("name", "token", "pid", "host", "what", "since_us", "heartbeat_us")


class Rows(NamedTuple):
    """A query's column names and its rows."""

    columns: list[str]
    rows: list[Row]


class Backend(Protocol):
    readonly: bool

    @property
    def path(self) -> Path | StoreUrl:
        """What names the store in messages (a file, or a URL shown without its password)."""
        ...

    @property
    def schema_version(self) -> int: ...

    def close(self) -> None: ...

    # -- writing: call inside `transaction` ---------------------------------------------------------------

    def transaction(self, action: str) -> AbstractContextManager[None]:
        """One write transaction, exclusive among writers (SQLite: BEGIN IMMEDIATE, waiting for a busy store
        at most its busy timeout); a driver error inside it becomes StoreError("PATH: could not ACTION: …")."""
        ...

    def generation(self) -> object | None:
        """A token equal between two calls only if no other connection committed in between (called inside
        a write transaction); None when the backend cannot tell (then the writer re-reads everything)."""
        ...

    def round_of(self, uid: str) -> int | None:
        """The id of the stored round with this uid, or None."""
        ...

    def round_in_slot(self, vantage: str | None, plan: str, slot_us: int) -> int | None:
        """The id of the stored round of this plan and vantage point (None and "" are the same vantage)
        that measured this slot, or None. The store keeps at most one (a unique index)."""
        ...

    def insert_round(self, row: Row) -> int: ...

    def series_ids(self, rows: Sequence[Row]) -> list[int]:
        """Each row's series id (rows in `SERIES_COLUMNS` order, identified by key, name, labels and vantage
        point), inserting the series not stored yet; a stored series is never changed."""
        ...

    def insert_results(self, rows: Sequence[Row]) -> list[int]:
        """Insert results (`RESULT_COLUMNS` rows); their ids, in order."""
        ...

    def insert_samples(self, rows: Iterable[Row], *, phased: bool = True) -> None:
        """Insert samples (`SAMPLE_COLUMNS` rows; without their last, the phase, unless `phased`: their
        phases are NULL) in one statement."""
        ...

    def widen_sample_reach(self, reach_us: int) -> None:
        """Raise the store's sample reach (the farthest a stored sample lies from its result's start, in
        either direction) to `reach_us` if it is below."""
        ...

    def insert_trace(self, row: Row, replies: Sequence[Row]) -> None: ...

    def rollups_at(self, period_s: int, keys: Sequence[tuple[int, int]]) -> list[Row]:
        """The stored rollups of this length (`ROLLUP_COLUMNS` rows) among these (series_id, start_s) keys, in
        one query."""
        ...

    def put_rollups(self, period_s: int, rows: Sequence[Row]) -> None:
        """Insert or replace rollups of this length (`ROLLUP_COLUMNS` rows) in one statement."""
        ...

    def clear_rollups(self) -> None:
        """Delete the rollups of every length."""
        ...

    def samples_in_run_order(self) -> Iterable[Row]:
        """Every sample's (result_id, series_id, ts_us, rtt_ms), by result and attempt, streamed; not those this
        machine could not send (`Sample.local_failure`), which the rollups leave out."""
        ...

    def lock_row(self, name: str) -> Row | None:
        """The lock's row (`LOCK_COLUMNS`), or None when nobody holds it."""
        ...

    def put_lock(self, row: Row) -> None:
        """Insert or replace the lock's row (`LOCK_COLUMNS`)."""
        ...

    def delete_lock(self, name: str, token: str) -> None:
        """Delete the lock's row if this token holds it."""
        ...

    # -- reading ------------------------------------------------------------------------------------------

    def series(self, labels: dict[str, str | None]) -> list[Row]:
        """`StoredSeries` rows with these labels (method, provider, region, line_type, vantage; None: any), by
        name, method and vantage point."""
        ...

    def find_series(self, text: str) -> list[Row]:
        """`StoredSeries` rows whose name, host, URL or key is `text`, by method and vantage point."""
        ...

    def vantages(self, since_us: int | None, until_us: int | None) -> list[str]:
        """The vantage points of the series with results started in [since_us, until_us) (every series' without
        a period), sorted."""
        ...

    def rounds(self, since_us: int | None, plan: str | None, limit: int | None) -> list[Row]:
        """`RoundInfo` rows (peak as stored), newest first."""
        ...

    def last_started_us(self, target_key: str, vantage: str | None) -> int | None:
        """When the newest result of the target (its key) started, measured from `vantage` (None: anywhere)."""
        ...

    def timing_counts(self, since_us: int | None, until_us: int | None) -> list[Row]:
        """(probe backend, who timed, results) of the results started in [since_us, until_us), from their
        `backend` and `timestamps` metrics (None where a result has none), the most common first."""
        ...

    def series_spans(self, method: str | None, since_us: int | None, until_us: int | None) -> list[Row]:
        """Per series with results in [since_us, until_us): its `StoredSeries` row, then the first and last
        result's start and the number of rounds; by name, method and vantage point."""
        ...

    def sample_counts(self, since_us: int | None, until_us: int | None) -> dict[int, tuple[int, int]]:
        """series_id → (samples, replies) of the attempts sent in [since_us, until_us)."""
        ...

    def results(self, series_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        """Results with their series (key, labels, vantage point) and their round's plan and peak, oldest
        first."""
        ...

    def samples(self, series_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        """Samples (series_id, ts_us, seq, rtt_ms, error, result_id, phase) by time and attempt."""
        ...

    def rollups(
        self, period_s: int, series_ids: Sequence[int] | None, since_s: int | None, until_s: int | None
    ) -> Rows:
        """Rollups of this length (`ROLLUP_COLUMNS`) with `since_s <= start_s < until_s`, by start and series."""
        ...

    def rollup_span(self, period_s: int) -> tuple[int, int] | None:
        """The first and last start_s of the rollups of this length (all series), or None; cheap."""
        ...

    def traces(
        self,
        labels: dict[str, str | None],
        series_ids: Sequence[int] | None,
        since_us: int | None,
        until_us: int | None,
    ) -> Iterator[tuple[Row, list[Row]]]:
        """Each trace's row (`probes.store.records.stored_trace`'s order) with its replies' (ttl, address), of
        the series with these labels (as `series`)."""
        ...

    def round_batch(
        self, after_id: int, limit: int, wanted: Callable[[list[Row]], Collection[int]] | None = None
    ) -> tuple[list[Row], ...]:
        """Up to `limit` whole rounds with ids above `after_id`, as `statements.COPY_QUERIES` read them (the
        rounds, their results with their series' target rows, samples, traces and trace probes); empty lists
        past the last.
        With `wanted`, only the rounds it picks from the batch's round rows are read whole."""
        ...

    def counts(self) -> dict[str, int]: ...

    # -- evaluations and agents (`probes.store.documents`: rows in its column orders) -----------------------

    def evaluation_rows(self, name: str | None) -> list[Row]:
        """The evaluation documents (`EVALUATION_COLUMNS` rows), that one when named, by name."""
        ...

    def put_evaluation_row(self, row: Row) -> None:
        """Insert or replace an evaluation document, in a write transaction of its own."""
        ...

    def delete_evaluation_row(self, name: str) -> bool:
        """Delete an evaluation document (its own write transaction); whether there was one."""
        ...

    def put_agent_row(self, row: Row) -> None:
        """Insert or replace an agent's state (`AGENT_COLUMNS`), in a write transaction of its own."""
        ...

    def agent_rows(self, vantage: str | None, evaluation_or_plan: str | None) -> list[Row]:
        """The agents' states (`AGENT_COLUMNS` rows; None: any), by evaluation or plan and vantage point."""
        ...

    # -- vendor facts (`probes.store.vendor_facts`: rows in its column order) -------------------------------

    def add_vendor_fact_rows(self, rows: Sequence[Row]) -> list[int]:
        """Insert records (`VENDOR_FACT_COLUMNS[1:]` rows) in one write transaction of their own; their ids."""
        ...

    def vendor_fact_rows(self, provider: str | None, after_id: int) -> list[Row]:
        """The records (`VENDOR_FACT_COLUMNS` rows) with ids above `after_id` (of one provider when named), in
        the order recorded."""
        ...

    def last_vendor_fact_id(self) -> int:
        """The id of the last record (0: none): it changes whenever the team's facts do."""
        ...

    # -- alerts (`probes.store.alerts`: rows in its column orders; writes inside `transaction`) ------------

    def alert_states(self, plan: str, vantage: str) -> list[Row]: ...

    def alert_states_of(self, plan: str, rule: str, target_key: str) -> list[Row]:
        """One rule's states for one target from every vantage point (and the offices' shared one),
        `ALERT_STATE_COLUMNS` rows by vantage point; inside a write transaction, what it has written too."""
        ...

    def put_alert_states(self, rows: Sequence[Row]) -> None:
        """Insert or replace alert states (`ALERT_STATE_COLUMNS` rows)."""
        ...

    def add_outbox(self, rows: Sequence[Row]) -> None:
        """Queue notifications (`OUTBOX_COLUMNS[1:]` rows: the id is the database's)."""
        ...

    def outbox(self, plan: str, vantage: str) -> list[Row]:
        """The plan's queued notifications (`OUTBOX_COLUMNS` rows), oldest first."""
        ...

    def retry_outbox(self, ids: Sequence[int], attempts: int, next_attempt_us: int, error: str) -> None: ...

    def delete_outbox(self, ids: Sequence[int]) -> None: ...
