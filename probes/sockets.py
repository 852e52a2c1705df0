"""Linux socket plumbing the probes share: kernel receive and transmit timestamps, ICMP errors from a socket's
error queue (IP_RECVERR), the TTL of outgoing packets, the ICMP types a raw socket lets through, and what the
kernel's TCP_INFO says about a connection.

Python's `socket` module does not export the numbers for these; they are Linux's (include/uapi), named here
once. Nothing here raises for what the network does: a missing timestamp falls back to the time of reading,
an unreadable error queue reads as empty, a TCP_INFO the kernel does not give reads as None.

Transmit timestamps (`enable_tx_timestamps`, Documentation/networking/timestamping.rst): the kernel stamps
each datagram in the device's transmit path (software stamp, CLOCK_REALTIME, the clock of the receive stamps)
and queues the stamp on the socket's error queue, without the packet (OPT_TSONLY), keyed by a per-socket
counter that counts sends from 0 (OPT_ID). `drain_error_queue` returns those stamps beside the ICMP errors.
Raw and unprivileged ICMP sockets, IPv4 and IPv6, get them on Linux 6.x; a TCP socket gets none for its SYN
(the kernel stamps only bytes written with sendmsg), which is why TCP connect times come from TCP_INFO.
"""

from __future__ import annotations

import errno
import os
import socket
import struct
import sys
import time
from dataclasses import dataclass
from typing import NamedTuple

from probes.i18n import _

SO_TIMESTAMPNS = 35
SCM_TIMESTAMPNS = SO_TIMESTAMPNS
SO_TIMESTAMPING = 37
SCM_TIMESTAMPING = SO_TIMESTAMPING
SOF_TIMESTAMPING_TX_SOFTWARE = 1 << 1
SOF_TIMESTAMPING_SOFTWARE = 1 << 4
SOF_TIMESTAMPING_OPT_ID = 1 << 7
SOF_TIMESTAMPING_OPT_TSONLY = 1 << 11
SOF_TIMESTAMPING_OPT_RX_FILTER = 1 << 17  # Linux 6.12: no SCM_TIMESTAMPING on received packets
TX_TIMESTAMP_FLAGS = (
    SOF_TIMESTAMPING_TX_SOFTWARE
    | SOF_TIMESTAMPING_SOFTWARE
    | SOF_TIMESTAMPING_OPT_ID
    | SOF_TIMESTAMPING_OPT_TSONLY
)
IP_RECVERR = 11
IPV6_RECVERR = 25
SO_EE_ORIGIN_ICMP = 2
SO_EE_ORIGIN_ICMP6 = 3
SO_EE_ORIGIN_TIMESTAMPING = 4
SOCK_EXTENDED_ERR = struct.Struct("@IBBBBII")  # errno, origin, type, code, pad, info, data
_TIMESPEC = struct.Struct("@qq")
_unpack_timespec = _TIMESPEC.unpack_from
_SOL_SOCKET = socket.SOL_SOCKET
SOL_RAW, ICMP_FILTER = 255, 1  # raw IPv4 ICMP: a 32-bit mask of the types to drop
ICMP6_FILTER = 1  # raw ICMPv6 (level IPPROTO_ICMPV6): 256 bits, one per type, set = drop
_RECVERR = frozenset({(socket.IPPROTO_IP, IP_RECVERR), (socket.IPPROTO_IPV6, IPV6_RECVERR)})
_CLOCK_PAIR_MAX_SPREAD_NS = 20_000

# ICMP error messages (type numbers; the code that says "port unreachable" within "destination unreachable").
ICMP4_UNREACHABLE, ICMP4_TIME_EXCEEDED, ICMP4_PORT_UNREACHABLE = 3, 11, 3
ICMP6_UNREACHABLE, ICMP6_TIME_EXCEEDED, ICMP6_PORT_UNREACHABLE = 1, 3, 4

# What a send on a socket with IP_RECVERR (or an unprivileged ICMP socket) returns when an earlier packet's
# ICMP error is still pending: that error is on the error queue, and the send can be repeated.
PENDING_ERROR_ERRNOS = frozenset({errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ECONNREFUSED, errno.EPROTO})


def zone_problem(address: str) -> str | None:
    """Why the zone of a scoped IPv6 address (`fe80::1%eth0`, `fe80::1%3`) names no interface of this
    machine; None when it does, or the address has no zone. (The kernel may send to a zone that names no
    interface without a word; the packet then goes nowhere.)"""
    if "%" not in address:
        return None
    zone = address.rsplit("%", 1)[1]
    try:
        if zone.isdigit():
            socket.if_indextoname(int(zone))
        else:
            socket.if_nametoindex(zone)
    except (OSError, OverflowError, ValueError):
        return _("no network interface {zone} on this machine, which the address {address} names").format(
            zone=zone, address=address
        )
    return None


