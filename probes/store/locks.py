"""Named locks the store itself holds: one scheduler per plan and vantage point on a store, whichever machine
it runs on (the lock lives where the rounds go, so it works on SQLite and on a shared PostgreSQL alike).

A lock is a row in the store (`probes.store.backend.LOCK_COLUMNS`): its name, a random token for this holder,
the holder's pid, host and what it is doing, since when it holds it and its last heartbeat. Taking it is a
read and a write in one write transaction. A held lock whose holder is gone is taken over: its heartbeat is
older than `STALE_AFTER_S` (the holder refreshes it every `HEARTBEAT_S`), or the holder ran on this host and
its process no longer exists (a `kill -9` and a restart: the restart takes over at once). How a backend keeps
the row, and what PostgreSQL adds (advisory locks), is in `probes.store.backend`.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass

from probes.errors import LockHeldError
from probes.i18n import N_, _
from probes.store.backend import Backend
from probes.timestamps import iso_utc, now_us

HEARTBEAT_S = 30.0
STALE_AFTER_S = 120.0


@dataclass(frozen=True, slots=True)
class LockHolder:
    """Who holds a lock: pid and host, what it is doing, since when (UTC µs), its last heartbeat."""

    name: str
    token: str
    pid: int | None
    host: str | None
    what: str | None
    since_us: int
    heartbeat_us: int

    def row(self) -> tuple[object, ...]:
        return (self.name, self.token, self.pid, self.host, self.what, self.since_us, self.heartbeat_us)

    def describe(self) -> str:
        """One line for a person: process, host, since when, last heartbeat."""
        return _("process {pid} on {host} since {since} (last heartbeat {heartbeat})").format(
            pid=self.pid if self.pid is not None else "?",
            host=self.host or "?",
            since=iso_utc(self.since_us),
            heartbeat=iso_utc(self.heartbeat_us),
        )


class StoreLock:
    """A named lock in a store, for this process. `take` raises LockHeldError (with the holder) when someone
    else holds it; `refresh` renews the heartbeat (False: the lock was taken over meanwhile); `release`."""

    def __init__(
        self, backend: Backend, name: str, what: str, *, stale_after_s: float = STALE_AFTER_S
    ) -> None:
        self.backend = backend
        self.name = name
        self.what = what
        self.stale_after_s = stale_after_s
        self.token = uuid.uuid4().hex
        self.held = False

    def take(self) -> LockHolder:
        """Take the lock (or take it over from a holder that is gone); this holder's row."""
        now = now_us()
        mine = LockHolder(self.name, self.token, os.getpid(), socket.gethostname(), self.what, now, now)
        with self.backend.transaction(N_("could not take the lock")):
            row = self.backend.lock_row(self.name)
            current = None if row is None else LockHolder(*row)
            if current is not None and current.token != self.token and not self._gone(current, now):
                raise LockHeldError(
                    _("{store}: the lock {name} is held by {holder}").format(
                        store=self.backend.path, name=self.name, holder=current.describe()
                    ),
                    current,
                )
            self.backend.put_lock(mine.row())
        self.held = True
        return mine

    def refresh(self) -> bool:
        """Renew the heartbeat; False when another process holds the lock now."""
        with self.backend.transaction(N_("could not renew the lock")):
            row = self.backend.lock_row(self.name)
            if row is None or row[1] != self.token:
                self.held = False
                return False
            self.backend.put_lock((*row[:6], now_us()))
        return True

    def release(self) -> None:
        if self.held:
            with self.backend.transaction(N_("could not release the lock")):
                self.backend.delete_lock(self.name, self.token)
            self.held = False

    def _gone(self, holder: LockHolder, now: int) -> bool:
        if now - holder.heartbeat_us > self.stale_after_s * 1_000_000:
            return True
        return holder.host == socket.gethostname() and holder.pid is not None and not _alive(holder.pid)


def _alive(pid: int) -> bool:
    """Whether a process with this pid exists on this host (where that cannot be asked: assume it does)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
