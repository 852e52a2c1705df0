"""One HTTP(S) request per attempt, its time split into phases (httpcore trace events):

    dns_ms      name resolution (our own, before connecting)
    connect_ms  TCP handshake: the SYN → SYN-ACK RTT the kernel measured (TCP_INFO, as the tcp method),
                else the user-space span, which event-loop delays lengthen by a millisecond or more
    tls_ms      TLS handshake (https only)
    ttfb_ms     request sent → response's first byte (the server's wait plus one round trip), from the
                kernel's timestamps: the request's segment leaving (SO_TIMESTAMPING, transmit) and the first
                response segment arriving (receive); for HTTPS the first segment of the first TLS record
                that holds response bytes (see `_timed_transport`). Where the kernel gives no stamps, from
                httpcore's trace events (request written → headers parsed), and `ttfb_source` says which
    total_ms    the whole attempt, DNS to the last body byte, redirects included

Redirects are followed up to `http_max_redirects`; the phases are those of the final hop. TLS certificates are
verified unless `verify_tls` is off. An error status (4xx/5xx) is a reply (it has timings) and an error.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import urllib.parse
from dataclasses import dataclass

from probes.errors import ErrorKind
from probes.i18n import _
from probes.methods._attempts import send_paced
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
from probes.target import ProbeOptions, Target
from probes.timestamps import now_us

_BODY_CAP_BYTES = 1024 * 1024  # an http probe reads at most this much body; `download` measures throughput


@dataclass(frozen=True, slots=True)
class Attempt:
    sample: Sample
    timings: dict[str, float | None]
    ttfb_source: str | None
    status: int | None
    redirects: int
    final_url: str
    message: str | None


async def request_once(url: str, options: ProbeOptions, seq: int = 0) -> Attempt:
    """One request (following redirects) with its phase timings."""
    phases = PhaseTimer()
    http = client(options, phases.clock)  # built before the clock starts: a client is not the line's time
    sent_at_us = now_us()
    started = time.perf_counter_ns()
    timings: dict[str, float | None] = {}
    redirects = 0
    current = url
    try:
        while True:
            pinned = await pin(current)
            async with http:
                request = http.build_request(
                    "GET",
                    pinned.pinned_url,
                    headers=pinned.headers,
                    extensions={**pinned.extensions, "trace": phases.trace},
                )
                response = await http.send(request, stream=True)
                try:
                    received = 0
                    async for chunk in response.aiter_raw():
                        received += len(chunk)
                        if received >= _BODY_CAP_BYTES:
                            break
                finally:
                    await response.aclose()
            timings = {
                "dns_ms": pinned.resolved.dns_ms,
                "connect_ms": phases.handshake_rtt_ms
                or phases.span_ms("connection.connect_tcp.started", "connection.connect_tcp.complete"),
                "tls_ms": phases.span_ms("connection.start_tls.started", "connection.start_tls.complete"),
                "ttfb_ms": phases.ttfb_ms,
            }
            location = response.headers.get("location")
            if response.is_redirect and location:
                if redirects >= options.http_max_redirects:
                    total = (time.perf_counter_ns() - started) / 1e6
                    return Attempt(
                        Sample(seq, sent_at_us, total, ErrorKind.TOO_MANY_REDIRECTS),
                        timings | {"total_ms": total},
                        phases.ttfb_source,
                        response.status_code,
                        redirects,
                        current,
                        _("{url}: more than {most} redirects (last to {location})").format(
                            url=url, most=options.http_max_redirects, location=location
                        ),
                    )
                redirects += 1
                current = urllib.parse.urljoin(current, location)
                phases = PhaseTimer()
                http = client(options, phases.clock)
                continue
            total = (time.perf_counter_ns() - started) / 1e6
            timings["total_ms"] = total
            if response.status_code >= 400:
                message = status_error(response.status_code, response.reason_phrase, current)
                return Attempt(
                    Sample(seq, sent_at_us, total, ErrorKind.HTTP_STATUS),
                    timings,
                    phases.ttfb_source,
                    response.status_code,
                    redirects,
                    current,
                    message,
                )
            return Attempt(
                Sample(seq, sent_at_us, total),
                timings,
                phases.ttfb_source,
                response.status_code,
                redirects,
                current,
                None,
            )
    except Exception as exc:
        kind, message = classify(exc, current)
        return Attempt(Sample(seq, sent_at_us, None, kind), timings, None, None, redirects, current, message)


async def measure(target: Target, options: ProbeOptions, ctx: RunContext) -> ProbeResult:
    started = now_us()
    assert target.url is not None
    await prepare_tls(options.verify_tls)

    async def attempt(seq: int) -> Attempt:
        result = await request_once(str(target.url), options, seq)
        ctx.emit(target, result.sample)
        return result

    attempts = await send_paced(
        options.count, options.interval_s, ctx.pacer, lambda seq: asyncio.ensure_future(attempt(seq))
    )
    samples = tuple(a.sample for a in attempts)
    last = attempts[-1]
    metrics: dict[str, MetricValue] = {
        name: _median([a.timings.get(name) for a in attempts])
        for name in ("dns_ms", "connect_ms", "tls_ms", "ttfb_ms", "total_ms")
    }
    metrics.update(
        status=last.status,
        redirects=last.redirects,
        final_url=last.final_url,
        ttfb_source=ttfb_source([a.ttfb_source for a in attempts]),
    )
    errors = [a for a in attempts if a.sample.error is not None]
    error: ErrorKind | None = None
    message = None
    if errors:
        message = errors[-1].message
        if len(errors) == len(attempts):
            error = errors[-1].sample.error
        else:
            message = _("{failed} of {count} requests failed; last: {message}").format(
                failed=len(errors), count=len(attempts), message=message
            )
    return ProbeResult(
        target, started, now_us(), samples=samples, error=error, message=message, metrics=metrics
    )


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None
