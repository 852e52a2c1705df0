"""Prometheus metrics of `linkvet schedule` (`--metrics-listen 127.0.0.1:9108`): what each round measured,
served at `/metrics` in the Prometheus text format by the official client library (`prometheus_client`,
its own HTTP server in a daemon thread, so a scrape never waits for the event loop and the loop never waits
for a scrape).

Every per-target series carries the labels `target` (the plan's name), `method`, `host`, `provider`,
`region`, `line_type` and `vantage` (an empty string where the plan gives none). Base units throughout:

    linkvet_rtt_seconds                         histogram of every reply's RTT (icmp, tcp), with
                                                smokeping_prober's default buckets (50 µs × 2^k up to
                                                26.2 s), so its Grafana dashboards work on `_bucket`
    linkvet_probe_sent_total                    attempts sent (icmp, tcp)
    linkvet_probe_lost_total                    attempts without a reply (icmp, tcp); loss over a range
                                                is increase(lost) / increase(sent), and
                                                rate(linkvet_rtt_seconds_count) / rate(sent) the answered
                                                share, as smokeping_prober's dashboards compute it
    linkvet_throughput_bits_per_second          the last transfer's rate (download, iperf3), label
                                                `direction` ("download": region → office, "upload");
                                                NaN when the last transfer gave no figure
    linkvet_last_measured_timestamp_seconds     when the target's last result finished (every method)
    linkvet_route_info                          1, with the last trace's `route_class` (cn2-gia, 163, …)
    linkvet_last_round_timestamp_seconds        when the last round finished, labels `plan`, `vantage`
    linkvet_build_info                          1, with the linkvet `version`

The series of a plan's targets exist from the start (counters at 0), so `rate()` has a first point.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info, disable_created_metrics
from prometheus_client.exposition import start_http_server

from probes._version import __version__
from probes.addresses import ListenAddress
from probes.results import ProbeResult
from probes.target import Method, Target

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

    from probes.schedule.report import RoundReport

# smokeping_prober's default `--buckets` (SuperQ/smokeping_prober README: 5e-05 … 26.2144 seconds, each
# twice the one before), so histogram_quantile() and its heatmap dashboard read linkvet's series alike.
SMOKEPING_BUCKETS_S: tuple[float, ...] = tuple(5e-05 * 2**k for k in range(20))
TARGET_LABELS = ("target", "method", "host", "provider", "region", "line_type", "vantage")
RTT_METHODS = frozenset({Method.ICMP, Method.TCP})
THROUGHPUT_METHODS = frozenset({Method.DOWNLOAD, Method.IPERF3})
DEFAULT_PORT = 9108


def _labels(target: Target, vantage: str | None) -> tuple[str, ...]:
    return (
        target.name,
        str(target.method),
        target.host or "",
        target.provider or "",
        target.region or "",
        target.line_type or "",
        vantage or "",
    )


class RoundMetrics:
    """The metric families of one scheduler, in their own registry. `observe` takes a round's report (from
    the scheduler's round hook, on the event loop: it only updates counters in memory)."""

    def __init__(self, vantage: str | None, plan: str, targets: Iterable[Target] = ()) -> None:
        # The `_created` series of every counter and histogram double the page and no dashboard reads them.
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.vantage = vantage
        self.plan = plan
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.rtt = Histogram(
            "linkvet_rtt_seconds",
            "Round-trip time of every reply (icmp echo, tcp handshake), seconds.",
            TARGET_LABELS,
            buckets=SMOKEPING_BUCKETS_S,
            registry=r,
        )
        self.sent = Counter(
            "linkvet_probe_sent",
            "Attempts sent (icmp, tcp); one this machine could not send is not counted.",
            TARGET_LABELS,
            registry=r,
        )
        self.lost = Counter(
            "linkvet_probe_lost", "Attempts without a reply (icmp, tcp).", TARGET_LABELS, registry=r
        )
        self.throughput = Gauge(
            "linkvet_throughput_bits_per_second",
            "The last transfer's rate (download, iperf3), bits per second; NaN when it gave no figure.",
            (*TARGET_LABELS, "direction"),
            registry=r,
        )
        self.measured = Gauge(
            "linkvet_last_measured_timestamp_seconds",
            "When the target's last result finished, Unix seconds.",
            TARGET_LABELS,
            registry=r,
        )
        self.route = Info(
            "linkvet_route", "The route class of the target's last trace.", TARGET_LABELS, registry=r
        )
        self.last_round = Gauge(
            "linkvet_last_round_timestamp_seconds",
            "When the scheduler's last round finished, Unix seconds.",
            ("plan", "vantage"),
            registry=r,
        )
        Info("linkvet_build", "The linkvet that serves these metrics.", registry=r).info(
            {"version": __version__}
        )
        for target in targets:
            self._declare(target)

    def _declare(self, target: Target) -> None:
        labels = _labels(target, self.vantage)
        if target.method in RTT_METHODS:
            self.rtt.labels(*labels)
            self.sent.labels(*labels)
            self.lost.labels(*labels)

    def observe(self, report: RoundReport) -> None:
        for result in report.results:
            self.observe_result(result)
        if report.results:
            self.last_round.labels(self.plan, self.vantage or "").set(report.finished_us / 1e6)

    def observe_result(self, result: ProbeResult) -> None:
        target = result.target
        labels = _labels(target, self.vantage)
        self.measured.labels(*labels).set(result.finished_at_us / 1e6)
        if target.method in RTT_METHODS:
            histogram = self.rtt.labels(*labels)
            sent = lost = 0
            for sample in result.samples:
                if sample.local_failure:  # never left this machine: neither sent nor lost (probes.stats)
                    continue
                sent += 1
                if sample.rtt_ms is None:
                    lost += 1
                else:
                    histogram.observe(sample.rtt_ms / 1000.0)
            self.sent.labels(*labels).inc(sent)
            self.lost.labels(*labels).inc(lost)
        elif target.method in THROUGHPUT_METHODS:
            for direction, mbps in _rates(result):
                self.throughput.labels(*labels, direction).set(math.nan if mbps is None else mbps * 1e6)
        elif target.method is Method.TRACE and result.trace is not None and result.trace.verdict is not None:
            self.route.labels(*labels).info({"route_class": result.trace.verdict.line_class})


def _rates(result: ProbeResult) -> Sequence[tuple[str, float | None]]:
    def figure(name: str) -> float | None:
        value = result.metric(name)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    if result.method is Method.IPERF3:
        return (("download", figure("download_mbps")), ("upload", figure("upload_mbps")))
    return (("download", figure("throughput_mbps")),)


class MetricsServer:
    """`/metrics` of a registry over HTTP, served by prometheus_client in a daemon thread."""

    def __init__(self, registry: CollectorRegistry, address: ListenAddress) -> None:
        self.registry = registry
        self.requested = address
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ListenAddress:
        """Listen; the address bound (the port the kernel chose when asked for port 0). OSError when the
        address cannot be bound."""
        self._server, self._thread = start_http_server(
            self.requested.port, self.requested.host, registry=self.registry
        )
        return ListenAddress(self.requested.host, int(self._server.server_port))

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
