"""The kernel's timestamps of an HTTP request and of its response's first segment (Linux SO_TIMESTAMPING).

One `TtfbClock` per request, tied to the connection's socket:

- `arm()`, just before the request's first write: the socket starts stamping what it sends (software TX
  timestamps, read back from its error queue: `SCM_TSTAMP_SND`, when the driver took the segment, else
  `SCM_TSTAMP_SCHED`, when it entered the device's queue) and what it receives (software RX timestamps).
- `wait_readable()`, before every read of the raw byte stream: sleeps until data (or EOF, or an error) is
  queued, and once armed reads the error queue whenever it wakes (that is where the TX stamps arrive).
- `peek_stamps(starts)`: the RX timestamp of the segment holding each of the given byte offsets of the
  receive queue, read by peeking (MSG_PEEK), so nothing is taken from the queue. This has to happen as soon as
  the data arrives: TCP merges in-order segments waiting in the queue into one buffer that keeps the *latest*
  segment's timestamp, so a late look sees a later instant (never an earlier one).
- `response_started(rx_wall_ns)`: the instant the caller chose; stamping stops and the error queue is emptied.
- `recv(max_bytes)`: the connection's reads, all of them, go through the clock's descriptor (a duplicate of the
  socket's, so that the event loop's own reader, which owns the original, is never involved): a non-empty
  error queue makes a socket poll as readable until it is emptied, and every wait here empties it.

`ttfb_ms` is the response's instant minus the request's, both from the kernel's CLOCK_REALTIME stamps; None
(and `fallback_reason` says why) where the socket could not be reached, the kernel refused the option or
gave no timestamp. Nothing here raises for what the socket or the network does.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import sys
from typing import Any

from probes.sockets import IP_RECVERR, IPV6_RECVERR, SOCK_EXTENDED_ERR

SO_TIMESTAMPING = 37  # include/uapi/asm-generic/socket.h (SO_TIMESTAMPING_OLD: 64-bit timespecs on LP64)
SCM_TIMESTAMPING = SO_TIMESTAMPING
# include/uapi/linux/net_tstamp.h
SOF_TIMESTAMPING_TX_SOFTWARE = 1 << 1
SOF_TIMESTAMPING_RX_SOFTWARE = 1 << 3
SOF_TIMESTAMPING_SOFTWARE = 1 << 4
SOF_TIMESTAMPING_OPT_ID = 1 << 7
SOF_TIMESTAMPING_TX_SCHED = 1 << 8
SOF_TIMESTAMPING_OPT_TSONLY = 1 << 11
SO_EE_ORIGIN_TIMESTAMPING = 4  # include/uapi/linux/errqueue.h
SCM_TSTAMP_SND, SCM_TSTAMP_SCHED = 0, 1

STAMPING = (
    SOF_TIMESTAMPING_TX_SOFTWARE
    | SOF_TIMESTAMPING_TX_SCHED
    | SOF_TIMESTAMPING_RX_SOFTWARE
    | SOF_TIMESTAMPING_SOFTWARE
    | SOF_TIMESTAMPING_OPT_ID
    | SOF_TIMESTAMPING_OPT_TSONLY
)
_SCM_TIMESTAMPING = struct.Struct("@qq")  # ts[0] of struct scm_timestamping: the software stamp
_ANCILLARY_BYTES = 512
_PEEK_LIMIT = 65536
_MAX_TTFB_NS = 3600 * 1_000_000_000


def software_stamp_ns(ancdata: list[tuple[int, int, bytes]]) -> int | None:
    """The software timestamp (CLOCK_REALTIME ns) in a message's SCM_TIMESTAMPING, if any."""
    for level, kind, cdata in ancdata:
        if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPING and len(cdata) >= _SCM_TIMESTAMPING.size:
            seconds, nanoseconds = _SCM_TIMESTAMPING.unpack_from(cdata)
            stamp = int(seconds) * 1_000_000_000 + int(nanoseconds)
            return stamp or None
    return None


def transmit_stamp(ancdata: list[tuple[int, int, bytes]]) -> tuple[int, int, int] | None:
    """(kind: SCM_TSTAMP_*, key: byte offset of the stamped write's last byte, CLOCK_REALTIME ns) of one
    error-queue message, or None when it is not a transmit timestamp."""
    stamp = software_stamp_ns(ancdata)
    for level, kind, cdata in ancdata:
        if (level, kind) not in ((socket.IPPROTO_IP, IP_RECVERR), (socket.IPPROTO_IPV6, IPV6_RECVERR)):
            continue
        if len(cdata) < SOCK_EXTENDED_ERR.size:
            continue
        _errno, origin, _type, _code, _pad, info, data = SOCK_EXTENDED_ERR.unpack_from(cdata)
        if origin == SO_EE_ORIGIN_TIMESTAMPING and stamp is not None:
            return int(info), int(data), stamp
    return None


