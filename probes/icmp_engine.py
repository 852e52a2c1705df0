"""Many ICMP echoes in flight at once over one socket per address family.

icmplib opens the sockets (raw when privileged, the kernel's unprivileged datagram "ping" sockets otherwise,
with its permission errors), but its `multiping` opens a socket per host and times replies with the wall
clock: measured here it lost 90% of replies at 1,000 hosts and spent 14.5 s of CPU at 50. This engine keeps
one socket per family, matches replies by (address, sequence) and a per-engine token in the payload, and
takes the receive time from the kernel (SO_TIMESTAMPNS: `probes.sockets.receive_time`), so a busy event
loop does not inflate RTTs. ICMP errors reach an unprivileged socket on its error queue (`probes.sockets`).

RTT = (monotonic time at which we read the reply − the reply's wait in the socket queue, measured as the
kernel timestamp against the wall clock at read time) − monotonic time just before `sendto`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import secrets
import socket
import struct
import time
from dataclasses import dataclass

import icmplib

from probes.errors import ErrorKind, IcmpNotPermitted
from probes.sockets import (
    ICMP4_TIME_EXCEEDED,
    ICMP4_UNREACHABLE,
    ICMP6_TIME_EXCEEDED,
    ICMP6_UNREACHABLE,
    PENDING_ERROR_ERRNOS,
    enable_error_queue,
    enable_receive_timestamps,
    read_error_queue,
    receive_time,
    set_hop_limit,
)
from probes.timestamps import now_us

_ECHO_HEADER = struct.Struct("!BBHHH")
_RCVBUF_BYTES = 4 * 1024 * 1024
_TOKEN_BYTES = 8

ICMP4_ECHO_REQUEST, ICMP4_ECHO_REPLY = 8, 0
ICMP6_ECHO_REQUEST, ICMP6_ECHO_REPLY = 128, 129


@dataclass(frozen=True, slots=True)
class EchoOutcome:
    """One echo: when it left (UTC µs), its RTT in ms or None, why there was no reply, who said so.

    `answered_ms` is the time until any answer came back, an ICMP error (time exceeded, unreachable)
    included: what traceroute reports for a hop. None when nothing came back.
    """

    sent_at_us: int
    rtt_ms: float | None
    error: ErrorKind | None = None
    responder: str | None = None
    answered_ms: float | None = None


def icmp_permission_help() -> str:
    """Why ICMP sockets are refused here and how to allow them."""
    group_range = _read_ping_group_range()
    gid = os.getgid()
    return (
        "ICMP not permitted here: a raw ICMP socket needs root or CAP_NET_RAW, and the kernel's unprivileged "
        f"ICMP sockets are allowed only for groups in net.ipv4.ping_group_range (now {group_range}; your "
        f"group id is {gid}). To enable them for every group: `sudo sysctl -w net.ipv4.ping_group_range='0 "
        "2147483647'` (persist it in /etc/sysctl.d/); or, for the bundled systemd service, install its "
        "raw-icmp.conf drop-in, which grants CAP_NET_RAW to the service alone; or probe with --method tcp."
    )


def _read_ping_group_range() -> str:
    try:
        with open("/proc/sys/net/ipv4/ping_group_range") as fh:
            return " ".join(fh.read().split())
    except OSError:
        return "unknown"


def open_icmp_socket(family: int, privileged: bool | None = None) -> tuple[socket.socket, bool]:
    """An ICMP socket for `family` (raw if allowed, else unprivileged) and whether it is raw.

    Raises IcmpNotPermitted, with the reason and the fix, when neither kind can be opened.
    """
    icmp_class = icmplib.ICMPv4Socket if family == socket.AF_INET else icmplib.ICMPv6Socket
    choices = [True, False] if privileged is None else [privileged]
    last: Exception | None = None
    for raw in choices:
        try:
            wrapper = icmp_class(privileged=raw)
        except icmplib.SocketPermissionError as exc:
            last = exc
            continue
        except icmplib.ICMPSocketError as exc:  # e.g. IPv6 disabled in this kernel
            raise IcmpNotPermitted(f"cannot open an ICMP socket for {_family_name(family)}: {exc}") from exc
        # Take the socket over from icmplib: we multiplex it ourselves.
        sock = socket.socket(fileno=os.dup(wrapper.sock.fileno()))
        wrapper.close()
        return sock, raw
    raise IcmpNotPermitted(icmp_permission_help()) from last


def _family_name(family: int) -> str:
    return "IPv6" if family == socket.AF_INET6 else "IPv4"


class _FamilySocket:
    """One ICMP socket of one family and the echoes waiting on it."""

    def __init__(self, family: int, privileged: bool | None) -> None:
        self.family = family
        self.sock, self.raw = open_icmp_socket(family, privileged)
        self.sock.setblocking(False)
        enable_receive_timestamps(self.sock)
        with contextlib.suppress(OSError):
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, _RCVBUF_BYTES)
        if not self.raw:
            # Unprivileged sockets get ICMP errors (unreachable, time exceeded) on the error queue only.
            enable_error_queue(self.sock, family)
        self.v6 = family == socket.AF_INET6
        self.echo_request = ICMP6_ECHO_REQUEST if self.v6 else ICMP4_ECHO_REQUEST
        # Raw sockets see every ICMP packet on the host: our identifier tells ours apart. Unprivileged
        # sockets have theirs rewritten by the kernel to the socket's port, and see only their own.
        self.ident = secrets.randbits(16)
        self.next_seq = secrets.randbits(16)


class _Pending:
    __slots__ = ("future", "sent_at_us", "sent_mono_ns", "timer")

    def __init__(self, future: asyncio.Future[EchoOutcome], sent_mono_ns: int, sent_at_us: int) -> None:
        self.future = future
        self.sent_mono_ns = sent_mono_ns
        self.sent_at_us = sent_at_us
        self.timer: asyncio.TimerHandle | None = None


class IcmpEngine:
    """Sends echo requests and matches replies; use one per event loop (`async with IcmpEngine() as e`)."""

    def __init__(self, privileged: bool | None = None) -> None:
        self._privileged = privileged
        self._families: dict[int, _FamilySocket] = {}
        self._pending: dict[tuple[int, str, int], _Pending] = {}
        self._token = secrets.token_bytes(_TOKEN_BYTES)
        self._payload_sums: dict[int, int] = {}  # the payload's part of the checksum, by payload size
        self._loop: asyncio.AbstractEventLoop | None = None

    async def __aenter__(self) -> IcmpEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def privileged(self, family: int = socket.AF_INET) -> bool:
        """Whether echoes of this family go over a raw socket (opening it if needed)."""
        return self._socket(family).raw

    def _socket(self, family: int) -> _FamilySocket:
        fs = self._families.get(family)
        if fs is None:
            fs = _FamilySocket(family, self._privileged)
            self._loop = asyncio.get_running_loop()
            self._loop.add_reader(fs.sock.fileno(), self._on_readable, fs)
            self._families[family] = fs
        return fs

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
        loop = asyncio.get_running_loop()
        future: asyncio.Future[EchoOutcome] = loop.create_future()
        seq = self._allocate_seq(fs, address)
        packet = self._packet(fs, seq, payload_bytes)
        key = (family, address, seq)
        sent_at_us = now_us()
        sent_mono_ns = time.perf_counter_ns()
        try:
            self._sendto(fs, packet, address, ttl)
        except OSError as exc:
            kind = (
                ErrorKind.UNREACHABLE
                if exc.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH)
                else ErrorKind.SEND_FAILED
            )
            future.set_result(EchoOutcome(sent_at_us, None, kind))
            return future
        pending = _Pending(future, sent_mono_ns, sent_at_us)
        pending.timer = loop.call_later(timeout_s, self._expire, key)
        self._pending[key] = pending
        return future

    def _sendto(self, fs: _FamilySocket, packet: bytes, address: str, ttl: int | None) -> None:
        if ttl is not None:
            set_hop_limit(fs.sock, fs.family, ttl)
        try:
            try:
                fs.sock.sendto(packet, (address, 0))
            except OSError as exc:
                # An unprivileged socket also reports an earlier echo's ICMP error (time exceeded,
                # unreachable) on the next send. That error belongs to the earlier echo and waits on the
                # error queue: hand it over, then send this echo again.
                if fs.raw or exc.errno not in PENDING_ERROR_ERRNOS:
                    raise
                self._drain_error_queue(fs)
                fs.sock.sendto(packet, (address, 0))
        finally:
            if ttl is not None:
                set_hop_limit(
                    fs.sock, fs.family, -1
                )  # back to the route's default for the echoes that follow

    def close(self) -> None:
        for fs in self._families.values():
            if self._loop is not None and not self._loop.is_closed():
                self._loop.remove_reader(fs.sock.fileno())
            fs.sock.close()
        self._families.clear()
        for key in list(self._pending):
            self._resolve(key, None, ErrorKind.TIMEOUT, None)

    # -- internals -------------------------------------------------------------------------------------

    def _allocate_seq(self, fs: _FamilySocket, address: str) -> int:
        for _ in range(65536):
            seq = fs.next_seq
            fs.next_seq = (seq + 1) & 0xFFFF
            if (fs.family, address, seq) not in self._pending:
                return seq
        raise RuntimeError("65,536 echoes to one address in flight")  # pragma: no cover - needs a 64k backlog

    def _packet(self, fs: _FamilySocket, seq: int, payload_bytes: int) -> bytes:
        payload = (self._token * (payload_bytes // _TOKEN_BYTES + 1))[:payload_bytes]
        header = _ECHO_HEADER.pack(fs.echo_request, 0, 0, fs.ident, seq)
        if fs.v6 or not fs.raw:
            return header + payload  # the kernel fills in the checksum (and, unprivileged, the identifier)
        payload_sum = self._payload_sums.get(payload_bytes)
        if payload_sum is None:
            payload_sum = self._payload_sums[payload_bytes] = _ones_complement_sum(payload)
        checksum = _fold(payload_sum + (fs.echo_request << 8) + fs.ident + seq)
        return _ECHO_HEADER.pack(fs.echo_request, 0, checksum, fs.ident, seq) + payload

    def _expire(self, key: tuple[int, str, int]) -> None:
        pending = self._pending.pop(key, None)
        if pending is not None and not pending.future.done():
            pending.future.set_result(EchoOutcome(pending.sent_at_us, None, ErrorKind.TIMEOUT))

    def _resolve(
        self,
        key: tuple[int, str, int],
        rx_mono_ns: int | None,
        error: ErrorKind | None,
        responder: str | None,
    ) -> None:
        pending = self._pending.pop(key, None)
        if pending is None:
            return  # late (already timed out), duplicate, or not ours
        if pending.timer is not None:
            pending.timer.cancel()
        if pending.future.done():
            return
        if rx_mono_ns is not None and rx_mono_ns < pending.sent_mono_ns:
            # Only a wall-clock step between the kernel's stamp and our reading can do this: use the time we
            # read the reply instead, which is late but never before the send.
            rx_mono_ns = time.perf_counter_ns()
        answered_ms = None if rx_mono_ns is None else (rx_mono_ns - pending.sent_mono_ns) / 1e6
        rtt_ms = None if error else answered_ms
        pending.future.set_result(EchoOutcome(pending.sent_at_us, rtt_ms, error, responder, answered_ms))

    def _on_readable(self, fs: _FamilySocket) -> None:
        while True:
            try:
                data, ancdata, _flags, source = fs.sock.recvmsg(2048, 256)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                # A pending socket error (unprivileged sockets report ICMP errors this way): read the queue.
                self._drain_error_queue(fs)
                continue
            rx_mono_ns = receive_time(ancdata)
            self._handle_packet(fs, data, source[0], rx_mono_ns)
        if not fs.raw:
            self._drain_error_queue(fs)

    def _handle_packet(self, fs: _FamilySocket, data: bytes, source: str, rx_mono_ns: int) -> None:
        if fs.raw and not fs.v6:
            if len(data) < 20:
                return
            data = data[(data[0] & 0x0F) * 4 :]  # raw IPv4 sockets deliver the IP header too
        if len(data) < 8:
            return
        icmp_type, _code, _csum, ident, seq = _ECHO_HEADER.unpack_from(data)
        reply_type = ICMP6_ECHO_REPLY if fs.v6 else ICMP4_ECHO_REPLY
        if icmp_type == reply_type:
            if fs.raw and ident != fs.ident:
                return
            payload = data[8 : 8 + _TOKEN_BYTES]
            if payload and not self._token.startswith(payload):
                return  # another program's echo that happens to share our identifier and sequence
            self._resolve((fs.family, source, seq), rx_mono_ns, None, source)
            return
        error = _error_kind(fs.v6, icmp_type)
        if error is None or not fs.raw:
            return
        # An ICMP error quoting our request: find the original destination, identifier and sequence.
        inner = data[8:]
        if fs.v6:
            if len(inner) < 48:
                return
            destination = socket.inet_ntop(socket.AF_INET6, inner[24:40])
            quoted = inner[40:]
        else:
            if len(inner) < 20:
                return
            destination = socket.inet_ntop(socket.AF_INET, inner[16:20])
            quoted = inner[(inner[0] & 0x0F) * 4 :]
        if len(quoted) < 8:
            return
        q_type, _c, _s, q_ident, q_seq = _ECHO_HEADER.unpack_from(quoted)
        if q_type != fs.echo_request or q_ident != fs.ident:
            return
        self._resolve((fs.family, destination, q_seq), rx_mono_ns, error, source)

    def _drain_error_queue(self, fs: _FamilySocket) -> None:
        for queued in read_error_queue(fs.sock, fs.family):
            if queued.destination is None or len(queued.packet) < 8:
                continue
            error = _error_kind(fs.v6, queued.icmp_type) or ErrorKind.UNREACHABLE
            seq = _ECHO_HEADER.unpack_from(queued.packet)[4]
            self._resolve((fs.family, queued.destination[0], seq), queued.rx_mono_ns, error, queued.offender)


def _error_kind(v6: bool, icmp_type: int) -> ErrorKind | None:
    if icmp_type == (ICMP6_UNREACHABLE if v6 else ICMP4_UNREACHABLE):
        return ErrorKind.UNREACHABLE
    if icmp_type == (ICMP6_TIME_EXCEEDED if v6 else ICMP4_TIME_EXCEEDED):
        return ErrorKind.TTL_EXCEEDED
    return None


def _ones_complement_sum(data: bytes) -> int:
    """The (unfolded) sum of 16-bit big-endian words of `data`, padded to even length (RFC 1071)."""
    if len(data) % 2:
        data += b"\x00"
    return sum(struct.unpack(f"!{len(data) // 2}H", data)) if data else 0


def _fold(total: int) -> int:
    """The Internet checksum of words whose plain sum is `total`."""
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF
