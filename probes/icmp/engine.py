"""Many ICMP echoes in flight at once: one socket per address family, a sending thread on the pacer's
schedule, kernel timestamps at both ends, results handed to the event loop in batches.

    async with IcmpEngine() as engine:
        outcomes = await engine.train("198.51.100.7", socket.AF_INET, count=10, interval_s=1.0,
                                      timeout_s=2.0, pacer=pacer)          # methods/icmp.py
        outcome = await engine.send("198.51.100.7", socket.AF_INET, 2.0, ttl=5)   # traceroute: one echo now

Design (see `probes.icmp.worker` for the thread's loop). The event loop used to wake up once per paced
packet (a sleep, a timer, a future and a callback per echo, and a raw socket reading its own requests on
loopback: ~80 µs of CPU per echo, four to ten times fping's). Now a dedicated thread owns the schedule of
every echo train: it sleeps to the next send with `clock_nanosleep` (1 ns timer slack), sends, and reads
what the sockets hold with non-blocking reads until EAGAIN (the error queue for transmit stamps and ICMP
errors, then the replies) every 5 ms while it paces, at once when idle; the kernel has stamped every
packet, so reading later changes no RTT. Raw sockets pass only replies and errors to us (ICMP_FILTER). The
event loop hears of finished echoes in batches, one `call_soon_threadsafe` per batch: a train's at most
every 200 ms (at once when nothing is left in flight), a single echo's (traceroute waits for it) within a
millisecond. Pacing is the run's `Pacer`,
shared with the event loop's methods: packets to different targets leave at least `gap` apart (measured
from the end of the previous send, so a late wake-up pushes the next packet back instead of crowding it),
each train's attempts at least `interval` apart. A fault in the thread fails every waiting echo.

Timing. RTT = the kernel's receive stamp of the reply (SO_TIMESTAMPNS) − the kernel's transmit stamp of the
request (SO_TIMESTAMPING, software, matched by its OPT_ID key): both taken inside the kernel, so neither a
busy CPU nor a late wake-up of this process counts, and the two stamps are on one clock. The difference is
checked against the monotonic time between our send and our read (it cannot be longer): a wall-clock step in
between falls back to the monotonic clock. Where the kernel gives no transmit stamp, the send is timed in
user space (`kernel-rx`); without a receive stamp too, both are (`user`). Each outcome says which.

Loss. An echo is answered when a reply came within the timeout by the kernel's clock; one that came later is
lost (`ErrorKind.LATE`, its time kept in `answered_ms`); one with no answer by the deadline, read once more
just after it, is lost (`TIMEOUT`). An echo this machine could not send (no route, bad scope id: the error
sendto returns) is `SEND_FAILED`, an error of this machine, not loss on the line.

Platforms. The socket set-up and the way replies carry their stamps are the probe backend's
(`IcmpSocketStyle`, from `probes.backends`): Linux's is the one above (the default); the portable one asks
for no kernel stamps and times both ends in user space, reading the moment a reply arrives; macOS's takes
the kernel's receive stamps (SO_TIMESTAMP, µs). Windows has an engine of its own (`probes.backends.windows`).

Compiled. With Linux's style, where `_linkvet_icmp` is built (`probes.icmp.native`), the thread is
`probes.icmp.compiled.CompiledWorker`: the same loop and rules with the whole per-packet path in C, without
the GIL, waking Python only to hand finished echoes over (at fping's rate the Python thread costs about twice
the CPU). Elsewhere, and with LINKVET_PURE_PYTHON set, `probes.icmp.worker.Worker`.

Matching. Replies are matched by (address, sequence) and, on raw sockets, a random identifier per socket and
a token per engine in the payload (`probes.icmp.wire`); raw sockets pass only replies and errors to us
(ICMP_FILTER). ICMP errors reach an unprivileged socket on its error queue (`probes.sockets`).
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from probes.icmp import native
from probes.icmp.compiled import CompiledWorker
from probes.icmp.echoes import EchoOutcome, Finished, Train
from probes.icmp.socket import (
    LINUX_STYLE,
    FamilySocket,
    IcmpSocketStyle,
    icmp_permission_help,
    open_icmp_socket,
)
from probes.pacing import Pacer

if TYPE_CHECKING:
    from probes.icmp.worker import Worker

__all__ = ["EchoOutcome", "IcmpEngine", "icmp_permission_help", "open_icmp_socket"]

OutcomeHook = Callable[[int, EchoOutcome], None]


class _TrainWaiter:
    """The event loop's side of one train: its future, the outcomes so far, the per-echo hook."""

    __slots__ = ("future", "hook", "outcomes", "remaining")

    def __init__(self, future: asyncio.Future[list[EchoOutcome]], count: int, hook: OutcomeHook | None):
        self.future = future
        self.hook = hook
        self.outcomes: list[EchoOutcome | None] = [None] * count
        self.remaining = count

    def add(self, index: int, outcome: EchoOutcome) -> None:
        outcomes = self.outcomes
        if outcomes[index] is not None or self.future.done():
            return
        outcomes[index] = outcome
        self.remaining -= 1
        try:
            if self.hook is not None:
                self.hook(index, outcome)
        finally:  # a hook's fault (reported by `_deliver`) must not leave the train waiting
            if self.remaining == 0:  # every index has its outcome now
                self.future.set_result(cast(list[EchoOutcome], outcomes))


