"""The read path: the backend's rows as records (`probes.store.records`) and as pandas frames with fixed
column types. No SQL: the queries are the backend's. A row whose values do not have their column's type (a
damaged store) is reported as `DamagedStoreError`, never as a pandas traceback.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from probes.errors import DamagedStoreError
from probes.i18n import _
from probes.store import records
from probes.store.backend import Backend, Rows
from probes.store.records import (
    RESULT_TEXT_COLUMNS,
    RoundInfo,
    SeriesHistory,
    StoredSeries,
    StoredTrace,
    stored_trace,
)
from probes.store.rollup import HOUR_S, PART_COLUMNS, ROLLUP_COLUMNS, Rollups

_SAMPLE_TYPES = {
    "series_id": "int64",
    "ts_us": "int64",
    "seq": "int64",
    "rtt_ms": "float64",
    "result_id": "int64",
}
_ROLLUP_TYPES = {
    "series_id": "int64",
    "start_s": "int64",
    **{c: "float64" if c.endswith("_ms") else "int64" for c in PART_COLUMNS},
}
# A result row's numbers (its text columns aside), with its id and its round's peak flag as read back.
_RESULT_NUMBERS = (
    "result_id",
    *(c for c in records.RESULT_COLUMNS if c not in ("error", "message", "metrics_json")),
    "peak",
)


def series(
    backend: Backend,
    *,
    provider: str | None = None,
    region: str | None = None,
    line_type: str | None = None,
    method: str | None = None,
    vantage: str | None = None,
) -> list[StoredSeries]:
    labels = {
        "provider": provider,
        "region": region,
        "line_type": line_type,
        "method": method,
        "vantage": vantage,
    }
    return [StoredSeries(*row) for row in backend.series(labels)]


def find_series(backend: Backend, text: str) -> list[StoredSeries]:
    return [StoredSeries(*row) for row in backend.find_series(text)]


def series_histories(
    backend: Backend, *, method: str | None = None, since_us: int | None = None, until_us: int | None = None
) -> list[SeriesHistory]:
    counts = backend.sample_counts(since_us, until_us)
    width = len(StoredSeries.__slots__)
    return [
        SeriesHistory(
            StoredSeries(*row[:width]),
            int(row[width]),
            int(row[width + 1]),
            int(row[width + 2]),
            *counts.get(row[0], (0, 0)),
        )
        for row in backend.series_spans(method, since_us, until_us)
    ]


def rounds(
    backend: Backend, *, since_us: int | None = None, plan: str | None = None, limit: int | None = None
) -> list[RoundInfo]:
    return [
        RoundInfo(r[0], r[1], r[2], r[3], r[4], r[5], None if r[6] is None else bool(r[6]))
        for r in backend.rounds(since_us, plan, limit)
    ]


def results_frame(
    backend: Backend,
    series_ids: Iterable[int] | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
) -> pd.DataFrame:
    frame = _frame(backend.results(_ids(series_ids), since_us, until_us))
    for column in _RESULT_NUMBERS:
        if frame[column].dtype == object:  # text where a number belongs, or all NULL
            try:
                frame[column] = pd.to_numeric(frame[column], errors="raise")
            except (TypeError, ValueError) as exc:
                raise _damaged(backend, "results", exc) from exc
    for column in RESULT_TEXT_COLUMNS:  # an all-NULL text column comes back as float NaN: keep it None
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    frame["started_at"] = pd.to_datetime(frame["started_us"], unit="us", utc=True)
    return frame


def samples_frame(
    backend: Backend,
    series_ids: Iterable[int] | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
) -> pd.DataFrame:
    rows = backend.samples(_ids(series_ids), since_us, until_us)
    frame = pd.DataFrame.from_records(rows.rows, columns=rows.columns)
    try:
        return frame.astype(_SAMPLE_TYPES)
    except (TypeError, ValueError) as exc:
        raise _damaged(backend, "samples", exc) from exc


def rollup_frame(
    backend: Backend,
    period_s: int,
    series_ids: Iterable[int] | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
) -> pd.DataFrame:
    """Rollups of this length whose periods overlap [since_us, until_us), columns `ROLLUP_COLUMNS`."""
    since_s = None if since_us is None else since_us // 1_000_000 // period_s * period_s
    until_s = None if until_us is None else -(-until_us // 1_000_000)
    rows = backend.rollups(period_s, _ids(series_ids), since_s, until_s)
    frame = pd.DataFrame.from_records(rows.rows, columns=list(ROLLUP_COLUMNS))
    try:
        frame = frame.astype(_ROLLUP_TYPES)
        blobs = (*frame["hist_index"], *frame["hist_count"])
        if not all(isinstance(b, bytes) for b in blobs):
            raise TypeError("a histogram is not a blob")
    except (TypeError, ValueError) as exc:
        raise _damaged(backend, "rollups", exc) from exc
    return frame


def rollups(
    backend: Backend,
    period_s: int,
    series_ids: Iterable[int] | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
) -> Rollups:
    """Rollups of this length whose periods overlap [since_us, until_us), decoded at once (`Rollups`)."""
    since_s = None if since_us is None else since_us // 1_000_000 // period_s * period_s
    until_s = None if until_us is None else -(-until_us // 1_000_000)
    found = backend.rollups(period_s, _ids(series_ids), since_s, until_s)
    try:
        return Rollups.of_rows(period_s, found.rows)
    except (TypeError, ValueError) as exc:
        raise _damaged(backend, "rollups", exc) from exc


def hourly_frame(
    backend: Backend,
    series_ids: Iterable[int] | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
) -> pd.DataFrame:
    """Rollups of the hours that overlap [since_us, until_us) (the start column named `hour_s`)."""
    frame = rollup_frame(backend, HOUR_S, series_ids, since_us, until_us)
    return frame.rename(columns={"start_s": "hour_s"})


def traces(
    backend: Backend,
    *,
    provider: str | None = None,
    region: str | None = None,
    line_type: str | None = None,
    vantage: str | None = None,
    series_ids: Iterable[int] | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
) -> list[StoredTrace]:
    labels = {"provider": provider, "region": region, "line_type": line_type, "vantage": vantage}
    found = backend.traces(labels, _ids(series_ids), since_us, until_us)
    return [stored_trace(row, replies) for row, replies in found]


def _ids(series_ids: Iterable[int] | None) -> list[int] | None:
    return None if series_ids is None else [int(i) for i in series_ids]


def _damaged(backend: Backend, table: str, exc: BaseException) -> DamagedStoreError:
    return DamagedStoreError(
        backend.path,
        _("the {table} hold a row that cannot be read ({problem})").format(table=table, problem=exc),
    )


def _frame(rows: Rows) -> pd.DataFrame:
    """A frame of query rows, column types inferred as `pandas.read_sql_query` infers them."""
    return pd.DataFrame.from_records(rows.rows, columns=rows.columns, coerce_float=True)
