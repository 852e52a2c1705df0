"""The SQL text both backends share (plain SQL SQLite and PostgreSQL read alike): the selects of results and
traces with their series' labels, the rollup tables per length, the tables counted. Written with `?`
placeholders (PostgreSQL's: `probes.store.postgres.schema.qmark`); see `probes.store.postgres.schema` for
the DDL."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

from probes.store.rollup import HOUR_S, PART_COLUMNS, QUARTER_S

COUNTED_TABLES = ("series", "rounds", "results", "samples", "hourly", "quarter_hourly")
# Each rollup length's table and the name of its start column there.
ROLLUP_TABLES = {HOUR_S: ("hourly", "hour_s"), QUARTER_S: ("quarter_hourly", "start_s")}
SERIES_FIELDS = (
    "id",
    "key",
    "name",
    "method",
    "host",
    "port",
    "url",
    "provider",
    "region",
    "line_type",
    "vantage",
)
SELECT_SERIES = f"SELECT {', '.join(SERIES_FIELDS)} FROM series"
# The columns of a series' identity (its unique index, where labels none and empty are alike).
SERIES_IDENTITY = "key, name, provider, region, line_type, vantage"
SELECT_RESULTS = (
    "SELECT r.id AS result_id, r.round_id, r.series_id, t.key, t.name, t.method, t.host, t.port, t.url,"
    " t.provider, t.region, t.line_type, r.started_us, r.finished_us, r.sent, r.received, r.loss,"
    " r.rtt_min_ms, r.rtt_median_ms, r.rtt_mean_ms, r.rtt_p95_ms, r.rtt_max_ms, r.jitter_ms,"
    " r.throughput_mbps, r.bytes, r.seconds, r.ttfb_ms, r.error, r.message, r.metrics_json,"
    " t.vantage, ro.plan, ro.peak"
    " FROM results r JOIN series t ON t.id = r.series_id JOIN rounds ro ON ro.id = r.round_id"
)
# Samples are stored in run order and found through their runs (results): a run's samples lie within the
# store's sample reach (`store_facts`) of its start. The runs come first (CROSS JOIN keeps SQLite's planner
# to that order: the results' index on their start, then each run's samples); `sample_window` joins them.
SELECT_SAMPLES = (
    "SELECT s.series_id, s.ts_us, s.seq, s.rtt_ms, s.error, s.result_id, s.phase"
    " FROM results r CROSS JOIN samples s"
)
COUNT_SAMPLES = "SELECT s.series_id, count(*), count(s.rtt_ms) FROM results r CROSS JOIN samples s"
SELECT_SAMPLE_REACH = "SELECT value FROM store_facts WHERE name = 'sample_reach_us'"
# A batch of whole rounds as the write path takes them (`probes.store.copying`): the rounds with ids in
# (?, ?], their results with their targets (a series row without its vantage point, which is the round's),
# samples, traces and the traces' probes, in the order written.
ROUND_ID_AFTER = "SELECT id FROM rounds WHERE id > ? ORDER BY id LIMIT ?"
COPY_ROUNDS = (
    "SELECT id, started_us, finished_us, source, plan, vantage, peak, tool_version, meta_json, uid, slot_us"
    " FROM rounds WHERE id > ? AND id <= ? ORDER BY id"
)
COPY_RESULTS = (
    "SELECT r.round_id, r.id, t.key, t.name, t.method, t.host, t.port, t.url, t.provider, t.region, t.line_type,"
    " r.started_us, r.finished_us, r.sent, r.received, r.loss, r.rtt_min_ms, r.rtt_median_ms, r.rtt_mean_ms,"
    " r.rtt_p95_ms, r.rtt_max_ms, r.jitter_ms, r.throughput_mbps, r.bytes, r.seconds, r.ttfb_ms, r.error,"
    " r.message, r.metrics_json FROM results r JOIN series t ON t.id = r.series_id"
    " WHERE r.round_id > ? AND r.round_id <= ? ORDER BY r.round_id, r.id"
)
COPY_SAMPLES = (
    "SELECT s.result_id, s.ts_us, s.seq, s.rtt_ms, s.error, s.phase FROM results r CROSS JOIN samples s"
    " WHERE s.result_id = r.id AND r.round_id > ? AND r.round_id <= ? ORDER BY s.result_id, s.seq, s.ts_us"
)
COPY_TRACES = (
    "SELECT tr.result_id, tr.started_us, tr.address, tr.protocol, tr.port, tr.probes_per_hop, tr.max_hops,"
    " tr.privileged, tr.reached, tr.route_class, tr.route_rule, tr.route_evidence, tr.route_doubts_json"
    " FROM results r JOIN traces tr ON tr.result_id = r.id WHERE r.round_id > ? AND r.round_id <= ?"
    " ORDER BY tr.result_id"
)
COPY_TRACE_REPLIES = (
    "SELECT q.result_id, q.ttl, q.probe, q.sent_us, q.kind, q.address, q.rtt_ms, q.error, q.asn, q.prefix"
    " FROM results r JOIN trace_replies q ON q.result_id = r.id WHERE r.round_id > ? AND r.round_id <= ?"
    " ORDER BY q.result_id, q.ttl, q.probe"
)
COPY_QUERIES = (COPY_ROUNDS, COPY_RESULTS, COPY_SAMPLES, COPY_TRACES, COPY_TRACE_REPLIES)
SELECT_TRACES = (
    "SELECT tr.result_id, tr.series_id, t.name, t.host, t.provider, t.region, t.line_type,"
    " tr.started_us, tr.address, tr.protocol, tr.reached, tr.route_class, tr.route_rule, tr.route_evidence,"
    " tr.route_doubts_json, t.vantage FROM traces tr JOIN series t ON t.id = tr.series_id"
)


def series_identity(row: Sequence[Any], *, full: bool = False) -> tuple[Any, ...]:
    """A series' identity from a row of `SERIES_IDENTITY`'s columns (`full`: a `SERIES_COLUMNS` row): key,
    name, labels (empty as none) and vantage point."""
    if full:
        row = (row[0], row[1], row[6], row[7], row[8], row[9])
    key, name, provider, region, line_type, vantage = row
    return (key, name, provider or None, region or None, line_type or None, vantage)


def rollup_table(period_s: int) -> tuple[str, str]:
    try:
        return ROLLUP_TABLES[period_s]
    except KeyError:
        raise ValueError(f"the store keeps no rollups of {period_s} s") from None


def rollup_select(period_s: int) -> tuple[str, str]:
    """(SELECT … FROM table, the start column) for a rollup length; the start comes back as `start_s`."""
    table, start = rollup_table(period_s)
    columns = ", ".join(("series_id", f"{start} AS start_s", *PART_COLUMNS, "hist_index", "hist_count"))
    return f"SELECT {columns} FROM {table}", start


def where_sql(clauses: Sequence[str]) -> str:
    """` WHERE a AND b` of the clauses, or nothing."""
    return (" WHERE " + " AND ".join(clauses)) if clauses else ""


def label_filter(labels: dict[str, str | None], table: str = "") -> tuple[list[str], list[Any]]:
    """`column = ?` per label given (None: any), with its parameters (columns of `table`, when named)."""
    prefix = f"{table}." if table else ""
    clauses = [f"{prefix}{column} = ?" for column, value in labels.items() if value is not None]
    params = [value for value in labels.values() if value is not None]
    return clauses, params


def widen_sample_reach_sql(placeholder: str) -> str:
    """The statement that raises the stored sample reach to a round's (never lowers it). It only updates the
    row migration 8 made: a store without it (rows copied in from elsewhere) keeps having none, and its
    readers keep looking at every run."""
    return (
        f"UPDATE store_facts SET value = {placeholder}"
        f" WHERE name = 'sample_reach_us' AND value < {placeholder}"
    )


def sample_window(
    since_us: int | None, until_us: int | None, reach_us: int | None
) -> tuple[list[str], list[Any]]:
    """Clauses (on `results r CROSS JOIN samples s`) for the samples sent in [since_us, until_us): each run's
    samples, of the runs started within the sample reach of the window (so the index on the results' start
    finds them), then the samples' own times. With no reach known (None), every run is looked at."""
    clauses: list[str] = ["s.result_id = r.id"]
    params: list[Any] = []
    if since_us is not None:
        if reach_us is not None:
            clauses.append("r.started_us >= ?")
            params.append(since_us - reach_us)
        clauses.append("s.ts_us >= ?")
        params.append(since_us)
    if until_us is not None:
        if reach_us is not None:
            clauses.append("r.started_us < ?")
            params.append(until_us + reach_us)
        clauses.append("s.ts_us < ?")
        params.append(until_us)
    return clauses, params