class IcmpEngine:
    """Sends echo requests and matches replies; use one per event loop (`async with IcmpEngine() as e`)."""

    def __init__(self, privileged: bool | None = None, style: IcmpSocketStyle = LINUX_STYLE) -> None:
        self._privileged = privileged
        self._style = style
        self._token = _random_token()
        self._worker: Worker | CompiledWorker | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def __aenter__(self) -> IcmpEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def privileged(self, family: int = socket.AF_INET) -> bool:
        """Whether echoes of this family go over a raw socket (opening it if needed)."""
        return self._socket(family).raw

    def tx_timestamps_refused(self, family: int = socket.AF_INET) -> str | None:
        """Why the kernel gives this family's socket no transmit timestamps; None when it does (or the
        backend asks for none)."""
        return self._socket(family).tx_refused

    def sees_icmp_errors(self, family: int = socket.AF_INET) -> bool:
        """Whether routers' answers (time exceeded, unreachable) reach this family's socket (traceroute)."""
        return self._socket(family).sees_icmp_errors

    def send(
        self,
        address: str,
        family: int,
        timeout_s: float,
        payload_bytes: int = 56,
        ttl: int | None = None,
    ) -> asyncio.Future[EchoOutcome]:
        """Send one echo to an IP address now; the future resolves with the reply, a timeout or an error.

        `ttl` limits the echo's hop count (traceroute); None leaves the system default.
        Raises IcmpNotPermitted if no ICMP socket can be opened.
        """
        fs = self._socket(family)
        worker = self._worker
        assert worker is not None and self._loop is not None
        future: asyncio.Future[EchoOutcome] = self._loop.create_future()
        with worker.lock:
            refused = worker.send_now(fs, address, _ns(timeout_s), payload_bytes, ttl, future)
        if refused is not None:
            future.set_result(refused)
        return future

    def train(
        self,
        address: str,
        family: int,
        *,
        count: int,
        interval_s: float,
        timeout_s: float,
        payload_bytes: int = 56,
        pacer: Pacer | None = None,
        on_outcome: OutcomeHook | None = None,
    ) -> asyncio.Future[list[EchoOutcome]]:
        """Send `count` echoes to an IP address, `interval_s` apart, each at the pacer's turn; the future
        resolves with every outcome in send order, and `on_outcome(index, outcome)` hears of each as it
        finishes (in the event loop). Cancelling the future stops the train.

        Raises IcmpNotPermitted if no ICMP socket can be opened.
        """
        fs = self._socket(family)
        worker = self._worker
        assert worker is not None and self._loop is not None
        future: asyncio.Future[list[EchoOutcome]] = self._loop.create_future()
        if count <= 0:
            future.set_result([])
            return future
        waiter = _TrainWaiter(future, count, on_outcome)
        train = Train(fs, address, count, _ns(interval_s), _ns(timeout_s), payload_bytes, pacer, waiter)
        future.add_done_callback(lambda f: worker.cancel(train) if f.cancelled() else None)
        with worker.lock:
            worker.submit(train)
        return future

    def close(self) -> None:
        """Stop sending and close the sockets; echoes still in flight finish as timed out."""
        worker, self._worker = self._worker, None
        if worker is None:
            return
        finished, unsent = worker.stop()
        self._deliver(finished)
        for owner in unsent:
            if isinstance(owner, _TrainWaiter):
                owner.future.cancel()

    # -- internals -------------------------------------------------------------------------------------

    def _socket(self, family: int) -> FamilySocket:
        if self._worker is None:
            self._loop = asyncio.get_running_loop()
            built = native.icmp
            if built is not None and self._style is LINUX_STYLE:
                self._worker = CompiledWorker(built, self._loop, self._deliver, self._fail)
            else:
                from probes.icmp.worker import Worker  # the Python thread: imported where it runs

                self._worker = Worker(self._loop, self._deliver, self._fail)
        worker = self._worker
        if worker.failure is not None:
            raise RuntimeError(f"the ICMP engine's thread failed: {worker.failure!r}") from worker.failure
        with worker.lock:
            fs = worker.families.get(family)
        if fs is None:
            fs = FamilySocket(family, self._privileged, self._token, self._style)
            with worker.lock:
                worker.add_family(fs)
        return fs

    def _deliver(self, batch: list[Finished]) -> None:
        """Finished echoes from the thread (in the event loop): resolve their futures, call their hooks."""
        for owner, index, outcome in batch:
            try:
                if isinstance(owner, _TrainWaiter):
                    owner.add(index, outcome)
                elif isinstance(owner, asyncio.Future) and not owner.done():
                    owner.set_result(outcome)
            except Exception as exc:  # a hook's fault must not cost the other echoes their outcomes
                assert self._loop is not None
                self._loop.call_exception_handler(
                    {"message": "error in an ICMP outcome hook", "exception": exc}
                )

    def _fail(self, owners: list[object], exc: BaseException) -> None:
        """The thread failed (in the event loop): every echo still waiting gets its exception."""
        error = RuntimeError(f"the ICMP engine's thread failed: {exc!r}")
        error.__cause__ = exc
        for owner in owners:
            future = owner.future if isinstance(owner, _TrainWaiter) else owner
            if isinstance(future, asyncio.Future) and not future.done():
                future.set_exception(error)


def _ns(seconds: float) -> int:
    return max(0, round(seconds * 1e9))


def _random_token() -> bytes:
    return os.urandom(8)  # as secrets.token_bytes does
