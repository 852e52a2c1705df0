"""Connecting to a PostgreSQL store, migrating it, checking its schema, and the one translation of psycopg's
errors into the store's.

A connection is made from the store's URL with libpq's own defaults for what the URL leaves out (the password
file `~/.pgpass` or `PGPASSFILE`, `PGHOST`, `PGUSER`, `PGSSLMODE`, …) and a connect timeout of
`CONNECT_TIMEOUT_S` unless the URL sets one. Every message names the store by its URL without the password
(`probes.store_location.StoreUrl`), and a driver's message has the password taken out too.

Migrating happens in one transaction under a transaction-level advisory lock, so agents starting at once
against a new database create its tables once; PostgreSQL's DDL is transactional, so a migration that fails
leaves the store as it was.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

import psycopg
from psycopg import errors as pg_errors

from probes._version import __version__
from probes.errors import DamagedStoreError, SchemaVersionError, StoreError, StoreUnreachableError
from probes.i18n import N_, _
from probes.store.postgres.schema import (
    MIGRATIONS,
    REBUILD_ROLLUPS,
    SCHEMA_VERSION,
    VERSION_TABLE,
    QmarkConnection,
)
from probes.store.sqlite.opening import expected_schema
from probes.store_location import StoreUrl, without_password

log = logging.getLogger("linkvet.store")

CONNECT_TIMEOUT_S = 10
WRITES_SEQUENCE = "store_writes"  # advanced by every write transaction (see PostgresBackend.generation)
_DAMAGED = (
    pg_errors.UndefinedTable,
    pg_errors.UndefinedColumn,
    pg_errors.DataCorrupted,
    pg_errors.IndexCorrupted,
)


def connect(url: StoreUrl, *, readonly: bool) -> psycopg.Connection[Any]:
    """An autocommit connection to the store (reads outside a transaction; writes in `transaction`)."""
    options: dict[str, Any] = {"autocommit": True, "application_name": "linkvet"}
    if "connect_timeout" not in url.url:
        options["connect_timeout"] = CONNECT_TIMEOUT_S
    try:
        connection = psycopg.connect(url.url, **options)
    except psycopg.Error as exc:
        error = translate(url, N_("could not connect to the result store"), exc)
        if unreachable(exc):
            raise StoreUnreachableError(str(error)) from exc
        raise error from exc
    try:
        if readonly:
            connection.execute("SET default_transaction_read_only = on")
        schema = connection.execute("SELECT current_schema()").fetchone()
    except psycopg.Error as exc:
        connection.close()
        raise translate(url, N_("could not connect to the result store"), exc) from exc
    if schema is None or schema[0] is None:
        connection.close()
        raise StoreError(
            _(
                "{store}: no schema to keep the store's tables in (the search path names none that exists); "
                "create one, or set the search path in the URL (options=-csearch_path%3DNAME)"
            ).format(store=url)
        )
    return connection


# What libpq says when the server answered a connection with a refusal (credentials, a database that does not
# exist, too many connections): the server is there. Its own "starting up" and "shutting down" are not refusals.
_ANSWERED = ("FATAL:", "fe_sendauth", "password", "does not support SSL", "certificate")
_TRANSIENT = ("the database system is starting up", "the database system is shutting down", "recovery mode")


def unreachable(exc: psycopg.Error) -> bool:
    """Whether a failed connection attempt means the server could not be reached (refused connection, no
    socket, no route, a timeout, the server starting or stopping) rather than a refusal by a server that
    answered. libpq gives no code for this (its SQLSTATE is unset either way), so its message is read."""
    if not isinstance(exc, psycopg.OperationalError):
        return False
    text = str(exc)
    if any(t in text for t in _TRANSIENT):
        return True
    return not any(a in text for a in _ANSWERED)


def translate(url: StoreUrl, action: str, exc: psycopg.Error) -> StoreError:
    """The store's error for a driver error: missing tables or columns, damaged data → DamagedStoreError;
    anything else (unreachable, refused credentials, no space, a lock wait too long) → StoreError naming
    what could not be done. Never the password."""
    text = without_password(str(exc).strip() or type(exc).__name__, url)
    if isinstance(exc, _DAMAGED):
        return DamagedStoreError(str(url), text)
    # as SQLite's (`probes.store.sqlite.opening`)
    return StoreError(_("{store}: {failure}: {reason}").format(store=url, failure=_(action), reason=text))


P = ParamSpec("P")
R = TypeVar("R")


def translated(
    action: str,
) -> Callable[[Callable[Concatenate[Any, P], R]], Callable[Concatenate[Any, P], R]]:
    """A backend method whose psycopg errors become the store's (see `translate`)."""

    def decorate(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
        def wrapper(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return method(self, *args, **kwargs)
            except psycopg.Error as exc:
                raise translate(self.url, action, exc) from exc

        functools.update_wrapper(wrapper, method)
        return wrapper

    return decorate


def version_of(connection: psycopg.Connection[Any]) -> int:
    exists = connection.execute("SELECT to_regclass(%s) IS NOT NULL", (VERSION_TABLE,)).fetchone()
    if not exists or not exists[0]:
        return 0
    row = connection.execute(f"SELECT version FROM {VERSION_TABLE}").fetchone()
    return 0 if row is None else int(row[0])


def refuse_newer(url: StoreUrl, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            _(
                "{store} was written by a newer linkvet (store schema {version}; this linkvet {ours} knows up "
                "to {newest}). Upgrade linkvet, or use another --db."
            ).format(store=url, version=version, ours=__version__, newest=SCHEMA_VERSION)
        )


def migrate(connection: psycopg.Connection[Any], url: StoreUrl, rebuild: Callable[[], object] | None) -> None:
    """Bring the store to `SCHEMA_VERSION` in one transaction under an advisory lock (another agent may
    have done it meanwhile); refuse a newer one."""
    version = version_of(connection)
    refuse_newer(url, version)
    if version == SCHEMA_VERSION:
        return
    with connection.transaction():
        connection.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('linkvet-migrate:' || current_schema(), 0))"
        )
        connection.execute(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version BIGINT NOT NULL)")
        connection.execute(f"CREATE SEQUENCE IF NOT EXISTS {WRITES_SEQUENCE}")
        version = version_of(connection)
        refuse_newer(url, version)
        if version == SCHEMA_VERSION:
            return
        if version > 0:
            log.warning(
                _("{path}: upgrading the result store from schema {old} to {new}").format(
                    path=url, old=version, new=SCHEMA_VERSION
                )
            )
        needs_rebuild = False
        steps = QmarkConnection(connection)
        for number in range(version + 1, SCHEMA_VERSION + 1):
            for step in MIGRATIONS[number - 1]:
                if step is REBUILD_ROLLUPS:
                    needs_rebuild = True
                elif isinstance(step, str):
                    connection.execute(step)  # our own DDL
                else:
                    step(steps)  # type: ignore[arg-type]  # a step written for sqlite3's execute()
        connection.execute(f"DELETE FROM {VERSION_TABLE}")
        connection.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (%s)", (SCHEMA_VERSION,))
        if needs_rebuild and rebuild is not None and version > 0:
            log.warning(_("{path}: rebuilding the rollups from the raw samples (once)").format(path=url))
            rebuild()
        connection.execute(f"SELECT nextval('{WRITES_SEQUENCE}')")


