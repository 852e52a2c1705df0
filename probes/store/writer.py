"""A running scheduler's writer threads: everything it asks of its store happens off the event loop, so
SQLite's busy wait (another process holding a write transaction) never stops probing, and a measured round
is kept safe at once, whatever the store does.

Each finished round goes first to the spool (`probes.store.sqlite.spool`, its own small file, written by
its own thread: a few milliseconds), then the store thread forwards the rounds that waited in the spool
before it (`probes.store.delivery`), stores this one from memory (never parsing its JSON back) and takes it
out of the spool. So a round is durable from the moment it is measured: a kill
at any moment loses at most the round being measured, and a store that is locked, full or read-only for
hours only lets the spool grow. When the spool itself cannot be written (its disk full too), the round goes
to the store directly and is lost only if the store refuses it as well, which is counted.

After the store refused, it is tried again at the next round but at most every `retry_s` seconds. `ready`
holds rounds back in the spool until its owner says the store may have them (a scheduler whose store was
unreachable at start takes the plan's lock first). The
lock's heartbeat and the scheduler's reads at start go through the store thread, the only one that uses the
store's connection while the scheduler runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from probes.errors import StoreError
from probes.i18n import _
from probes.results import Outcome
from probes.store.delivery import Delivered, Delivery
from probes.store.measured import MeasuredRound
from probes.store.writing import WriteStatus

T = TypeVar("T")
log = logging.getLogger("linkvet.store")

RETRY_S = 30.0
_OUTCOME = {
    WriteStatus.STORED: Outcome.STORED,
    WriteStatus.ALREADY_STORED: Outcome.STORED,  # the store had it already (an earlier try, another writer)
    WriteStatus.SLOT_TAKEN: Outcome.SLOT_TAKEN,
}


class StoreWriter:
    """The store thread and the spool thread of one store (see the module docstring)."""

    def __init__(
        self,
        delivery: Delivery,
        *,
        retry_s: float = RETRY_S,
        ready: Callable[[], None] | None = None,
    ) -> None:
        self.delivery = delivery
        self.retry_s = retry_s
        # Called in the store thread before the store is used for rounds; raising StoreError keeps them in
        # the spool (the scheduler's: the plan's lock is not taken yet).
        self.ready = ready
        self.lost = 0
        self.stored_directly = 0
        self._retry_at = 0.0
        self._last_refusal: str | None = None
        self._spool_failing = False
        self._store_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="linkvet-store")
        self._spool_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="linkvet-spool")

    @property
    def resting(self) -> bool:
        """The store refused a moment ago (within `retry_s`): it is not asked again before then."""
        return time.monotonic() < self._retry_at

    @property
    def stored(self) -> int:
        """Rounds this writer put into the store (forwarded from the spool or written directly)."""
        return self.delivery.forwarded + self.stored_directly

    async def call(self, function: Callable[..., T], *args: object) -> T:
        """Run `function(*args)` in the store thread, after what is queued before it."""
        return await asyncio.get_running_loop().run_in_executor(self._store_thread, function, *args)

    def submit(self, function: Callable[[], object]) -> None:
        """Run `function()` in the store thread after what is queued before it, without waiting for it (what
        it raises is its own to handle: it is logged)."""

        def run() -> None:
            try:
                function()
            except Exception:
                log.exception(_("a task of the store thread failed"))

        self._store_thread.submit(run)

    async def deliver(self, measured: MeasuredRound) -> Delivered:
        """Keep the round in the spool at once, then have the store thread store it."""
        loop = asyncio.get_running_loop()
        spool_error = await loop.run_in_executor(self._spool_thread, self._spool, measured)
        return await self.call(self._store, measured, spool_error)

    def _spool(self, measured: MeasuredRound) -> str | None:
        try:
            self.delivery.spool.put(self.delivery.store.identity, measured)
        except StoreError as exc:
            if not self._spool_failing:  # said once per stretch of failures
                log.warning(
                    _("the spool cannot keep rounds ({reason}): they go to the store directly").format(
                        reason=exc
                    )
                )
            self._spool_failing = True
            return str(exc)
        self._spool_failing = False
        return None

    def _store(self, measured: MeasuredRound, spool_error: str | None) -> Delivered:
        spooled = spool_error is None
        if spooled and time.monotonic() < self._retry_at:
            return Delivered(Outcome.SPOOLED, None, self._last_refusal)
        try:
            if self.ready is not None:
                self.ready()
            # The rounds waiting before this one, oldest first; this one from memory, not read back from
            # the spool's JSON (the spool forgets it once stored).
            self.delivery.forward(besides=measured.uid)
            written = self.delivery.store.write_round(measured)
        except StoreError as exc:
            self._retry_at = time.monotonic() + self.retry_s
            self._last_refusal = str(exc)
            if spooled:
                return Delivered(Outcome.SPOOLED, None, str(exc))
            self.lost += 1
            return Delivered(Outcome.LOST, None, f"{exc}; {spool_error}")
        self._retry_at = 0.0
        if written.status is WriteStatus.STORED:
            self.stored_directly += 1
        if spooled:
            self._forget(measured.uid)
        return Delivered(_OUTCOME[written.status], written.round_id)

    def _forget(self, uid: str) -> None:
        # It is in the store; if the spool refuses now, the next forward removes it (stored once, by its uid).
        with contextlib.suppress(StoreError):
            self.delivery.spool.remove(uid)

    async def forward_if_due(self) -> int:
        """Forward the spool now unless the store refused a moment ago; rounds forwarded (0 on refusal)."""
        return await self.call(self._forward_if_due)

    def _forward_if_due(self) -> int:
        if time.monotonic() < self._retry_at:
            return 0
        try:
            if self.ready is not None:
                self.ready()
            return self.delivery.forward()
        except StoreError:
            self._retry_at = time.monotonic() + self.retry_s
            return 0

    async def forward_now(self) -> int:
        """Forward the spool now, even if the store refused a moment ago (it has just answered)."""
        return await self.call(self._forward_now)

    def _forward_now(self) -> int:
        self._retry_at = 0.0
        return self._forward_if_due()

    def close(self) -> None:
        """Finish what is queued and stop the threads."""
        self._spool_thread.shutdown(wait=True)
        self._store_thread.shutdown(wait=True)
