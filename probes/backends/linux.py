"""The Linux backend: the ICMP engine on sockets with kernel stamps at both ends (SO_TIMESTAMPING for the
send, SO_TIMESTAMPNS for the reply, ns), ICMP errors from the error queue (IP_RECVERR), TCP connect times
from the kernel's TCP_INFO, traceroute over ICMP, UDP and TCP."""

from __future__ import annotations

from probes.backends.base import EchoEngine, ProbeBackend
from probes.icmp.engine import IcmpEngine
from probes.icmp.socket import LINUX_STYLE
from probes.sockets import kernel_handshake_retransmissions, kernel_handshake_rtt_ms
from probes.timestamps import TimestampSource


def open_icmp(privileged: bool | None) -> EchoEngine:
    return IcmpEngine(privileged, LINUX_STYLE)


BACKEND = ProbeBackend(
    name="linux",
    platforms=frozenset({"linux"}),
    best_timestamps=TimestampSource.KERNEL,
    trace_protocols=frozenset({"icmp", "udp", "tcp"}),
    open_icmp=open_icmp,
    handshake_rtt_ms=kernel_handshake_rtt_ms,
    handshake_retransmissions=kernel_handshake_retransmissions,
)
