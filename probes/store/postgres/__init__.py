"""The PostgreSQL backend (`--db postgresql://…`): `schema.py` (SQLite's migrations in PostgreSQL's words, one
table of differences), `connecting.py` (connecting, migrating, checking the schema, translating psycopg's
errors), `backend.py` (connections, transactions, the write path's statements; writers take turns under an
advisory lock), `dialect.py` (how PostgreSQL says the read path's queries), `alerts.py` (the alert tables'
statements)."""

from probes.store.postgres.backend import PostgresBackend

__all__ = ["PostgresBackend"]
