"""The portable backend: what any platform with BSD sockets can do, and what Linux runs when told to
(`LINKVET_PROBE_BACKEND=portable`), so that pacing, matching, loss accounting and storage are tested with it.

ICMP goes through the same engine as on Linux, with no kernel stamps and no Linux-only socket option: the
send and the reply are both timed in user space on the monotonic clock (`timestamps` = `user`), the reply
the moment the engine's thread reads it (it then waits in select(2) on the sockets rather than reading in
batches). Routers' answers reach only a raw socket (no error queue), so an unprivileged trace over ICMP
says it cannot see them; UDP and TCP traceroute are not available. TCP connect times are user-space too.
"""

from __future__ import annotations

import contextlib
import socket

from probes.backends.base import EchoEngine, ProbeBackend, no_kernel_handshake_rtt
from probes.icmp.engine import IcmpEngine
from probes.icmp.socket import Ancillary, IcmpSocketStyle
from probes.timestamps import TimestampSource

_RCVBUF_BYTES = 4 * 1024 * 1024


def configure(sock: socket.socket, family: int, raw: bool) -> str | None:
    """A larger receive buffer (SO_RCVBUF, capped by the system); nothing else to set."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, _RCVBUF_BYTES)
    return None


def no_receive_stamp(ancdata: Ancillary) -> int | None:
    return None


PORTABLE_STYLE = IcmpSocketStyle(
    "portable",
    configure,
    no_receive_stamp,
    error_queue=False,
    kernel_receive_stamps=False,
    tx_stamps=False,
)


def open_icmp(privileged: bool | None) -> EchoEngine:
    return IcmpEngine(privileged, PORTABLE_STYLE)


BACKEND = ProbeBackend(
    name="portable",
    platforms=frozenset(),
    best_timestamps=TimestampSource.USER,
    trace_protocols=frozenset({"icmp"}),
    open_icmp=open_icmp,
    handshake_rtt_ms=no_kernel_handshake_rtt,
)
