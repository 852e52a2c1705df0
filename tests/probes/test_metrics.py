"""Prometheus metrics: the exposition of real rounds (loopback icmp, tcp, a trace and a download from a local
HTTP server), the listen-address rule, and a real Prometheus server (Debian's `prometheus`) scraping the
endpoint every second, queried with PromQL over its HTTP API."""

from __future__ import annotations

import asyncio
import json
import math
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from probes.addresses import parse_listen
from probes.errors import ErrorKind
from probes.runner import run
from probes.schedule.metrics import SMOKEPING_BUCKETS_S, MetricsServer, RoundMetrics
from probes.schedule.plan import parse_plan
from probes.schedule.scheduler import Scheduler
from probes.store import Store
from probes.target import ProbeOptions, parse_target
from tests.conftest import cli_env


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on now (for a server started with a fixed port)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _plan(tcp_port: int, http: str) -> str:
    return f"""\
version = 1
name = "metrics-test"
vantage = "test-office"
[schedule]
every = "1s"
peak_windows = []
[defaults]
count = 5
interval = 0.01
timeout = 0.5
[defaults.download]
count = 1
max_bytes = 2_000_000
[[targets]]
name = "lo"
host = "127.0.0.1"
methods = ["icmp", "trace"]
provider = "acme"
region = "loop-1"
line_type = "cn2-gia"
[[targets]]
name = "lo-tcp"
host = "127.0.0.1"
port = {tcp_port}
methods = ["tcp"]
[[targets]]
name = "refused"
host = "127.0.0.1"
port = 9
methods = ["tcp"]
[[targets]]
name = "file"
url = "http://{http}/file"
methods = ["download"]
"""


def _scrape(url: str) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    out: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def _series(page: dict[str, dict[tuple[tuple[str, str], ...], float]], name: str, **labels: str) -> float:
    matches = [v for k, v in page.get(name, {}).items() if all((n, labels[n]) in k for n in labels)]
    assert len(matches) == 1, f"{name}{labels}: {len(matches)} series"
    return matches[0]


@pytest.fixture
def metered(
    tmp_path: Path, tcp_listener: int, http_server: str
) -> Iterator[tuple[Scheduler, RoundMetrics, str]]:
    plan = parse_plan(_plan(tcp_listener, http_server), str(tmp_path / "metrics-test.toml"))
    metrics = RoundMetrics(plan.vantage, plan.name, (p.target for p in plan.targets))
    server = MetricsServer(metrics.registry, parse_listen("127.0.0.1:0"))
    bound = server.start()
    with Store(tmp_path / "s.sqlite3") as store:
        yield Scheduler(plan, store, hooks=[metrics.observe]), metrics, f"http://{bound}/metrics"
    server.stop()


def test_rounds_become_series_with_the_target_labels_and_smokeping_buckets(
    metered: tuple[Scheduler, RoundMetrics, str],
) -> None:
    scheduler, _, url = metered
    before = _scrape(url)
    # Declared from the start: a counter at 0 gives rate() its first point.
    assert _series(before, "linkvet_probe_sent_total", target="lo", method="icmp") == 0
    reports = [asyncio.run(scheduler.run_once()) for _ in range(2)]
    page = _scrape(url)
    lo = {"target": "lo", "method": "icmp", "provider": "acme", "region": "loop-1", "line_type": "cn2-gia"}
    lo |= {"vantage": "test-office", "host": "127.0.0.1"}
    assert _series(page, "linkvet_probe_sent_total", **lo) == 10
    assert _series(page, "linkvet_probe_lost_total", **lo) == 0
    assert _series(page, "linkvet_rtt_seconds_count", **lo) == 10
    assert 0 < _series(page, "linkvet_rtt_seconds_sum", **lo) < 10 * 0.01
    buckets = sorted(
        float(dict(k)["le"]) for k in page["linkvet_rtt_seconds_bucket"] if ("target", "lo") in k
    )
    assert buckets[:-1] == pytest.approx(SMOKEPING_BUCKETS_S) and math.isinf(buckets[-1])
    assert buckets[:3] == [5e-05, 0.0001, 0.0002] and buckets[-2] == pytest.approx(26.2144)
    # The closed port refuses: tcp counts a refusal as a reply; all five attempts of every round sent.
    assert _series(page, "linkvet_probe_sent_total", target="refused") == 10
    assert _series(page, "linkvet_probe_sent_total", target="lo-tcp") == 10
    # Throughput in bits per second, from the download's own figure.
    download = next(r for r in reports[-1].results if r.target.name == "file")
    assert _series(page, "linkvet_throughput_bits_per_second", target="file", direction="download") == (
        pytest.approx(float(download.metric("throughput_mbps")) * 1e6)  # type: ignore[arg-type]
    )
    trace = next(r for r in reports[-1].results if r.method == "trace")
    assert trace.trace is not None and trace.trace.verdict is not None
    route = _series(page, "linkvet_route_info", target="lo", route_class=trace.trace.verdict.line_class)
    assert route == 1
    assert _series(page, "linkvet_last_round_timestamp_seconds", plan="metrics-test") == pytest.approx(
        reports[-1].finished_us / 1e6
    )
    assert abs(_series(page, "linkvet_last_measured_timestamp_seconds", target="file") - time.time()) < 60
    assert not any(name.endswith("_created") for name in page)


