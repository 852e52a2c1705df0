"""The SQLite backend of the result store: `schema` (the migrations), `backend` (the connection and every
statement)."""

from probes.store.sqlite.backend import SqliteBackend
from probes.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SqliteBackend"]
