"""TTFB from the kernel's timestamps, against real loopback servers that wait a known time before answering.

The only timing asserted is what physics guarantees: the response cannot start before the server's deliberate
wait is over (≥ the wait), and its first byte cannot come after the attempt ended (≤ total)."""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
from collections.abc import Iterator

import httpx
import pytest

from probes.errors import ErrorKind
from probes.methods import _httpcommon
from probes.methods._kernel_times import TtfbClock
from probes.methods._timed_transport import _RecordStarts
from probes.methods.http import Attempt, request_once
from probes.runner import run
from probes.target import Method, ProbeOptions, parse_target

WAIT_MS = 80
OPTIONS = ProbeOptions(count=1, timeout_s=2.0)


def attempt(url: str, options: ProbeOptions = OPTIONS) -> Attempt:
    async def once() -> Attempt:
        await _httpcommon.prepare_tls(options.verify_tls)
        return await request_once(url, options)

    return asyncio.run(once())


def test_http_ttfb_is_kernel_timed_and_covers_the_servers_wait(http_server: str) -> None:
    for _ in range(3):
        result = attempt(f"http://{http_server}/wait/{WAIT_MS}")
        assert result.sample.error is None, result.message
        assert result.ttfb_source == "kernel"
        ttfb, total = result.timings["ttfb_ms"], result.timings["total_ms"]
        assert ttfb is not None and total is not None
        assert WAIT_MS <= ttfb <= total


def test_https_ttfb_skips_the_session_tickets_sent_before_the_response(https_server: str) -> None:
    # The server (Python's ssl, TLS 1.3) sends its session tickets as soon as the handshake is done, before
    # it has even read the request; the response follows after the wait. Timing the tickets' segment would
    # read about 0 ms here.
    assert ssl.HAS_TLSv1_3
    options = ProbeOptions(count=1, timeout_s=2.0, verify_tls=False)
    for _ in range(3):
        result = attempt(f"https://{https_server}/wait/{WAIT_MS}", options)
        assert result.sample.error is None, result.message
        assert result.ttfb_source == "kernel"
        ttfb, total = result.timings["ttfb_ms"], result.timings["total_ms"]
        assert ttfb is not None and total is not None
        assert WAIT_MS <= ttfb <= total


def test_the_probe_says_how_ttfb_was_timed(http_server: str) -> None:
    (result,) = run(
        [parse_target(f"http://{http_server}/wait/10", Method.HTTP)],
        ProbeOptions(count=2, interval_s=0.01, timeout_s=2.0),
    )
    assert result.ok, result.message
    assert result.metrics["ttfb_source"] == "kernel"
    assert 10 <= float(result.metrics["ttfb_ms"] or 0) <= float(result.metrics["total_ms"] or 0)


def test_without_the_socket_ttfb_falls_back_to_user_space_and_says_so(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # httpx's own transport, as `timed_transport` hands out where httpx has no pool to replace: the clock
    # never reaches the connection's socket.
    def plain(context: ssl.SSLContext, clock: TtfbClock) -> httpx.AsyncHTTPTransport:
        return httpx.AsyncHTTPTransport(verify=context, trust_env=False)

    monkeypatch.setattr(_httpcommon, "timed_transport", plain)
    result = attempt(f"http://{http_server}/wait/{WAIT_MS}")
    assert result.sample.error is None, result.message
    assert result.ttfb_source == "user-space"
    ttfb, total = result.timings["ttfb_ms"], result.timings["total_ms"]
    assert ttfb is not None and total is not None
    # The server's wait is in it; not to the millisecond: user space stamps the request once send() returns,
    # which a busy machine may run after the server has started waiting (the kernel's stamps do not).
    assert WAIT_MS / 2 <= ttfb <= total


@pytest.fixture
def hang_up_server() -> Iterator[int]:
    """A loopback TCP server that reads the request and closes the connection without answering."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(4096)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        listener.close()
        thread.join(timeout=2)


def test_a_server_that_hangs_up_gives_no_ttfb(hang_up_server: int) -> None:
    result = attempt(f"http://127.0.0.1:{hang_up_server}/")
    assert result.sample.error is ErrorKind.PROTOCOL
    assert result.timings.get("ttfb_ms") is None and result.ttfb_source is None


def test_a_clock_that_never_saw_a_request_has_no_ttfb_and_says_why() -> None:
    clock = TtfbClock()
    assert clock.ttfb_ms is None and clock.fallback_reason == "the connection's socket was not reachable"
    listener = socket.create_server(("127.0.0.1", 0))
    with listener, socket.create_connection(listener.getsockname()) as sock:
        clock.attach(sock)
        assert clock.attached and clock.ttfb_ms is None
        assert clock.fallback_reason == "the request was not sent"
        clock.close()
        assert not clock.attached


def test_tls_record_starts_are_found_across_chunk_boundaries() -> None:
    # Hand-written: three records (5-byte headers, bodies of 3, 0 and 2 bytes), cut at awkward places.
    stream = bytes([23, 3, 3, 0, 3]) + b"abc" + bytes([23, 3, 3, 0, 0]) + bytes([21, 3, 3, 0, 2]) + b"xy"
    starts = _RecordStarts()
    found = []
    offset = 0
    for cut in (2, 9, 12, len(stream)):
        chunk = stream[offset:cut]
        found += [offset + s for s in starts.feed(chunk)]
        offset = cut
    assert found == [0, 8, 13]