def refusal_text(err: int) -> str:
    """The system's words for a send it refused, with the errno's name: `Network is unreachable (ENETUNREACH)`."""
    name = errno.errorcode.get(err)
    text = os.strerror(err)
    return f"{text} ({name})" if name else text


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


def enable_tx_timestamps(sock: socket.socket) -> str | None:
    """Have the kernel stamp each datagram this socket sends (read with `drain_error_queue`).

    None when it will, else why not (the kernel's words): the caller then times sends in user space."""
    try:
        sock.setsockopt(
            socket.SOL_SOCKET, SO_TIMESTAMPING, TX_TIMESTAMP_FLAGS | SOF_TIMESTAMPING_OPT_RX_FILTER
        )
    except OSError:
        try:  # a kernel before 6.12 without the receive filter: received packets then carry both stamps
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, TX_TIMESTAMP_FLAGS)
        except OSError as exc:
            return _("SO_TIMESTAMPING refused: {reason}").format(reason=exc.strerror or exc)
    return None


def restart_tx_keys(sock: socket.socket) -> None:
    """Start the socket's transmit-timestamp keys from 0 again (OPT_ID cleared and set: the kernel resets
    its counter), after a failed send left it unclear whether that send used a key."""
    flags = sock.getsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, flags & ~SOF_TIMESTAMPING_OPT_ID)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, flags)


def pass_icmp_types(sock: socket.socket, family: int, types: frozenset[int]) -> None:
    """Let a raw ICMP socket receive only these ICMP types (the kernel drops the rest before queueing them:
    on loopback a raw socket would otherwise read every echo request it sends). Best effort."""
    try:
        if family == socket.AF_INET6:
            words = [0xFFFFFFFF] * 8
            for t in types:
                words[t >> 5] &= ~(1 << (t & 31))
            sock.setsockopt(socket.IPPROTO_ICMPV6, ICMP6_FILTER, struct.pack("8I", *words))
        else:
            mask = 0xFFFFFFFF
            for t in types:
                mask &= ~(1 << t)
            sock.setsockopt(SOL_RAW, ICMP_FILTER, struct.pack("I", mask))
    except OSError:
        pass


@dataclass(frozen=True, slots=True)
class QueuedError:
    """One entry of a socket's error queue: an ICMP error about one of our packets.

    `destination` is where our packet was going, `offender` who sent the error (a router, or the destination
    itself), `packet` the start of our packet as the kernel gives it back (an ICMP socket: the echo header).
    `rx_wall_ns` is the kernel's receive stamp (wall clock), None if it gave none."""

    destination: tuple[str, int] | None
    icmp_type: int
    icmp_code: int
    offender: str | None
    rx_mono_ns: int
    packet: bytes
    rx_wall_ns: int | None = None


class TxStamp(NamedTuple):
    """The kernel's transmit timestamp of one sent datagram: its OPT_ID key and the wall-clock ns."""

    key: int
    wall_ns: int


def read_error_queue(sock: socket.socket, family: int) -> list[QueuedError]:
    """Everything on the socket's error queue now (ICMP-originated entries only); [] when it cannot be read."""
    return drain_error_queue(sock, family)[0]


def drain_error_queue(sock: socket.socket, family: int) -> tuple[list[QueuedError], list[TxStamp]]:
    """The socket's error queue, emptied: ICMP errors about our packets, and transmit timestamps."""
    errors: list[QueuedError] = []
    stamps: list[TxStamp] = []
    clock: tuple[int, int] | None = None
    while True:
        try:
            packet, ancdata, _flags, destination = sock.recvmsg(2048, 1024, socket.MSG_ERRQUEUE)
        except OSError:  # BlockingIOError: the queue is empty
            return errors, stamps
        wall_ns = None
        extended = None
        for level, kind, cdata in ancdata:
            if level == socket.SOL_SOCKET and kind in (SCM_TIMESTAMPING, SCM_TIMESTAMPNS):
                if wall_ns is None and len(cdata) >= _TIMESPEC.size:
                    seconds, nanoseconds = _TIMESPEC.unpack_from(cdata)
                    wall_ns = int(seconds) * 1_000_000_000 + int(nanoseconds)
            elif (level, kind) in _RECVERR and len(cdata) >= SOCK_EXTENDED_ERR.size:
                extended = cdata
        if extended is None:
            continue
        _errno, origin, ee_type, ee_code, _pad, _info, ee_data = SOCK_EXTENDED_ERR.unpack_from(extended)
        if origin == SO_EE_ORIGIN_TIMESTAMPING:
            if wall_ns:
                stamps.append(TxStamp(int(ee_data), wall_ns))
            continue
        if origin not in (SO_EE_ORIGIN_ICMP, SO_EE_ORIGIN_ICMP6):
            continue
        if clock is None:
            clock = clock_pair()
        rx_mono_ns = time.perf_counter_ns() if wall_ns is None else wall_to_monotonic(wall_ns, clock)
        offender = offender_address(family, extended[SOCK_EXTENDED_ERR.size :])
        dest = (str(destination[0]), int(destination[1])) if destination else None
        errors.append(QueuedError(dest, ee_type, ee_code, offender, rx_mono_ns, packet, wall_ns))


