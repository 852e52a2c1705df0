"""Throughput of an HTTP(S) test file: streamed, never more than `download_max_bytes` nor longer than
`download_max_seconds` (so a 10 GB file is never fetched by accident), over 1..N parallel connections.

Figures (all connections together):
    bytes            body bytes received
    seconds          first body byte → last body byte
    throughput_mbps  bytes × 8 / seconds / 10⁶
    steady_mbps      the rate after a warm-up (TCP slow start: the first second of the transfer, or the
                     first 10% of bytes when it lasted under 2 s): the median of 250 ms slices
    ttfb_ms          request sent → response headers (first connection)
Each attempt is one sample whose `rtt_ms` is its time to first byte; a failed transfer is a lost sample.
With several attempts, rates and TTFB are medians over attempts, bytes and seconds are totals.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from dataclasses import dataclass

from probes.errors import ErrorKind
from probes.methods._context import RunContext, now_us
from probes.methods._httpcommon import classify, client, pin, prepare_tls, status_error
from probes.results import MetricValue, ProbeResult, Sample
from probes.target import ProbeOptions, Target

_WARMUP_S = 1.0
_WARMUP_FRACTION = 0.10
_SLICE_NS = 250_000_000  # steady state is read in slices this long
_MIN_SLICES = 4


@dataclass(frozen=True, slots=True)
class Transfer:
    """One attempt's outcome; `arrivals` are (monotonic ns, bytes) per received chunk, all connections."""

    sample: Sample
    arrivals: tuple[tuple[int, int], ...]
    ttfb_ms: float | None
    status: int | None
    error_message: str | None

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
    url: str, options: ProbeOptions, budget: _Budget, arrivals: list[tuple[int, int]]
) -> tuple[float | None, int]:
    pinned = await pin(url)
    async with client(options) as http:
        request = http.build_request(
            "GET", pinned.pinned_url, headers=pinned.headers, extensions=pinned.extensions
        )
        sent_ns = time.perf_counter_ns()
        response = await http.send(request, stream=True)
        ttfb_ms = (time.perf_counter_ns() - sent_ns) / 1e6
        try:
            if response.status_code >= 400:
                raise _StatusError(response.status_code, response.reason_phrase)
            async for chunk in response.aiter_raw(65536):
                take = min(len(chunk), budget.remaining)
                arrivals.append((time.perf_counter_ns(), take))
                budget.remaining -= take
                if budget.exhausted():
                    break
        finally:
            await response.aclose()
    return ttfb_ms, response.status_code


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
    tasks = [
        asyncio.ensure_future(_one_connection(url, options, budget, arrivals))
        for _ in range(options.download_connections)
    ]
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    ttfbs = [o[0] for o in outcomes if isinstance(o, tuple) and o[0] is not None]
    statuses = [o[1] for o in outcomes if isinstance(o, tuple)]
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    arrivals.sort()
    ttfb = min(ttfbs) if ttfbs else None
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
            message = f"{len(failures)} of {len(outcomes)} connections failed: {message}"
        rtt = ttfb if arrivals else None
        return Transfer(
            Sample(seq, sent_at_us, rtt, kind),
            tuple(arrivals),
            ttfb,
            statuses[0] if statuses else None,
            message,
        )
    if not arrivals:
        return Transfer(
            Sample(seq, sent_at_us, None, ErrorKind.PROTOCOL),
            (),
            ttfb,
            statuses[0] if statuses else None,
            f"{url}: the response had an empty body",
        )
    return Transfer(
        Sample(seq, sent_at_us, ttfb), tuple(arrivals), ttfb, statuses[0] if statuses else None, None
    )


def throughput(arrivals: tuple[tuple[int, int], ...]) -> dict[str, float | int | None]:
    """bytes, seconds, throughput_mbps and steady_mbps of a transfer (see the module docstring)."""
    total = sum(n for _t, n in arrivals)
    if len(arrivals) < 2:
        return {"bytes": total, "seconds": None, "throughput_mbps": None, "steady_mbps": None}
    first, last = arrivals[0][0], arrivals[-1][0]
    seconds = (last - first) / 1e9
    # Bytes of the first chunk arrived at `first`, before the interval began: leave them out of the rate.
    counted = total - arrivals[0][1]
    mbps = counted * 8 / seconds / 1e6 if seconds > 0 else None
    return {
        "bytes": total,
        "seconds": seconds,
        "throughput_mbps": mbps,
        "steady_mbps": _steady_mbps(arrivals),
    }


def _steady_mbps(arrivals: tuple[tuple[int, int], ...]) -> float | None:
    """The rate after the warm-up: the median of 250 ms slices, so that a stall and the burst that follows
    it (TCP holding data back until a retransmission fills a hole) do not skew it; the plain average over
    the window when it holds too few slices."""
    first, last = arrivals[0][0], arrivals[-1][0]
    total = sum(n for _t, n in arrivals)
    times = [t for t, _n in arrivals]
    if (last - first) / 1e9 >= 2 * _WARMUP_S:
        start = bisect.bisect_left(times, first + int(_WARMUP_S * 1e9))
    else:
        running, start = 0, 0
        for start, (_t, n) in enumerate(arrivals):  # noqa: B007 - the index after the loop is the answer
            running += n
            if running >= total * _WARMUP_FRACTION:
                break
    if start >= len(arrivals) - 1:
        return None
    window_start = arrivals[start][0]
    if last <= window_start:
        return None
    slices = int((last - window_start) // _SLICE_NS)
    if slices < _MIN_SLICES:
        steady_bytes = sum(n for _t, n in arrivals[start + 1 :])
        return steady_bytes * 8 / ((last - window_start) / 1e9) / 1e6
    per_slice = [0] * slices
    for t, n in arrivals[start + 1 :]:
        index = int((t - window_start) // _SLICE_NS)
        if index < slices:  # the last, partial slice is left out
            per_slice[index] += n
    per_slice.sort()
    middle = slices // 2
    median_bytes = per_slice[middle] if slices % 2 else (per_slice[middle - 1] + per_slice[middle]) / 2
    return median_bytes * 8 / (_SLICE_NS / 1e9) / 1e6


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
    figures = [throughput(t.arrivals) for t in transfers]
    metrics: dict[str, MetricValue] = {
        "throughput_mbps": _median([f["throughput_mbps"] for f in figures]),
        "steady_mbps": _median([f["steady_mbps"] for f in figures]),
        "bytes": sum(int(f["bytes"] or 0) for f in figures),
        "seconds": sum(float(f["seconds"] or 0.0) for f in figures)
        if any(f["seconds"] for f in figures)
        else None,
        "ttfb_ms": _median([t.ttfb_ms for t in transfers]),
        "status": transfers[-1].status,
        "connections": options.download_connections,
    }
    failed = [t for t in transfers if t.error_message]
    error = failed[-1].sample.error if failed and len(failed) == len(transfers) else None
    message = failed[-1].error_message if failed else None
    if failed and error is None:
        message = f"{len(failed)} of {len(transfers)} transfers failed; last: {message}"
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
