"""The macOS backend: ICMP over the unprivileged datagram sockets macOS allows without root (they deliver
what a raw socket does: the IPv4 header, our own identifier, routers' ICMP errors as packets), replies
stamped by the kernel (SO_TIMESTAMP, a `struct timeval`: µs) and sends timed in user space (`kernel-rx`);
TCP connect times in user space (TCP_CONNECTION_INFO's RTT is whole milliseconds, coarser than the
monotonic clock); traceroute over ICMP (IPv6 unprivileged sockets cannot set a hop limit on macOS).

Written to Darwin's headers (sys/socket.h) and icmplib's macOS behaviour; run by the hosted CI's macOS job,
not on this project's machines. The parts that need no macOS are tested on Linux
(`tests/probes/test_backends.py`).
"""

from __future__ import annotations

import contextlib
import socket
import struct

from probes.backends.base import EchoEngine, ProbeBackend, no_kernel_handshake_rtt
from probes.icmp.engine import IcmpEngine
from probes.icmp.socket import Ancillary, IcmpSocketStyle
from probes.timestamps import TimestampSource

SO_TIMESTAMP = 0x0400  # Darwin's sys/socket.h (Linux's is 29)
SCM_TIMESTAMP = 0x02
SOL_SOCKET = 0xFFFF  # Darwin's SOL_SOCKET (Linux's is 1)
_TIMEVAL = struct.Struct("@qi")  # time_t tv_sec; suseconds_t (int32) tv_usec; padded to 16 bytes
_RCVBUF_BYTES = 4 * 1024 * 1024


def configure(sock: socket.socket, family: int, raw: bool) -> str | None:
    sock.setsockopt(SOL_SOCKET, SO_TIMESTAMP, 1)
    with contextlib.suppress(OSError):
        sock.setsockopt(SOL_SOCKET, socket.SO_RCVBUF, _RCVBUF_BYTES)
    return None


def receive_wall_ns(ancdata: Ancillary) -> int | None:
    """The kernel's receive stamp (SCM_TIMESTAMP, wall-clock µs) as ns; None if it gave none."""
    for level, kind, cdata in ancdata:
        if level == SOL_SOCKET and kind == SCM_TIMESTAMP and len(cdata) >= _TIMEVAL.size:
            seconds, micros = _TIMEVAL.unpack_from(cdata)
            return int(seconds) * 1_000_000_000 + int(micros) * 1000
    return None


MACOS_STYLE = IcmpSocketStyle(
    "macos",
    configure,
    receive_wall_ns,
    error_queue=False,
    kernel_receive_stamps=True,
    datagram_like_raw=True,
    tx_stamps=False,
)


def open_icmp(privileged: bool | None) -> EchoEngine:
    return IcmpEngine(privileged, MACOS_STYLE)


BACKEND = ProbeBackend(
    name="macos",
    platforms=frozenset({"darwin"}),
    best_timestamps=TimestampSource.KERNEL_RX,
    trace_protocols=frozenset({"icmp"}),
    open_icmp=open_icmp,
    handshake_rtt_ms=no_kernel_handshake_rtt,
)
