"""The probe-backend interface: what a platform lends the probe methods (its ICMP engine, how it times a
TCP handshake, which traceroute protocols it can run) and the engine protocol every ICMP engine keeps."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from probes.icmp.echoes import EchoOutcome
from probes.pacing import Pacer
from probes.timestamps import TimestampSource

OutcomeHook = Callable[[int, EchoOutcome], None]


class EchoEngine(Protocol):
    """Sends ICMP echoes and matches their answers (`probes.icmp.engine.IcmpEngine` is the sockets' one,
    `probes.backends.windows.WindowsIcmpEngine` the Windows ICMP API's). One per event loop."""

    async def __aenter__(self) -> EchoEngine: ...

    async def __aexit__(self, *exc: object) -> None: ...

    def privileged(self, family: int = socket.AF_INET) -> bool:
        """Whether this family's echoes go over a raw socket; raises IcmpNotPermitted if none opens."""
        ...

    def tx_timestamps_refused(self, family: int = socket.AF_INET) -> str | None:
        """Why the kernel gives no transmit stamps where the backend asks for them; else None."""
        ...

    def sees_icmp_errors(self, family: int = socket.AF_INET) -> bool:
        """Whether routers' answers (time exceeded, unreachable) come back to us (traceroute needs them)."""
        ...

    def send(
        self, address: str, family: int, timeout_s: float, payload_bytes: int = 56, ttl: int | None = None
    ) -> asyncio.Future[EchoOutcome]: ...

    def train(
        self,
        address: str,
        family: int,
        *,
        count: int,
        interval_s: float,
        timeout_s: float,
        payload_bytes: int = 56,
        pacer: Pacer | None = None,
        on_outcome: OutcomeHook | None = None,
    ) -> asyncio.Future[list[EchoOutcome]]: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class ProbeBackend:
    """One platform's way of probing.

    `name` is what results record (the `backend` metric) and what `LINKVET_PROBE_BACKEND` takes.
    `platforms`: the `sys.platform` values it runs on (empty: any). `best_timestamps`: who times an RTT at
    best here (`kernel`, `kernel-rx`, `user`); results say less only with a note. `open_icmp(privileged)`
    makes the run's ICMP engine; `handshake_rtt_ms(sock)` is the kernel's SYN → SYN-ACK time of a connected
    socket, or None (the connect is then timed in user space); `handshake_retransmissions(sock)` how many
    times the kernel sent the SYN again (a lost SYN or SYN-ACK: the attempt is a loss), None where it cannot
    say; `trace_protocols` are the traceroute
    protocols it can run (ICMP errors about UDP and TCP probes need Linux's error queue)."""

    name: str
    platforms: frozenset[str]
    best_timestamps: TimestampSource
    trace_protocols: frozenset[str]
    open_icmp: Callable[[bool | None], EchoEngine]
    handshake_rtt_ms: Callable[[socket.socket], float | None]
    handshake_retransmissions: Callable[[socket.socket], int | None] = field(
        default=lambda sock: None  # the kernel does not say (the connect time says it: `probes.methods.tcp`)
    )

    def runs_on(self, platform: str = sys.platform) -> bool:
        return not self.platforms or platform in self.platforms


def no_kernel_handshake_rtt(sock: socket.socket) -> float | None:
    """A platform whose kernel gives us no handshake RTT: the connect is timed in user space."""
    return None
