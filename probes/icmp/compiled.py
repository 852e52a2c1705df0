"""The ICMP engine's thread with its per-packet work compiled (`_linkvet_icmp.Engine`, Linux).

`probes.icmp.worker.Worker` is the engine's thread in Python. Its loop wakes once per paced packet and keeps
every echo's bookkeeping in the interpreter: at 1,000 packets a second that cost several times fping's CPU.
`CompiledWorker` has the same interface and the same rules, but its thread calls `Engine.run`, which does
the whole loop in C without the GIL (the schedule, the pacer's turns, sends, stamps, replies, ICMP errors,
RTTs, timeouts) and returns only when finished echoes are due to be handed over: the Python thread wakes at
most 5 times a second (within 1 ms for a single echo, which traceroute waits for; at once when nothing is
left in flight) and hands them to the event loop as the C code made them, `(owner, index, EchoOutcome)` each:
no Python code runs per echo, in either thread.

The engine uses it for the Linux socket style where `probes.icmp.native.icmp` is built; elsewhere the Python
thread. The pacer must be the compiled one too (`Pacer.state`, which `probes.icmp.native` picks the same way).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from types import ModuleType

from probes.errors import ErrorKind
from probes.icmp.echoes import EchoOutcome, Finished, Train
from probes.icmp.socket import FamilySocket
from probes.sockets import refusal_text, zone_problem
from probes.timestamps import TimestampSource

# The values of an outcome's `error` and `timestamps` by the C engine's codes (enums in
# probes/icmp/native/engine.c).
_ERRORS = (
    None,
    ErrorKind.LATE,
    ErrorKind.TIMEOUT,
    ErrorKind.SEND_FAILED,
    ErrorKind.UNREACHABLE,
    ErrorKind.TTL_EXCEEDED,
)
_SOURCES = (None, TimestampSource.KERNEL, TimestampSource.KERNEL_RX, TimestampSource.USER)


class CompiledWorker:
    """The sending and reading thread of one engine (`probes.icmp.worker.Worker`'s interface)."""

    def __init__(
        self,
        native: ModuleType,
        loop: asyncio.AbstractEventLoop,
        deliver: Callable[[list[Finished]], None],
        fail: Callable[[list[object], BaseException], None],
    ) -> None:
        self.lock = threading.Lock()
        self.loop = loop
        self._deliver = deliver
        self._fail = fail
        self.failure: BaseException | None = None
        self.families: dict[int, FamilySocket] = {}
        self._indexes: dict[int, FamilySocket] = {}  # the C engine's socket index → its socket
        self._core = native.Engine(EchoOutcome, _ERRORS, _SOURCES, refusal_text)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._thread = threading.Thread(target=self._run, name="linkvet-icmp", daemon=True)

    # -- called from the event loop (each under `lock`, except `stop`) --------------------------------

    def add_family(self, fs: FamilySocket) -> None:
        fs.core_index = self._core.add_socket(
            fs.fd, fs.family, fs.raw, fs.wire.ident, fs.wire.token, fs.tx_stamps
        )
        self.families[fs.family] = fs
        self._indexes[fs.core_index] = fs
        if not self._thread.is_alive():
            self._thread.start()
        self._wake()

    def submit(self, train: Train) -> None:
        destination = _destination(train.fs, train.address)
        if isinstance(destination, str):  # nothing to send: every echo is this machine's error
            outcome = EchoOutcome(time.time_ns() // 1000, None, ErrorKind.SEND_FAILED, detail=destination)
            self.loop.call_soon(self._deliver, [(train.owner, i, outcome) for i in range(train.count)])
            return
        pacer = train.pacer.state if train.pacer is not None else None
        train.core_id, wake = self._core.submit(
            train.owner,
            train.fs.core_index,
            destination,
            train.address,
            train.count,
            train.interval_ns,
            train.timeout_ns,
            train.payload_bytes,
            pacer,
            -1,
            False,
        )
        if wake:  # the thread waits on the pipe; otherwise it sees the train within 2 ms
            self._wake()

    def cancel(self, train: Train) -> None:
        train.cancelled = True
        if train.core_id is not None:
            self._core.cancel(train.core_id)

    def send_now(
        self,
        fs: FamilySocket,
        address: str,
        timeout_ns: int,
        payload_bytes: int,
        ttl: int | None,
        owner: object,
    ) -> EchoOutcome | None:
        """Send one echo now (in this thread); its outcome if this machine cannot send to the address, else
        None (it comes later, promptly)."""
        destination = _destination(fs, address)
        if isinstance(destination, str):
            return EchoOutcome(time.time_ns() // 1000, None, ErrorKind.SEND_FAILED, detail=destination)
        _id, wake = self._core.submit(
            owner,
            fs.core_index,
            destination,
            address,
            1,
            0,
            timeout_ns,
            payload_bytes,
            None,
            -1 if ttl is None else ttl,
            True,
        )
        if wake:
            self._wake()
        return None

    def stop(self) -> tuple[list[Finished], list[object]]:
        """Stop the thread, close the sockets. Returns what was still in flight, as timed out, and the owners
        of the trains with echoes not yet sent."""
        self._core.stop()
        self._wake()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)
        left, unsent = self._core.close()
        with self.lock:
            for fs in self.families.values():
                fs.close()
            self.families.clear()
            os.close(self._wake_r)
            os.close(self._wake_w)
        return left, unsent

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full (a wake-up is already pending) or closed
            os.write(self._wake_w, b"!")

    # -- the thread ---------------------------------------------------------------------------------------

    def _run(self) -> None:
        """The thread: the compiled loop, and each batch of finished echoes handed to the event loop. A fault
        fails every echo still waiting (their callers see the exception). The compiled loop sets this thread's
        timer slack (1 ns) and name itself."""
        batch: list[Finished] = []
        try:
            while True:
                batch, stopping, refused = self._core.run(self._wake_r)
                for index, err in refused:
                    fs = self._indexes[index]
                    if fs.tx_stamps:
                        fs.stamps_not_reset(os.strerror(err))
                if batch and not self._hand_over(batch):
                    return
                if stopping:
                    return
        except Exception as exc:
            with self.lock:
                self.failure = exc
            self._core.stop()
            # What is still waiting: the batch being handed over, unsent trains, echoes in flight.
            owners: list[object] = [o[0] for o in batch]
            with contextlib.suppress(Exception):
                left, unsent = self._core.close()
                owners += [*unsent, *(o[0] for o in left)]
            with contextlib.suppress(RuntimeError):  # the event loop is closed: nobody waits
                self.loop.call_soon_threadsafe(self._fail, owners, exc)

    def _hand_over(self, batch: list[Finished]) -> bool:
        """Give the event loop a batch of finished echoes; False when it is closed (nobody waits any more)."""
        try:
            self.loop.call_soon_threadsafe(self._deliver, batch)
        except RuntimeError:
            return False
        return True


def _destination(fs: FamilySocket, address: str) -> bytes | str:
    """The `struct sockaddr_in` / `sockaddr_in6` of an IP address, or why this machine cannot send to it (a
    zone that names no interface)."""
    if "%" in address:
        problem = zone_problem(address)
        if problem is not None:
            return problem
    try:
        if fs.family == socket.AF_INET6:
            host, _sep, zone = address.partition("%")
            scope = (int(zone) if zone.isdigit() else socket.if_nametoindex(zone)) if zone else 0
            return struct.pack(
                "=HHI16sI", socket.AF_INET6, 0, 0, socket.inet_pton(socket.AF_INET6, host), scope
            )
        return struct.pack("=HH4s8x", socket.AF_INET, 0, socket.inet_pton(socket.AF_INET, address))
    except (OSError, ValueError) as exc:
        return str(exc)
