"""TCP connect time ("tcping"): one handshake per attempt. A refusal (RST) is a reply with an RTT; no answer
within the timeout is a loss.

An attempt's RTT is the SYN → SYN-ACK time the kernel measured for the connection (`tcpi_rtt` of TCP_INFO,
read by `probes.sockets.kernel_handshake_rtt_ms`): the kernel's own clock at both ends (the SYN's transmit
time in the TCP stack, the SYN-ACK's arrival), µs resolution, untouched by a busy CPU or a late event loop.
SO_TIMESTAMPING would add nothing here: the kernel gives no transmit stamp for a SYN (it stamps only bytes
written with sendmsg; `tests/probes/test_tcp.py` checks that), and TCP_INFO already holds the receive end.
Such handshakes are timed `kernel`. A handshake whose SYN had to be sent again (the SYN or the SYN-ACK was
lost: the kernel's `tcpi_total_retrans`, or, where the kernel does not say, a connect that took TCP's initial
retransmission timeout of 1 s) is a loss on the line (`retransmitted`), not a 1.2 s round trip as tcping tools
report it: the attempt counts as lost and its late end is kept apart (the `retransmitted` and
`retransmitted_median_ms` figures). A refusal leaves no kernel sample: it reports the user-space connect time
(timed `user`). That is also every attempt's time on a probe backend
whose kernel gives no handshake RTT (`ProbeBackend.handshake_rtt_ms`: portable, macOS, Windows): connect()
to the moment the event loop sees the socket writable, on the monotonic clock. Where the event loop cannot
watch a socket (Windows' proactor loop) a helper thread waits in select(2) and takes that moment itself.

The SYN leaves inside `connect()` when the attempt starts, right after its pacer turn. A handshake whose RTT
exceeds the timeout counts as lost (`late`), even if the event loop saw it complete before the timer ran.
A connect this machine refuses at once (no route: ENETUNREACH from connect itself) is `send_failed`, an
error of this machine, not loss on the line; unreachable reported later, by an ICMP error from the network,
is `unreachable`.
"""

from __future__ import annotations

import asyncio
import errno
import os
import select
import socket
import statistics
import sys
import time
from collections.abc import Awaitable, Callable

from probes.errors import ErrorKind, ResolveFailed
from probes.i18n import clauses, ngettext
from probes.methods._attempts import attempt_notes, local_failure_result, send_paced
from probes.methods._context import RunContext
from probes.resolve import resolve
from probes.results import MetricValue, ProbeResult, Sample
from probes.sockets import zone_problem
from probes.target import ProbeOptions, Target
from probes.timestamps import TimestampSource, least_exact, now_us

_UNREACHABLE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN}
# What a non-blocking connect returns while the handshake runs (Windows: WSAEWOULDBLOCK; on Linux EAGAIN
# would mean no local port is free, a local failure).
_IN_PROGRESS = {errno.EINPROGRESS} | (
    {getattr(errno, "WSAEWOULDBLOCK", 10035)} if sys.platform == "win32" else set()
)
KernelRtt = Callable[[socket.socket], float | None]
Retransmissions = Callable[[socket.socket], int | None]
# TCP's initial retransmission timeout (RFC 6298 §2.1: 1 s; Linux TCP_TIMEOUT_INIT, macOS): a handshake that
# took this long had its SYN sent again, whatever the kernel can tell us.
INITIAL_RTO_MS = 1000.0


