"""The SQLite backend of the result store: `schema` (the migrations), `backend` (the connection, the write
path's statements), `dialect` (how SQLite says the read path's queries), `alerts` (the alert tables'),
`opening` (checks, migrations, error translation), `spool` (the rounds waiting for a store)."""

from probes.store.sqlite.backend import SqliteBackend
from probes.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SqliteBackend"]
