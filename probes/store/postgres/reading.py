"""The PostgreSQL backend's queries of the read path (`probes.store.backend.Backend`'s reading half), mixed
into `PostgresBackend`: every one in autocommit (its own snapshot, as SQLite's reads outside a transaction),
lists of ids sent as one array (`= ANY(%s)`), no IN lists to split."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

import psycopg

from probes.errors import ErrorKind
from probes.i18n import N_
from probes.store.backend import Row, Rows
from probes.store.postgres.connecting import translate, translated
from probes.store.postgres.schema import qmark
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
from probes.store_location import StoreUrl


class PostgresReads:
    """What `PostgresBackend` answers for the read path."""

    url: StoreUrl

    def _connection(self) -> psycopg.Connection[Any]:
        raise NotImplementedError  # PostgresBackend's

    @translated(N_("could not read the targets"))
    def targets(self, labels: dict[str, str | None]) -> list[Row]:
        where, params = label_filter(labels, "%s")
        sql = f"SELECT {TARGET_FIELDS} FROM targets{where_sql(where)} ORDER BY name, method"
        return self._connection().execute(sql, params).fetchall()

    @translated(N_("could not read the targets"))
    def find_targets(self, text: str) -> list[Row]:
        return (
            self._connection()
            .execute(
                f"SELECT {TARGET_FIELDS} FROM targets WHERE name = %(t)s OR host = %(t)s OR url = %(t)s"
                " OR key = %(t)s ORDER BY method",
                {"t": text},
            )
            .fetchall()
        )

    @translated(N_("could not read the rounds"))
    def rounds(self, since_us: int | None, plan: str | None, limit: int | None) -> list[Row]:
        sql = "SELECT id, started_us, finished_us, source, plan, vantage, peak FROM rounds WHERE 1 = 1"
        params: list[Any] = []
        if since_us is not None:
            sql += " AND finished_us >= %s"
            params.append(since_us)
        if plan is not None:
            sql += " AND plan = %s"
            params.append(plan)
        sql += " ORDER BY finished_us DESC, id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return self._connection().execute(sql, params).fetchall()

    @translated(N_("could not read the results"))
    def last_started_us(self, target_key: str) -> int | None:
        row = (
            self._connection()
            .execute(
                "SELECT started_us FROM results WHERE target_id = (SELECT id FROM targets WHERE key = %s)"
                " ORDER BY started_us DESC LIMIT 1",
                (target_key,),
            )
            .fetchone()
        )
        return None if row is None or row[0] is None else int(row[0])

    @translated(N_("could not read the results"))
    def target_spans(self, method: str | None, since_us: int | None, until_us: int | None) -> list[Row]:
        where, params = _range_filter("r.target_id", "r.started_us", None, since_us, until_us)
        if method is not None:
            where.append("t.method = %s")
            params.append(method)
        columns = ", ".join(f"t.{c.strip()}" for c in TARGET_FIELDS.split(","))
        return (
            self._connection()
            .execute(
                f"SELECT {columns}, min(r.started_us), max(r.started_us), count(DISTINCT r.round_id)"
                f" FROM results r JOIN targets t ON t.id = r.target_id{where_sql(where)}"
                " GROUP BY t.id ORDER BY t.name, t.method",
                params,
            )
            .fetchall()
        )

    @translated(N_("could not read the samples"))
    def sample_counts(self, since_us: int | None, until_us: int | None) -> dict[int, tuple[int, int]]:
        where, params = sample_window(since_us, until_us, self._sample_reach(), "%s")
        where.append("s.error IS DISTINCT FROM %s")  # sent: not the attempts this machine could not send
        params.append(str(ErrorKind.SEND_FAILED))
        return {
            int(target_id): (int(sent), int(replies))
            for target_id, sent, replies in self._connection().execute(
                f"{COUNT_SAMPLES}{where_sql(where)} GROUP BY s.target_id", params
            )
        }

    @translated(N_("could not read the results"))
    def timing_counts(self, since_us: int | None, until_us: int | None) -> list[Row]:
        where, params = _range_filter("target_id", "started_us", None, since_us, until_us)
        sql = (
            "SELECT (metrics_json::jsonb)->>'backend', (metrics_json::jsonb)->>'timestamps', count(*)"
            " FROM results"
            + (f" WHERE {' AND '.join(where)}" if where else "")
            # NULLs first, as SQLite orders them
            + " GROUP BY 1, 2 ORDER BY 3 DESC, 1 NULLS FIRST, 2 NULLS FIRST"
        )
        return [tuple(row) for row in self._connection().execute(sql, params).fetchall()]

    @translated(N_("could not read the results"))
    def results(self, target_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        where, params = _range_filter("r.target_id", "r.started_us", target_ids, since_us, until_us)
        return self._rows(f"{SELECT_RESULTS}{where_sql(where)} ORDER BY r.started_us, r.id", params)

    @translated(N_("could not read the samples"))
    def samples(self, target_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        where, params = _range_filter("r.target_id", "", target_ids, None, None)
        window, window_params = sample_window(since_us, until_us, self._sample_reach(), "%s")
        return self._rows(
            f"{SELECT_SAMPLES}{where_sql(where + window)} ORDER BY s.ts_us, s.seq", [*params, *window_params]
        )

    def _sample_reach(self) -> int | None:
        return sample_reach(self._connection().execute(SELECT_SAMPLE_REACH).fetchone())

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
        row = self._connection().execute(f"SELECT min({start}), max({start}) FROM {table}").fetchone()
        return None if row is None or row[0] is None else (int(row[0]), int(row[1]))

    def traces(
        self,
        labels: dict[str, str | None],
        target_ids: Sequence[int] | None,
        since_us: int | None,
        until_us: int | None,
    ) -> Iterator[tuple[Row, list[Row]]]:
        try:
            label_clauses, params = label_filter(labels, "%s")
            range_clauses, range_params = _range_filter(
                "tr.target_id", "tr.started_us", target_ids, since_us, until_us
            )
            db = self._connection()
            rows = db.execute(
                f"{SELECT_TRACES}{where_sql(label_clauses + range_clauses)} ORDER BY tr.started_us, tr.result_id",
                [*params, *range_params],
            ).fetchall()
            for row in rows:
                replies = db.execute(
                    "SELECT ttl, address FROM trace_replies WHERE result_id = %s ORDER BY ttl, probe",
                    (row[0],),
                ).fetchall()
                yield row, replies
        except psycopg.Error as exc:
            raise translate(self.url, N_("could not read the traces"), exc) from exc

    @translated(N_("could not read the rounds"))
    def round_batch(
        self, after_id: int, limit: int, wanted: Callable[[list[Row]], Collection[int]] | None = None
    ) -> tuple[list[Row], ...]:
        db = self._connection()
        return round_batch(
            lambda sql, params: [tuple(row) for row in db.execute(qmark(sql), params).fetchall()],
            after_id,
            limit,
            wanted,
        )

    @translated(N_("could not count the rows"))
    def counts(self) -> dict[str, int]:
        db = self._connection()
        counts = {}
        for table in COUNTED_TABLES:
            row = db.execute(f"SELECT count(*) FROM {table}").fetchone()
            counts[table] = 0 if row is None else int(row[0])
        return counts

    def _rows(self, sql: str, params: Sequence[Any]) -> Rows:
        cursor = self._connection().execute(sql, params)
        return Rows([d.name for d in cursor.description or ()], cursor.fetchall())


def _range_filter(
    id_column: str, time_column: str, ids: Sequence[int] | None, since: int | None, until: int | None
) -> tuple[list[str], list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if ids is not None:
        if not ids:
            return ["false"], []
        clauses.append(f"{id_column} = ANY(%s)")
        params.append(list(ids))
    if since is not None:
        clauses.append(f"{time_column} >= %s")
        params.append(since)
    if until is not None:
        clauses.append(f"{time_column} < %s")
        params.append(until)
    return clauses, params
