"""The result store: raw samples are facts, rollups are derived from them in the same transaction.

One SQLite file in WAL mode by default (the GUI reads while the scheduler writes), or a PostgreSQL database
that several offices' agents share (`--db postgresql://…`; where a store is: `probes.store_location`). Every
round is written in one transaction, so a kill at any moment loses at most the round in flight; a round the
store refuses waits in the spool. Times are UTC: `*_us` columns are microseconds since the epoch, `hour_s` /
`start_s` seconds at the start of the period. The schema version is the file's `PRAGMA user_version`
(PostgreSQL: the row of `store_version`); older stores are migrated on open, newer ones refused
(`SchemaVersionError`).

What is measured is kept by series (`StoredSeries`): what was measured (a target's method and address, its
`Target.key`), under which labels (name, provider, region, line type) and from which vantage point
(`THIS_MACHINE` for rounds that named none). A series is never rewritten: a round with other labels, or
from another office, adds to another series; results, samples, traces and rollups are keyed by series, so
every reading carries the labels and vantage point it was measured with, and one office's rollups are its
own.

`Store`'s public methods (store.py)
    Store(path | URL, readonly=False, connect_now=True), close(), with-block; identity, schema_version
    write_round(MeasuredRound) -> Written       the one way in (rounds from `measured_round`,
                                                `measured_results`, the spool's `from_json`, a merge)
    rebuild_rollups() -> int
    series(provider=, region=, line_type=, method=, vantage=) -> [StoredSeries]
    find_series(text) -> [StoredSeries]         by name, host, URL or key (every label's, every office's)
    vantages(since_us=, until_us=) -> [str]     named ones by name, then THIS_MACHINE
    series_histories(method=, since_us=, until_us=) -> [SeriesHistory]
    rounds(since_us=, plan=, limit=) -> [RoundInfo]; last_measured_us(key, vantage=); timed_by(...)
    results_frame / samples_frame / rollup_frame(period_s, …) / hourly_frame (series_ids, since_us, until_us)
    rollups(period_s, series_ids, since_us, until_us) -> Rollups; rollup_span(period_s)
    traces(provider=, region=, line_type=, vantage=, series_ids=, since_us=, until_us=) -> [StoredTrace]
    counts() -> {table: rows}
    evaluations() -> [EvaluationDocument]; evaluation(name) -> EvaluationDocument | None
    put_evaluation(name, body, format=, updated_by=, updated_us=) -> EvaluationDocument   (replaces)
    delete_evaluation(name) -> bool             (no measurement is touched)
    put_agent(AgentHealth) (upsert by vantage and evaluation_or_plan); agents(vantage=, evaluation_or_plan=)
    add_vendor_facts([VendorFact]) -> [id]; vendor_facts(provider=, after_id=); last_vendor_fact_id()

Where things are
    store.py      `Store`: open a store, write rounds, read series, records, frames and rollups (the only
                  class most callers need)
    records.py    row types read back (`StoredSeries`, `StoredTrace`, `SeriesHistory`, `RoundInfo`) and the
                  rows written, in each table's column order; a round's series rows (`series_row`)
    measured.py   `MeasuredRound`: a finished round as the rows it becomes, with its stable id and slot,
                  and its JSON form (what the spool keeps: each result's target row, labels included);
                  `run_metadata`
    writing.py    the write path: a round in one transaction (unless its uid or slot is stored already),
                  its series found or added, rollups merged, rollups rebuilt
    recent.py     what a writer wrote last, reused while nobody else writes the store
    rollup.py     the rollup maths: samples → additive parts per series and period (hour, quarter hour),
                  parts merged, the stored form (NumPy, no SQL); `sample_parts`, the one formula
    reading.py    the read path: backend rows → records, typed pandas frames and decoded rollups
    reading_sql.py  the read path's queries, written once for both backends; `Dialect`: what SQLite and
                  PostgreSQL say differently (placeholders, lists of ids, NULL-safe comparison, JSON fields,
                  NULL order, the driver's errors), one small table per backend
    alerts.py     the alert tables: each alert's state and the notifications waiting (`AlertLedger`)
    documents.py  evaluation documents by name (`EvaluationDocument`: a versioned TOML body, not parsed
                  here) and the office agents' health (`AgentHealth`); their SQL, once for both backends
    vendor_facts.py  the team's vendor facts, one record per change with office, who and when
                  (`VendorFact`; a body the catalogs read, not parsed here); their SQL, once for both backends
    delivery.py   rounds into the store, through the spool when it refuses them; forwarding the spool
    writer.py     a running scheduler's writer threads (spool first, then the store, off the event loop)
    locks.py      named locks the store holds (one scheduler per plan and vantage point)
    backend.py    `Backend`: the interface of the one layer that speaks SQL (and how PostgreSQL keeps locks)
    sqlite/       the SQLite backend: `schema.py` (tables, migrations, version), `opening.py` (checks before
                  and after opening, migrating, the translation of sqlite3's errors), `backend.py`
                  (connection, pragmas, transactions, the write path's statements), `dialect.py` (SQLite's
                  words for the read path), `alerts.py` (the alert tables' statements), `spool.py` (the
                  spool file, SQLite whatever the store is)
    postgres/     the PostgreSQL backend: `schema.py` (SQLite's migrations in PostgreSQL's words, one table of
                  differences), `connecting.py` (connecting, migrating under an advisory lock, checking the
                  schema, the translation of psycopg's errors), `backend.py` (connections, transactions, the
                  write path's statements; writers take turns under an advisory lock), `dialect.py`
                  (PostgreSQL's words for the read path), `alerts.py` (the alert tables' statements)
    statements.py the SQL text both backends read alike (the selects of series, results and traces, rollup
                  tables, a series' identity)
    copying.py    rounds read back whole, and one store merged into another

Both backends have the same schema and version; the write and read paths, the rollup maths, the spool and
the locks' policy are the same code whichever answers.
"""

from probes.store.documents import AgentHealth, EvaluationDocument
from probes.store.measured import MeasuredRound, measured_results, measured_round, run_metadata
from probes.store.records import RoundInfo, SeriesHistory, StoredSeries, StoredTrace
from probes.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from probes.store.store import UNRECORDED, Store
from probes.store.vendor_facts import VendorFact
from probes.store.writing import WriteStatus, Written
from probes.vantage import THIS_MACHINE

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "THIS_MACHINE",
    "UNRECORDED",
    "AgentHealth",
    "EvaluationDocument",
    "MeasuredRound",
    "RoundInfo",
    "SeriesHistory",
    "Store",
    "StoredSeries",
    "StoredTrace",
    "VendorFact",
    "WriteStatus",
    "Written",
    "measured_results",
    "measured_round",
    "run_metadata",
]
