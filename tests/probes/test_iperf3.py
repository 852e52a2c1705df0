"""The iperf3 method against a real `iperf3 -s` on loopback."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator

import pytest

from probes.errors import ErrorKind
from probes.runner import run
from probes.target import Method, ProbeOptions, Target

needs_iperf3 = pytest.mark.skipif(
    shutil.which("iperf3") is None, reason="iperf3 is not installed (.ci/run installs it)"
)


@pytest.fixture
def iperf3_server(closed_port: int) -> Iterator[int]:
    # Wait for iperf3's own "Server listening" line: a test connection would count as a client and could
    # leave the one-client-at-a-time server busy when the real test arrives.
    server = subprocess.Popen(
        ["iperf3", "-s", "--forceflush", "-p", str(closed_port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "Server listening" not in server.stdout.readline():
            pass
        yield closed_port
    finally:
        server.terminate()
        server.wait(5)
        if server.stdout is not None:
            server.stdout.close()


@needs_iperf3
def test_both_directions_are_measured(iperf3_server: int) -> None:
    (result,) = run(
        [Target(Method.IPERF3, host="127.0.0.1", port=iperf3_server)], ProbeOptions(count=1, iperf3_seconds=1)
    )
    assert result.ok, result.message
    m = result.metrics
    assert m["upload_mbps"] > 100 and m["download_mbps"] > 100  # loopback moves gigabits
    assert m["throughput_mbps"] == m["download_mbps"]
    assert m["bytes"] > 0 and 0.5 < m["seconds"] < 2


@needs_iperf3
def test_no_server_is_a_refusal(closed_port: int) -> None:
    (result,) = run(
        [Target(Method.IPERF3, host="127.0.0.1", port=closed_port)], ProbeOptions(count=1, iperf3_seconds=1)
    )
    assert result.error is ErrorKind.REFUSED
    assert "iperf3" in (result.message or "")


def test_missing_binary_is_a_clear_error() -> None:
    (result,) = run(
        [Target(Method.IPERF3, host="127.0.0.1")], ProbeOptions(count=1), iperf3_binary="/nonexistent/iperf3"
    )
    assert result.error is ErrorKind.TOOL_MISSING
    assert "iperf3 is not installed" in (result.message or "")


@needs_iperf3
def test_a_failed_download_direction_is_the_target_s_error(closed_port: int) -> None:
    # A one-shot server (-1) serves the upload test and exits: the download test finds nobody.
    server = subprocess.Popen(
        ["iperf3", "-s", "-1", "--forceflush", "-p", str(closed_port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "Server listening" not in server.stdout.readline():
            pass
        (result,) = run(
            [Target(Method.IPERF3, host="127.0.0.1", port=closed_port)],
            ProbeOptions(count=1, iperf3_seconds=1, iperf3_omit_s=0),
        )
    finally:
        server.wait(10)
        if server.stdout is not None:
            server.stdout.close()
    assert result.metrics["upload_mbps"] is not None and result.metrics["download_mbps"] is None
    assert result.error is ErrorKind.REFUSED
    assert (result.message or "").startswith("download: iperf3:")
