"""Linux socket plumbing the probes share: kernel receive timestamps, ICMP errors from a socket's error queue
(IP_RECVERR), the TTL of outgoing packets, and what the kernel's TCP_INFO says about a connection.

Python's `socket` module does not export the numbers for these; they are Linux's (include/uapi), named here
once. Nothing here raises for what the network does: a missing timestamp falls back to the time of reading,
an unreadable error queue reads as empty, a TCP_INFO the kernel does not give reads as None.
"""

from __future__ import annotations

import errno
import socket
import struct
import time
from dataclasses import dataclass

SO_TIMESTAMPNS = 35
SCM_TIMESTAMPNS = SO_TIMESTAMPNS
IP_RECVERR = 11
IPV6_RECVERR = 25
SO_EE_ORIGIN_ICMP = 2
SO_EE_ORIGIN_ICMP6 = 3
SOCK_EXTENDED_ERR = struct.Struct("@IBBBBII")  # errno, origin, type, code, pad, info, data
_TIMESPEC = struct.Struct("@qq")
_CLOCK_PAIR_MAX_SPREAD_NS = 20_000

# ICMP error messages (type numbers; the code that says "port unreachable" within "destination unreachable").
ICMP4_UNREACHABLE, ICMP4_TIME_EXCEEDED, ICMP4_PORT_UNREACHABLE = 3, 11, 3
ICMP6_UNREACHABLE, ICMP6_TIME_EXCEEDED, ICMP6_PORT_UNREACHABLE = 1, 3, 4

# What a send on a socket with IP_RECVERR (or an unprivileged ICMP socket) returns when an earlier packet's
# ICMP error is still pending: that error is on the error queue, and the send can be repeated.
PENDING_ERROR_ERRNOS = frozenset({errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ECONNREFUSED, errno.EPROTO})


def enable_receive_timestamps(sock: socket.socket) -> None:
    """Have the kernel stamp every received packet (read with `receive_time`)."""
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)


def enable_error_queue(sock: socket.socket, family: int) -> None:
    """Have ICMP errors about this socket's packets queued on its error queue (read with `read_error_queue`)."""
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVERR, 1)
    else:
        sock.setsockopt(socket.IPPROTO_IP, IP_RECVERR, 1)


def set_hop_limit(sock: socket.socket, family: int, ttl: int) -> None:
    """Set the unicast TTL / hop limit of the socket's next packets (-1: the system default)."""
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, ttl)
    else:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)


@dataclass(frozen=True, slots=True)
class QueuedError:
    """One entry of a socket's error queue: an ICMP error about one of our packets.

    `destination` is where our packet was going, `offender` who sent the error (a router, or the destination
    itself), `packet` the start of our packet as the kernel gives it back (an ICMP socket: the echo header)."""

    destination: tuple[str, int] | None
    icmp_type: int
    icmp_code: int
    offender: str | None
    rx_mono_ns: int
    packet: bytes


def read_error_queue(sock: socket.socket, family: int) -> list[QueuedError]:
    """Everything on the socket's error queue now (ICMP-originated entries only); [] when it cannot be read."""
    out: list[QueuedError] = []
    while True:
        try:
            packet, ancdata, _flags, destination = sock.recvmsg(2048, 1024, socket.MSG_ERRQUEUE)
        except OSError:  # BlockingIOError: the queue is empty
            return out
        rx_mono_ns = receive_time(ancdata)
        for level, kind, cdata in ancdata:
            if (level, kind) not in ((socket.IPPROTO_IP, IP_RECVERR), (socket.IPPROTO_IPV6, IPV6_RECVERR)):
                continue
            if len(cdata) < SOCK_EXTENDED_ERR.size:
                continue
            _errno, origin, ee_type, ee_code, _pad, _info, _data = SOCK_EXTENDED_ERR.unpack_from(cdata)
            if origin not in (SO_EE_ORIGIN_ICMP, SO_EE_ORIGIN_ICMP6):
                continue
            offender = offender_address(family, cdata[SOCK_EXTENDED_ERR.size :])
            dest = (str(destination[0]), int(destination[1])) if destination else None
            out.append(QueuedError(dest, ee_type, ee_code, offender, rx_mono_ns, packet))


