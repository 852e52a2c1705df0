"""The SQL text both backends share (plain SQL SQLite and PostgreSQL read alike): the selects of results and
traces with their labels, the rollup tables per length, the tables counted. Placeholders differ (`?` and
`%s`), so what takes parameters stays in each backend; see `probes.store.postgres.schema` for the DDL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from probes.store.rollup import HOUR_S, PART_COLUMNS, QUARTER_S

COUNTED_TABLES = ("targets", "rounds", "results", "samples", "hourly", "quarter_hourly")
# Each rollup length's table and the name of its start column there.
ROLLUP_TABLES = {HOUR_S: ("hourly", "hour_s"), QUARTER_S: ("quarter_hourly", "start_s")}
TARGET_FIELDS = "id, key, name, method, host, port, url, provider, region, line_type"
SELECT_RESULTS = (
    "SELECT r.id AS result_id, r.round_id, r.target_id, t.name, t.method, t.host, t.port, t.url,"
    " t.provider, t.region, t.line_type, r.started_us, r.finished_us, r.sent, r.received, r.loss,"
    " r.rtt_min_ms, r.rtt_median_ms, r.rtt_mean_ms, r.rtt_p95_ms, r.rtt_max_ms, r.jitter_ms,"
    " r.throughput_mbps, r.bytes, r.seconds, r.ttfb_ms, r.error, r.message, r.metrics_json,"
    " ro.vantage, ro.plan, ro.peak"
    " FROM results r JOIN targets t ON t.id = r.target_id JOIN rounds ro ON ro.id = r.round_id"
)
SELECT_TRACES = (
    "SELECT tr.result_id, tr.target_id, t.name, t.host, t.provider, t.region, t.line_type,"
    " tr.started_us, tr.address, tr.protocol, tr.reached, tr.route_class, tr.route_rule, tr.route_evidence,"
    " tr.route_doubts_json, ro.vantage FROM traces tr JOIN targets t ON t.id = tr.target_id"
    " JOIN results r ON r.id = tr.result_id JOIN rounds ro ON ro.id = r.round_id"
)


def rollup_table(period_s: int) -> tuple[str, str]:
    try:
        return ROLLUP_TABLES[period_s]
    except KeyError:
        raise ValueError(f"the store keeps no rollups of {period_s} s") from None


def rollup_select(period_s: int) -> tuple[str, str]:
    """(SELECT … FROM table, the start column) for a rollup length; the start comes back as `start_s`."""
    table, start = rollup_table(period_s)
    columns = ", ".join(("target_id", f"{start} AS start_s", *PART_COLUMNS, "hist_index", "hist_count"))
    return f"SELECT {columns} FROM {table}", start


def kept(new: Any, old: Any) -> Any:
    """A stored target's field after an update: the new value, or the old where the new one has none."""
    return old if new is None else new


def where_sql(clauses: Sequence[str]) -> str:
    """` WHERE a AND b` of the clauses, or nothing."""
    return (" WHERE " + " AND ".join(clauses)) if clauses else ""


def label_filter(labels: dict[str, str | None], placeholder: str) -> tuple[list[str], list[Any]]:
    """`column = ?` per label given (None: any), with its parameters; `placeholder` is the backend's."""
    clauses = [f"{column} = {placeholder}" for column, value in labels.items() if value is not None]
    params = [value for value in labels.values() if value is not None]
    return clauses, params