def test_attempts_this_machine_could_not_send_are_neither_sent_nor_lost() -> None:
    """Echoes to the broadcast address are refused by sendto (EACCES): no series counts them."""
    targets = [parse_target(h) for h in ("127.0.0.1", "255.255.255.255")]
    results = run(targets, ProbeOptions(count=4, interval_s=0.01, timeout_s=1.0), gap_ms=1)
    metrics = RoundMetrics("office", "p", targets)
    for result in results:
        metrics.observe_result(result)
    page: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(generate_latest(metrics.registry).decode()):
        for sample in family.samples:
            page.setdefault(sample.name, {})[sample.labels.get("target", "")] = sample.value
    assert results[1].error is ErrorKind.SEND_FAILED
    assert page["linkvet_probe_sent_total"] == {"127.0.0.1": 4, "255.255.255.255": 0}
    assert page["linkvet_probe_lost_total"] == {"127.0.0.1": 0, "255.255.255.255": 0}
    assert page["linkvet_rtt_seconds_count"] == {"127.0.0.1": 4, "255.255.255.255": 0}


@pytest.mark.parametrize(
    ("text", "host", "port", "loopback"),
    [
        ("127.0.0.1:9108", "127.0.0.1", 9108, True),
        (":9108", "127.0.0.1", 9108, True),
        ("[::1]:9108", "::1", 9108, True),
        ("localhost:0", "localhost", 0, True),
        ("0.0.0.0:9108", "0.0.0.0", 9108, False),
        ("192.0.2.7:9108", "192.0.2.7", 9108, False),
    ],
)
def test_listen_addresses(text: str, host: str, port: int, loopback: bool) -> None:
    address = parse_listen(text)
    assert (address.host, address.port, address.loopback) == (host, port, loopback)


@pytest.mark.parametrize("text", ["9108x", "127.0.0.1:", "127.0.0.1:70000", "example.net:9108"])
def test_bad_listen_addresses_say_what_was_expected(text: str) -> None:
    with pytest.raises(ValueError, match=r"expected|not an IP address"):
        parse_listen(text)


