"""One ICMP echo as the engine's thread keeps it: the outcome it hands back (`EchoOutcome`), an echo in
flight (`Echo`) and a train of echoes to one address (`Train`). `probes.icmp.worker` sends and reads them."""

from __future__ import annotations

import time
from typing import NamedTuple

from probes.errors import ErrorKind
from probes.icmp.socket import FamilySocket
from probes.pacing import Pacer
from probes.timestamps import TimestampSource


class EchoOutcome(NamedTuple):
    """One echo: when it left (UTC µs), its RTT in ms or None, why there was no reply, who said so.

    `answered_ms` is the time until any answer came back, ICMP errors (time exceeded, unreachable) and late
    replies included: what traceroute reports for a hop. None when nothing came back. `timestamps` says who
    timed the answer (None when there was none). `detail` gives the system's words when this machine
    refused to send the echo (`ErrorKind.SEND_FAILED`).

    A named tuple, so that the compiled engine thread (`probes.icmp.compiled`) makes each one without running
    Python code: a run of 10,000 echoes made 10,000 of these in the interpreter before, 18 ms of CPU."""

    sent_at_us: int
    rtt_ms: float | None
    error: ErrorKind | None = None
    responder: str | None = None
    answered_ms: float | None = None
    timestamps: TimestampSource | None = None
    detail: str | None = None


Finished = tuple[object, int, EchoOutcome]  # (owner, index, outcome), handed to the event loop


class Echo:
    """One echo in flight."""

    __slots__ = (
        "deadline_ns",
        "done",
        "fs",
        "index",
        "key",
        "owner",
        "pkey",
        "sent_mono_ns",
        "sent_wall_ns",
        "timeout_ns",
        "tx_wall_ns",
        "urgent",
    )

    def __init__(self, fs: FamilySocket, pkey: tuple[str, int], owner: object, index: int, timeout_ns: int):
        self.fs = fs
        self.pkey = pkey  # (destination, sequence number): the key of `fs.pending`
        self.owner = owner
        self.index = index
        self.timeout_ns = timeout_ns
        self.sent_mono_ns = 0
        self.sent_wall_ns = 0
        self.deadline_ns = 0
        self.key: int | None = None  # its transmit stamp's key
        self.tx_wall_ns: int | None = None
        self.done = False
        self.urgent = False  # someone waits for this one echo (traceroute): hand it over promptly


class Train:
    """`count` echoes to one address, `interval_ns` apart, each at the pacer's turn."""

    __slots__ = (
        "address",
        "cancelled",
        "core_id",
        "count",
        "due_ns",
        "fs",
        "interval_ns",
        "next_index",
        "owner",
        "pacer",
        "payload_bytes",
        "timeout_ns",
    )

    def __init__(
        self,
        fs: FamilySocket,
        address: str,
        count: int,
        interval_ns: int,
        timeout_ns: int,
        payload_bytes: int,
        pacer: Pacer | None,
        owner: object,
    ) -> None:
        self.fs = fs
        self.address = address
        self.count = count
        self.interval_ns = interval_ns
        self.timeout_ns = timeout_ns
        self.payload_bytes = payload_bytes
        self.pacer = pacer if pacer is not None and pacer.gap_ns > 0 else None
        self.owner = owner
        self.next_index = 0
        self.due_ns = time.monotonic_ns()
        self.cancelled = False
        self.core_id: int | None = None  # its id in the compiled engine (`probes.icmp.compiled`)