def read_tx_stamps(sock: socket.socket, limit: int) -> list[tuple[int, int]]:
    """Up to `limit` transmit stamps `(key, wall ns)` from an error queue that holds nothing else (a raw
    socket's, which gets no ICMP errors there): the engine's fast path, one read per stamp and no final
    empty read when all are in. Entries that are not stamps are skipped."""
    stamps: list[tuple[int, int]] = []
    recvmsg, unpack_timespec, errqueue = sock.recvmsg, _TIMESPEC.unpack_from, socket.MSG_ERRQUEUE
    for _read in range(limit):
        try:
            _data, ancdata, _flags, _address = recvmsg(0, 512, errqueue)
        except OSError:
            break
        wall_ns = key = None
        for level, kind, cdata in ancdata:
            if kind == SCM_TIMESTAMPING and level == socket.SOL_SOCKET:
                seconds, nanoseconds = unpack_timespec(cdata)
                wall_ns = seconds * 1_000_000_000 + nanoseconds
            elif (level, kind) in _RECVERR and len(cdata) >= 16 and cdata[4] == SO_EE_ORIGIN_TIMESTAMPING:
                key = int.from_bytes(cdata[12:16], sys.byteorder)
        if wall_ns and key is not None:
            stamps.append((key, wall_ns))
    return stamps


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


def kernel_receive_wall_ns(ancdata: list[tuple[int, int, bytes]]) -> int | None:
    """The kernel's receive stamp of a packet (wall-clock ns, SO_TIMESTAMPNS), None if it gave none."""
    for level, kind, cdata in ancdata:
        if kind == SCM_TIMESTAMPNS and level == _SOL_SOCKET and len(cdata) >= 16:
            seconds, nanoseconds = _unpack_timespec(cdata)
            return seconds * 1_000_000_000 + nanoseconds  # type: ignore[no-any-return]
    return None


def receive_time(ancdata: list[tuple[int, int, bytes]]) -> int:
    """Monotonic ns at which the packet reached the socket (kernel timestamp when available)."""
    wall_ns = kernel_receive_wall_ns(ancdata)
    return time.perf_counter_ns() if wall_ns is None else wall_to_monotonic(wall_ns, clock_pair())


def wall_to_monotonic(wall_ns: int, clock: tuple[int, int]) -> int:
    """A recent kernel wall-clock stamp carried onto the monotonic clock, through a `clock_pair()` read after
    it: the stamp's age on the wall clock taken back from the pair's monotonic reading. A stamp that looks
    older than 10 s or newer than the pair (a wall-clock step in between) reads as the pair's time."""
    mono_at_wall, now_wall = clock
    queued_ns = now_wall - wall_ns
    if 0 <= queued_ns < 10_000_000_000:
        return mono_at_wall - queued_ns
    return mono_at_wall


def clock_pair() -> tuple[int, int]:
    """(monotonic ns, wall-clock ns) read as close to the same instant as we can.

    The wall clock is read between two monotonic readings and paired with their midpoint, retried while the
    two are more than 20 µs apart (preempted in between): a single pair of readings once produced a
    negative loopback RTT."""
    best: tuple[int, int, int] | None = None
    for _attempt in range(4):
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
_TCPI_RCV_MSS = 20  # u32: the largest segment payload received (the receiver's idea of the sender's MSS)
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


def kernel_handshake_retransmissions(sock: socket.socket) -> int | None:
    """How many segments the kernel sent again on this connection so far (`tcpi_total_retrans`; right
    after connect: the SYN's retransmissions, which a lost SYN or a lost SYN-ACK both cause), or None where
    the kernel does not say. Readable after the connect ended either way (established or refused)."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
    except OSError:
        return None
    if len(info) < _TCPI_TOTAL_RETRANS + 4:
        return None
    (total_retrans,) = struct.unpack_from("I", info, _TCPI_TOTAL_RETRANS)
    return max(int(total_retrans), int(info[_TCPI_RETRANSMITS]))


def kernel_receive_counters(sock: socket.socket) -> tuple[int, int, int] | None:
    """(data segments that reached the socket's TCP stack, in-order bytes received, the largest segment
    payload received: the receive MSS) so far, or None where the kernel does not say. Segments count on
    arrival even when TCP must hold them back behind a lost one, so they show when data crossed the link."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_DATA_LEN)
    except OSError:
        return None
    if len(info) < _TCP_INFO_DATA_LEN:
        return None
    (segments,) = struct.unpack_from("I", info, _TCPI_DATA_SEGS_IN)
    (received,) = struct.unpack_from("Q", info, _TCPI_BYTES_RECEIVED)
    (mss,) = struct.unpack_from("I", info, _TCPI_RCV_MSS)
    return int(segments), int(received), int(mss)


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
