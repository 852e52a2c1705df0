"""TCP connect time ("tcping"): one handshake per attempt. A refusal (RST) is a reply with an RTT; no answer
within the timeout is a loss.

An attempt's RTT is the SYN → SYN-ACK time the kernel measured for the connection (`tcpi_rtt` of TCP_INFO,
read by `probes.sockets.kernel_handshake_rtt_ms`; µs resolution, unaffected by event-loop delays). When the
SYN had to be retransmitted the kernel takes no sample (Karn's rule), and the attempt reports the user-space
connect time instead, which includes the retransmission wait, as tcping tools do.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import time

from probes.errors import ErrorKind, ResolveFailed
from probes.methods._attempts import describe_losses, send_paced
from probes.methods._context import RunContext
from probes.resolve import resolve
from probes.results import ProbeResult, Sample
from probes.sockets import kernel_handshake_rtt_ms
from probes.target import ProbeOptions, Target
from probes.timestamps import now_us

_UNREACHABLE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN}


async def measure(target: Target, options: ProbeOptions, ctx: RunContext) -> ProbeResult:
    started = now_us()
    assert target.host is not None and target.port is not None
    try:
        resolved = await resolve(target.host)
    except ResolveFailed as exc:
        return ProbeResult(target, started, now_us(), error=ErrorKind.DNS, message=str(exc))
    address, family, port = resolved.address, resolved.family, target.port

    def start(seq: int) -> asyncio.Task[Sample]:
        task = asyncio.ensure_future(connect_once(address, family, port, options.timeout_s, seq))
        if ctx.on_sample is not None:
            task.add_done_callback(lambda t: ctx.emit(target, t.result()) if not t.cancelled() else None)
        return task

    samples = tuple(await send_paced(options.count, options.interval_s, ctx.pacer, start))
    refused = sum(1 for s in samples if s.rtt_ms is not None and s.error is ErrorKind.REFUSED)
    notes = [
        n
        for n in (describe_losses([s for s in samples if s.error is not ErrorKind.REFUSED], "connects"),)
        if n
    ]
    if refused:
        notes.append(
            f"{refused} of {len(samples)} connects refused (RST): counted as replies, port {port} is closed"
        )
    return ProbeResult(
        target,
        started,
        now_us(),
        samples=samples,
        message="; ".join(notes) or None,
        metrics={"address": address},
    )


async def connect_once(address: str, family: int, port: int, timeout_s: float, seq: int = 0) -> Sample:
    """One TCP handshake to address:port; the sample's RTT is the handshake time, or None when lost."""
    loop = asyncio.get_running_loop()
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setblocking(False)
        sent_at_us = now_us()
        started_ns = time.perf_counter_ns()
        code = sock.connect_ex((address, port))
        if code == errno.EINPROGRESS:
            writable: asyncio.Future[None] = loop.create_future()
            loop.add_writer(sock.fileno(), _set_once, writable)
            try:
                await asyncio.wait_for(writable, timeout_s)
            except TimeoutError:
                return Sample(seq, sent_at_us, None, ErrorKind.TIMEOUT)
            finally:
                loop.remove_writer(sock.fileno())
            code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        elapsed_ms = (time.perf_counter_ns() - started_ns) / 1e6
        if code == 0:
            return Sample(seq, sent_at_us, kernel_handshake_rtt_ms(sock) or elapsed_ms, None)
        if code == errno.ECONNREFUSED:
            return Sample(seq, sent_at_us, elapsed_ms, ErrorKind.REFUSED)
        if code in _UNREACHABLE:
            return Sample(seq, sent_at_us, None, ErrorKind.UNREACHABLE)
        if code == errno.ETIMEDOUT:
            return Sample(seq, sent_at_us, None, ErrorKind.TIMEOUT)
        return Sample(seq, sent_at_us, None, ErrorKind.CONNECT)
    finally:
        sock.close()


def _set_once(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
