"""The SQLite backend: one file in WAL mode (the GUI reads while the scheduler writes), every statement the
store runs, and the translation of sqlite3's errors into `StoreError`.

Opening a file migrates it (`schema.MIGRATIONS`) or refuses it when a newer linkvet wrote it; a read-only
opener of an older file has a writable connection upgrade it first. One connection per thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from probes._version import __version__
from probes.errors import ErrorKind, SchemaVersionError, StoreError
from probes.store.backend import Row, Rows
from probes.store.records import (
    RESULT_COLUMNS,
    ROUND_COLUMNS,
    SAMPLE_COLUMNS,
    TARGET_COLUMNS,
    TRACE_COLUMNS,
    TRACE_REPLY_COLUMNS,
)
from probes.store.rollup import ROLLUP_COLUMNS
from probes.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION

COUNTED_TABLES = ("targets", "rounds", "results", "samples", "hourly")


def _insert(table: str, columns: Sequence[str], verb: str = "INSERT") -> str:
    return f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


_INSERT_ROUND = _insert("rounds", ROUND_COLUMNS)
_UPSERT_TARGET = (
    _insert("targets", TARGET_COLUMNS) + " ON CONFLICT (key) DO UPDATE SET name = excluded.name,"
    " provider = coalesce(excluded.provider, provider), region = coalesce(excluded.region, region),"
    " line_type = coalesce(excluded.line_type, line_type), port = coalesce(excluded.port, port)"
    " RETURNING id"
)
_INSERT_RESULT = _insert("results", RESULT_COLUMNS)
_INSERT_SAMPLE = _insert("samples", SAMPLE_COLUMNS)
_INSERT_TRACE = _insert("traces", TRACE_COLUMNS)
_INSERT_TRACE_REPLY = _insert("trace_replies", TRACE_REPLY_COLUMNS)
_SELECT_ROLLUP = f"SELECT {', '.join(ROLLUP_COLUMNS)} FROM hourly WHERE target_id = ? AND hour_s = ?"
_PUT_ROLLUP = _insert("hourly", ROLLUP_COLUMNS, "INSERT OR REPLACE")
_TARGET_FIELDS = "id, key, name, method, host, port, url, provider, region, line_type"
_SELECT_RESULTS = (
    "SELECT r.id AS result_id, r.round_id, r.target_id, t.name, t.method, t.host, t.port, t.url,"
    " t.provider, t.region, t.line_type, r.started_us, r.finished_us, r.sent, r.received, r.loss,"
    " r.rtt_min_ms, r.rtt_median_ms, r.rtt_mean_ms, r.rtt_p95_ms, r.rtt_max_ms, r.jitter_ms,"
    " r.throughput_mbps, r.bytes, r.seconds, r.ttfb_ms, r.error, r.message, r.metrics_json,"
    " ro.vantage, ro.plan, ro.peak"
    " FROM results r JOIN targets t ON t.id = r.target_id JOIN rounds ro ON ro.id = r.round_id"
)
_SELECT_TRACES = (
    "SELECT tr.result_id, tr.target_id, t.name, t.host, t.provider, t.region, t.line_type,"
    " tr.started_us, tr.address, tr.protocol, tr.reached, tr.route_class, tr.route_rule, tr.route_evidence,"
    " tr.route_doubts_json FROM traces tr JOIN targets t ON t.id = tr.target_id"
)


class SqliteBackend:
    """An open SQLite result store (see `probes.store.backend.Backend` for what each method does)."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        try:
            if readonly:
                if not path.exists():
                    raise StoreError(f"{path}: no result store here yet (run a probe first)")
                self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(path, isolation_level=None)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot open the result store: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"{path}: cannot create the result store: {exc.strerror or exc}") from exc
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
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open the result store: {exc}") from exc

    def close(self) -> None:
        self._db.close()

    # -- schema ------------------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        version = self.schema_version
        if version > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"{self.path} was written by a newer linkvet (store schema {version}; this linkvet "
                f"{__version__} knows up to {SCHEMA_VERSION}). Upgrade linkvet, or use another --db."
            )
        if version == SCHEMA_VERSION:
            return
        if self.readonly:
            # A reader (history, export, the GUI) of a store an older linkvet wrote: upgrade it first, once.
            try:
                SqliteBackend(self.path).close()
            except StoreError as exc:
                raise StoreError(
                    f"{self.path}: store schema {version} needs upgrading to {SCHEMA_VERSION} and this user "
                    f"cannot write it ({exc}); run any linkvet command on it as its owner"
                ) from exc
            return
        with self._immediate():
            version = self.schema_version  # another process may have migrated meanwhile
            for number in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[number - 1]:
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {number}")

    # -- writing -----------------------------------------------------------------------------------------

    @contextmanager
    def _immediate(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
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
            raise StoreError(f"{self.path}: could not {action}: {exc}") from exc

    def insert_round(self, row: Row) -> int:
        return int(self._db.execute(_INSERT_ROUND, row).lastrowid or 0)

    def upsert_target(self, row: Row) -> int:
        return int(self._db.execute(_UPSERT_TARGET, row).fetchone()[0])

    def insert_result(self, row: Row) -> int:
        return int(self._db.execute(_INSERT_RESULT, row).lastrowid or 0)

    def insert_samples(self, rows: Sequence[Row]) -> None:
        if rows:
            self._db.executemany(_INSERT_SAMPLE, rows)

    def insert_trace(self, row: Row, replies: Sequence[Row]) -> None:
        self._db.execute(_INSERT_TRACE, row)
        self._db.executemany(_INSERT_TRACE_REPLY, replies)

    def rollups_at(self, keys: Sequence[tuple[int, int]]) -> list[Row]:
        rows = (self._db.execute(_SELECT_ROLLUP, key).fetchone() for key in keys)
        return [row for row in rows if row is not None]

    def put_rollups(self, rows: Sequence[Row]) -> None:
        self._db.executemany(_PUT_ROLLUP, rows)

    def clear_rollups(self) -> None:
        self._db.execute("DELETE FROM hourly")

    def samples_in_run_order(self) -> Iterable[Row]:
        """Every sample that went out on the line (not those this machine could not send), run by run."""
        return self._db.execute(
            "SELECT result_id, target_id, ts_us, rtt_ms FROM samples WHERE error IS NOT ?"
            " ORDER BY result_id, seq",
            (str(ErrorKind.SEND_FAILED),),
        )

    # -- reading -----------------------------------------------------------------------------------------

    def targets(self, labels: dict[str, str | None]) -> list[Row]:
        where, params = _label_filter(labels)
        sql = f"SELECT {_TARGET_FIELDS} FROM targets{_where(where)} ORDER BY name, method"
        return self._db.execute(sql, params).fetchall()

    def find_targets(self, text: str) -> list[Row]:
        return self._db.execute(
            f"SELECT {_TARGET_FIELDS} FROM targets WHERE name = ?1 OR host = ?1 OR url = ?1 OR key = ?1"
            " ORDER BY method",
            (text,),
        ).fetchall()

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

    def last_started_us(self, target_key: str) -> int | None:
        row = self._db.execute(
            "SELECT max(r.started_us) FROM results r JOIN targets t ON t.id = r.target_id WHERE t.key = ?",
            (target_key,),
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def timing_counts(self, since_us: int | None, until_us: int | None) -> list[Row]:
        where, params = _range_filter("target_id", "started_us", None, since_us, until_us)
        sql = (
            "SELECT json_extract(metrics_json, '$.backend'), json_extract(metrics_json, '$.timestamps'),"
            " count(*) FROM results"
            + (f" WHERE {' AND '.join(where)}" if where else "")
            + " GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2"
        )
        return self._db.execute(sql, params).fetchall()

    def target_spans(self, method: str | None, since_us: int | None, until_us: int | None) -> list[Row]:
        where, params = _range_filter("r.target_id", "r.started_us", None, since_us, until_us)
        if method is not None:
            where.append("t.method = ?")
            params.append(method)
        columns = ", ".join(f"t.{c.strip()}" for c in _TARGET_FIELDS.split(","))
        return self._db.execute(
            f"SELECT {columns}, min(r.started_us), max(r.started_us), count(DISTINCT r.round_id)"
            f" FROM results r JOIN targets t ON t.id = r.target_id{_where(where)}"
            " GROUP BY t.id ORDER BY t.name, t.method",
            params,
        ).fetchall()

    def sample_counts(self, since_us: int | None, until_us: int | None) -> dict[int, tuple[int, int]]:
        where, params = _range_filter("target_id", "ts_us", None, since_us, until_us)
        return {
            int(target_id): (int(sent), int(replies))
            for target_id, sent, replies in self._db.execute(
                f"SELECT target_id, count(*), count(rtt_ms) FROM samples{_where(where)} GROUP BY target_id",
                params,
            )
        }

    def results(self, target_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        where, params = _range_filter("r.target_id", "r.started_us", target_ids, since_us, until_us)
        return self._rows(f"{_SELECT_RESULTS}{_where(where)} ORDER BY r.started_us, r.id", params)

    def samples(self, target_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        where, params = _range_filter("target_id", "ts_us", target_ids, since_us, until_us)
        return self._rows(
            "SELECT target_id, ts_us, seq, rtt_ms, error, result_id FROM samples"
            f"{_where(where)} ORDER BY ts_us, seq",
            params,
        )

    def rollups(self, target_ids: Sequence[int] | None, since_s: int | None, until_s: int | None) -> Rows:
        where, params = _range_filter("target_id", "hour_s", target_ids, since_s, until_s)
        return self._rows(
            f"SELECT {', '.join(ROLLUP_COLUMNS)} FROM hourly{_where(where)} ORDER BY target_id, hour_s",
            params,
        )

    def traces(
        self,
        labels: dict[str, str | None],
        target_ids: Sequence[int] | None,
        since_us: int | None,
        until_us: int | None,
    ) -> Iterator[tuple[Row, list[Row]]]:
        label_clauses, params = _label_filter(labels)
        range_clauses, range_params = _range_filter(
            "tr.target_id", "tr.started_us", target_ids, since_us, until_us
        )
        rows = self._db.execute(
            f"{_SELECT_TRACES}{_where(label_clauses + range_clauses)} ORDER BY tr.started_us, tr.result_id",
            [*params, *range_params],
        ).fetchall()
        for row in rows:
            replies = self._db.execute(
                "SELECT ttl, address FROM trace_replies WHERE result_id = ? ORDER BY ttl, probe", (row[0],)
            ).fetchall()
            yield row, replies

    def counts(self) -> dict[str, int]:
        return {
            table: int(self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in COUNTED_TABLES
        }

    def _rows(self, sql: str, params: Sequence[Any]) -> Rows:
        cursor = self._db.execute(sql, params)
        return Rows([d[0] for d in cursor.description], cursor.fetchall())


def _where(clauses: Sequence[str]) -> str:
    return (" WHERE " + " AND ".join(clauses)) if clauses else ""


def _label_filter(labels: dict[str, str | None]) -> tuple[list[str], list[Any]]:
    clauses = [f"{column} = ?" for column, value in labels.items() if value is not None]
    params = [value for value in labels.values() if value is not None]
    return clauses, params


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
