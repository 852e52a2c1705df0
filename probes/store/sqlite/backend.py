"""The SQLite backend: one file in WAL mode (the GUI reads while the scheduler writes), every statement the
store runs, and the translation of sqlite3's errors into the store's (`opening.translate`).

Opening checks the file (`opening.check_file`), migrates it (`schema.MIGRATIONS`) or refuses it when a newer
linkvet wrote it, and checks its schema (`opening.check_schema`); a read-only opener of an older file has a
writable connection upgrade it first. A connection may be handed to another thread (the scheduler's writer),
but is used by one thread at a time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from probes.errors import ErrorKind, StoreError
from probes.i18n import N_, _
from probes.store.backend import LOCK_COLUMNS, Row, Rows
from probes.store.records import (
    RESULT_COLUMNS,
    ROUND_COLUMNS,
    SAMPLE_COLUMNS,
    TARGET_COLUMNS,
    TRACE_COLUMNS,
    TRACE_REPLY_COLUMNS,
)
from probes.store.rollup import PART_COLUMNS
from probes.store.sqlite import opening
from probes.store.sqlite.alerts import AlertStatements
from probes.store.sqlite.opening import translate, translated
from probes.store.sqlite.schema import SCHEMA_VERSION
from probes.store.statements import (
    COPY_QUERIES,
    COUNT_SAMPLES,
    COUNTED_TABLES,
    ROLLUP_TABLES,
    ROUND_ID_AFTER,
    SELECT_RESULTS,
    SELECT_SAMPLE_REACH,
    SELECT_SAMPLES,
    SELECT_TRACES,
    TARGET_FIELDS,
    kept,
    label_filter,
    rollup_select,
    rollup_table,
    sample_reach,
    sample_window,
    where_sql,
    widen_sample_reach_sql,
)

_IN_CHUNK = 10_000  # values per IN list (SQLite allows 32,766 variables)


def _insert(table: str, columns: Sequence[str], verb: str = "INSERT") -> str:
    return f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


_INSERT_ROUND = _insert("rounds", ROUND_COLUMNS)
_INSERT_TARGET = _insert("targets", TARGET_COLUMNS) + " RETURNING id"
_UPDATE_TARGET = "UPDATE targets SET name = ?, port = ?, provider = ?, region = ?, line_type = ? WHERE id = ?"
_INSERT_RESULT = _insert("results", ("id", *RESULT_COLUMNS))
_INSERT_SAMPLE = _insert("samples", SAMPLE_COLUMNS)
_INSERT_TRACE = _insert("traces", TRACE_COLUMNS)
_INSERT_TRACE_REPLY = _insert("trace_replies", TRACE_REPLY_COLUMNS)
_WIDEN_SAMPLE_REACH = widen_sample_reach_sql("?")
_PUT_LOCK = _insert("locks", LOCK_COLUMNS, "INSERT OR REPLACE")


class SqliteBackend(AlertStatements):
    """An open SQLite result store (see `probes.store.backend.Backend` for what each method does; the alert
    tables' statements are in `probes.store.sqlite.alerts`).

    `rebuild`, called with the backend inside a migration that asks for it, recomputes every rollup (the
    store passes its write path's rebuild; without it a migration leaves the rollups as they are)."""

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
            except StoreError as exc:
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

    @translated(N_("could not save the targets"))
    def upsert_targets(self, rows: Sequence[Row]) -> list[int]:
        wanted = {row[0]: row for row in rows}  # by key; a later row of the same key wins
        stored: dict[str, Row] = {}
        keys = list(wanted)
        for start in range(0, len(keys), _IN_CHUNK):
            chunk = keys[start : start + _IN_CHUNK]
            for found in self._db.execute(
                f"SELECT key, id, name, port, provider, region, line_type FROM targets"
                f" WHERE key IN ({', '.join('?' * len(chunk))})",
                chunk,
            ):
                stored[found[0]] = found
        ids: dict[str, int] = {}
        for key, row in wanted.items():
            old = stored.get(key)
            if old is None:
                ids[key] = int(self._db.execute(_INSERT_TARGET, row).fetchone()[0])
                continue
            _key, target_id, name, port, provider, region, line_type = old
            ids[key] = int(target_id)
            # The name follows the newest measurement; port and labels are updated, never erased.
            new = (
                row[1],
                kept(row[4], port),
                kept(row[6], provider),
                kept(row[7], region),
                kept(row[8], line_type),
            )
            if new != (name, port, provider, region, line_type):
                self._db.execute(_UPDATE_TARGET, (*new, target_id))
        return [ids[row[0]] for row in rows]

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
    def insert_samples(self, rows: Iterable[Row]) -> None:
        self._db.executemany(_INSERT_SAMPLE, rows)

    @translated(N_("could not save the samples"))
    def widen_sample_reach(self, reach_us: int) -> None:
        self._db.execute(_WIDEN_SAMPLE_REACH, (reach_us,))

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
        targets = sorted({target for target, _ in keys})
        low, high = min(s for _, s in keys), max(s for _, s in keys)
        found: list[Row] = []
        for first in range(0, len(targets), _IN_CHUNK):
            chunk = targets[first : first + _IN_CHUNK]
            rows = self._db.execute(
                f"{select} WHERE {start} BETWEEN ? AND ? AND target_id IN ({', '.join('?' * len(chunk))})",
                (low, high, *chunk),
            )
            found.extend(row for row in rows if (row[0], row[1]) in wanted)
        return found

    @translated(N_("could not save the rollups"))
    def put_rollups(self, period_s: int, rows: Sequence[Row]) -> None:
        table, start = rollup_table(period_s)
        columns = ("target_id", start, *PART_COLUMNS, "hist_index", "hist_count")
        updates = ", ".join(f"{c} = excluded.{c}" for c in (*PART_COLUMNS, "hist_index", "hist_count"))
        self._db.executemany(
            f"{_insert(table, columns)} ON CONFLICT ({start}, target_id) DO UPDATE SET {updates}", rows
        )

    @translated(N_("could not clear the rollups"))
    def clear_rollups(self) -> None:
        for table, _start in ROLLUP_TABLES.values():
            self._db.execute(f"DELETE FROM {table}")

    def samples_in_run_order(self) -> Iterator[Row]:
        try:
            cursor = self._db.execute(  # what went out on the line: not what this machine could not send
                "SELECT result_id, target_id, ts_us, rtt_ms FROM samples WHERE error IS NOT ?"
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

    # -- reading -----------------------------------------------------------------------------------------

    @translated(N_("could not read the targets"))
    def targets(self, labels: dict[str, str | None]) -> list[Row]:
        where, params = label_filter(labels, "?")
        sql = f"SELECT {TARGET_FIELDS} FROM targets{where_sql(where)} ORDER BY name, method"
        return self._db.execute(sql, params).fetchall()

    @translated(N_("could not read the targets"))
    def find_targets(self, text: str) -> list[Row]:
        return self._db.execute(
            f"SELECT {TARGET_FIELDS} FROM targets WHERE name = ?1 OR host = ?1 OR url = ?1 OR key = ?1"
            " ORDER BY method",
            (text,),
        ).fetchall()

    @translated(N_("could not read the rounds"))
    def rounds(self, since_us: int | None, plan: str | None, limit: int | None) -> list[Row]:
        sql = "SELECT id, started_us, finished_us, source, plan, vantage, peak FROM rounds WHERE 1 = 1"
        params: list[Any] = []
        if since_us is not None:
            sql += " AND finished_us >= ?"
            params.append(since_us)
        if plan is not None:
            sql += " AND plan = ?"
            params.append(plan)
        sql += " ORDER BY finished_us DESC, id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return self._db.execute(sql, params).fetchall()

    @translated(N_("could not read the results"))
    def last_started_us(self, target_key: str) -> int | None:
        row = self._db.execute(
            # Newest first along the time index: a target measured lately is found at once.
            "SELECT started_us FROM results WHERE target_id = (SELECT id FROM targets WHERE key = ?)"
            " ORDER BY started_us DESC LIMIT 1",
            (target_key,),
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    @translated(N_("could not read the results"))
    def timing_counts(self, since_us: int | None, until_us: int | None) -> list[Row]:
        where, params = _range_filter("target_id", "started_us", None, since_us, until_us)
        sql = (
            "SELECT json_extract(metrics_json, '$.backend'), json_extract(metrics_json, '$.timestamps'),"
            " count(*) FROM results"
            + (f" WHERE {' AND '.join(where)}" if where else "")
            + " GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2"
        )
        return self._db.execute(sql, params).fetchall()

    @translated(N_("could not read the results"))
    def target_spans(self, method: str | None, since_us: int | None, until_us: int | None) -> list[Row]:
        where, params = _range_filter("r.target_id", "r.started_us", None, since_us, until_us)
        if method is not None:
            where.append("t.method = ?")
            params.append(method)
        columns = ", ".join(f"t.{c.strip()}" for c in TARGET_FIELDS.split(","))
        return self._db.execute(
            f"SELECT {columns}, min(r.started_us), max(r.started_us), count(DISTINCT r.round_id)"
            f" FROM results r JOIN targets t ON t.id = r.target_id{where_sql(where)}"
            " GROUP BY t.id ORDER BY t.name, t.method",
            params,
        ).fetchall()

    @translated(N_("could not read the samples"))
    def sample_counts(self, since_us: int | None, until_us: int | None) -> dict[int, tuple[int, int]]:
        where, params = sample_window(since_us, until_us, self._sample_reach(), "?")
        where.append("s.error IS NOT ?")  # sent: not the attempts this machine could not send
        params.append(str(ErrorKind.SEND_FAILED))
        return {
            int(target_id): (int(sent), int(replies))
            for target_id, sent, replies in self._db.execute(
                f"{COUNT_SAMPLES}{where_sql(where)} GROUP BY s.target_id", params
            )
        }

    @translated(N_("could not read the results"))
    def results(self, target_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        where, params = _range_filter("r.target_id", "r.started_us", target_ids, since_us, until_us)
        return self._rows(f"{SELECT_RESULTS}{where_sql(where)} ORDER BY r.started_us, r.id", params)

    @translated(N_("could not read the samples"))
    def samples(self, target_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        where, params = _range_filter("r.target_id", "", target_ids, None, None)
        window, window_params = sample_window(since_us, until_us, self._sample_reach(), "?")
        return self._rows(
            f"{SELECT_SAMPLES}{where_sql(where + window)} ORDER BY s.ts_us, s.seq", [*params, *window_params]
        )

    def _sample_reach(self) -> int:
        return sample_reach(self._db.execute(SELECT_SAMPLE_REACH).fetchone())

    @translated(N_("could not read the rollups"))
    def rollups(
        self, period_s: int, target_ids: Sequence[int] | None, since_s: int | None, until_s: int | None
    ) -> Rows:
        select, start = rollup_select(period_s)
        where, params = _range_filter("target_id", start, target_ids, since_s, until_s)
        return self._rows(f"{select}{where_sql(where)} ORDER BY {start}, target_id", params)

    @translated(N_("could not read the rollups"))
    def rollup_span(self, period_s: int) -> tuple[int, int] | None:
        table, start = rollup_table(period_s)
        # Two look-ups along the primary key (start first).
        low = self._db.execute(f"SELECT {start} FROM {table} ORDER BY {start} LIMIT 1").fetchone()
        high = self._db.execute(f"SELECT {start} FROM {table} ORDER BY {start} DESC LIMIT 1").fetchone()
        return None if low is None or high is None else (int(low[0]), int(high[0]))

    def traces(
        self,
        labels: dict[str, str | None],
        target_ids: Sequence[int] | None,
        since_us: int | None,
        until_us: int | None,
    ) -> Iterator[tuple[Row, list[Row]]]:
        try:
            yield from self._traces(labels, target_ids, since_us, until_us)
        except sqlite3.Error as exc:
            raise translate(self.path, N_("could not read the traces"), exc) from exc

    def _traces(
        self,
        labels: dict[str, str | None],
        target_ids: Sequence[int] | None,
        since_us: int | None,
        until_us: int | None,
    ) -> Iterator[tuple[Row, list[Row]]]:
        label_clauses, params = label_filter(labels, "?")
        range_clauses, range_params = _range_filter(
            "tr.target_id", "tr.started_us", target_ids, since_us, until_us
        )
        rows = self._db.execute(
            f"{SELECT_TRACES}{where_sql(label_clauses + range_clauses)} ORDER BY tr.started_us, tr.result_id",
            [*params, *range_params],
        ).fetchall()
        for row in rows:
            replies = self._db.execute(
                "SELECT ttl, address FROM trace_replies WHERE result_id = ? ORDER BY ttl, probe", (row[0],)
            ).fetchall()
            yield row, replies

    @translated(N_("could not read the rounds"))
    def round_batch(self, after_id: int, limit: int) -> tuple[list[Row], ...]:
        ids = self._db.execute(ROUND_ID_AFTER, (after_id, limit)).fetchall()
        if not ids:
            return tuple([] for _query in COPY_QUERIES)
        bounds = (after_id, int(ids[-1][0]))
        return tuple(self._db.execute(query, bounds).fetchall() for query in COPY_QUERIES)

    @translated(N_("could not count the rows"))
    def counts(self) -> dict[str, int]:
        return {
            table: int(self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in COUNTED_TABLES
        }

    def _rows(self, sql: str, params: Sequence[Any]) -> Rows:
        cursor = self._db.execute(sql, params)
        return Rows([d[0] for d in cursor.description], cursor.fetchall())


def _range_filter(
    id_column: str, time_column: str, ids: Sequence[int] | None, since: int | None, until: int | None
) -> tuple[list[str], list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if ids is not None:
        if not ids:
            return ["0"], []
        clauses.append(f"{id_column} IN ({', '.join('?' * len(ids))})")
        params.extend(ids)
    if since is not None:
        clauses.append(f"{time_column} >= ?")
        params.append(since)
    if until is not None:
        clauses.append(f"{time_column} < ?")
        params.append(until)
    return clauses, params