class Handshake:
    """One connect attempt; its SYN leaves when the object is made."""

    def __init__(
        self,
        address: str,
        family: int,
        port: int,
        seq: int = 0,
        kernel_rtt: KernelRtt | None = None,
        retransmissions: Retransmissions | None = None,
    ) -> None:
        self.seq = seq
        self.kernel_rtt = kernel_rtt
        self.retransmissions = retransmissions
        self.timestamps: TimestampSource | None = None
        self.late_ms: float | None = None
        self.retransmitted_ms: float | None = None  # a handshake that needed its SYN again: when it ended
        self.detail: str | None = None
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setblocking(False)
        self.sent_at_us = now_us()
        self.started_ns = time.perf_counter_ns()
        self.detail = zone_problem(address)
        if self.detail is not None:
            self.code = -1
            return
        try:
            self.code = self.sock.connect_ex((address, port))
        except OSError as exc:  # an address the system cannot use at all (a scope id that names no interface)
            self.code = -1
            self.detail = exc.strerror or str(exc)

    async def outcome(self, timeout_s: float) -> Sample:
        """Wait for the handshake (at most `timeout_s`); the attempt's sample. Closes the socket."""
        try:
            return await self._outcome(timeout_s)
        finally:
            self.sock.close()

    async def _outcome(self, timeout_s: float) -> Sample:
        sock, seq, sent_at_us = self.sock, self.seq, self.sent_at_us
        code = self.code
        if code != 0 and code not in _IN_PROGRESS:
            # Refused by this machine before anything left (no route, no such address here).
            if self.detail is None:
                self.detail = f"{os.strerror(code)} ({errno.errorcode.get(code, code)})"
            return Sample(seq, sent_at_us, None, ErrorKind.SEND_FAILED)
        ready_ns = time.perf_counter_ns()
        if code != 0:
            ready = await _writable(sock, timeout_s)
            if ready is None:
                return Sample(seq, sent_at_us, None, ErrorKind.TIMEOUT)
            ready_ns = ready
            code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        elapsed_ms = (ready_ns - self.started_ns) / 1e6
        refused = code in (errno.ECONNREFUSED, getattr(errno, "WSAECONNREFUSED", errno.ECONNREFUSED))
        if (code == 0 or refused) and self._retransmitted(sock, elapsed_ms):
            # The SYN (or its SYN-ACK, or the RST) was lost and the SYN sent again: a loss on the line. The
            # late end is kept (a figure of its own), never taken as the line's round trip.
            self.retransmitted_ms = elapsed_ms
            return Sample(seq, sent_at_us, None, ErrorKind.RETRANSMITTED)
        if code == 0:
            kernel_ms = None if self.kernel_rtt is None else self.kernel_rtt(sock)
            self.timestamps = TimestampSource.KERNEL if kernel_ms is not None else TimestampSource.USER
            return self._within(timeout_s, kernel_ms if kernel_ms is not None else elapsed_ms, None)
        if refused:
            self.timestamps = TimestampSource.USER
            return self._within(timeout_s, elapsed_ms, ErrorKind.REFUSED)
        if code in _UNREACHABLE:
            return Sample(seq, sent_at_us, None, ErrorKind.UNREACHABLE)
        if code == errno.ETIMEDOUT:
            return Sample(seq, sent_at_us, None, ErrorKind.TIMEOUT)
        return Sample(seq, sent_at_us, None, ErrorKind.CONNECT)

    def _retransmitted(self, sock: socket.socket, elapsed_ms: float) -> bool:
        """Whether the handshake needed its SYN sent again: as the kernel counts it (Linux TCP_INFO), else
        by its time — no first-try handshake takes TCP's initial retransmission timeout."""
        counted = None if self.retransmissions is None else self.retransmissions(sock)
        if counted is not None:
            return counted > 0
        return elapsed_ms >= INITIAL_RTO_MS

    def _within(self, timeout_s: float, rtt_ms: float, error: ErrorKind | None) -> Sample:
        if rtt_ms > timeout_s * 1000:
            self.late_ms = rtt_ms
            return Sample(self.seq, self.sent_at_us, None, ErrorKind.LATE)
        return Sample(self.seq, self.sent_at_us, rtt_ms, error)


def connect_once(
    address: str,
    family: int,
    port: int,
    timeout_s: float,
    seq: int = 0,
    kernel_rtt: KernelRtt | None = None,
    retransmissions: Retransmissions | None = None,
) -> Awaitable[Sample]:
    """One handshake: its SYN leaves now (the caller has had its pacer turn); await its sample.
    `kernel_rtt`: the run's probe backend's handshake timing (user-space timing without it);
    `retransmissions`: its count of the SYN's retransmissions (the connect time's without it)."""
    return Handshake(address, family, port, seq, kernel_rtt, retransmissions).outcome(timeout_s)


