"""The read path's queries, once for both backends (`probes.store.backend.Backend`'s reading half), mixed into
`SqliteBackend` and `PostgresBackend`. What SQLite and PostgreSQL say differently is one small table per
backend (`Dialect`: `probes.store.sqlite.dialect`, `probes.store.postgres.dialect`), the shape of httpx's
table-driven map of exceptions; the SQL here is written once, with sqlite3's `?` placeholders.

Every query runs outside any write transaction (SQLite: its own snapshot in WAL mode; PostgreSQL: in
autocommit), on the connection the backend gives (`_reading_connection`), and its driver's errors become the
store's (`Dialect.translate`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from probes.errors import ErrorKind, StoreError
from probes.i18n import N_
from probes.store.backend import Row, Rows
from probes.store.statements import (
    COUNT_SAMPLES,
    COUNTED_TABLES,
    SELECT_RESULTS,
    SELECT_SAMPLE_REACH,
    SELECT_SAMPLES,
    SELECT_SERIES,
    SELECT_TRACES,
    SERIES_FIELDS,
    label_filter,
    rollup_select,
    rollup_table,
    round_batch,
    sample_reach,
    sample_window,
    where_sql,
)
from probes.store_location import StoreUrl


class Cursor(Protocol):
    """What both drivers' cursors give the read path."""

    @property
    def description(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def fetchone(self) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    def execute(self, sql: Any, params: Any = ...) -> Any: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    """What one backend says differently on the read path (see the module docstring)."""

    errors: tuple[type[Exception], ...]  # the driver's errors
    translate: Callable[[Any, str, Any], StoreError]  # (store, action, driver error) → the store's error
    sql: Callable[[str], str]  # SQL written with `?` placeholders in the driver's own
    ids: Callable[[str, Sequence[int]], tuple[str, list[Any]]]  # `column` in a non-empty list of ids
    nothing: str  # a condition no row meets (an empty list of ids)
    not_same: str  # `a <op> b`: true when they differ, NULL being a value (never NULL itself)
    json_text: str  # a JSON text column's top-level field as text: `{column}`, `{field}`
    nulls_first: str  # after an ORDER BY term: NULLs before the values (SQLite's default order)


P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound="SqlReads")


