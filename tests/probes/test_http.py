"""The http method against a real loopback HTTP(S) server (no mocks of httpx)."""

from __future__ import annotations

import pytest

from probes.errors import ErrorKind
from probes.runner import run
from probes.target import Method, ProbeOptions, parse_target

ONE = ProbeOptions(count=1, timeout_s=1.0)


def probe(url: str, options: ProbeOptions = ONE):  # type: ignore[no-untyped-def]
    (result,) = run([parse_target(url, Method.HTTP)], options)
    return result


def test_phases_add_up(http_server: str) -> None:
    result = probe(f"http://{http_server}/ok", ProbeOptions(count=3, interval_s=0.01, timeout_s=1.0))
    assert result.ok and result.received == 3
    m = result.metrics
    assert m["status"] == 200 and m["redirects"] == 0
    assert m["dns_ms"] == 0.0  # an address literal needs no lookup
    assert m["tls_ms"] is None  # plain http
    assert 0 < m["connect_ms"] < m["total_ms"]
    assert 0 < m["ttfb_ms"] < m["total_ms"]
    assert m["connect_ms"] + m["ttfb_ms"] <= m["total_ms"]


def test_dns_time_is_measured_apart(http_server: str) -> None:
    port = http_server.split(":")[1]
    result = probe(f"http://localhost:{port}/ok")
    assert result.ok, result.message
    assert result.metrics["dns_ms"] > 0


def test_redirects_are_followed_and_bounded(http_server: str) -> None:
    followed = probe(f"http://{http_server}/redirect/3")
    assert followed.ok and followed.metrics["redirects"] == 3 and followed.metrics["status"] == 200
    assert str(followed.metrics["final_url"]).endswith("/ok")
    looped = probe(f"http://{http_server}/loop", ProbeOptions(count=1, http_max_redirects=4))
    assert looped.error is ErrorKind.TOO_MANY_REDIRECTS
    assert "more than 4 redirects" in (looped.message or "")


@pytest.mark.parametrize(("path", "status"), [("/missing", 404), ("/broken", 503)])
def test_error_status_is_a_timed_reply_and_an_error(http_server: str, path: str, status: int) -> None:
    result = probe(f"http://{http_server}{path}")
    assert result.error is ErrorKind.HTTP_STATUS
    assert result.metrics["status"] == status
    assert f"HTTP {status}" in (result.message or "")
    assert result.samples[0].rtt_ms is not None  # the timing of an answered request is kept


def test_slow_server_times_out(http_server: str) -> None:
    result = probe(f"http://{http_server}/slow", ProbeOptions(count=1, timeout_s=0.3))
    assert result.error is ErrorKind.TIMEOUT
    assert "timed out waiting for data" in (result.message or "")


def test_refused_and_unknown_host(closed_port: int) -> None:
    refused = probe(f"http://127.0.0.1:{closed_port}/")
    assert refused.error is ErrorKind.REFUSED and "refused" in (refused.message or "")
    unknown = probe("http://no-such-host.invalid/")
    assert unknown.error is ErrorKind.DNS


def test_tls_is_verified_by_default(https_server: str) -> None:
    result = probe(f"https://{https_server}/ok")
    assert result.error is ErrorKind.TLS
    assert "certificate" in (result.message or "")


def test_tls_phase_is_timed_when_verification_is_off(https_server: str) -> None:
    result = probe(f"https://{https_server}/ok", ProbeOptions(count=1, verify_tls=False))
    assert result.ok, result.message
    assert result.metrics["tls_ms"] is not None and result.metrics["tls_ms"] > 0
