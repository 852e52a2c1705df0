"""The download method: streaming with byte and time caps, parallel connections, consistent figures."""

from __future__ import annotations

import pytest

from probes.errors import ErrorKind
from probes.methods.download import throughput
from probes.runner import run
from probes.target import Method, ProbeOptions, parse_target
from tests.peers import FILE_BYTES, PAUSE_BYTES


def fetch(url: str, **options: object):  # type: ignore[no-untyped-def]
    (result,) = run([parse_target(url, Method.DOWNLOAD)], ProbeOptions(count=1, timeout_s=2.0, **options))  # type: ignore[arg-type]
    return result


def test_whole_file_when_under_the_caps(http_server: str) -> None:
    result = fetch(f"http://{http_server}/file")
    assert result.ok, result.message
    m = result.metrics
    assert m["bytes"] == FILE_BYTES
    assert m["seconds"] > 0
    # throughput is the body after the first chunk over first → last chunk: below bytes/seconds, close to it
    assert m["throughput_mbps"] == pytest.approx(FILE_BYTES * 8 / m["seconds"] / 1e6, rel=0.05)
    assert m["ttfb_ms"] is not None and m["ttfb_ms"] > 0
    assert m["ttfb_source"] == "kernel"  # timed as the http method times it
    assert result.samples[0].rtt_ms == m["ttfb_ms"]


def test_byte_cap_is_never_exceeded(http_server: str) -> None:
    result = fetch(f"http://{http_server}/file", download_max_bytes=1_000_000)
    assert result.metrics["bytes"] == 1_000_000


def test_time_cap_stops_a_slow_transfer(http_server: str) -> None:
    result = fetch(f"http://{http_server}/trickle", download_max_seconds=1.0)
    assert result.ok, result.message
    assert result.metrics["seconds"] < 1.5
    # the trickle server sends ~1 MB/s: about 8 Mbit/s, far from the 30 MB it offered
    assert 0.4e6 < result.metrics["bytes"] < 2.5e6
    assert 3 < result.metrics["throughput_mbps"] < 15


def test_parallel_connections_share_the_cap(http_server: str) -> None:
    result = fetch(f"http://{http_server}/file", download_connections=4, download_max_bytes=3 * FILE_BYTES)
    assert result.ok, result.message
    assert result.metrics["connections"] == 4
    assert result.metrics["bytes"] == 3 * FILE_BYTES


def test_http_error_is_a_failed_transfer(http_server: str) -> None:
    result = fetch(f"http://{http_server}/missing")
    assert result.error is ErrorKind.HTTP_STATUS
    assert result.metrics["status"] == 404
    assert result.loss == 1.0


def test_steady_state_leaves_out_the_warm_up() -> None:
    # 0.5 s at 10 Mbit/s, then 2 s at 100 Mbit/s, chunks every 10 ms (synthetic arrival times)
    arrivals, t = [], 0
    for _ in range(50):
        t += 10_000_000
        arrivals.append((t, 12_500))
    for _ in range(200):
        t += 10_000_000
        arrivals.append((t, 125_000))
    figures = throughput(tuple(arrivals))
    assert figures["bytes"] == 50 * 12_500 + 200 * 125_000
    assert figures["steady_mbps"] == pytest.approx(100, rel=0.01)
    assert figures["throughput_mbps"] < figures["steady_mbps"]


def test_a_stall_and_its_burst_do_not_skew_the_steady_rate() -> None:
    # 100 Mbit/s in 10 ms chunks for 4 s, but from 1.5 s to 1.8 s nothing reaches the reader and then all of
    # it arrives at once (TCP waiting for a retransmission): the average over a window starting in the stall
    # would read high; the median of slices does not.
    arrivals, t = [], 0
    held = 0
    for k in range(400):
        t += 10_000_000
        if 150 <= k < 180:
            held += 125_000
            continue
        arrivals.append((t, 125_000 + held))
        held = 0
    figures = throughput(tuple(arrivals))
    assert figures["steady_mbps"] == pytest.approx(100, rel=0.01)


def test_the_steady_rate_follows_the_link_not_the_reader_when_the_kernel_says() -> None:
    # The link delivers 100 Mbit/s evenly (1448-byte segments, counted by TCP_INFO as they arrive); the
    # reader sees a 300 ms stall and then the held-back data at once (a retransmission hole). The kernel's
    # series gives the link's rate; the reader's alone would be skewed by where the stall falls.
    segment = 1448
    per_10ms = 125_000  # bytes per 10 ms at 100 Mbit/s
    arrivals, kernel = [], []
    t, read, held = 0, 0, 0
    for k in range(300):
        t += 10_000_000
        segments = round((k + 1) * per_10ms / segment)
        kernel.append((t, segments, min(read, segments * segment), segment))
        if 120 <= k < 150:
            held += per_10ms
            continue
        arrivals.append((t, per_10ms + held))
        read += per_10ms + held
        held = 0
    kernel[-1] = (kernel[-1][0], kernel[-1][1], kernel[-1][1] * segment, segment)  # at the end, all in order
    figures = throughput(tuple(arrivals), (tuple(kernel),))
    assert figures["steady_mbps"] == pytest.approx(100, rel=0.005)


