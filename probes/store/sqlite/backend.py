"""The SQLite backend: one file in WAL mode (the GUI reads while the scheduler writes), every statement the
store runs, and the translation of sqlite3's errors into the store's (`opening.translate`).

Opening checks the file (`opening.check_file`), migrates it (`schema.MIGRATIONS`) or refuses it when a newer
linkvet wrote it, and checks its schema (`opening.check_schema`); a read-only opener of an older file has a
writable connection upgrade it first. A connection may be handed to another thread (the scheduler's writer),
but is used by one thread at a time.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from probes.errors import DamagedStoreError, ErrorKind, LockHeldError, SchemaVersionError, StoreError
from probes.i18n import N_, _
from probes.store.backend import LOCK_COLUMNS, Row
from probes.store.documents import DocumentStatements
from probes.store.records import (
    RESULT_COLUMNS,
    ROUND_COLUMNS,
    SAMPLE_COLUMNS,
    SERIES_COLUMNS,
    TRACE_COLUMNS,
    TRACE_REPLY_COLUMNS,
)
from probes.store.rollup import PART_COLUMNS
from probes.store.sqlite import opening
from probes.store.sqlite.alerts import AlertStatements
from probes.store.sqlite.dialect import SQLITE
from probes.store.sqlite.opening import translate, translated
from probes.store.sqlite.schema import SCHEMA_VERSION
from probes.store.statements import (
    ROLLUP_TABLES,
    SERIES_IDENTITY,
    rollup_select,
    rollup_table,
    series_identity,
    widen_sample_reach_sql,
)
from probes.store.vendor_facts import VendorFactStatements

_IN_CHUNK = 10_000  # values per IN list (SQLite allows 32,766 variables)


def _insert(table: str, columns: Sequence[str], verb: str = "INSERT") -> str:
    return f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


_INSERT_ROUND = _insert("rounds", ROUND_COLUMNS)
_INSERT_SERIES = _insert("series", ("id", *SERIES_COLUMNS))
_INSERT_RESULT = _insert("results", ("id", *RESULT_COLUMNS))
_INSERT_SAMPLE = _insert("samples", SAMPLE_COLUMNS)
_INSERT_UNPHASED_SAMPLE = _insert("samples", SAMPLE_COLUMNS[:-1])  # binding a NULL per row costs a tenth
_INSERT_TRACE = _insert("traces", TRACE_COLUMNS)
_INSERT_TRACE_REPLY = _insert("trace_replies", TRACE_REPLY_COLUMNS)
_WIDEN_SAMPLE_REACH = widen_sample_reach_sql("?")
_PUT_LOCK = _insert("locks", LOCK_COLUMNS, "INSERT OR REPLACE")


class SqliteBackend(DocumentStatements, VendorFactStatements, AlertStatements):
    """An open SQLite result store (see `probes.store.backend.Backend` for what each method does; the read
    path's queries are `probes.store.reading_sql`'s, in the words of `probes.store.sqlite.dialect`; the alert
    tables' statements are in `probes.store.sqlite.alerts`).

    `rebuild`, called with the backend inside a migration that asks for it, recomputes every rollup (the
    store passes its write path's rebuild; without it a migration leaves the rollups as they are)."""

    dialect = SQLITE
    path: Path

    def __init__(
        self,
        path: Path,
        *,
        readonly: bool = False,
        rebuild: Callable[[SqliteBackend], object] | None = None,
    ) -> None:
        self.path = path
        self.readonly = readonly
        self._rebuild = rebuild
        # before connecting: a FIFO or a device would block SQLite's first read forever (opening.check_file)
        opening.check_file(path)
        try:
            if readonly:
                if not path.exists():
                    raise StoreError(
                        _("{path}: no result store here yet (run a probe first)").format(path=path)
                    )
                mode = "mode=ro&immutable=1" if opening.read_only_medium(path) else "mode=ro"
                self._db = sqlite3.connect(
                    f"file:{path}?{mode}", uri=True, isolation_level=None, check_same_thread=False
                )
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                opening.check_writable(path)
                self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.DatabaseError as exc:
            raise translate(path, N_("could not open the result store"), exc) from exc
        except OSError as exc:
            raise StoreError(
                _("{path}: cannot create the result store: {reason}").format(
                    path=path, reason=exc.strerror or exc
                )
            ) from exc
        try:
            self._configure()
        except BaseException:
            self._db.close()
            raise

    def _reading_connection(self) -> sqlite3.Connection:
        return self._db

    @property
    def connection(self) -> sqlite3.Connection:
        """The sqlite3 connection (for tests and tools that tune it; the store's own SQL stays here)."""
        return self._db

    def _configure(self) -> None:
        try:
            self._db.execute("PRAGMA busy_timeout = 15000")
            if not self.readonly:
                self._db.execute("PRAGMA journal_mode = WAL")
                # FULL: a committed round survives power loss too; one fsync per round costs nothing.
                self._db.execute("PRAGMA synchronous = FULL")
            # The write path writes a round's rows together, parents first, in one transaction; checking
            # each sample's reference (one index look-up per sample) would cost a tenth of the write.
            self._db.execute("PRAGMA foreign_keys = OFF")
            self._migrate()
            opening.check_schema(self._db, self.path)
        except sqlite3.Error as exc:
            raise translate(self.path, N_("could not open the result store"), exc) from exc

    def close(self) -> None:
        self._db.close()

    # -- schema ------------------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        return opening.version_of(self._db)

    def _migrate(self) -> None:
        opening.refuse_newer(self._db, self.path)
        if self.readonly:
            version = self.schema_version
            if version == SCHEMA_VERSION:
                return
            # A reader (history, export, the GUI) of a store an older linkvet wrote: upgrade it first, once.
            try:
                SqliteBackend(self.path, rebuild=self._rebuild).close()
            except (DamagedStoreError, SchemaVersionError, LockHeldError):
                raise  # not this user's rights: what is wrong is said as it is, never "run as its owner"
            except StoreError as exc:
                if os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK):
                    raise  # this user may write it: the upgrade failed for another reason, said as it is
                raise StoreError(
                    _(
                        "{path}: store schema {old} needs upgrading to {new} and this user cannot write it "
                        "({reason}); run any linkvet command on it as its owner"
                    ).format(path=self.path, old=version, new=SCHEMA_VERSION, reason=exc)
                ) from exc
            return
        rebuild = self._rebuild
        opening.migrate(self._db, self.path, None if rebuild is None else lambda: rebuild(self))

    # -- writing -----------------------------------------------------------------------------------------

    @contextmanager
    def _immediate(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        else:
            self._db.execute("COMMIT")

    @contextmanager
    def transaction(self, action: str) -> Iterator[None]:
        try:
            with self._immediate():
                yield
        except sqlite3.Error as exc:
            raise translate(self.path, action, exc) from exc

    def generation(self) -> object | None:
        # Changes only when another connection commits (read inside a write transaction: nobody else can).
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    @translated(N_("could not look up the round"))
    def round_of(self, uid: str) -> int | None:
        row = self._db.execute("SELECT id FROM rounds WHERE uid = ?", (uid,)).fetchone()
        return None if row is None else int(row[0])

    @translated(N_("could not look up the round"))
    def round_in_slot(self, vantage: str | None, plan: str, slot_us: int) -> int | None:
        row = self._db.execute(
            "SELECT id FROM rounds WHERE coalesce(vantage, '') = coalesce(?, '') AND plan = ? AND slot_us = ?"
            " AND slot_us IS NOT NULL",
            (vantage, plan, slot_us),
        ).fetchone()
        return None if row is None else int(row[0])

    @translated(N_("could not save the round"))
    def insert_round(self, row: Row) -> int:
        return int(self._db.execute(_INSERT_ROUND, row).lastrowid or 0)

    @translated(N_("could not save the series"))
    def series_ids(self, rows: Sequence[Row]) -> list[int]:
        keys = sorted({str(row[0]) for row in rows})
        stored: dict[Row, int] = {}
        for start in range(0, len(keys), _IN_CHUNK):
            chunk = keys[start : start + _IN_CHUNK]
            for found in self._db.execute(
                f"SELECT id, {SERIES_IDENTITY} FROM series WHERE key IN ({', '.join('?' * len(chunk))})",
                chunk,
            ):
                stored[series_identity(found[1:])] = int(found[0])
        new: dict[Row, Row] = {}  # identity → the first row of it (a later one may differ in the port)
        for row in rows:
            identity = series_identity(row, full=True)
            if identity not in stored:
                new.setdefault(identity, row)
        if new:
            # Inside the write transaction nobody else inserts: the ids are the ones after the largest.
            first = int(self._db.execute("SELECT coalesce(max(id), 0) + 1 FROM series").fetchone()[0])
            added = {identity: first + n for n, identity in enumerate(new)}
            self._db.executemany(_INSERT_SERIES, [(added[identity], *row) for identity, row in new.items()])
            stored.update(added)
        return [stored[series_identity(row, full=True)] for row in rows]

    @translated(N_("could not save the results"))
    def insert_results(self, rows: Sequence[Row]) -> list[int]:
        # Inside the write transaction nobody else inserts: the ids are the ones after the largest.
        first = int(self._db.execute("SELECT coalesce(max(id), 0) + 1 FROM results").fetchone()[0])
        ids = list(range(first, first + len(rows)))
        self._db.executemany(
            _INSERT_RESULT, [(result_id, *row) for result_id, row in zip(ids, rows, strict=True)]
        )
        return ids

    @translated(N_("could not save the samples"))
    def insert_samples(self, rows: Iterable[Row], *, phased: bool = True) -> None:
        self._db.executemany(_INSERT_SAMPLE if phased else _INSERT_UNPHASED_SAMPLE, rows)

    @translated(N_("could not save the samples"))
    def widen_sample_reach(self, reach_us: int) -> None:
        self._db.execute(_WIDEN_SAMPLE_REACH, (reach_us, reach_us))

    @translated(N_("could not save the trace"))
    def insert_trace(self, row: Row, replies: Sequence[Row]) -> None:
        self._db.execute(_INSERT_TRACE, row)
        self._db.executemany(_INSERT_TRACE_REPLY, replies)

    @translated(N_("could not read the rollups"))
    def rollups_at(self, period_s: int, keys: Sequence[tuple[int, int]]) -> list[Row]:
        if not keys:
            return []
        select, start = rollup_select(period_s)
        wanted = set(keys)
        series = sorted({series_id for series_id, _ in keys})
        low, high = min(s for _, s in keys), max(s for _, s in keys)
        found: list[Row] = []
        for first in range(0, len(series), _IN_CHUNK):
            chunk = series[first : first + _IN_CHUNK]
            rows = self._db.execute(
                f"{select} WHERE {start} BETWEEN ? AND ? AND series_id IN ({', '.join('?' * len(chunk))})",
                (low, high, *chunk),
            )
            found.extend(row for row in rows if (row[0], row[1]) in wanted)
        return found

    @translated(N_("could not save the rollups"))
    def put_rollups(self, period_s: int, rows: Sequence[Row]) -> None:
        table, start = rollup_table(period_s)
        columns = ("series_id", start, *PART_COLUMNS, "hist_index", "hist_count")
        # Every column is written (the sums merged already): replacing a row costs less than updating it.
        self._db.executemany(_insert(table, columns, "INSERT OR REPLACE"), rows)

    @translated(N_("could not clear the rollups"))
    def clear_rollups(self) -> None:
        for table, _start in ROLLUP_TABLES.values():
            self._db.execute(f"DELETE FROM {table}")

    def samples_in_run_order(self) -> Iterator[Row]:
        try:
            cursor = self._db.execute(  # what went out on the line: not what this machine could not send
                "SELECT result_id, series_id, ts_us, rtt_ms FROM samples WHERE error IS NOT ?"
                " ORDER BY result_id, seq",
                (str(ErrorKind.SEND_FAILED),),
            )
            while rows := cursor.fetchmany(100_000):
                yield from rows
        except sqlite3.Error as exc:
            raise translate(self.path, N_("could not read the samples"), exc) from exc

    @translated(N_("could not read the lock"))
    def lock_row(self, name: str) -> Row | None:
        row = self._db.execute(
            f"SELECT {', '.join(LOCK_COLUMNS)} FROM locks WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else tuple(row)

    @translated(N_("could not take the lock"))
    def put_lock(self, row: Row) -> None:
        self._db.execute(_PUT_LOCK, row)

    @translated(N_("could not release the lock"))
    def delete_lock(self, name: str, token: str) -> None:
        self._db.execute("DELETE FROM locks WHERE name = ? AND token = ?", (name, token))