def test_the_cli_refuses_a_public_address_unless_asked(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plan = tmp_path / "p.toml"
    plan.write_text('version = 1\n[[targets]]\nhost = "127.0.0.1"\n')
    done = run_linkvet("schedule", "--plan", str(plan), "--metrics-listen", "0.0.0.0:9108")
    assert done.returncode == 2, done.stderr
    assert "--metrics-public" in done.stderr and "Traceback" not in done.stderr
    done = run_linkvet("schedule", "--plan", str(plan), "--metrics-listen", "nowhere:9108")
    assert done.returncode == 2 and "not an IP address" in done.stderr


def test_the_daemon_serves_metrics_on_loopback(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plan = tmp_path / "p.toml"
    plan.write_text(
        'version = 1\nvantage = "here"\n[schedule]\nevery = "1s"\npeak_windows = []\n[defaults]\ncount = 2\n'
        'interval = 0.01\n[[targets]]\nname = "lo"\nhost = "127.0.0.1"\n'
    )
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "desktop.cli",
            "schedule",
            "--plan",
            str(plan),
            "--db",
            str(tmp_path / "s.sqlite3"),
            "--log-file",
            str(tmp_path / "l.log"),
            "--metrics-listen",
            f"127.0.0.1:{port}",
        ],
        env=cli_env(tmp_path),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        sent = 0.0
        while time.monotonic() < deadline and sent < 4:
            time.sleep(0.3)
            try:
                sent = _series(
                    _scrape(f"http://127.0.0.1:{port}/metrics"), "linkvet_probe_sent_total", target="lo"
                )
            except OSError:
                continue
        assert sent >= 4
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert f"serving Prometheus metrics at http://127.0.0.1:{port}/metrics" in err


# -- a real Prometheus server -----------------------------------------------------------------------------

PROMETHEUS = shutil.which("prometheus")


def _query(api: str, promql: str) -> list[dict[str, object]]:
    url = f"{api}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    with urllib.request.urlopen(url, timeout=5) as response:
        body = json.load(response)
    assert body["status"] == "success", body
    return list(body["data"]["result"])


@pytest.fixture
def prometheus(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A Prometheus server on 127.0.0.1 (its API's base URL) and its config file to fill in."""
    if PROMETHEUS is None:
        pytest.skip("no `prometheus` binary (Debian: apt-get install prometheus; .ci/run installs it)")
    port = free_port()
    config = tmp_path / "prometheus.yml"
    yield f"http://127.0.0.1:{port}", config


def _start_prometheus(config: Path, api: str, storage: Path) -> subprocess.Popen[bytes]:
    assert PROMETHEUS is not None
    listen = api.removeprefix("http://")
    process = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={config}",
            f"--storage.tsdb.path={storage}",
            f"--web.listen-address={listen}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{api}/-/ready", timeout=2) as response:
                if response.status == 200:
                    return process
        except OSError:
            time.sleep(0.2)
    process.terminate()
    process.wait(timeout=10)
    pytest.fail("prometheus did not become ready in 60 s")


def test_a_prometheus_server_scrapes_the_endpoint_and_answers_promql(
    metered: tuple[Scheduler, RoundMetrics, str], prometheus: tuple[str, Path], tmp_path: Path
) -> None:
    scheduler, _, url = metered
    api, config = prometheus
    exporter = urllib.parse.urlsplit(url).netloc
    config.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n  - job_name: linkvet\n    static_configs:\n"
        f"      - targets: ['{exporter}']\n"
    )
    process = _start_prometheus(config, api, tmp_path / "tsdb")
    try:
        # Rounds a second apart, scraped every second, until Prometheus has seen the counter grow at least
        # twice (so rate() over 30 s has points to work on, however late a busy machine's first scrape is).
        rounds = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            asyncio.run(scheduler.run_once())
            rounds += 1
            time.sleep(1.0)
            grown = _query(api, 'changes(linkvet_probe_sent_total{target="lo"}[1m])')
            if rounds >= 6 and grown and float(grown[0]["value"][1]) >= 2:  # type: ignore[index]
                break
        expected = 5 * rounds
        while time.monotonic() < deadline:  # the last round's figures scraped too
            up = _query(api, 'up{job="linkvet"}')
            sent = _query(api, 'linkvet_probe_sent_total{target="lo"}')
            if up and sent and float(sent[0]["value"][1]) >= expected:  # type: ignore[index]
                break
            time.sleep(0.5)
        assert float(up[0]["value"][1]) == 1  # type: ignore[index]
        (series,) = _query(api, 'linkvet_probe_sent_total{target="lo"}')
        assert series["metric"]["vantage"] == "test-office" and series["metric"]["region"] == "loop-1"  # type: ignore[index]
        assert float(series["value"][1]) == expected  # type: ignore[index]
        (rate,) = _query(api, 'rate(linkvet_rtt_seconds_count{target="lo"}[30s])')
        assert float(rate["value"][1]) > 0  # type: ignore[index]
        (p95,) = _query(
            api, 'histogram_quantile(0.95, sum by (le) (rate(linkvet_rtt_seconds_bucket{target="lo"}[30s])))'
        )
        assert 0 < float(p95["value"][1]) < 0.01  # type: ignore[index]  # loopback: well under 10 ms
        (loss,) = _query(
            api,
            'increase(linkvet_probe_lost_total{target="lo"}[30s]) / increase(linkvet_probe_sent_total{target="lo"}[30s])',
        )
        assert float(loss["value"][1]) == 0  # type: ignore[index]
        (throughput,) = _query(api, 'linkvet_throughput_bits_per_second{target="file"}')
        assert float(throughput["value"][1]) > 1e6  # type: ignore[index]
        routes = _query(api, 'linkvet_route_info{target="lo"}')
        assert [r["metric"]["route_class"] for r in routes] in (["other"], ["unknown"])  # type: ignore[index]
    finally:
        process.terminate()
        process.wait(timeout=30)