Sample = tuple[int, int, int, int]  # as TCP_INFO gives them: ns, data segments in, in-order bytes, MSS


def _link(seconds: float, *, segment: int = 1448, per_10ms: int = 125_000) -> list[Sample]:
    """TCP_INFO samples every 10 ms of a link delivering `per_10ms` bytes in order, in full segments."""
    return [
        (k * 10_000_000, round(k * per_10ms / segment), round(k * per_10ms / segment) * segment, segment)
        for k in range(1, round(seconds * 100) + 1)
    ]


def _arrivals(kernel: list[Sample]) -> tuple[tuple[int, int], ...]:
    """What the reader got: each sample's new in-order bytes."""
    return tuple(
        (t, b1 - b0)
        for (t, _s, b1, _m), (_t, _s0, b0, _m0) in zip(kernel, [(0, 0, 0, 0), *kernel], strict=False)
    )


def test_a_spurious_retransmission_does_not_lower_the_steady_rate() -> None:
    # 100 Mbit/s for 4 s; at 0.5 s (in the warm-up) the sender resends a whole window already delivered:
    # 700 segments that reach TCP (counted) but carry no new byte. An average size per segment over the
    # transfer would spread them over the window and read the link 4% slow; they are not in the window.
    kernel, dup = [], 700
    for t, segments, received, mss in _link(4.0):
        kernel.append((t, segments + (dup if t >= 500_000_000 else 0), received, mss))
    figures = throughput(_arrivals(kernel), (tuple(kernel),))
    assert figures["steady_mbps"] == pytest.approx(100, rel=0.005)


@pytest.mark.parametrize("hole_from_s", [1.0, 3.7])
def test_a_hole_at_either_end_of_the_window_does_not_skew_the_steady_rate(hole_from_s: float) -> None:
    # 100 Mbit/s for 4 s; a segment is lost at `hole_from_s` and its retransmission comes 250 ms later
    # (or never, within the transfer: the hole at the end). Meanwhile segments keep arriving out of order
    # and the in-order bytes stand still; the window's ends must not fall inside the hole.
    segment, kernel = 1448, []
    start, end = int(hole_from_s * 1e9), int((hole_from_s + 0.25) * 1e9)
    for t, segments, received, mss in _link(4.0, segment=segment):
        if start <= t < end:
            received = kernel[-1][2] if kernel and kernel[-1][0] >= start else received
        kernel.append((t, segments, received, mss))
    figures = throughput(_arrivals(kernel), (tuple(kernel),))
    assert figures["steady_mbps"] == pytest.approx(100, rel=0.005)


def test_steady_loss_all_along_does_not_lower_the_steady_rate() -> None:
    # 100 Mbit/s for 4 s in 1448-byte segments, and one segment in 50 lost, its retransmission arriving
    # 150 ms later: something always waits behind a hole, more of it at the end than at the start, so the
    # in-order bytes per segment at the last sample are too few to size the segments by.
    segment, per_sample = 1448, 86  # segments per 10 ms
    arrived: list[tuple[int, int]] = []  # (sample index it arrives at, segment number)
    for n in range(400 * per_sample):
        at = n // per_sample
        arrived.append((at + 15 if n % 50 == 7 else at, n))
    kernel, have, reach = [], set(), 0
    for k in range(400):
        have |= {n for at, n in arrived if at == k}
        while reach in have:
            reach += 1
        kernel.append(((k + 1) * 10_000_000, len(have), reach * segment, segment))
    figures = throughput(_arrivals(kernel), (tuple(kernel),))
    assert figures["steady_mbps"] == pytest.approx(per_sample * segment * 8 / 0.01 / 1e6, rel=0.005)


def test_seconds_run_from_the_first_body_byte(http_server: str) -> None:
    # /pause sends 1,000 bytes, waits 400 ms, then sends the rest: the transfer lasted 400 ms from its first
    # body byte, however few bytes came first.
    result = fetch(f"http://{http_server}/pause")
    assert result.ok, result.message
    assert result.metrics["bytes"] == PAUSE_BYTES
    assert result.metrics["seconds"] == pytest.approx(0.4, abs=0.1)