def offender_address(family: int, raw: bytes) -> str | None:
    """The address in the `sockaddr` that follows a `sock_extended_err` (who sent the ICMP error)."""
    try:
        if family == socket.AF_INET and len(raw) >= 8:
            return socket.inet_ntop(socket.AF_INET, raw[4:8])
        if family == socket.AF_INET6 and len(raw) >= 24:
            return socket.inet_ntop(socket.AF_INET6, raw[8:24])
    except (OSError, ValueError):
        pass
    return None


def receive_time(ancdata: list[tuple[int, int, bytes]]) -> int:
    """Monotonic ns at which the packet reached the socket (kernel timestamp when available).

    The kernel stamps packets with the wall clock; to carry that onto the monotonic clock we read the wall
    clock between two monotonic readings and take their midpoint, so that being preempted between readings
    cannot shift the result (a single pair of readings once produced a negative loopback RTT).
    """
    for level, kind, cdata in ancdata:
        if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS and len(cdata) >= _TIMESPEC.size:
            seconds, nanoseconds = _TIMESPEC.unpack_from(cdata)
            kernel_wall_ns = int(seconds) * 1_000_000_000 + int(nanoseconds)
            mono_at_wall, wall_ns = _clock_pair()
            queued_ns = wall_ns - kernel_wall_ns
            if 0 <= queued_ns < 10_000_000_000:  # ignore a wall-clock step between the two readings
                return mono_at_wall - queued_ns
    return time.perf_counter_ns()


def _clock_pair() -> tuple[int, int]:
    """(monotonic ns, wall-clock ns) read as close to the same instant as we can: the wall clock between two
    monotonic readings, retried while the two are more than 20 µs apart (preempted in between)."""
    best: tuple[int, int, int] | None = None
    for _ in range(4):
        before = time.perf_counter_ns()
        wall = time.time_ns()
        after = time.perf_counter_ns()
        if best is None or after - before < best[0]:
            best = (after - before, (before + after) // 2, wall)
        if after - before < _CLOCK_PAIR_MAX_SPREAD_NS:
            break
    assert best is not None
    return best[1], best[2]


# -- TCP_INFO (struct tcp_info, include/uapi/linux/tcp.h) -------------------------------------------------

_TCP_INFO_LEN = 104
_TCPI_RETRANSMITS = 2  # u8: retransmissions of the current (SYN) segment
_TCPI_RTT = 68  # u32, µs
_TCPI_TOTAL_RETRANS = 100  # u32
_TCPI_BYTES_ACKED = 120  # u64: payload bytes the peer acknowledged
_TCPI_BYTES_RECEIVED = 128  # u64: in-order payload bytes received
_TCPI_DATA_SEGS_IN = 152  # u32: segments with data that reached this socket, in order or not
_TCP_INFO_DATA_LEN = 160


def kernel_handshake_rtt_ms(sock: socket.socket) -> float | None:
    """The handshake RTT the kernel measured, or None if it took none (SYN retransmitted) or cannot say."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
    except OSError:
        return None
    if len(info) < _TCPI_TOTAL_RETRANS + 4:
        return None
    (total_retrans,) = struct.unpack_from("I", info, _TCPI_TOTAL_RETRANS)
    (rtt_us,) = struct.unpack_from("I", info, _TCPI_RTT)
    if total_retrans or info[_TCPI_RETRANSMITS] or rtt_us == 0:
        return None
    return float(rtt_us) / 1000.0


def kernel_receive_counters(sock: socket.socket) -> tuple[int, int] | None:
    """(data segments that reached the socket's TCP stack, in-order bytes received) so far, or None where
    the kernel does not say. Segments count on arrival even when TCP must hold them back behind a lost one,
    so they show when data crossed the link; bytes give their average size."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_DATA_LEN)
    except OSError:
        return None
    if len(info) < _TCP_INFO_DATA_LEN:
        return None
    (segments,) = struct.unpack_from("I", info, _TCPI_DATA_SEGS_IN)
    (received,) = struct.unpack_from("Q", info, _TCPI_BYTES_RECEIVED)
    return int(segments), int(received)


def kernel_bytes_acked(sock: socket.socket) -> int | None:
    """Payload bytes the peer has acknowledged on this connection so far (what an upload delivered, as
    opposed to what was handed to the socket), or None where the kernel does not say."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_DATA_LEN)
    except OSError:
        return None
    if len(info) < _TCPI_BYTES_ACKED + 8:
        return None
    (acked,) = struct.unpack_from("Q", info, _TCPI_BYTES_ACKED)
    return int(acked)
