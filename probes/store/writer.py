"""A store's writer thread: everything a running scheduler asks of its store happens here, off the event loop,
so SQLite's busy wait (another process holding a write transaction) never stops probing.

Deliveries (`probes.store.delivery`: forward the spool, store the round, else spool it) run one at a time in
order. After the store refused a round, the next rounds go straight to the spool for `RETRY_S` seconds (each
try may wait the store's busy timeout); then the store is tried again, and the spool forwarded when it
takes the round. The lock's heartbeat and the scheduler's reads at start go through the same thread, which
is the only one that uses the store's connection meanwhile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from probes.errors import StoreError
from probes.store.delivery import Delivered, Delivery, Outcome
from probes.store.measured import MeasuredRound

T = TypeVar("T")

RETRY_S = 30.0


class StoreWriter:
    """The writer thread of one store and its spool (see the module docstring)."""

    def __init__(self, delivery: Delivery, *, retry_s: float = RETRY_S) -> None:
        self.delivery = delivery
        self.retry_s = retry_s
        self.lost = 0
        self._retry_at = 0.0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="linkvet-store")

    async def call(self, function: Callable[..., T], *args: object) -> T:
        """Run `function(*args)` in the writer thread, after what is queued before it."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, function, *args)

    async def deliver(self, measured: MeasuredRound) -> Delivered:
        return await self.call(self._deliver, measured)

    def _deliver(self, measured: MeasuredRound) -> Delivered:
        try_store = time.monotonic() >= self._retry_at
        delivered = self.delivery.deliver(measured, try_store=try_store)
        if delivered.outcome in (Outcome.SPOOLED, Outcome.LOST):
            if try_store:
                self._retry_at = time.monotonic() + self.retry_s
            if delivered.outcome is Outcome.LOST:
                self.lost += 1
        else:
            self._retry_at = 0.0
        return delivered

    async def forward_if_due(self) -> int:
        """Forward the spool now unless the store refused a moment ago; rounds forwarded (0 on refusal)."""
        return await self.call(self._forward_if_due)

    def _forward_if_due(self) -> int:
        if time.monotonic() < self._retry_at:
            return 0
        try:
            return self.delivery.forward()
        except StoreError:
            self._retry_at = time.monotonic() + self.retry_s
            return 0

    def close(self) -> None:
        """Finish what is queued and stop the thread."""
        self._pool.shutdown(wait=True)
