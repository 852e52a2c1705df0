"""The PostgreSQL backend (`--db postgresql://…`): `schema.py` (SQLite's migrations in PostgreSQL's words, one
table of differences), `connecting.py` (connecting, migrating, checking the schema, translating psycopg's
errors), `backend.py` (every statement; writers take turns under an advisory lock)."""

from probes.store.postgres.backend import PostgresBackend

__all__ = ["PostgresBackend"]
