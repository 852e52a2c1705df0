"""Opening an SQLite store safely: is the file a database at all, whole, of a schema this linkvet knows and
complete; migrating an older one; and the one translation of sqlite3's errors into the store's.

The checks before connecting cost a stat and a 100-byte read: a path that is not a regular file (a folder, a
FIFO that would block, a device) is refused as any input is; a file that does not start with SQLite's header
is not a store; a file shorter than its header says (and no write-ahead log that recovery would replay) is
truncated. After migrating, every table, column
and index the migrations make must be there (compared with the schema the migrations build in memory).
`PRAGMA quick_check` and a check that every value has its column's type read every page, so they run only on
stores up to `QUICK_CHECK_MAX_BYTES` (tens of milliseconds); larger stores report damaged pages and rows when
a query reaches them (as `DamagedStoreError` too: the read path checks the types of what it reads).
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from probes._version import __version__
from probes.errors import DamagedStoreError, SchemaVersionError, StoreError
from probes.files import inputfile
from probes.i18n import _
from probes.store.sqlite.schema import MIGRATIONS, REBUILD_ROLLUPS, SCHEMA_VERSION

log = logging.getLogger("linkvet.store")

SQLITE_HEADER = b"SQLite format 3\x00"
QUICK_CHECK_MAX_BYTES = 16 * 1024 * 1024
_DAMAGE_WORDS = ("malformed", "not a database", "no such table", "no such column", "corrupt")


def check_file(path: Path) -> None:
    """Refuse what cannot be a store before SQLite opens it (a missing file is a new store). A FIFO or a
    device would block SQLite's first read forever, a folder is no file: they are refused as every input
    linkvet opens is (`probes.files.inputfile.check_regular`: "is a named pipe (FIFO), not a regular file …")."""
    inputfile.check_regular(path, lambda message, _line: StoreError(f"{path}: {message}"))
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(
            _("{path}: cannot read the result store: {reason}").format(path=path, reason=exc.strerror or exc)
        ) from exc
    if info.st_size == 0:
        return  # an empty file is an empty database to SQLite
    try:
        with path.open("rb") as file:
            header = file.read(100)
    except OSError as exc:
        raise StoreError(
            _("{path}: cannot read the result store: {reason}").format(path=path, reason=exc.strerror or exc)
        ) from exc
    if not header.startswith(SQLITE_HEADER):
        raise DamagedStoreError(path, _("it is not an SQLite database"))
    if len(header) < 100:
        raise DamagedStoreError(path, _("the file is truncated ({size} bytes)").format(size=info.st_size))
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    size_valid = header[24:28] == header[92:96]  # the in-header size is valid for this change counter
    wal = Path(f"{path}-wal")
    replayable = wal.exists() and wal.stat().st_size > 0
    if size_valid and not replayable and info.st_size < pages * page_size:
        raise DamagedStoreError(
            path,
            _("the file is truncated ({size} bytes of {expected})").format(
                size=info.st_size, expected=pages * page_size
            ),
        )


def check_writable(path: Path) -> None:
    """Refuse a store this user cannot write (SQLite would open it read-only and fail at the first write):
    the file, and its folder (where SQLite keeps the write-ahead log next to it)."""
    for where in (path, path.parent) if path.exists() else (path.parent,):
        if not _may_write(where):
            raise StoreError(
                _(
                    "{path}: the result store cannot be written: {where} is read-only for this user (or on a "
                    "read-only file system). Make it writable, or use another --db"
                ).format(path=path, where=where)
            )


def read_only_medium(path: Path) -> bool:
    """Whether a store to be read lies where nothing can write (a read-only copy): SQLite may then read it
    without its shared-memory file (`immutable`), as long as no write-ahead log waits to be replayed."""
    wal = Path(f"{path}-wal")
    return not _may_write(path.parent) and not (wal.exists() and wal.stat().st_size > 0)


def _may_write(where: Path) -> bool:
    # With the effective ids and capabilities, as open() decides (a service user granted
    # CAP_DAC_READ_SEARCH reaches folders its real ids alone could not).
    effective = os.access in os.supports_effective_ids
    return os.access(where, os.W_OK, effective_ids=effective)


def translate(path: Path, action: str, exc: sqlite3.Error) -> StoreError:
    """The store's error for a driver error: damaged data → DamagedStoreError, anything else (no space,
    read-only, locked, I/O) → StoreError naming what could not be done. `action`: the failure as a
    message marked with `N_` ("could not read the results"), translated here."""
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and any(word in text.lower() for word in _DAMAGE_WORDS):
        return DamagedStoreError(path, text)
    return StoreError(_("{store}: {failure}: {reason}").format(store=path, failure=_(action), reason=text))


P = ParamSpec("P")
R = TypeVar("R")


def translated(
    action: str,
) -> Callable[[Callable[Concatenate[Any, P], R]], Callable[Concatenate[Any, P], R]]:
    """A backend method whose sqlite3 errors become the store's (see `translate`)."""

    def decorate(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
        def wrapper(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return method(self, *args, **kwargs)
            except sqlite3.Error as exc:
                raise translate(self.path, action, exc) from exc

        functools.update_wrapper(wrapper, method)
        return wrapper

    return decorate


def migrate(db: sqlite3.Connection, path: Path, rebuild: Callable[[], object] | None) -> None:
    """Bring the file to `SCHEMA_VERSION` inside one write transaction (another process may have done it
    meanwhile); refuse a newer one."""
    refuse_newer(db, path)
    if version_of(db) == SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        version = version_of(db)
        needs_rebuild = False
        if 0 < version < SCHEMA_VERSION:  # (version 0: a new store being created)
            log.warning(
                _("{path}: upgrading the result store from schema {old} to {new}").format(
                    path=path, old=version, new=SCHEMA_VERSION
                )
            )
        for number in range(version + 1, SCHEMA_VERSION + 1):
            for step in MIGRATIONS[number - 1]:
                if step is REBUILD_ROLLUPS:
                    needs_rebuild = True
                elif isinstance(step, str):
                    db.execute(step)
                else:
                    step(db)
            db.execute(f"PRAGMA user_version = {number}")
        if needs_rebuild and rebuild is not None and version > 0:
            log.warning(_("{path}: rebuilding the rollups from the raw samples (once)").format(path=path))
            rebuild()
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def version_of(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def refuse_newer(db: sqlite3.Connection, path: Path) -> None:
    version = version_of(db)
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            _(
                "{store} was written by a newer linkvet (store schema {version}; this linkvet {ours} knows up "
                "to {newest}). Upgrade linkvet, or use another --db."
            ).format(store=path, version=version, ours=__version__, newest=SCHEMA_VERSION)
        )


@functools.cache
def expected_schema() -> dict[str, frozenset[str]]:
    """Every table's columns and every index (as "index:NAME") the migrations make, from an empty database."""
    db = sqlite3.connect(":memory:")
    try:
        for migration in MIGRATIONS:
            for step in migration:
                if isinstance(step, str):
                    db.execute(step)
                elif step is not REBUILD_ROLLUPS:
                    step(db)
        return actual_schema(db)
    finally:
        db.close()


def actual_schema(db: sqlite3.Connection) -> dict[str, frozenset[str]]:
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    schema = {
        table: frozenset(str(r[1]) for r in db.execute(f"PRAGMA table_info({_quoted(table)})"))
        for table in tables
        if not table.startswith("sqlite_")
    }
    indexes = db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    schema["index:"] = frozenset(str(r[0]) for r in indexes)
    return schema


def check_schema(db: sqlite3.Connection, path: Path) -> None:
    """Every table, column and index of the schema is there, and on a small store every page is sound."""
    have = actual_schema(db)
    for table, columns in expected_schema().items():
        if table == "index:":
            missing = sorted(columns - have.get(table, frozenset()))
            if missing:
                raise DamagedStoreError(
                    path, _("the index {name} is missing").format(name=", ".join(missing))
                )
        elif table not in have:
            raise DamagedStoreError(path, _("the table {table} is missing").format(table=table))
        elif columns - have[table]:
            raise DamagedStoreError(
                path,
                _("the table {table} lacks the column(s) {columns}").format(
                    table=table, columns=", ".join(sorted(columns - have[table]))
                ),
            )
    try:
        size = os.path.getsize(path)
    except OSError:
        return
    if size <= QUICK_CHECK_MAX_BYTES:
        verdict = [str(r[0]) for r in db.execute("PRAGMA quick_check(5)")]
        if verdict != ["ok"]:
            raise DamagedStoreError(path, "; ".join(verdict))
        for table, column in _mistyped(db):
            raise DamagedStoreError(
                path,
                _("the table {table} holds a row whose {column} is not of its type").format(
                    table=table, column=column
                ),
            )


_ALLOWED_TYPES = {"INTEGER": ("integer",), "REAL": ("real", "integer"), "TEXT": ("text",), "BLOB": ("blob",)}


@functools.cache
def _type_checks() -> tuple[tuple[str, str, str], ...]:
    """(table, column, SQL condition true for a value not of the column's declared type), per column."""
    db = sqlite3.connect(":memory:")
    try:
        for migration in MIGRATIONS:
            for step in migration:
                if isinstance(step, str):
                    db.execute(step)
        checks = []
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for _cid, column, declared, notnull, _default, _pk in db.execute(
                f"PRAGMA table_info({_quoted(table)})"
            ):
                allowed = _ALLOWED_TYPES.get(str(declared).upper())
                if allowed is None:
                    continue
                types = ", ".join(f"'{t}'" for t in (*allowed, *(() if notnull else ("null",))))
                checks.append((table, column, f"typeof({_quoted(column)}) NOT IN ({types})"))
        return tuple(checks)
    finally:
        db.close()


def _mistyped(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """(table, column) of the first value of another type than its column's, per table (a small store only:
    every row is read)."""
    found = []
    by_table: dict[str, list[tuple[str, str]]] = {}
    for table, column, condition in _type_checks():
        by_table.setdefault(table, []).append((column, condition))
    for table, checks in by_table.items():
        cases = " ".join(f"WHEN {condition} THEN {i}" for i, (_column, condition) in enumerate(checks))
        row = db.execute(
            f"SELECT CASE {cases} END AS bad FROM {_quoted(table)} WHERE bad IS NOT NULL LIMIT 1"
        ).fetchone()
        if row is not None:
            found.append((table, checks[int(row[0])][0]))
    return found


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
