"""The ICMP engine's thread: sends every paced echo at its turn, reads replies, transmit stamps and ICMP
errors in batches, times echoes out, and hands what finished to the event loop in batches.

One loop, `Worker._serve`, repeats: send the echoes whose turn has come (first, so that waking at a turn
sends at once); read everything the sockets hold (the error queue first: a transmit stamp always precedes
its reply), every `READ_EVERY_NS` while pacing and at once otherwise (the kernel stamped each packet, so
reading later changes no RTT); time out the echoes past their deadline (after reading, so that a reply
that came in time but was not read yet is not called lost); hand finished echoes over (trains' at most
every `HANDOFF_NS`, single echoes' every `URGENT_HANDOFF_NS`, and at once when nothing is left to send or to
wait for: the end of a run waits for no hand-off); then sleep until the next thing to do.
Sleeps up to 2 ms are `clock_nanosleep` with a 1 ns timer slack (a paced stream at a 1 ms gap wakes once
per packet); longer ones wait in poll(2) on the sockets and a wake-up pipe, so a reply or a new echo ends
them. Everything the thread and the event loop share is under `lock`.

Where the probe backend's sockets give no kernel receive stamps (`IcmpSocketStyle.kernel_receive_stamps`
false: the portable backend), a reply is timed when it is read, so the thread reads promptly instead: it
waits for the sockets and the wake-up pipe in select(2) with the precise timeout of its next send, and reads
whenever it wakes.

The event loop side (`probes.icmp.engine.IcmpEngine`) creates the futures and owns them; the thread only
ever sees their owners as opaque objects and hands back `(owner, index, EchoOutcome)` triples.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import math
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable

from probes.errors import ErrorKind
from probes.icmp.echoes import Echo, EchoOutcome, Finished, Train
from probes.icmp.socket import FamilySocket
from probes.icmp.wire import ECHO_HEADER, error_kind
from probes.pacing import Pacer, fine_timer_slack
from probes.sockets import (
    PENDING_ERROR_ERRNOS,
    QueuedError,
    TxStamp,
    clock_pair,
    drain_error_queue,
    read_tx_stamps,
    refusal_text,
    set_hop_limit,
    wall_to_monotonic,
    zone_problem,
)
from probes.timestamps import TimestampSource

# Finished echoes of trains reach the event loop at most 5 times a second: each hand-off wakes the event loop
# and passes the GIL back and forth (four context switches, ~0.1 ms of CPU on a VM), and a train's result
# waiting 0.2 s more matters to nobody; at the end of a run it waits for none (`_hand_off`).
HANDOFF_NS = 200_000_000
URGENT_HANDOFF_NS = 1_000_000  # single echoes (traceroute waits for them) at most 1,000 times a second
READ_EVERY_NS = 5_000_000  # while sending paced echoes, read the sockets this often (the kernel stamps)
_PRECISE_SLEEP_NS = 2_000_000  # waits up to this long sleep precisely; longer ones poll the sockets
_EXPIRY_GRACE_NS = 1_000_000  # read once more this long after a timeout before calling the echo lost
_CLOCK_STEP_SLACK_NS = 1_000_000  # kernel RTTs may exceed the user-space one by this much (NTP slewing)
_MAX_READS = 10_000  # per socket per wake-up: the rest waits for the next one
_SELECT_FD_LIMIT = 1024  # FD_SETSIZE: select(2) takes no higher descriptor


class Worker:
    """The sending and reading thread of one engine, and the state it shares with the event loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        deliver: Callable[[list[Finished]], None],
        fail: Callable[[list[object], BaseException], None],
    ) -> None:
        self.lock = threading.Lock()
        self.loop = loop
        self._deliver = deliver
        self._fail = fail
        self.failure: BaseException | None = None  # what stopped the thread, if it failed
        self.families: dict[int, FamilySocket] = {}
        self._sockets: tuple[FamilySocket, ...] = ()
        # Echoes in send order per timeout: their deadlines come in the same order.
        self._deadlines: dict[int, deque[Echo]] = {}
        self._trains: list[tuple[int, int, Train]] = []
        self._order = itertools.count()
        self._slot: tuple[Pacer, int | None] | None = None  # the pacer slot the next train's echo holds
        self._ready: list[Finished] = []
        self._urgent = False  # a single echo is among them
        self._handoff_ns = 0
        self._stopping = False
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._poller = select.poll()
        self._poller.register(self._wake_r, select.POLLIN)
        self._polled: set[int] = set()
        self._polling = False
        self._prompt = False  # a socket without kernel receive stamps: read the moment a reply arrives
        self._thread = threading.Thread(target=self._run, name="linkvet-icmp", daemon=True)

    # -- called from the event loop (each under `lock`, except `stop`) --------------------------------

    def add_family(self, fs: FamilySocket) -> None:
        self.families[fs.family] = fs
        self._sockets = tuple(self.families.values())
        self._prompt = any(not f.style.kernel_receive_stamps for f in self._sockets)
        if not self._thread.is_alive():
            self._thread.start()
        self._wake()

    def submit(self, train: Train) -> None:
        heapq.heappush(self._trains, (train.due_ns, next(self._order), train))
        self._wake()

    def cancel(self, train: Train) -> None:
        train.cancelled = True

    def send_now(
        self,
        fs: FamilySocket,
        address: str,
        timeout_ns: int,
        payload_bytes: int,
        ttl: int | None,
        owner: object,
    ) -> EchoOutcome | None:
        """Send one echo now; its outcome if this machine refused to send it, else None (it comes later)."""
        sent = self._send(fs, address, payload_bytes, ttl, timeout_ns, owner, 0)
        self._wake()
        if isinstance(sent, EchoOutcome):
            return sent
        sent.urgent = True
        return None

    def stop(self) -> tuple[list[Finished], list[object]]:
        """Stop the thread, close the sockets. Returns what was still in flight, as timed out, and the owners
        of the trains with echoes not yet sent."""
        with self.lock:
            self._stopping = True
            self._wake()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)
        with self.lock:
            left, self._ready = self._ready, []
            for fs in self._sockets:
                for echo in fs.pending.values():
                    left.append((echo.owner, echo.index, self._timed_out(echo)))
                fs.pending.clear()
                fs.close()
            self.families.clear()
            self._sockets = ()
            os.close(self._wake_r)
            os.close(self._wake_w)
            unsent = [train.owner for _due, _order, train in self._trains if not train.cancelled]
            self._trains.clear()
            return left, unsent

    def _wake(self) -> None:
        if self._polling or self._stopping:
            with contextlib.suppress(OSError):  # full (a wake-up is already pending) or closed
                os.write(self._wake_w, b"!")

    # -- the thread ---------------------------------------------------------------------------------------

    def _run(self) -> None:
        """The thread. A fault in it fails every echo still waiting (their callers see the exception), so
        that nothing waits for a thread that is gone."""
        try:
            self._serve()
        except Exception as exc:
            with self.lock:
                self.failure = exc
                self._stopping = True
                owners = [owner for owner, _index, _outcome in self._ready]
                owners += [echo.owner for fs in self._sockets for echo in fs.pending.values()]
                owners += [train.owner for _due, _order, train in self._trains]
                self._ready.clear()
                self._trains.clear()
                for fs in self._sockets:
                    fs.pending.clear()
            with contextlib.suppress(RuntimeError):  # the event loop is closed: nobody waits
                self.loop.call_soon_threadsafe(self._fail, owners, exc)

    def _serve(self) -> None:
        fine_timer_slack()
        lock, monotonic_ns, sleep = self.lock, time.monotonic_ns, time.sleep
        read_due = 0  # when to read the sockets next (a paced stream reads them every READ_EVERY_NS)
        deadline: int | None = None  # the next echo's deadline
        woken = True  # by poll(2): a socket may be readable
        while True:
            with lock:
                if self._stopping:
                    return
                wake_at = self._send_due()
                now = monotonic_ns()
                prompt = self._prompt
                if woken or prompt or now >= read_due or (deadline is not None and now >= deadline):
                    for fs in self._sockets:
                        self._drain(fs)
                    deadline = self._expire()
                    read_due = now + READ_EVERY_NS
                if deadline is not None:
                    # Something is in flight: read again at the next deadline or read time, whichever first.
                    soon = min(deadline, read_due)
                    if wake_at is None or soon < wake_at:
                        wake_at = soon
                if self._ready:
                    handoff_at = self._hand_off(idle=deadline is None and not self._trains)
                    if handoff_at is not None and (wake_at is None or handoff_at < wake_at):
                        wake_at = handoff_at
                delay = None if wake_at is None else wake_at - monotonic_ns()
                self._polling = prompt or delay is None or delay > _PRECISE_SLEEP_NS
                if self._polling and not prompt:
                    self._watch_sockets()
                watched = [self._wake_r, *(fs.sock.fileno() for fs in self._sockets)] if prompt else []
            if prompt:
                self._select(watched, delay)
                self._polling = False
                woken = True
                continue
            if delay is not None and delay <= _PRECISE_SLEEP_NS:
                if delay > 0:
                    sleep(delay / 1e9)
                woken = False
                continue
            self._poll(delay)
            self._polling = False
            woken = True

    def _poll(self, delay_ns: int | None) -> None:
        """Wait in poll(2) until a socket is readable, the event loop wakes us, or about `delay_ns` has passed
        (whole ms, woken a little early: the loop sleeps the precise rest)."""
        timeout_ms = -1 if delay_ns is None else delay_ns // 1_000_000 - 1
        for fd, _events in self._poller.poll(timeout_ms):
            if fd == self._wake_r:
                with contextlib.suppress(OSError):
                    os.read(self._wake_r, 4096)

    def _select(self, fds: list[int], delay_ns: int | None) -> None:
        """Wait until a socket is readable, the event loop wakes us, or `delay_ns` has passed (prompt mode:
        select(2) takes a µs timeout, poll(2) only whole ms)."""
        timeout = None if delay_ns is None else max(0.0, delay_ns / 1e9)
        if max(fds) < _SELECT_FD_LIMIT:
            readable, _w, _x = select.select(fds, [], [], timeout)
        else:  # a descriptor select(2) cannot take: poll(2), its timeout rounded up to whole ms
            self._watch_sockets()
            ms = -1 if timeout is None else math.ceil(timeout * 1000)
            readable = [fd for fd, _events in self._poller.poll(ms)]
        if self._wake_r in readable:
            with contextlib.suppress(OSError):
                os.read(self._wake_r, 4096)

    def _watch_sockets(self) -> None:
        for fs in self._sockets:
            fd = fs.sock.fileno()
            if fd not in self._polled:
                self._poller.register(fd, select.POLLIN)
                self._polled.add(fd)

    def _send_due(self) -> int | None:
        """Send every echo whose turn has come; when the next one is due (None: nothing to send)."""
        trains = self._trains
        while trains:
            due, _order, train = trains[0]
            if train.cancelled:
                heapq.heappop(trains)
                continue
            now = time.monotonic_ns()
            if due > now:
                return due
            pacer = train.pacer
            if pacer is not None:
                slot = self._slot[1] if self._slot is not None and self._slot[0] is pacer else None
                at, slot = pacer.turn_ns(slot)
                if at:
                    self._slot = (pacer, slot)
                    return at
                self._slot = None
            index = train.next_index
            train.next_index += 1
            sent = self._send(
                train.fs, train.address, train.payload_bytes, None, train.timeout_ns, train.owner, index
            )
            if type(sent) is EchoOutcome:
                self._ready.append((train.owner, index, sent))
            if train.next_index < train.count:
                started = sent.sent_mono_ns if type(sent) is Echo else now
                train.due_ns = started + train.interval_ns
                heapq.heapreplace(trains, (train.due_ns, next(self._order), train))
            else:
                heapq.heappop(trains)
            if pacer is not None:
                # Tell the pacer the packet left; if the next train is due already, take its slot now.
                after = time.monotonic_ns()
                following = trains[0][2] if trains and trains[0][0] <= after else None
                slot = pacer.sent(after, reserve=following is not None and following.pacer is pacer)
                if slot is not None:
                    self._slot = (pacer, slot)
                    return slot
        return None

    def _hand_off(self, *, idle: bool) -> int | None:
        """Hand finished echoes to the event loop, if the last hand-off is long enough ago or nothing else is in
        flight (`idle`: no echo to send or to wait for); else when to."""
        now = time.monotonic_ns()
        due = self._handoff_ns + (URGENT_HANDOFF_NS if self._urgent else HANDOFF_NS)
        if now < due and not idle:
            return due
        self._urgent = False
        batch, self._ready = self._ready, []
        self._handoff_ns = now
        try:
            self.loop.call_soon_threadsafe(self._deliver, batch)
        except RuntimeError:  # the event loop is closed: nobody is waiting any more
            self._stopping = True
        return None

    # -- sending ------------------------------------------------------------------------------------------

    def _send(
        self,
        fs: FamilySocket,
        address: str,
        payload_bytes: int,
        ttl: int | None,
        timeout_ns: int,
        owner: object,
        index: int,
    ) -> Echo | EchoOutcome:
        """Send one echo: the echo now in flight, or the outcome of a send this machine refused."""
        if "%" in address:
            problem = zone_problem(address)
            if problem is not None:
                return EchoOutcome(time.time_ns() // 1000, None, ErrorKind.SEND_FAILED, detail=problem)
        seq = self._sequence(fs, address)
        echo = Echo(fs, (address, seq), owner, index, timeout_ns)
        packet = fs.wire.request(seq, payload_bytes)
        if ttl is not None:
            set_hop_limit(fs.sock, fs.family, ttl)
        try:
            try:
                self._sendto(fs, echo, packet)
            except OSError as exc:
                # An unprivileged socket also reports an earlier echo's ICMP error (time exceeded,
                # unreachable) on the next send. That error belongs to the earlier echo and waits on the
                # error queue (`_sendto` has read it): send this echo again.
                if fs.raw or not fs.style.error_queue or exc.errno not in PENDING_ERROR_ERRNOS:
                    raise
                self._sendto(fs, echo, packet)
        except OSError as exc:
            return EchoOutcome(
                echo.sent_wall_ns // 1000, None, ErrorKind.SEND_FAILED, detail=refusal_text(exc.errno or 0)
            )
        finally:
            if ttl is not None:
                set_hop_limit(
                    fs.sock, fs.family, -1
                )  # back to the route's default for the echoes that follow
        echo.deadline_ns = echo.sent_mono_ns + timeout_ns + _EXPIRY_GRACE_NS
        fs.pending[echo.pkey] = echo
        queue = self._deadlines.get(timeout_ns)
        if queue is None:
            queue = self._deadlines[timeout_ns] = deque()
        queue.append(echo)
        return echo

    def _sendto(self, fs: FamilySocket, echo: Echo, packet: bytes) -> None:
        """One sendto, with the echo's transmit-stamp key taken just before. After a refused send, whether
        the kernel counted it is not knowable: the next send starts the keys again from 0."""
        if fs.restart_keys:
            self._read_error_queue(fs)
            fs.restart()
        echo.key = fs.take_key(echo)
        echo.sent_wall_ns = time.time_ns()
        echo.sent_mono_ns = time.monotonic_ns()
        try:
            fs.sock.sendto(packet, (echo.pkey[0], 0))
        except OSError:
            fs.restart_keys = echo.key is not None
            echo.key = None
            self._read_error_queue(fs)
            raise

    def _sequence(self, fs: FamilySocket, address: str) -> int:
        pending = fs.pending
        for _ in range(65536):
            seq = fs.next_seq
            fs.next_seq = (seq + 1) & 0xFFFF
            if (address, seq) not in pending:
                return seq
        raise RuntimeError("65,536 echoes to one address in flight")  # pragma: no cover - needs a 64k backlog

    # -- reading ------------------------------------------------------------------------------------------

    def _drain(self, fs: FamilySocket) -> None:
        """Read everything the socket holds: its error queue (stamps, ICMP errors), then its replies."""
        self._read_error_queue(fs)
        recvmsg, parse, pending, receive_stamp = (
            fs.sock.recvmsg,
            fs.wire.parse,
            fs.pending,
            fs.style.receive_wall_ns,
        )
        for _ in range(_MAX_READS):
            try:
                data, ancdata, _flags, source = recvmsg(2048, 256)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                # A pending socket error (unprivileged sockets report ICMP errors this way): read the queue.
                self._read_error_queue(fs)
                continue
            answer = parse(data, source[0])
            if answer is not None:
                echo = pending.pop((answer[0], answer[1]), None)
                if echo is not None:
                    self._answer(echo, receive_stamp(ancdata), answer[2], answer[3])

    def _read_error_queue(self, fs: FamilySocket) -> None:
        errors: list[QueuedError]
        stamps: list[tuple[int, int]] | list[TxStamp]
        if not fs.style.error_queue:
            return
        if fs.raw:  # a raw socket's error queue holds only our transmit stamps: read as many as are due
            if not fs.awaiting:
                return
            errors, stamps = [], read_tx_stamps(fs.sock, fs.awaiting)
        else:
            errors, stamps = drain_error_queue(fs.sock, fs.family)
        if stamps:
            fs.awaiting = max(0, fs.awaiting - len(stamps))
            now_wall = time.time_ns()
            keyed = fs.keyed
            for key, wall_ns in stamps:
                echo = keyed.get(key)
                if echo is not None and echo.tx_wall_ns is None:
                    if echo.sent_wall_ns <= wall_ns <= now_wall:
                        echo.tx_wall_ns = wall_ns
                        continue
                elif echo is None and key < fs.next_key:
                    continue  # the stamp of an echo that has already finished
                fs.restart_keys = True  # a stamp that cannot be that echo's: the count is off
        for queued in errors:
            if queued.destination is None or len(queued.packet) < 8:
                continue
            seq = ECHO_HEADER.unpack_from(queued.packet)[4]
            echo = fs.pending.pop((queued.destination[0], seq), None)
            if echo is not None:
                error = error_kind(fs.v6, queued.icmp_type) or ErrorKind.UNREACHABLE
                self._answer(echo, queued.rx_wall_ns, error, queued.offender)

    def _answer(
        self, echo: Echo, rx_wall_ns: int | None, error: ErrorKind | None, responder: str | None
    ) -> None:
        """Finish an echo (already taken out of `pending`) that got an answer."""
        if echo.key is not None and echo.tx_wall_ns is None:
            self._read_error_queue(echo.fs)  # the stamp precedes the reply: it may have come in since
        self._finish(echo, self._answered(echo, rx_wall_ns, error, responder))

    def _answered(
        self, echo: Echo, rx_wall_ns: int | None, error: ErrorKind | None, responder: str | None
    ) -> EchoOutcome:
        user_ns = time.monotonic_ns() - echo.sent_mono_ns
        source = TimestampSource.USER
        answered_ns = user_ns
        if rx_wall_ns is not None:
            tx = echo.tx_wall_ns
            if tx is not None and 0 <= rx_wall_ns - tx <= user_ns + _CLOCK_STEP_SLACK_NS:
                answered_ns, source = rx_wall_ns - tx, TimestampSource.KERNEL
            else:
                rx_mono = wall_to_monotonic(rx_wall_ns, clock_pair())
                if rx_mono >= echo.sent_mono_ns:
                    answered_ns, source = rx_mono - echo.sent_mono_ns, TimestampSource.KERNEL_RX
        sent_at_us = (echo.tx_wall_ns or echo.sent_wall_ns) // 1000
        answered_ms = answered_ns / 1e6
        if answered_ns > echo.timeout_ns:
            return EchoOutcome(sent_at_us, None, ErrorKind.LATE, responder, answered_ms, source)
        return EchoOutcome(sent_at_us, None if error else answered_ms, error, responder, answered_ms, source)

    def _expire(self) -> int | None:
        """Finish the echoes past their deadline as timed out; the next deadline (None: none)."""
        now = time.monotonic_ns()
        earliest = None
        for queue in self._deadlines.values():
            while queue:
                echo = queue[0]
                if not echo.done:
                    if echo.deadline_ns > now:
                        if earliest is None or echo.deadline_ns < earliest:
                            earliest = echo.deadline_ns
                        break
                    del echo.fs.pending[echo.pkey]
                    self._finish(echo, self._timed_out(echo))
                queue.popleft()
        return earliest

    def _timed_out(self, echo: Echo) -> EchoOutcome:
        return EchoOutcome((echo.tx_wall_ns or echo.sent_wall_ns) // 1000, None, ErrorKind.TIMEOUT)

    def _finish(self, echo: Echo, outcome: EchoOutcome) -> None:
        echo.done = True
        if echo.key is not None and echo.fs.keyed.get(echo.key) is echo:
            del echo.fs.keyed[echo.key]
        self._urgent |= echo.urgent
        self._ready.append((echo.owner, echo.index, outcome))