def translated(
    action: str,
) -> Callable[[Callable[Concatenate[S, P], R]], Callable[Concatenate[S, P], R]]:
    """A read whose driver errors become the store's (the backend's `Dialect.translate`). `action`: the
    failure as a message marked with `N_`."""

    def decorate(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
        def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return method(self, *args, **kwargs)
            except self.dialect.errors as exc:
                raise self.dialect.translate(self.path, action, exc) from exc

        functools.update_wrapper(wrapper, method)
        return wrapper

    return decorate


class SqlReads:
    """What both backends answer for the read path, in their dialect."""

    dialect: Dialect
    path: Path | StoreUrl

    def _reading_connection(self) -> Connection:
        raise NotImplementedError  # the backend's

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        cursor: Cursor = self._reading_connection().execute(self.dialect.sql(sql), list(params))
        return cursor

    def _rows(self, sql: str, params: Sequence[Any]) -> Rows:
        cursor = self._execute(sql, params)
        rows = [tuple(row) for row in cursor.fetchall()]
        return Rows([d[0] for d in cursor.description or ()], rows)

    def _range_filter(
        self,
        id_column: str,
        time_column: str,
        ids: Sequence[int] | None,
        since: int | None,
        until: int | None,
    ) -> tuple[list[str], list[Any]]:
        """Conditions on an id column (in `ids`, when given) and a time column ([since, until))."""
        clauses: list[str] = []
        params: list[Any] = []
        if ids is not None:
            if not ids:
                return [self.dialect.nothing], []
            clause, values = self.dialect.ids(id_column, ids)
            clauses.append(clause)
            params.extend(values)
        if since is not None:
            clauses.append(f"{time_column} >= ?")
            params.append(since)
        if until is not None:
            clauses.append(f"{time_column} < ?")
            params.append(until)
        return clauses, params

    @translated(N_("could not read the series"))
    def series(self, labels: dict[str, str | None]) -> list[Row]:
        where, params = label_filter(labels)
        sql = f"{SELECT_SERIES}{where_sql(where)} ORDER BY name, method, vantage, id"
        return [tuple(row) for row in self._execute(sql, params).fetchall()]

    @translated(N_("could not read the series"))
    def find_series(self, text: str) -> list[Row]:
        return [
            tuple(row)
            for row in self._execute(
                f"{SELECT_SERIES} WHERE name = ? OR host = ? OR url = ? OR key = ? ORDER BY method, vantage, id",
                (text,) * 4,
            ).fetchall()
        ]

    @translated(N_("could not read the results"))
    def vantages(self, since_us: int | None, until_us: int | None) -> list[str]:
        params: list[Any] = []
        if since_us is None and until_us is None:
            sql = "SELECT DISTINCT vantage FROM series"
        else:
            where, params = self._range_filter("r.series_id", "r.started_us", None, since_us, until_us)
            sql = f"SELECT DISTINCT t.vantage FROM results r JOIN series t ON t.id = r.series_id{where_sql(where)}"
        return sorted(str(row[0]) for row in self._execute(sql, params).fetchall())

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
        return [tuple(row) for row in self._execute(sql, params).fetchall()]

    @translated(N_("could not read the results"))
    def last_started_us(self, target_key: str, vantage: str | None) -> int | None:
        where, params = label_filter({"key": target_key, "vantage": vantage})
        row = self._execute(
            # Newest first along the time index: a target measured lately is found at once.
            f"SELECT started_us FROM results WHERE series_id IN (SELECT id FROM series{where_sql(where)})"
            " ORDER BY started_us DESC LIMIT 1",
            params,
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    @translated(N_("could not read the results"))
    def timing_counts(self, since_us: int | None, until_us: int | None) -> list[Row]:
        where, params = self._range_filter("series_id", "started_us", None, since_us, until_us)
        backend, timestamps = (
            self.dialect.json_text.format(column="metrics_json", field=field)
            for field in ("backend", "timestamps")
        )
        first = self.dialect.nulls_first  # NULLs first, as SQLite orders them
        sql = (
            f"SELECT {backend}, {timestamps}, count(*) FROM results{where_sql(where)}"
            f" GROUP BY 1, 2 ORDER BY 3 DESC, 1{first}, 2{first}"
        )
        return [tuple(row) for row in self._execute(sql, params).fetchall()]

    @translated(N_("could not read the results"))
    def series_spans(self, method: str | None, since_us: int | None, until_us: int | None) -> list[Row]:
        where, params = self._range_filter("r.series_id", "r.started_us", None, since_us, until_us)
        if method is not None:
            where.append("t.method = ?")
            params.append(method)
        columns = ", ".join(f"t.{c}" for c in SERIES_FIELDS)
        return [
            tuple(row)
            for row in self._execute(
                f"SELECT {columns}, min(r.started_us), max(r.started_us), count(DISTINCT r.round_id)"
                f" FROM results r JOIN series t ON t.id = r.series_id{where_sql(where)}"
                f" GROUP BY {columns} ORDER BY t.name, t.method, t.vantage, t.id",
                params,
            ).fetchall()
        ]

    @translated(N_("could not read the samples"))
    def sample_counts(self, since_us: int | None, until_us: int | None) -> dict[int, tuple[int, int]]:
        where, params = sample_window(since_us, until_us, self._sample_reach())
        # sent: not the attempts this machine could not send
        where.append(f"s.error {self.dialect.not_same} ?")
        params.append(str(ErrorKind.SEND_FAILED))
        return {
            int(series_id): (int(sent), int(replies))
            for series_id, sent, replies in self._execute(
                f"{COUNT_SAMPLES}{where_sql(where)} GROUP BY s.series_id", params
            )
        }

    @translated(N_("could not read the results"))
    def results(self, series_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        where, params = self._range_filter("r.series_id", "r.started_us", series_ids, since_us, until_us)
        return self._rows(f"{SELECT_RESULTS}{where_sql(where)} ORDER BY r.started_us, r.id", params)

    @translated(N_("could not read the samples"))
    def samples(self, series_ids: Sequence[int] | None, since_us: int | None, until_us: int | None) -> Rows:
        where, params = self._range_filter("r.series_id", "", series_ids, None, None)
        window, window_params = sample_window(since_us, until_us, self._sample_reach())
        return self._rows(
            f"{SELECT_SAMPLES}{where_sql(where + window)} ORDER BY s.ts_us, s.seq", [*params, *window_params]
        )

    def _sample_reach(self) -> int | None:
        return sample_reach(self._execute(SELECT_SAMPLE_REACH).fetchone())

    @translated(N_("could not read the rollups"))
    def rollups(
        self, period_s: int, series_ids: Sequence[int] | None, since_s: int | None, until_s: int | None
    ) -> Rows:
        select, start = rollup_select(period_s)
        where, params = self._range_filter("series_id", start, series_ids, since_s, until_s)
        return self._rows(f"{select}{where_sql(where)} ORDER BY {start}, series_id", params)

    @translated(N_("could not read the rollups"))
    def rollup_span(self, period_s: int) -> tuple[int, int] | None:
        table, start = rollup_table(period_s)
        # Two look-ups along the primary key (start first): SQLite's min() and max() in one query would
        # read the whole table.
        low = self._execute(f"SELECT {start} FROM {table} ORDER BY {start} LIMIT 1").fetchone()
        high = self._execute(f"SELECT {start} FROM {table} ORDER BY {start} DESC LIMIT 1").fetchone()
        return None if low is None or high is None else (int(low[0]), int(high[0]))

    def traces(
        self,
        labels: dict[str, str | None],
        series_ids: Sequence[int] | None,
        since_us: int | None,
        until_us: int | None,
    ) -> Iterator[tuple[Row, list[Row]]]:
        try:
            label_clauses, params = label_filter(labels, "t")
            range_clauses, range_params = self._range_filter(
                "tr.series_id", "tr.started_us", series_ids, since_us, until_us
            )
            rows = self._execute(
                f"{SELECT_TRACES}{where_sql(label_clauses + range_clauses)} ORDER BY tr.started_us, tr.result_id",
                [*params, *range_params],
            ).fetchall()
            for row in rows:
                replies = self._execute(
                    "SELECT ttl, address FROM trace_replies WHERE result_id = ? ORDER BY ttl, probe",
                    (row[0],),
                ).fetchall()
                yield tuple(row), [tuple(reply) for reply in replies]
        except self.dialect.errors as exc:
            raise self.dialect.translate(self.path, N_("could not read the traces"), exc) from exc

    @translated(N_("could not read the rounds"))
    def round_batch(
        self, after_id: int, limit: int, wanted: Callable[[list[Row]], Collection[int]] | None = None
    ) -> tuple[list[Row], ...]:
        return round_batch(
            lambda sql, params: [tuple(row) for row in self._execute(sql, params).fetchall()],
            after_id,
            limit,
            wanted,
        )

    @translated(N_("could not count the rows"))
    def counts(self) -> dict[str, int]:
        counts = {}
        for table in COUNTED_TABLES:
            row = self._execute(f"SELECT count(*) FROM {table}").fetchone()
            counts[table] = 0 if row is None else int(row[0])
        return counts
