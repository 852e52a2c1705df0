"""Latency under load ("responsiveness", bufferbloat): how much the round trip to a region grows while the
line is busy, which idle pings never show.

One test, for a URL of the region's HTTP endpoint (a large file, as the download method takes):

1. idle: latency probes for `load_idle_s` seconds, one every `load_probe_interval_s`;
2. download: the download method's transfer (`probes.methods.download.transfer_once`) over
   `download_connections` connections, capped by `download_max_bytes` and `download_max_seconds`;
3. upload, when `load_upload_url` names an HTTP(S) endpoint that accepts POST bodies (e.g. Cloudflare's
   `https://speed.cloudflare.com/__up`, or a networkQuality server's `https_upload_url`): random bytes
   POSTed over as many connections, with the same caps (`probes.methods._upload`).

The latency probes keep their own schedule through all phases (a probe every interval from the start of
the test, whatever the load does), and each sample records its phase (`probes.loaded_latency.PHASES`).
They are ICMP echoes to the URL's host, through the run's ICMP engine; TCP connects to the URL's port
where ICMP is not permitted here, or where the host answered none of the idle phase's echoes (the idle
phase is then run again with TCP; the unanswered echoes are kept, in phase `idle-icmp`, and count in no
figure). `count` tests run one after another, `interval_s` apart; their probes
are pooled by phase.

Figures (`probes.loaded_latency`): idle_rtt_median_ms, loaded_rtt_median_ms, loaded_rtt_p90_ms,
loaded_rtt_increase_ms, per-direction medians and increases, rpm, grade; and the load's
download_mbps (the steady rate of the download method, after its first second), download_bytes,
upload_mbps (acknowledged bytes after the first second), upload_bytes; latency_probe (icmp or tcp).
`throughput_mbps` is download_mbps. Each test's latency samples are the result's samples; a test whose
download failed completely makes the result's error when every test failed so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import urllib.parse
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from probes.errors import ErrorKind, IcmpNotPermitted, ResolveFailed
from probes.i18n import _, clauses
from probes.icmp.engine import EchoOutcome
from probes.loaded_latency import ABANDONED, RAMP_S, figures
from probes.methods import tcp
from probes.methods._context import RunContext
from probes.methods._httpcommon import prepare_tls
from probes.methods._upload import Upload, upload_once
from probes.methods.download import Transfer, throughput, transfer_once
from probes.resolve import Resolved, resolve
from probes.results import MetricValue, ProbeResult, Sample
from probes.target import ProbeOptions, Target
from probes.timestamps import now_us

T = TypeVar("T")


class _Probes:
    """Latency probes on a fixed schedule (one every `interval_s` from the start), each tagged with the phase
    in force when it is sent."""

    def __init__(
        self,
        ctx: RunContext,
        target: Target,
        resolved: Resolved,
        kind: str,
        port: int,
        options: ProbeOptions,
        first_seq: int,
    ) -> None:
        self.ctx = ctx
        self.target = target
        self.resolved = resolved
        self.kind = kind
        self.port = port
        self.options = options
        self.phase = "idle"
        self.next_seq = first_seq
        self.pending: list[asyncio.Future[Sample]] = []
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def stop(self) -> list[Sample]:
        """Stop sending; every probe sent, once answered or timed out, in send order."""
        self._stop.set()
        if self._task is not None:
            await self._task
        return list(await asyncio.gather(*self.pending))

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
        for future in self.pending:
            future.cancel()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        interval = self.options.load_probe_interval_s
        start = loop.time()
        tick = 0
        while not self._stop.is_set():
            due = start + tick * interval
            delay = due - loop.time()
            if delay > 0:
                try:
                    await asyncio.wait_for(self._stop.wait(), delay)
                    break
                except TimeoutError:
                    pass
            await self.ctx.pacer.turn()
            self._send(self.phase, tick)
            # A late wake-up skips the ticks it missed rather than bursting to catch up.
            tick = max(tick + 1, int((loop.time() - start) / interval) + 1)

    def _send(self, phase: str, tick: int) -> None:
        seq = self.next_seq
        self.next_seq += 1
        if self.kind == "icmp":
            echo = self.ctx.icmp.send(
                self.resolved.address,
                self.resolved.family,
                self.options.timeout_s,
                self.options.payload_bytes,
            )
            future: asyncio.Future[Sample] = asyncio.ensure_future(_echo_sample(echo, seq, phase, tick))
        else:
            connect = tcp.connect_once(
                self.resolved.address,
                self.resolved.family,
                self.port,
                self.options.timeout_s,
                seq,
                self.ctx.backend.handshake_rtt_ms,
                self.ctx.backend.handshake_retransmissions,
            )
            future = asyncio.ensure_future(_tagged(connect, phase, tick))
        future.add_done_callback(self._emit)
        self.pending.append(future)

    def _emit(self, future: asyncio.Future[Sample]) -> None:
        if not future.cancelled() and future.exception() is None:
            self.ctx.emit(self.target, future.result())


async def _echo_sample(echo: Awaitable[EchoOutcome], seq: int, phase: str, tick: int) -> Sample:
    outcome = await echo
    return Sample(seq, outcome.sent_at_us, outcome.rtt_ms, outcome.error, phase, tick)


async def _tagged(connect: Awaitable[Sample], phase: str, tick: int) -> Sample:
    return dataclasses.replace(await connect, phase=phase, tick=tick)


async def _under_load(probes: _Probes, direction: str, load: Awaitable[T]) -> T:
    """Run a load with the probes tagged `<direction>-ramp` for its first RAMP_S, then `<direction>`."""
    probes.phase = f"{direction}-ramp"

    def ramped() -> None:
        if probes.phase == f"{direction}-ramp":
            probes.phase = direction

    handle = asyncio.get_running_loop().call_later(RAMP_S, ramped)
    try:
        return await load
    finally:
        handle.cancel()


async def _idle(
    probes_for: Callable[[str, int], _Probes], kind: str, seconds: float, first_seq: int
) -> tuple[_Probes, list[Sample]]:
    """The idle phase with `kind` probes; with ICMP and no echo answered, once more with TCP connects.
    Returns the probes (still sending, for the load) and the samples of an abandoned ICMP idle phase."""
    probes = probes_for(kind, first_seq)
    probes.start()
    try:
        await asyncio.sleep(seconds)
        if kind != "icmp" or any(_answered(f) for f in probes.pending):
            return probes, []
        abandoned = await probes.stop()
    except BaseException:
        probes.cancel()
        raise
    # Echoes answered only after the phase ended still show that the host answers them.
    answered = any(s.rtt_ms is not None for s in abandoned)
    retry = probes_for("icmp" if answered else "tcp", probes.next_seq)
    retry.start()
    try:
        await asyncio.sleep(seconds)
    except BaseException:
        retry.cancel()
        raise
    return retry, [dataclasses.replace(s, phase=ABANDONED) for s in abandoned]


def _answered(future: asyncio.Future[Sample]) -> bool:
    return (
        future.done()
        and not future.cancelled()
        and future.exception() is None
        and (future.result().rtt_ms is not None)
    )


async def measure(target: Target, options: ProbeOptions, ctx: RunContext) -> ProbeResult:
    started = now_us()
    assert target.url is not None and target.host is not None
    url = str(target.url)
    try:
        resolved = await resolve(target.host)
    except ResolveFailed as exc:
        return ProbeResult(target, started, now_us(), error=ErrorKind.DNS, message=str(exc))
    await prepare_tls(options.verify_tls)
    notes: list[str] = []
    try:
        ctx.icmp.privileged(resolved.family)
        kind = "icmp"
    except IcmpNotPermitted as exc:
        kind = "tcp"
        notes.append(_("{reason} Probed with TCP connects instead.").format(reason=exc))
    port = _port_of(url)
    samples: list[Sample] = []
    downloads: list[Transfer] = []
    uploads: list[Upload] = []
    used = kind
    for test in range(options.count):
        if test:
            await asyncio.sleep(options.interval_s)

        def probes_for(probe_kind: str, first_seq: int) -> _Probes:
            return _Probes(ctx, target, resolved, probe_kind, port, options, first_seq)

        probes, abandoned = await _idle(probes_for, used, options.load_idle_s, len(samples))
        if probes.kind != used:
            notes.append(
                _(
                    "{host} answered none of the idle phase's ICMP echoes: probed with TCP connects to port {port}."
                ).format(host=target.host, port=port)
            )
            used = probes.kind
        samples.extend(abandoned)
        try:
            downloads.append(
                await _under_load(probes, "download", transfer_once(url, options, len(downloads)))
            )
            if options.load_upload_url is not None:
                upload = upload_once(options.load_upload_url, options, RAMP_S)
                uploads.append(await _under_load(probes, "upload", upload))
        except BaseException:
            probes.cancel()
            raise
        samples.extend(await probes.stop())
    samples = [dataclasses.replace(s, seq=i) for i, s in enumerate(samples)]
    metrics = _metrics(samples, downloads, uploads, used, resolved.address, options)
    if used == "icmp":
        metrics["privileged"] = ctx.icmp.privileged(resolved.family)
    failed = [d for d in downloads if d.error_message]
    error = failed[-1].sample.error if failed and len(failed) == len(downloads) else None
    notes += [d.error_message for d in failed[-1:] if d.error_message]
    notes += [u.message for u in uploads[-1:] if u.message]
    return ProbeResult(
        target,
        started,
        now_us(),
        samples=tuple(samples),
        error=error,
        message=clauses(notes) or None,
        metrics=metrics,
    )


def _metrics(
    samples: list[Sample],
    downloads: list[Transfer],
    uploads: list[Upload],
    kind: str,
    address: str,
    options: ProbeOptions,
) -> dict[str, MetricValue]:
    rates = [throughput(d.arrivals, d.kernel) for d in downloads]
    download = [r["steady_mbps"] if r["steady_mbps"] is not None else r["throughput_mbps"] for r in rates]
    up = [u.mbps for u in uploads]
    out: dict[str, MetricValue] = dict(figures(samples))
    out |= {
        "download_mbps": _median(download),
        "download_bytes": sum(int(r["bytes"] or 0) for r in rates),
        "upload_mbps": _median(up) if uploads else None,
        "upload_bytes": sum(u.bytes for u in uploads) if uploads else None,
        "throughput_mbps": _median(download),
        "bytes": sum(int(r["bytes"] or 0) for r in rates),
        "connections": options.download_connections,
        "latency_probe": kind,
        "address": address,
        "tests": len(downloads),
    }
    return out


def _median(values: Sequence[object]) -> float | None:
    present = sorted(float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool))
    if not present:
        return None
    mid = len(present) // 2
    return present[mid] if len(present) % 2 else (present[mid - 1] + present[mid]) / 2


def _port_of(url: str) -> int:
    parts = urllib.parse.urlsplit(url)
    return parts.port or (443 if parts.scheme == "https" else 80)
