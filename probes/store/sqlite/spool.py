"""The spool: a small SQLite file (`linkvet-spool.sqlite3` in the data directory) that keeps measured rounds
the store could not take (disk full, read-only, locked, damaged; in team mode, an unreachable server) until
it can. It is SQLite whatever the store is, so it works when the store does not.

One table, `spooled`: per round its uid (the round's stable id: forwarding a round twice stores it once),
the store it is meant for (`Store.identity`), when it was spooled, its samples and the round as
`probes.store.measured` JSON. The file's version is `PRAGMA user_version` (1). The file is opened on first
use (a spool that was never needed is never created) and may be used from several threads (a lock orders
them).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from probes.errors import StoreError
from probes.i18n import _
from probes.store.measured import MeasuredRound, from_json, to_json
from probes.store.sqlite import opening
from probes.timestamps import now_us

SPOOL_VERSION = 1
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS spooled (
        uid TEXT PRIMARY KEY,
        store TEXT NOT NULL,
        spooled_us INTEGER NOT NULL,
        samples INTEGER NOT NULL,
        body TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS spooled_store ON spooled (store, spooled_us)",
)


@dataclass(frozen=True, slots=True)
class Backlog:
    """The rounds a spool keeps for one store: how many, their samples, when the oldest was spooled (UTC µs)."""

    rounds: int
    samples: int
    oldest_us: int | None


class Spool:
    """The spool file at `path` (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def put(self, store: str, measured: MeasuredRound) -> None:
        """Keep a round for `store` (a round already spooled is kept once)."""
        with self._use(create=True) as db:
            db.execute(
                "INSERT OR IGNORE INTO spooled (uid, store, spooled_us, samples, body) VALUES (?, ?, ?, ?, ?)",
                (measured.uid, store, now_us(), measured.samples, to_json(measured)),
            )

    def waiting(self, store: str, *, besides: str | None = None) -> list[tuple[str, str]]:
        """(uid, JSON) of the rounds kept for `store`, oldest first; without the round `besides` names (one
        the caller stores from memory)."""
        with self._use() as db:
            if db is None:
                return []
            return [
                (str(uid), str(body))
                for uid, body in db.execute(
                    "SELECT uid, body FROM spooled WHERE store = ? AND uid IS NOT ? ORDER BY spooled_us, uid",
                    (store, besides),
                )
            ]

    def count(self, store: str) -> int:
        with self._use() as db:
            if db is None:
                return 0
            return int(db.execute("SELECT count(*) FROM spooled WHERE store = ?", (store,)).fetchone()[0])

    def backlog(self, store: str) -> Backlog:
        """What waits for `store`: rounds, their samples, when the oldest was spooled."""
        with self._use() as db:
            if db is None:
                return Backlog(0, 0, None)
            rounds, samples, oldest = db.execute(
                "SELECT count(*), coalesce(sum(samples), 0), min(spooled_us) FROM spooled WHERE store = ?",
                (store,),
            ).fetchone()
            return Backlog(int(rounds), int(samples), None if oldest is None else int(oldest))

    def last_started(self, store: str, keys: set[str]) -> dict[str, int]:
        """When each of these targets was last measured (UTC µs) by a round the spool keeps for `store`
        (a scheduler's `every` per target while its store is away); a round that cannot be read is skipped
        here (forwarding says so)."""
        found: dict[str, int] = {}
        for _uid, body in self.waiting(store):
            try:
                measured = from_json(body)
            except ValueError:
                continue
            for rows in measured.results:
                if rows.key in keys:
                    started = int(rows.result[0])  # RESULT_COLUMNS[2:]: started_us first
                    found[rows.key] = max(started, found.get(rows.key, started))
        return found

    def remove(self, uid: str) -> None:
        with self._use() as db:
            if db is not None:
                db.execute("DELETE FROM spooled WHERE uid = ?", (uid,))

    @contextmanager
    def _use(self, *, create: bool = False) -> Iterator[sqlite3.Connection]:
        """The open spool (None when there is no file yet and `create` is False), under the lock; sqlite3's
        errors become StoreError naming the spool."""
        with self._lock:
            try:
                if self._db is None and (create or self.path.exists()):
                    self._db = self._open()
                yield self._db  # type: ignore[misc]
            except sqlite3.Error as exc:
                raise StoreError(
                    _("{path}: the spool of measured rounds cannot be used: {reason}").format(
                        path=self.path, reason=exc
                    )
                ) from exc

    def _open(self) -> sqlite3.Connection:
        opening.check_file(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                _("{path}: the spool of measured rounds cannot be created: {reason}").format(
                    path=self.path, reason=exc.strerror or exc
                )
            ) from exc
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 5000")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version > SPOOL_VERSION:
                raise StoreError(
                    _("{path}: the spool was written by a newer linkvet (version {version})").format(
                        path=self.path, version=version
                    )
                )
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {SPOOL_VERSION}")
        except BaseException:
            db.close()
            raise
        return db
