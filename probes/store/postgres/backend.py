"""The PostgreSQL backend: a store shared by many agents (one `linkvet schedule` per office) and readers,
with the SQLite backend's schema (`probes.store.postgres.schema`) and the same answers to every query.

Writers take turns: a write transaction first takes a transaction-level advisory lock of the store, as
SQLite's `BEGIN IMMEDIATE` takes its write lock, so the write path's read-merge-write of rollups, its
look-up of a round's uid and slot, and its result ids hold against any number of agents writing at once; a
writer waits for the one before it (at most `LOCK_TIMEOUT_S`). A round's uid is also unique in the table
(`ON CONFLICT DO NOTHING`), so a round forwarded twice is stored once whatever happens.

A connection that breaks (the server restarted, the network went away) is made again at the next call; the
call that found it broken fails with StoreError, which the delivery takes as "keep the round in the spool".
With `connect_now=False` (an agent that started while its server was unreachable) the first connection, and
the migration and schema check with it, wait for the first call; until the server answers every call fails
with `StoreUnreachableError`.
Samples and results go in with COPY, new series in one multi-row INSERT, each rollup length in one statement
(its columns as arrays).
What a writer wrote last is reused while nobody else writes (`probes.store.recent`): every write transaction
advances the sequence `store_writes`, so a writer that finds it where its own last write left it knows
nobody else wrote since. The read path's queries are `probes.store.reading_sql`'s, in PostgreSQL's words
(`dialect.py`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from probes.errors import ErrorKind, StoreError
from probes.i18n import N_, _
from probes.store.backend import LOCK_COLUMNS, Row
from probes.store.documents import DocumentStatements
from probes.store.postgres import connecting
from probes.store.postgres.alerts import PostgresAlertStatements
from probes.store.postgres.connecting import WRITES_SEQUENCE, translate, translated
from probes.store.postgres.dialect import POSTGRES
from probes.store.reading_sql import Connection
from probes.store.records import (
    RESULT_COLUMNS,
    ROUND_COLUMNS,
    SAMPLE_COLUMNS,
    SERIES_COLUMNS,
    TRACE_COLUMNS,
    TRACE_REPLY_COLUMNS,
)
from probes.store.rollup import PART_COLUMNS
from probes.store.statements import (
    ROLLUP_TABLES,
    SERIES_IDENTITY,
    rollup_select,
    rollup_table,
    series_identity,
    widen_sample_reach_sql,
)
from probes.store.vendor_facts import VendorFactStatements
from probes.store_location import StoreUrl

LOCK_TIMEOUT_S = 60


def _insert(table: str, columns: Sequence[str]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})"


_INSERT_ROUND = _insert("rounds", ROUND_COLUMNS) + " ON CONFLICT (uid) DO NOTHING RETURNING id"
_COPY_RESULTS = f"COPY results ({', '.join(('id', *RESULT_COLUMNS))}) FROM STDIN"
_WIDEN_SAMPLE_REACH = widen_sample_reach_sql("%s")
_COPY_SAMPLES = f"COPY samples ({', '.join(SAMPLE_COLUMNS)}) FROM STDIN"
_COPY_UNPHASED_SAMPLES = f"COPY samples ({', '.join(SAMPLE_COLUMNS[:-1])}) FROM STDIN"
_INSERT_TRACE = _insert("traces", TRACE_COLUMNS)
_INSERT_TRACE_REPLY = _insert("trace_replies", TRACE_REPLY_COLUMNS)
_PUT_LOCK = _insert("locks", LOCK_COLUMNS) + (
    " ON CONFLICT (name) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in LOCK_COLUMNS[1:])
)
# The types of a rollup row's columns (`ROLLUP_COLUMNS`), as `put_rollups` sends them.
_ROLLUP_TYPES = ("bigint",) * 4 + ("double precision",) * 4 + ("bigint", "bytea", "bytea")
_WRITE_KEY = "hashtextextended('linkvet-write:' || current_schema(), 0)"
_LOCK_KEY = "hashtextextended('linkvet-lock:' || current_schema() || ':' || %s, 0)"


def _no_nan(row: Row) -> Row:
    """NaN as NULL, as SQLite stores it (PostgreSQL would keep a NaN)."""
    return tuple(None if isinstance(v, float) and math.isnan(v) else v for v in row)


class PostgresBackend(DocumentStatements, VendorFactStatements, PostgresAlertStatements):
    """An open PostgreSQL result store (see `probes.store.backend.Backend` for what each method does)."""

    dialect = POSTGRES
    path: StoreUrl

    def __init__(
        self,
        url: StoreUrl,
        *,
        readonly: bool = False,
        rebuild: Callable[[PostgresBackend], object] | None = None,
        connect_now: bool = True,
    ) -> None:
        self.url = url
        self.path = url  # what names the store in messages (its URL without the password)
        self.readonly = readonly
        self._rebuild = rebuild
        self._db: psycopg.Connection[Any] | None = None
        self._advisory: set[str] = set()  # the lock names this session holds advisory locks for
        self._to_hold: set[str] = set()  # … and those a broken session held, to hold again on reconnecting
        self._generation: object | None = None
        self._after_my_write: int | None = None
        self._opened = False  # migrated and checked (on the first connection that got that far)
        if connect_now:
            self._connection()

    def _open(self, db: psycopg.Connection[Any]) -> None:
        """Migrate and check the store on its first connection (`connect_now=False`: its first use)."""
        try:
            rebuild = self._rebuild
            connecting.migrate(db, self.url, None if rebuild is None else lambda: rebuild(self))
            connecting.check_schema(db, self.url)
        except psycopg.Error as exc:
            self.close()
            raise translate(self.url, N_("could not open the result store"), exc) from exc
        except BaseException:
            self.close()
            raise
        self._opened = True

    def _connection(self) -> psycopg.Connection[Any]:
        """The open connection, made again when the last one broke (server restarted, network gone)."""
        if self._db is None or self._db.closed or self._db.broken:
            if self._db is not None:
                self._db.close()
            self._db = None
            # A session's advisory locks end with it; the names are kept until a new session holds them.
            self._to_hold |= self._advisory
            self._advisory = set()
            self._after_my_write = None
            db = connecting.connect(self.url, readonly=self.readonly)
            try:
                db.execute(f"SET lock_timeout = '{LOCK_TIMEOUT_S}s'")
                # The locks this backend held in the session that broke are held again in this one at once
                # (unless another agent took one over meanwhile: its heartbeat then finds out).
                for name in sorted(self._to_hold):
                    got = db.execute(f"SELECT pg_try_advisory_lock({_LOCK_KEY})", (name,)).fetchone()
                    if got is not None and got[0]:
                        self._advisory.add(name)
                self._to_hold = set()
            except psycopg.Error as exc:
                db.close()
                raise translate(self.url, N_("could not connect to the result store"), exc) from exc
            self._db = db
            if not self._opened:
                self._open(db)
        assert self._db is not None
        return self._db

    def _reading_connection(self) -> Connection:
        return self._connection()

    @property
    def connection(self) -> psycopg.Connection[Any]:
        """The psycopg connection (for tests and tools; the store's own SQL stays here)."""
        return self._connection()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    @property
    def schema_version(self) -> int:
        try:
            return connecting.version_of(self._connection())
        except psycopg.Error as exc:
            raise translate(self.url, N_("could not read the schema version"), exc) from exc

    # -- writing -----------------------------------------------------------------------------------------

    @contextmanager
    def transaction(self, action: str) -> Iterator[None]:
        try:
            db = self._connection()
            with db.transaction():
                db.execute(f"SELECT pg_advisory_xact_lock({_WRITE_KEY})")
                yield
                row = db.execute(f"SELECT nextval('{WRITES_SEQUENCE}')").fetchone()
                written = None if row is None else int(row[0])
            self._after_my_write = written
        except psycopg.Error as exc:
            raise translate(self.url, action, exc) from exc

    def generation(self) -> object | None:
        # Inside a write transaction (nobody else writes): the writes sequence has moved since this writer's
        # last write only if another writer wrote.
        row = self._connection().execute(f"SELECT last_value FROM {WRITES_SEQUENCE}").fetchone()
        value = None if row is None else int(row[0])
        if value is None or value != self._after_my_write:
            self._generation = ("writes", value)
        return self._generation

    @translated(N_("could not look up the round"))
    def round_of(self, uid: str) -> int | None:
        row = self._connection().execute("SELECT id FROM rounds WHERE uid = %s", (uid,)).fetchone()
        return None if row is None else int(row[0])

    @translated(N_("could not look up the round"))
    def round_in_slot(self, vantage: str | None, plan: str, slot_us: int) -> int | None:
        row = (
            self._connection()
            .execute(
                "SELECT id FROM rounds WHERE coalesce(vantage, '') = coalesce(%s::text, '') AND plan = %s"
                " AND slot_us = %s AND slot_us IS NOT NULL",
                (vantage, plan, slot_us),
            )
            .fetchone()
        )
        return None if row is None else int(row[0])

    @translated(N_("could not save the round"))
    def insert_round(self, row: Row) -> int:
        found = self._connection().execute(_INSERT_ROUND, row).fetchone()
        if found is None:  # the uid is stored (the write path looks first: only a race gets here)
            raise StoreError(
                _("{store}: the round {uid} is stored already").format(store=self.url, uid=row[8])
            )
        return int(found[0])

    @translated(N_("could not save the series"))
    def series_ids(self, rows: Sequence[Row]) -> list[int]:
        db = self._connection()
        stored = {
            series_identity(found[1:]): int(found[0])
            for found in db.execute(
                f"SELECT id, {SERIES_IDENTITY} FROM series WHERE key = ANY(%s)",
                (sorted({str(row[0]) for row in rows}),),
            )
        }
        new: dict[Row, Row] = {}  # identity → the first row of it (a later one may differ in the port)
        for row in rows:
            identity = series_identity(row, full=True)
            if identity not in stored:
                new.setdefault(identity, row)
        if new:
            # Inside the write transaction nobody else inserts: the ids are the ones after the largest.
            found = db.execute("SELECT coalesce(max(id), 0) + 1 FROM series").fetchone()
            first = 1 if found is None else int(found[0])
            added = {identity: first + n for n, identity in enumerate(new)}
            values = ", ".join(["(" + ", ".join(["%s"] * (1 + len(SERIES_COLUMNS))) + ")"] * len(new))
            db.execute(
                f"INSERT INTO series (id, {', '.join(SERIES_COLUMNS)}) VALUES {values}",
                [v for identity, row in new.items() for v in (added[identity], *row)],
            )
            stored.update(added)
        return [stored[series_identity(row, full=True)] for row in rows]

    @translated(N_("could not save the results"))
    def insert_results(self, rows: Sequence[Row]) -> list[int]:
        db = self._connection()
        # Inside the write transaction nobody else inserts: the ids are the ones after the largest.
        found = db.execute("SELECT coalesce(max(id), 0) + 1 FROM results").fetchone()
        first = 1 if found is None else int(found[0])
        ids = list(range(first, first + len(rows)))
        with db.cursor() as cursor, cursor.copy(_COPY_RESULTS) as copy:
            for result_id, row in zip(ids, rows, strict=True):
                copy.write_row((result_id, *_no_nan(row)))
        return ids

    @translated(N_("could not save the samples"))
    def insert_samples(self, rows: Iterable[Row], *, phased: bool = True) -> None:
        statement = _COPY_SAMPLES if phased else _COPY_UNPHASED_SAMPLES
        with self._connection().cursor() as cursor, cursor.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)

    @translated(N_("could not save the samples"))
    def widen_sample_reach(self, reach_us: int) -> None:
        self._connection().execute(_WIDEN_SAMPLE_REACH, (reach_us, reach_us))

    @translated(N_("could not save the trace"))
    def insert_trace(self, row: Row, replies: Sequence[Row]) -> None:
        db = self._connection()
        db.execute(_INSERT_TRACE, row)
        if replies:
            with db.cursor() as cursor:
                cursor.executemany(_INSERT_TRACE_REPLY, [_no_nan(reply) for reply in replies])

    @translated(N_("could not read the rollups"))
    def rollups_at(self, period_s: int, keys: Sequence[tuple[int, int]]) -> list[Row]:
        if not keys:
            return []
        select, start = rollup_select(period_s)
        wanted = set(keys)
        series = sorted({series_id for series_id, _ in keys})
        low, high = min(s for _, s in keys), max(s for _, s in keys)
        rows = self._connection().execute(
            f"{select} WHERE {start} BETWEEN %s AND %s AND series_id = ANY(%s)", (low, high, series)
        )
        return [row for row in rows if (row[0], row[1]) in wanted]

    @translated(N_("could not save the rollups"))
    def put_rollups(self, period_s: int, rows: Sequence[Row]) -> None:
        if not rows:
            return
        table, start = rollup_table(period_s)
        columns = ("series_id", start, *PART_COLUMNS, "hist_index", "hist_count")
        updates = ", ".join(f"{c} = excluded.{c}" for c in (*PART_COLUMNS, "hist_index", "hist_count"))
        arrays = ", ".join(f"%s::{kind}[]" for kind in _ROLLUP_TYPES)
        # One statement for all the rows, each column an array (a row at a time cost ~20 µs a rollup).
        self._connection().execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT * FROM unnest({arrays})"
            f" ON CONFLICT ({start}, series_id) DO UPDATE SET {updates}",
            [list(column) for column in zip(*rows, strict=True)],
        )

    @translated(N_("could not clear the rollups"))
    def clear_rollups(self) -> None:
        db = self._connection()
        for table, _start in ROLLUP_TABLES.values():
            db.execute(f"DELETE FROM {table}")

    def samples_in_run_order(self) -> Iterator[Row]:
        try:
            # A server-side cursor (inside the rebuild's transaction): the samples are streamed.
            with self._connection().cursor(name="linkvet_samples_in_run_order") as cursor:
                cursor.itersize = 100_000
                cursor.execute(  # what went out on the line: not what this machine could not send
                    "SELECT result_id, series_id, ts_us, rtt_ms FROM samples WHERE error IS DISTINCT FROM %s"
                    " ORDER BY result_id, seq",
                    (str(ErrorKind.SEND_FAILED),),
                )
                yield from cursor
        except psycopg.Error as exc:
            raise translate(self.url, N_("could not read the samples"), exc) from exc

    @translated(N_("could not read the lock"))
    def lock_row(self, name: str) -> Row | None:
        db = self._connection()
        row = db.execute(f"SELECT {', '.join(LOCK_COLUMNS)} FROM locks WHERE name = %s", (name,)).fetchone()
        if row is None:
            return None
        if name not in self._advisory and self._advisory_free(name):
            # Nobody's session holds the lock: its holder's connection ended (a crash, a kill, a lost
            # network), whatever its heartbeat says. Reported as stale.
            return (*row[:6], 0)
        return tuple(row)

    def _advisory_free(self, name: str) -> bool:
        db = self._connection()
        got = db.execute(f"SELECT pg_try_advisory_lock({_LOCK_KEY})", (name,)).fetchone()
        if got is None or not got[0]:
            return False
        db.execute(f"SELECT pg_advisory_unlock({_LOCK_KEY})", (name,))
        return True

    @translated(N_("could not take the lock"))
    def put_lock(self, row: Row) -> None:
        db = self._connection()
        name = str(row[0])
        for _attempt in range(20):  # another process may be looking at it this instant (`lock_row`)
            if name in self._advisory:
                break
            got = db.execute(f"SELECT pg_try_advisory_lock({_LOCK_KEY})", (name,)).fetchone()
            if got is not None and got[0]:
                self._advisory.add(name)
            else:
                time.sleep(0.005)
        db.execute(_PUT_LOCK, row)

    @translated(N_("could not release the lock"))
    def delete_lock(self, name: str, token: str) -> None:
        db = self._connection()
        db.execute("DELETE FROM locks WHERE name = %s AND token = %s", (name, token))
        if name in self._advisory:
            db.execute(f"SELECT pg_advisory_unlock({_LOCK_KEY})", (name,))
            self._advisory.discard(name)
        self._to_hold.discard(name)