def actual_schema(connection: psycopg.Connection[Any]) -> dict[str, frozenset[str]]:
    """Every table's columns in the store's schema, and its indexes (as "index:"), in
    `probes.store.sqlite.opening.actual_schema`'s form (the version table left out: it is PRAGMA
    user_version on SQLite)."""
    schema: dict[str, set[str]] = {}
    for table, column in connection.execute(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()"
    ):
        if table != VERSION_TABLE:
            schema.setdefault(str(table), set()).add(str(column))
    indexes = connection.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
    result = {table: frozenset(columns) for table, columns in schema.items()}
    result["index:"] = frozenset(str(row[0]) for row in indexes)
    return result


def check_schema(connection: psycopg.Connection[Any], url: StoreUrl) -> None:
    """Every table, column and index the migrations make is there (PostgreSQL checks pages itself)."""
    have = actual_schema(connection)
    for table, columns in expected_schema().items():
        if table == "index:":
            missing = sorted(columns - have.get(table, frozenset()))
            if missing:
                raise DamagedStoreError(
                    str(url), _("the index {name} is missing").format(name=", ".join(missing))
                )
        elif table not in have:
            raise DamagedStoreError(str(url), _("the table {table} is missing").format(table=table))
        elif columns - have[table]:
            raise DamagedStoreError(
                str(url),
                _("the table {table} lacks the column(s) {columns}").format(
                    table=table, columns=", ".join(sorted(columns - have[table]))
                ),
            )