class TtfbClock:
    """The kernel's view of one request on one TCP connection (see the module docstring)."""

    def __init__(self) -> None:
        self._sock: socket.socket | None = None  # a duplicate of the connection's descriptor
        self.armed = False
        self.fallback_reason: str | None = "the connection's socket was not reachable"
        self._sent: dict[int, int] = {}  # SCM_TSTAMP_* -> earliest stamp (ns)
        self._rx_wall_ns: int | None = None
        self.done = False

    # -- the connection ------------------------------------------------------------------------------------

    def attach(self, sock: Any) -> None:
        """Tie the clock to a connection's socket (a socket, or asyncio's TransportSocket wrapper of one)."""
        if not sys.platform.startswith("linux"):
            self.fallback_reason = "kernel timestamps are read on Linux only"
            return
        try:
            self._sock = socket.fromfd(sock.fileno(), sock.family, sock.type)
        except (OSError, AttributeError, ValueError) as exc:
            self.fallback_reason = f"the connection's socket could not be opened ({exc})"
            return
        self.fallback_reason = "the request was not sent"

    @property
    def attached(self) -> bool:
        return self._sock is not None

    def close(self) -> None:
        if self._sock is not None:
            self._stop()
            self._sock.close()
            self._sock = None

    def arm(self) -> None:
        """Start stamping: the next write is the request's first."""
        if self._sock is None or self.armed or self.done:
            return
        try:
            self._sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, STAMPING)
        except OSError as exc:
            self.fallback_reason = f"the kernel refused SO_TIMESTAMPING ({exc.strerror or exc})"
            self.done = True
            return
        self.armed = True
        self.fallback_reason = "no response byte was read"

    @property
    def awaiting_response(self) -> bool:
        return self.armed and not self.done

    # -- waiting and peeking -------------------------------------------------------------------------------

    async def wait_readable(self) -> None:
        """Until the receive queue has data, an EOF or an error (emptying the error queue on every wake)."""
        sock = self._sock
        if sock is None:
            return
        if self.armed:
            self._drain_errors()
        if self._readable():
            return
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if self.armed:
                self._drain_errors()
            if not ready.done() and self._readable():
                ready.set_result(None)

        fd = sock.fileno()
        loop.add_reader(fd, wake)
        try:
            await ready
        finally:
            loop.remove_reader(fd)

    def recv(self, max_bytes: int) -> bytes:
        """Read from the connection without waiting (BlockingIOError when nothing is queued)."""
        assert self._sock is not None
        return self._sock.recv(max_bytes, socket.MSG_DONTWAIT)

    def peek(self, max_bytes: int = _PEEK_LIMIT) -> bytes:
        """What the receive queue holds now (up to `max_bytes`, 64 KiB at most), left in place."""
        if self._sock is None:
            return b""
        try:
            return self._sock.recv(min(max_bytes, _PEEK_LIMIT), socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except OSError:
            return b""

    def peek_stamps(self, offsets: list[int]) -> dict[int, int | None]:
        """The RX timestamp of the segment holding each byte offset of the receive queue (peeked: for TCP the
        stamp of the last buffer a read touches)."""
        out: dict[int, int | None] = {}
        for offset in offsets:
            stamp = None
            if self._sock is not None:
                try:
                    _data, ancdata, _flags, _addr = self._sock.recvmsg(
                        offset + 1, _ANCILLARY_BYTES, socket.MSG_PEEK | socket.MSG_DONTWAIT
                    )
                    stamp = software_stamp_ns(ancdata)
                except OSError:
                    stamp = None
            out[offset] = stamp
        return out

    def response_started(self, rx_wall_ns: int | None) -> None:
        """The first response byte's arrival as the caller found it (None: not found); stamping stops."""
        if not self.awaiting_response:
            return
        self._stop()
        self.done = True
        self._rx_wall_ns = rx_wall_ns
        if rx_wall_ns is None:
            self.fallback_reason = "the kernel gave no receive timestamp for the response"
        elif self._request_stamp() is None:
            self.fallback_reason = "the kernel gave no transmit timestamp for the request"
        else:
            self.fallback_reason = None

    @property
    def ttfb_ms(self) -> float | None:
        sent = self._request_stamp()
        if self.fallback_reason is not None or sent is None or self._rx_wall_ns is None:
            return None
        elapsed = self._rx_wall_ns - sent
        if not 0 < elapsed < _MAX_TTFB_NS:  # a wall-clock step between the two stamps
            return None
        return elapsed / 1e6

    # -- internals -----------------------------------------------------------------------------------------

    def _request_stamp(self) -> int | None:
        return self._sent.get(SCM_TSTAMP_SND, self._sent.get(SCM_TSTAMP_SCHED))

    def _readable(self) -> bool:
        assert self._sock is not None
        try:
            self._sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        except OSError:
            return True  # an error: the stream's own read will report it
        return True  # data, or b"" at EOF

    def _drain_errors(self) -> None:
        sock = self._sock
        if sock is None:
            return
        while True:
            try:
                _data, ancdata, _flags, _addr = sock.recvmsg(
                    0, _ANCILLARY_BYTES, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT
                )
            except OSError:
                return
            stamp = transmit_stamp(ancdata)
            if stamp is not None:  # the earliest of each kind: a retransmission is stamped again, later
                kind, _key, wall_ns = stamp
                if kind not in self._sent or wall_ns < self._sent[kind]:
                    self._sent[kind] = wall_ns

    def _stop(self) -> None:
        if self._sock is None or not self.armed:
            return
        with contextlib.suppress(OSError):
            self._sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, 0)
        self._drain_errors()
