"""An upload load for the `responsiveness` method: HTTP POST bodies streamed to a URL that accepts them
(chunked transfer encoding, as networkQuality's and Cloudflare's upload endpoints take them), over 1..N
connections sharing the download method's caps (`download_max_bytes`, `download_max_seconds`).

The rate is what the server acknowledged: each connection's TCP_INFO `tcpi_bytes_acked`, read as every
chunk is handed over, after the first `RAMP_S` (slow start); bytes handed to the socket are only the
fallback where the kernel does not say, since the socket buffer holds megabytes that have not crossed the
line yet.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from probes.errors import ErrorKind
from probes.i18n import _
from probes.methods._httpcommon import PhaseTimer, classify, client, pin, status_error
from probes.sockets import kernel_bytes_acked
from probes.target import ProbeOptions

_CHUNK = 64 * 1024
_BLOCK = os.urandom(_CHUNK)  # incompressible: nothing on the way shrinks the load


@dataclass(frozen=True, slots=True)
class Upload:
    """What an upload load achieved: bytes handed over, the acknowledged rate after the ramp (Mbit/s), or
    why it failed (`error`, `message`); `status` is the server's answer."""

    bytes: int
    mbps: float | None
    status: int | None
    error: ErrorKind | None
    message: str | None


class _Budget:
    def __init__(self, max_bytes: int, max_seconds: float) -> None:
        self.remaining = max_bytes
        self.deadline_ns = time.perf_counter_ns() + int(max_seconds * 1e9)

    def exhausted(self) -> bool:
        return self.remaining <= 0 or time.perf_counter_ns() >= self.deadline_ns


class _Rejected(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(status, reason)
        self.status = status
        self.reason = reason


async def _one_connection(
    url: str, options: ProbeOptions, budget: _Budget, sent: list[int], acked: list[tuple[int, int]]
) -> int:
    pinned = await pin(url)
    phases = PhaseTimer()

    async def body() -> AsyncIterator[bytes]:
        while not budget.exhausted():
            take = min(_CHUNK, budget.remaining)
            budget.remaining -= take
            yield _BLOCK[:take]
            sent.append(take)
            if phases.socket is not None:
                count = kernel_bytes_acked(phases.socket)
                if count is not None:
                    acked.append((time.perf_counter_ns(), count))

    async with client(options, phases.clock) as http:
        request = http.build_request(
            "POST",
            pinned.pinned_url,
            headers={**pinned.headers, "Content-Type": "application/octet-stream"},
            content=body(),
            extensions={**pinned.extensions, "trace": phases.trace},
        )
        response = await http.send(request)
        await response.aclose()
    if response.status_code >= 400:
        raise _Rejected(response.status_code, response.reason_phrase)
    return response.status_code


async def _check(url: str, options: ProbeOptions) -> None:
    """POST a small body first: a server that refuses uploads (405, 413, …) usually answers a large body
    early and closes the connection, and the answer is lost in the reset; here it can be read."""
    pinned = await pin(url)
    async with client(options, PhaseTimer().clock) as http:
        response = await http.post(
            pinned.pinned_url,
            headers={**pinned.headers, "Content-Type": "application/octet-stream"},
            content=_BLOCK[:1024],
            extensions=pinned.extensions,
        )
    if response.status_code >= 400:
        raise _Rejected(response.status_code, response.reason_phrase)


async def upload_once(url: str, options: ProbeOptions, ramp_s: float) -> Upload:
    """One capped upload of random bytes to `url` over `download_connections` connections, after a small
    POST that checks the server takes uploads at all."""
    try:
        await _check(url, options)
    except Exception as exc:
        kind, message = _failure(exc, url)
        return Upload(0, None, getattr(exc, "status", None), kind, message)
    budget = _Budget(options.download_max_bytes, options.download_max_seconds)
    started_ns = time.perf_counter_ns()
    n = options.download_connections
    sent: list[list[int]] = [[] for _ in range(n)]
    acked: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    outcomes = await asyncio.gather(
        *(_one_connection(url, options, budget, sent[i], acked[i]) for i in range(n)), return_exceptions=True
    )
    total = sum(sum(part) for part in sent)
    statuses = [o for o in outcomes if isinstance(o, int)]
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    for problem in failures:
        if not isinstance(problem, Exception):
            raise problem
    if failures:
        failure = failures[0]
        assert isinstance(failure, Exception)
        kind, message = _failure(failure, url)
        if isinstance(failure, _Rejected):
            statuses.append(failure.status)
        if len(failures) == len(outcomes):
            return Upload(total, None, statuses[0] if statuses else None, kind, message)
    ramp_end = started_ns + int(ramp_s * 1e9)
    rate = _acked_rate(acked, ramp_end)
    if rate is None:
        rate = _sent_rate(total, started_ns)
    return Upload(total, rate, statuses[0] if statuses else None, None, None)


def _failure(exc: Exception, url: str) -> tuple[ErrorKind, str]:
    if isinstance(exc, _Rejected):
        answer = status_error(exc.status, exc.reason, url)
        return ErrorKind.HTTP_STATUS, _("the server refused the upload ({answer})").format(answer=answer)
    return classify(exc, url)


def _acked_rate(series: list[list[tuple[int, int]]], from_ns: int) -> float | None:
    """The connections' summed acknowledged rate (Mbit/s) after `from_ns`; None unless each connection
    reported at least two readings there."""
    total = 0.0
    for readings in series:
        window = [(t, n) for t, n in readings if t >= from_ns]
        if len(window) < 2 or window[-1][0] <= window[0][0]:
            return None
        (t0, b0), (t1, b1) = window[0], window[-1]
        total += (b1 - b0) * 8 / ((t1 - t0) / 1e9) / 1e6
    return total if series else None


def _sent_rate(total: int, started_ns: int) -> float | None:
    seconds = (time.perf_counter_ns() - started_ns) / 1e9
    return total * 8 / seconds / 1e6 if seconds > 0 and total else None
