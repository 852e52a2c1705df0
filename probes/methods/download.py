"""Throughput of an HTTP(S) test file: streamed, never more than `download_max_bytes` nor longer than
`download_max_seconds` (so a 10 GB file is never fetched by accident), over 1..N parallel connections.

Figures (all connections together):
    bytes            body bytes received
    seconds          first body byte → last body byte
    throughput_mbps  bytes × 8 / seconds / 10⁶
    steady_mbps      the rate after a warm-up (TCP slow start: the first second of the transfer, or the
                     first 10% of bytes when it lasted under 2 s): the data segments that reached the
                     connections' TCP stacks (TCP_INFO) times a full segment's payload, so that data TCP
                     holds back behind a lost segment counts when it crossed the link, whatever the reader's
                     stalls; where the kernel does not say, the least-squares slope of the bytes read
    steady_from_s, steady_to_s
                     the steady window, in seconds from the first body byte (one attempt only)
    ttfb_ms          request sent → response's first byte (the connections' earliest), timed as in the http
                     method (the kernel's stamps; `ttfb_source` says where they were not to be had)
Each attempt is one sample whose `rtt_ms` is its time to first byte; a failed transfer is a lost sample.
With several attempts, rates and TTFB are medians over attempts, bytes and seconds are totals.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from dataclasses import dataclass

import numpy as np

from probes.errors import ErrorKind
from probes.i18n import _
from probes.methods._context import RunContext
from probes.methods._httpcommon import (
    PhaseTimer,
    classify,
    client,
    pin,
    prepare_tls,
    status_error,
    ttfb_source,
)
from probes.results import MetricValue, ProbeResult, Sample
from probes.sockets import kernel_receive_counters
from probes.target import ProbeOptions, Target
from probes.timestamps import now_us

_WARMUP_S = 1.0
_WARMUP_FRACTION = 0.10


KernelSample = tuple[int, int, int, int]
"""(monotonic ns, data segments that had reached the connection's TCP stack, in-order bytes received, the
largest segment payload seen: the kernel's receive MSS), at one chunk."""


@dataclass(frozen=True, slots=True)
class Transfer:
    """One attempt's outcome; `arrivals` are (monotonic ns, bytes) per received chunk, all connections;
    `kernel` has, per connection, a `KernelSample` at each chunk."""

    sample: Sample
    arrivals: tuple[tuple[int, int], ...]
    ttfb_ms: float | None
    status: int | None
    error_message: str | None
    kernel: tuple[tuple[KernelSample, ...], ...] = ()
    ttfb_source: str | None = None  # how `ttfb_ms` was timed: kernel or user-space

    @property
    def bytes(self) -> int:
        return sum(n for _t, n in self.arrivals)


class _Budget:
    """The byte and time caps shared by the connections of one transfer."""

    def __init__(self, max_bytes: int, max_seconds: float) -> None:
        self.remaining = max_bytes
        self.deadline_ns = time.perf_counter_ns() + int(max_seconds * 1e9)

    def exhausted(self) -> bool:
        return self.remaining <= 0 or time.perf_counter_ns() >= self.deadline_ns


async def _one_connection(
    url: str,
    options: ProbeOptions,
    budget: _Budget,
    arrivals: list[tuple[int, int]],
    kernel: list[KernelSample],
) -> tuple[float | None, str | None, int]:
    pinned = await pin(url)
    phases = PhaseTimer()
    async with client(options, phases.clock) as http:
        request = http.build_request(
            "GET",
            pinned.pinned_url,
            headers=pinned.headers,
            extensions={**pinned.extensions, "trace": phases.trace},
        )
        response = await http.send(request, stream=True)
        ttfb_ms = phases.ttfb_ms  # request sent → response's first byte, as the http method times it
        source = phases.ttfb_source
        try:
            if response.status_code >= 400:
                raise _StatusError(response.status_code, response.reason_phrase)
            # Each chunk as the socket gave it (no chunk size: a 64 KiB chunker would hold the first bytes
            # back until 64 KiB were in, a few round trips into TCP's slow start).
            async for chunk in response.aiter_raw():
                take = min(len(chunk), budget.remaining)
                now = time.perf_counter_ns()
                arrivals.append((now, take))
                if phases.socket is not None:
                    counters = kernel_receive_counters(phases.socket)
                    if counters is not None:
                        kernel.append((now, *counters))
                budget.remaining -= take
                if budget.exhausted():
                    break
        finally:
            await response.aclose()
    return ttfb_ms, source, response.status_code


class _StatusError(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(status, reason)
        self.status = status
        self.reason = reason


async def transfer_once(url: str, options: ProbeOptions, seq: int = 0) -> Transfer:
    """One capped transfer of `url` over `download_connections` connections."""
    sent_at_us = now_us()
    budget = _Budget(options.download_max_bytes, options.download_max_seconds)
    arrivals: list[tuple[int, int]] = []
    kernel: list[list[KernelSample]] = [[] for _ in range(options.download_connections)]
    tasks = [
        asyncio.ensure_future(_one_connection(url, options, budget, arrivals, kernel[i]))
        for i in range(options.download_connections)
    ]
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    ttfbs = [(o[0], o[1]) for o in outcomes if isinstance(o, tuple) and o[0] is not None]
    statuses = [o[2] for o in outcomes if isinstance(o, tuple)]
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    arrivals.sort()
    ttfb, source = min(ttfbs) if ttfbs else (None, None)
    if failures:
        failure = failures[0]
        if isinstance(failure, _StatusError):
            kind, message = ErrorKind.HTTP_STATUS, status_error(failure.status, failure.reason, url)
            statuses.append(failure.status)
        elif isinstance(failure, Exception):
            kind, message = classify(failure, url)
        else:
            raise failure
        if len(failures) < len(outcomes):
            message = _("{failed} of {count} connections failed: {message}").format(
                failed=len(failures), count=len(outcomes), message=message
            )
        rtt = ttfb if arrivals else None
        return Transfer(
            Sample(seq, sent_at_us, rtt, kind),
            tuple(arrivals),
            ttfb,
            statuses[0] if statuses else None,
            message,
            ttfb_source=source,
        )
    if not arrivals:
        return Transfer(
            Sample(seq, sent_at_us, None, ErrorKind.PROTOCOL),
            (),
            ttfb,
            statuses[0] if statuses else None,
            _("{url}: the response had an empty body").format(url=url),
            ttfb_source=source,
        )
    return Transfer(
        Sample(seq, sent_at_us, ttfb),
        tuple(arrivals),
        ttfb,
        statuses[0] if statuses else None,
        None,
        tuple(tuple(series) for series in kernel),
        ttfb_source=source,
    )


def throughput(
    arrivals: tuple[tuple[int, int], ...], kernel: tuple[tuple[KernelSample, ...], ...] = ()
) -> dict[str, float | int | None]:
    """bytes, seconds, throughput_mbps and steady_mbps of a transfer (see the module docstring); `kernel`
    holds each connection's `KernelSample` series where the kernel reports it."""
    total = sum(n for _t, n in arrivals)
    if len(arrivals) < 2:
        return {
            "bytes": total,
            "seconds": None,
            "throughput_mbps": None,
            "steady_mbps": None,
            "steady_from_s": None,
            "steady_to_s": None,
        }
    first, last = arrivals[0][0], arrivals[-1][0]
    seconds = (last - first) / 1e9
    # Bytes of the first chunk arrived at `first`, before the interval began: leave them out of the rate.
    counted = total - arrivals[0][1]
    mbps = counted * 8 / seconds / 1e6 if seconds > 0 else None
    window_start = _warm_up_end(arrivals)
    steady = None
    window = None
    if window_start is not None:
        measured = _kernel_rate(kernel, window_start) if kernel else None
        if measured is not None:
            steady, window = measured
        else:
            steady = _slope_mbps([(t, n) for t, n in arrivals if t >= window_start], cumulative=False)
            window = (window_start, last)
    return {
        "bytes": total,
        "seconds": seconds,
        "throughput_mbps": mbps,
        "steady_mbps": steady,
        # the steady window, in seconds from the first body byte (so the figure can be checked)
        "steady_from_s": None if window is None else (window[0] - first) / 1e9,
        "steady_to_s": None if window is None else (window[1] - first) / 1e9,
    }


def _warm_up_end(arrivals: tuple[tuple[int, int], ...]) -> int | None:
    """When the warm-up ends: a second after the first byte, or once 10% of the bytes are in for transfers
    under 2 s; None when too little is left after it."""
    first, last = arrivals[0][0], arrivals[-1][0]
    total = sum(n for _t, n in arrivals)
    if (last - first) / 1e9 >= 2 * _WARMUP_S:
        start = bisect.bisect_left([t for t, _n in arrivals], first + int(_WARMUP_S * 1e9))
    else:
        running, start = 0, 0
        for start, (_t, n) in enumerate(arrivals):  # noqa: B007 - the index after the loop is the answer
            running += n
            if running >= total * _WARMUP_FRACTION:
                break
    if len(arrivals) - start < 3 or arrivals[-1][0] <= arrivals[start][0]:
        return None
    return arrivals[start][0]


def _kernel_rate(
    kernel: tuple[tuple[KernelSample, ...], ...], window_start: int
) -> tuple[float, tuple[int, int]] | None:
    """The connections' summed steady rate: each one's data segments that reached its TCP stack between its
    first and last sample in the window, times the payload of a full segment (the kernel's receive MSS), over
    the time between those samples. Segments count when they cross the link, in order or not, so neither a
    reader's stall nor a retransmission hole at either end of the window moves the rate (in-order bytes per
    segment, averaged over the transfer, would read low by what waited behind a hole at the last sample and by
    every duplicate); a second copy of a segment (a spurious retransmission) and a short segment count as a
    full one. With the window actually measured (monotonic ns). None unless every connection has samples."""
    rates, starts, ends = [], [], []
    for series in kernel:
        points = [(t, segments) for t, segments, _bytes, _mss in series if t >= window_start]
        size = series[-1][3] if series else 0
        if not size or len(points) < 2 or points[-1][0] <= points[0][0]:
            return None
        (t0, s0), (t1, s1) = points[0], points[-1]
        rates.append((s1 - s0) * size * 8 / ((t1 - t0) / 1e9) / 1e6)
        starts.append(t0)
        ends.append(t1)
    if not rates:
        return None
    return float(sum(rates)), (min(starts), max(ends))


def _slope_mbps(points: list[tuple[int, int]], *, cumulative: bool) -> float | None:
    """Least-squares slope of bytes over time, in Mbit/s: `points` are (ns, byte count so far) when
    `cumulative`, else (ns, bytes in this chunk). A slope over every point is neither quantised by the chunk
    size nor moved much by one stall and the burst that follows it."""
    if len(points) < 3 or points[-1][0] <= points[0][0]:
        return None
    t = np.array([p[0] for p in points], dtype=np.float64) / 1e9
    values = np.array([p[1] for p in points], dtype=np.float64)
    received = values if cumulative else np.cumsum(values)
    t -= t.mean()
    return float(np.dot(t, received - received.mean()) / np.dot(t, t)) * 8 / 1e6


async def measure(target: Target, options: ProbeOptions, ctx: RunContext) -> ProbeResult:
    started = now_us()
    assert target.url is not None
    await prepare_tls(options.verify_tls)

    async def attempt(seq: int) -> Transfer:
        result = await transfer_once(str(target.url), options, seq)
        ctx.emit(target, result.sample)
        return result

    # Transfers never overlap: each waits for the previous one to finish.
    transfers: list[Transfer] = []
    for seq in range(options.count):
        if seq:
            await asyncio.sleep(options.interval_s)
        await ctx.pacer.turn()
        transfers.append(await attempt(seq))
    figures = [throughput(t.arrivals, t.kernel) for t in transfers]
    metrics: dict[str, MetricValue] = {
        "throughput_mbps": _median([f["throughput_mbps"] for f in figures]),
        "steady_mbps": _median([f["steady_mbps"] for f in figures]),
        "steady_from_s": figures[-1]["steady_from_s"] if len(figures) == 1 else None,
        "steady_to_s": figures[-1]["steady_to_s"] if len(figures) == 1 else None,
        "bytes": sum(int(f["bytes"] or 0) for f in figures),
        "seconds": sum(float(f["seconds"] or 0.0) for f in figures)
        if any(f["seconds"] for f in figures)
        else None,
        "ttfb_ms": _median([t.ttfb_ms for t in transfers]),
        "ttfb_source": ttfb_source([t.ttfb_source for t in transfers]),
        "status": transfers[-1].status,
        "connections": options.download_connections,
    }
    failed = [t for t in transfers if t.error_message]
    error = failed[-1].sample.error if failed and len(failed) == len(transfers) else None
    message = failed[-1].error_message if failed else None
    if failed and error is None:
        message = _("{failed} of {count} transfers failed; last: {message}").format(
            failed=len(failed), count=len(transfers), message=message
        )
    samples = tuple(t.sample for t in transfers)
    return ProbeResult(
        target, started, now_us(), samples=samples, error=error, message=message, metrics=metrics
    )


def _median(values: list[float | int | None]) -> float | None:
    present = sorted(float(v) for v in values if v is not None)
    if not present:
        return None
    mid = len(present) // 2
    return present[mid] if len(present) % 2 else (present[mid - 1] + present[mid]) / 2