async def measure(target: Target, options: ProbeOptions, ctx: RunContext) -> ProbeResult:
    started = now_us()
    assert target.host is not None and target.port is not None
    try:
        resolved = await resolve(target.host)
    except ResolveFailed as exc:
        return ProbeResult(target, started, now_us(), error=ErrorKind.DNS, message=str(exc))
    address, family, port = resolved.address, resolved.family, target.port
    handshakes: list[Handshake] = []

    def start(seq: int) -> asyncio.Task[Sample]:
        # The SYN leaves now, in the pacer's turn.
        handshake = Handshake(
            address, family, port, seq, ctx.backend.handshake_rtt_ms, ctx.backend.handshake_retransmissions
        )
        handshakes.append(handshake)
        task = asyncio.ensure_future(handshake.outcome(options.timeout_s))
        if ctx.on_sample is not None:
            task.add_done_callback(lambda t: ctx.emit(target, t.result()) if not t.cancelled() else None)
        return task

    samples = tuple(await send_paced(options.count, options.interval_s, ctx.pacer, start))
    details = [h.detail for h in handshakes if h.detail]
    metrics: dict[str, MetricValue] = {"address": address, "backend": ctx.backend.name}
    failed = local_failure_result(target, started, samples, details, metrics)
    if failed is not None:
        return failed
    refused = sum(1 for s in samples if s.rtt_ms is not None and s.error is ErrorKind.REFUSED)
    notes = attempt_notes(
        [s for s in samples if s.error is not ErrorKind.REFUSED],
        "connects",
        timeout_s=options.timeout_s,
        late_ms=[h.late_ms for h in handshakes if h.late_ms is not None],
        details=details,
        best=ctx.backend.best_timestamps,
    )
    messages = [notes.message] if notes.message else []
    again = [h.retransmitted_ms for h in handshakes if h.retransmitted_ms is not None]
    if again:
        messages.append(
            ngettext(
                "{n} handshake ended only after its SYN was sent again (after {slowest} ms): the line lost "
                "a packet, counted as lost",
                "{n} handshakes ended only after their SYN was sent again (the slowest after {slowest} ms): "
                "the line lost a packet each, counted as lost",
                len(again),
            ).format(n=len(again), slowest=f"{max(again):.0f}")
        )
    if refused:
        messages.append(
            ngettext(
                "{n} of {total} connects refused (RST): counted as replies, port {port} is closed",
                "{n} of {total} connects refused (RST): counted as replies, port {port} is closed",
                refused,
            ).format(n=refused, total=len(samples), port=port)
        )
    sources = [h.timestamps for h in handshakes if h.timestamps is not None and h.late_ms is None]
    weakest = least_exact(sources)
    # The handshakes that needed their SYN again, apart: how many, and when they ended (never an RTT).
    metrics["retransmitted"] = len(again)
    metrics["retransmitted_median_ms"] = float(statistics.median(again)) if again else None
    return ProbeResult(
        target,
        started,
        now_us(),
        samples=samples,
        message=clauses(messages) or None,
        metrics={**metrics, "timestamps": None if weakest is None else str(weakest)},
    )


async def _writable(sock: socket.socket, timeout_s: float) -> int | None:
    """Wait for a connecting socket to become writable (the handshake ended, either way); the monotonic ns
    at which it did, None after `timeout_s`."""
    loop = asyncio.get_running_loop()
    writable: asyncio.Future[int] = loop.create_future()
    try:
        loop.add_writer(sock.fileno(), _set_once, writable)
    except NotImplementedError:  # Windows' proactor loop watches no sockets: a thread waits in select(2)
        return await loop.run_in_executor(None, _select_writable, sock, timeout_s)
    try:
        return await asyncio.wait_for(writable, timeout_s)
    except TimeoutError:
        return None
    finally:
        loop.remove_writer(sock.fileno())


def _select_writable(sock: socket.socket, timeout_s: float) -> int | None:
    """Blocking: the monotonic ns at which the socket became writable or failed (Windows reports a failed
    connect as an exception), None after `timeout_s`."""
    _r, writable, failed = select.select([], [sock], [sock], timeout_s)
    return time.perf_counter_ns() if writable or failed else None


def _set_once(future: asyncio.Future[int]) -> None:
    """Resolve with the monotonic time at which the socket became writable (before the task wakes up)."""
    if not future.done():
        future.set_result(time.perf_counter_ns())
