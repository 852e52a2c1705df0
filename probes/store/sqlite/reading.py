"""The SQLite backend's queries of the read path (`probes.store.backend.Backend`'s reading half), mixed into
`SqliteBackend`: reads outside any transaction (each its own snapshot, WAL mode), lists of ids sent as IN
lists (`_range_filter`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from probes.errors import ErrorKind
from probes.i18n import N_
from probes.store.backend import Row, Rows
from probes.store.sqlite.opening import translate, translated
from probes.store.statements import (
    COUNT_SAMPLES,
    COUNTED_TABLES,
    SELECT_RESULTS,
    SELECT_SAMPLE_REACH,
    SELECT_SAMPLES,
    SELECT_TRACES,
    TARGET_FIELDS,
    label_filter,
    rollup_select,
    rollup_table,
    round_batch,
    sample_reach,
    sample_window,
    where_sql,
)


class SqliteReads:
    """What `SqliteBackend` answers for the read path."""

    path: Path
    _db: sqlite3.Connection

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

    def _sample_reach(self) -> int | None:
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
    def round_batch(
        self, after_id: int, limit: int, wanted: Callable[[list[Row]], Collection[int]] | None = None
    ) -> tuple[list[Row], ...]:
        return round_batch(
            lambda sql, params: self._db.execute(sql, params).fetchall(), after_id, limit, wanted
        )

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
