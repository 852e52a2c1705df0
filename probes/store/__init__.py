"""The result store: raw samples are facts, rollups are derived from them in the same transaction.

One SQLite file in WAL mode by default (the GUI reads while the scheduler writes). Every round is written in
one transaction, so a kill at any moment loses at most the round in flight. Times are UTC: `*_us` columns are
microseconds since the epoch, `hour_s` seconds at the start of the hour. The schema version is the file's
`PRAGMA user_version`; older files are migrated on open, newer ones refused (`SchemaVersionError`).

Where things are
    store.py      `Store`: open a store, save rounds, read records and frames (the only class callers need)
    records.py    row types read back (`StoredTarget`, `StoredTrace`, `RoundInfo`) and the rows written,
                  in each table's column order
    writing.py    the write path: a round in one transaction, rollups merged, rollups rebuilt; `run_metadata`
    rollup.py     the rollup maths: samples → per target and hour deltas, deltas merged (NumPy, no SQL)
    alerts.py     the alert tables: each alert's state and the notifications waiting (`AlertLedger`)
    reading.py    the read path: backend rows → records and typed pandas frames
    backend.py    `Backend`: the interface of the one layer that speaks SQL
    sqlite/       the SQLite backend: `schema.py` (tables, migrations, version), `backend.py` (connection,
                  pragmas, transactions, every statement), `alerts.py` (the alert tables' statements)

A second database (PostgreSQL) is a second `Backend` beside `sqlite/` with the same schema version; the
write and read paths and the rollup maths stay as they are.
"""

from probes.store.records import RoundInfo, StoredTarget, StoredTrace, TargetHistory
from probes.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from probes.store.store import Store
from probes.store.writing import run_metadata

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "RoundInfo",
    "Store",
    "StoredTarget",
    "StoredTrace",
    "TargetHistory",
    "run_metadata",
]