def sample_reach(row: Sequence[Any] | None) -> int | None:
    """The stored sample reach from `SELECT_SAMPLE_REACH`'s row; None when the store has none (its rows
    copied in from elsewhere without it, say): readers then look at every run rather than miss a sample."""
    return None if row is None or row[0] is None else max(0, int(row[0]))


def round_batch(
    fetch: Callable[[str, Sequence[Any]], list[tuple[Any, ...]]],
    after_id: int,
    limit: int,
    wanted: Callable[[list[tuple[Any, ...]]], Collection[int]] | None = None,
) -> tuple[list[tuple[Any, ...]], ...]:
    """Up to `limit` whole rounds with ids above `after_id`, each of `COPY_QUERIES` run through `fetch` (a
    backend's: `?` SQL and parameters → rows); empty lists past the last round. With `wanted` (given the
    batch's round rows, the ids of those to read whole), the other rounds come back as their round rows
    only: nothing of their results, samples or traces is read."""
    ids = fetch(ROUND_ID_AFTER, (after_id, limit))
    if not ids:
        return tuple([] for _query in COPY_QUERIES)
    bounds = (after_id, int(ids[-1][0]))
    rounds = fetch(COPY_ROUNDS, bounds)
    chosen = {int(row[0]) for row in rounds} if wanted is None else set(wanted(rounds))
    parts: list[list[tuple[Any, ...]]] = [[] for _query in COPY_QUERIES[1:]]
    for low, high in _runs([int(row[0]) for row in rounds], chosen):
        for part, query in zip(parts, COPY_QUERIES[1:], strict=True):
            part.extend(fetch(query, (low, high)))
    return (rounds, *parts)


def _runs(ids: list[int], chosen: set[int]) -> Iterator[tuple[int, int]]:
    """The `(after, up to]` id bounds of each run of consecutive chosen ids in `ids` (ascending)."""
    start: int | None = None
    previous = ids[0] - 1 if ids else 0
    for round_id in ids:
        if round_id in chosen and start is None:
            start = previous
        elif round_id not in chosen and start is not None:
            yield start, previous
            start = None
        previous = round_id
    if start is not None:
        yield start, previous
