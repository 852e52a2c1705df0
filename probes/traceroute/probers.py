"""Send one probe with a given TTL and learn what answered: over ICMP, UDP or TCP.

- ICMP goes through the run's shared ICMP engine (the probe backend's; on Linux a raw socket when
  privileged, the kernel's unprivileged "ping" socket where `net.ipv4.ping_group_range` allows it; icmplib
  opens both; on Windows the system's ICMP API with its TTL option).
- UDP and TCP (the Linux backend only) need no privileges: the kernel hands ICMP errors about our own packets to the socket's
  error queue (IP_RECVERR), with the address of the router that sent them. This is what `tracepath` and
  `traceroute -M tcpconn` do; icmplib has no UDP/TCP traceroute, so it is written here.

Every prober's `send(ttl)` sends at once and returns a task that resolves to a `HopAnswer`; none raises
for anything the network does.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import time
from dataclasses import dataclass
from typing import Protocol

from probes.backends.base import EchoEngine
from probes.errors import ErrorKind
from probes.icmp.echoes import EchoOutcome
from probes.sockets import (
    ICMP4_PORT_UNREACHABLE,
    ICMP4_TIME_EXCEEDED,
    ICMP4_UNREACHABLE,
    ICMP6_PORT_UNREACHABLE,
    ICMP6_TIME_EXCEEDED,
    ICMP6_UNREACHABLE,
    PENDING_ERROR_ERRNOS,
    QueuedError,
    enable_error_queue,
    enable_receive_timestamps,
    read_error_queue,
    receive_time,
    set_hop_limit,
)
from probes.timestamps import now_us
from probes.traceroute.result import ReplyKind

DEFAULT_UDP_PORT = 33434  # traceroute's first destination port (one port per probe from there)
DEFAULT_TCP_PORT = 80  # traceroute -T's and mtr --tcp's default
# The kernel resends an unanswered SYN after its initial retransmission timeout (1 s, RFC 6298): an answer
# after that may be to the resent SYN, so its RTT would be wrong by a second. TCP probes wait no longer.
TCP_MAX_WAIT_S = 1.0


@dataclass(frozen=True, slots=True)
class HopAnswer:
    """What one probe got back."""

    sent_at_us: int
    kind: ReplyKind
    address: str | None = None
    rtt_ms: float | None = None
    error: ErrorKind | None = None


class Prober(Protocol):
    privileged: bool

    def send(self, ttl: int) -> asyncio.Future[HopAnswer]: ...

    def close(self) -> None: ...


class IcmpProber:
    """Echo requests with a TTL through the shared ICMP engine. Raises IcmpNotPermitted on creation when
    no ICMP socket can be opened here."""

    def __init__(
        self, engine: EchoEngine, address: str, family: int, timeout_s: float, payload_bytes: int
    ) -> None:
        self.engine = engine
        self.address = address
        self.family = family
        self.timeout_s = timeout_s
        self.payload_bytes = payload_bytes
        self.privileged = engine.privileged(family)

    def send(self, ttl: int) -> asyncio.Future[HopAnswer]:
        outcome = self.engine.send(self.address, self.family, self.timeout_s, self.payload_bytes, ttl=ttl)
        return asyncio.ensure_future(self._answer(outcome))

    async def _answer(self, pending: asyncio.Future[EchoOutcome]) -> HopAnswer:
        outcome = await pending
        sent = outcome.sent_at_us
        if outcome.error is None:
            return HopAnswer(sent, "reached", outcome.responder or self.address, outcome.rtt_ms)
        if outcome.error is ErrorKind.TTL_EXCEEDED and outcome.responder:
            return HopAnswer(sent, "time-exceeded", outcome.responder, outcome.answered_ms)
        if outcome.error is ErrorKind.UNREACHABLE and outcome.responder:
            kind: ReplyKind = "reached" if outcome.responder == self.address else "unreachable"
            error = None if kind == "reached" else ErrorKind.UNREACHABLE
            return HopAnswer(sent, kind, outcome.responder, outcome.answered_ms, error)
        return HopAnswer(sent, "lost", None, None, outcome.error or ErrorKind.TIMEOUT)

    def close(self) -> None:
        """The engine belongs to the run; nothing of ours to close."""


def _classify_icmp_error(family: int, error: QueuedError, target: str) -> tuple[ReplyKind, ErrorKind | None]:
    v6 = family == socket.AF_INET6
    time_exceeded = ICMP6_TIME_EXCEEDED if v6 else ICMP4_TIME_EXCEEDED
    unreachable = ICMP6_UNREACHABLE if v6 else ICMP4_UNREACHABLE
    port_unreachable = ICMP6_PORT_UNREACHABLE if v6 else ICMP4_PORT_UNREACHABLE
    if error.icmp_type == time_exceeded:
        return "time-exceeded", None
    if error.icmp_type == unreachable and (error.offender == target or error.icmp_code == port_unreachable):
        # Port unreachable is what the destination itself says to a UDP probe on a closed port.
        return "reached", None
    return "unreachable", ErrorKind.UNREACHABLE


class _Pending:
    __slots__ = ("future", "sent_at_us", "sent_mono_ns", "timer")

    def __init__(self, future: asyncio.Future[HopAnswer], sent_at_us: int, sent_mono_ns: int) -> None:
        self.future = future
        self.sent_at_us = sent_at_us
        self.sent_mono_ns = sent_mono_ns
        self.timer: asyncio.TimerHandle | None = None


class UdpProber:
    """UDP datagrams to consecutive ports of the destination (one port per probe), one unprivileged socket,
    ICMP errors read from its error queue."""

    privileged = False

    def __init__(
        self, address: str, family: int, timeout_s: float, first_port: int, payload_bytes: int
    ) -> None:
        self.address = address
        self.family = family
        self.timeout_s = timeout_s
        self.first_port = first_port
        self.payload = b"linkvet-trace".ljust(max(payload_bytes, 0), b"\x00")[: max(payload_bytes, 0)]
        self._loop = asyncio.get_running_loop()
        self._pending: dict[int, _Pending] = {}
        self._next = 0
        self.sock = socket.socket(family, socket.SOCK_DGRAM)
        try:
            self.sock.setblocking(False)
            enable_error_queue(self.sock, family)
            enable_receive_timestamps(self.sock)
            self.sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", 0))
        except OSError:
            self.sock.close()
            raise
        self._loop.add_reader(self.sock.fileno(), self._on_readable)

    def _port(self) -> int:
        span = 65535 - self.first_port + 1
        for _ in range(span):
            port = self.first_port + self._next % span
            self._next += 1
            if port not in self._pending:
                return port
        raise RuntimeError("every UDP port from the first probe port up is in flight")  # pragma: no cover

    def send(self, ttl: int) -> asyncio.Future[HopAnswer]:
        future: asyncio.Future[HopAnswer] = self._loop.create_future()
        port = self._port()
        sent_at_us = now_us()
        sent_mono_ns = time.perf_counter_ns()
        try:
            set_hop_limit(self.sock, self.family, ttl)
            self._sendto(port)
        except OSError as exc:
            future.set_result(HopAnswer(sent_at_us, "lost", None, None, _send_error(exc.errno)))
            return future
        pending = _Pending(future, sent_at_us, sent_mono_ns)
        pending.timer = self._loop.call_later(self.timeout_s, self._expire, port)
        self._pending[port] = pending
        return future

    def _sendto(self, port: int) -> None:
        try:
            self.sock.sendto(self.payload, (self.address, port))
        except OSError as exc:
            # With IP_RECVERR an earlier probe's ICMP error is also reported by the next send: that error is
            # on the queue for the reader; clear it and send again.
            if exc.errno not in PENDING_ERROR_ERRNOS:
                raise
            self._drain()
            self.sock.sendto(self.payload, (self.address, port))

    def _expire(self, port: int) -> None:
        pending = self._pending.pop(port, None)
        if pending is not None and not pending.future.done():
            pending.future.set_result(HopAnswer(pending.sent_at_us, "lost", None, None, ErrorKind.TIMEOUT))

    def _resolve(
        self, port: int, kind: ReplyKind, address: str | None, rx_mono_ns: int, error: ErrorKind | None
    ) -> None:
        pending = self._pending.pop(port, None)
        if pending is None or pending.future.done():
            return  # late (timed out already) or not ours
        if pending.timer is not None:
            pending.timer.cancel()
        rtt_ms = (rx_mono_ns - pending.sent_mono_ns) / 1e6
        pending.future.set_result(HopAnswer(pending.sent_at_us, kind, address, rtt_ms, error))

    def _on_readable(self) -> None:
        while True:
            try:
                _data, ancdata, _flags, source = self.sock.recvmsg(512, 256)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self._drain()  # a pending ICMP error: its details are on the error queue
                continue
            # A datagram back from the destination: the port was open and something answered.
            if source and str(source[0]) == self.address:
                self._resolve(int(source[1]), "reached", self.address, receive_time(ancdata), None)
        self._drain()

    def _drain(self) -> None:
        for queued in read_error_queue(self.sock, self.family):
            if queued.destination is None or queued.destination[0] != self.address:
                continue
            kind, error = _classify_icmp_error(self.family, queued, self.address)
            self._resolve(queued.destination[1], kind, queued.offender, queued.rx_mono_ns, error)

    def close(self) -> None:
        if self.sock.fileno() >= 0:
            self._loop.remove_reader(self.sock.fileno())
            self.sock.close()
        for port in list(self._pending):
            pending = self._pending[port]
            if pending.timer is not None:
                pending.timer.cancel()
            self._expire(port)


class TcpProber:
    """TCP connection attempts (SYN) with a TTL, one unprivileged socket each: a SYN-ACK or RST is the
    destination, an ICMP error on the socket's error queue names the router."""

    privileged = False

    def __init__(self, address: str, family: int, timeout_s: float, port: int) -> None:
        self.address = address
        self.family = family
        self.port = port
        self.timeout_s = min(timeout_s, TCP_MAX_WAIT_S)
        self._loop = asyncio.get_running_loop()
        self._tasks: set[asyncio.Future[HopAnswer]] = set()

    def send(self, ttl: int) -> asyncio.Future[HopAnswer]:
        sent_at_us = now_us()
        sock = socket.socket(self.family, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            set_hop_limit(sock, self.family, ttl)
            enable_error_queue(sock, self.family)
            enable_receive_timestamps(sock)
            sent_mono_ns = time.perf_counter_ns()
            code = sock.connect_ex((self.address, self.port))
        except OSError as exc:
            sock.close()
            done: asyncio.Future[HopAnswer] = self._loop.create_future()
            done.set_result(HopAnswer(sent_at_us, "lost", None, None, _send_error(exc.errno)))
            return done
        task = asyncio.ensure_future(self._wait(sock, code, sent_at_us, sent_mono_ns))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _wait(self, sock: socket.socket, code: int, sent_at_us: int, sent_mono_ns: int) -> HopAnswer:
        try:
            rx_mono_ns = time.perf_counter_ns()
            if code == errno.EINPROGRESS:
                ready: asyncio.Future[int] = self._loop.create_future()
                self._loop.add_writer(sock.fileno(), _set_once, ready)
                try:
                    rx_mono_ns = await asyncio.wait_for(ready, self.timeout_s)
                except TimeoutError:
                    return HopAnswer(sent_at_us, "lost", None, None, ErrorKind.TIMEOUT)
                finally:
                    self._loop.remove_writer(sock.fileno())
                code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            queued = read_error_queue(sock, self.family)
            rtt_ms = (rx_mono_ns - sent_mono_ns) / 1e6
            if code == 0:  # SYN-ACK: the destination listens on the port
                return HopAnswer(sent_at_us, "reached", self.address, rtt_ms)
            if queued:  # an ICMP error about our SYN: time exceeded from a router, or unreachable
                error = queued[0]
                kind, kind_error = _classify_icmp_error(self.family, error, self.address)
                rtt_ms = (min(error.rx_mono_ns, rx_mono_ns) - sent_mono_ns) / 1e6
                return HopAnswer(sent_at_us, kind, error.offender, rtt_ms, kind_error)
            if code == errno.ECONNREFUSED:  # RST: the destination answered, the port is closed
                return HopAnswer(sent_at_us, "reached", self.address, rtt_ms)
            if code == errno.ETIMEDOUT:
                return HopAnswer(sent_at_us, "lost", None, None, ErrorKind.TIMEOUT)
            return HopAnswer(sent_at_us, "lost", None, None, _send_error(code))
        finally:
            sock.close()

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()


def _set_once(future: asyncio.Future[int]) -> None:
    """Resolve with the monotonic time at which the socket became ready (before the task wakes up)."""
    if not future.done():
        future.set_result(time.perf_counter_ns())


def _send_error(code: int | None) -> ErrorKind:
    if code in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return ErrorKind.UNREACHABLE
    return ErrorKind.SEND_FAILED
