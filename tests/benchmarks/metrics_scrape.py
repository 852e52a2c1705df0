"""Benchmark: scraping `linkvet schedule --metrics-listen` with 1,000 targets, beside two anchors run in the
same process and the same run:

- `generate_latest` of an equivalent plain prometheus_client registry (the same histogram, counters and
  labels, filled with the same samples, no linkvet code): what the client library itself costs to render
  this page, the floor any exporter built on it pays;
- an HTTP scrape of an empty registry through the same prometheus_client server: the cost of the request.

linkvet's figure is a real HTTP scrape of its endpoint (render + HTTP), so its ratio to the first anchor
is what linkvet adds on top of the library (the extra families: route info, throughput, timestamps) and the
HTTP round trip. Also timed: observing one round of every target (the scheduler's round hook, which runs on
the event loop).

    python -m tests.benchmarks.metrics_scrape [--targets 1000] [--attempts 10] [--repeat 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import urllib.request
from collections.abc import Sequence

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from probes.addresses import parse_listen
from probes.results import ProbeResult, Sample
from probes.schedule.metrics import (
    SMOKEPING_BUCKETS_S,
    TARGET_LABELS,
    MetricsServer,
    RoundMetrics,
)
from probes.schedule.report import RoundReport
from probes.target import Method, Target


def _results(targets: int, attempts: int, seed: int = 1) -> list[ProbeResult]:
    rng = random.Random(seed)
    out = []
    for i in range(targets):
        target = Target(
            Method.ICMP,
            host=f"198.18.{i // 250}.{i % 250 + 1}",
            name=f"target-{i:04d}",
            provider=f"provider-{i % 20}",
            region=f"region-{i % 50}",
            line_type=("cn2-gia", "163", "cmi")[i % 3],
        )
        samples = tuple(
            Sample(
                seq, 1_800_000_000_000_000 + seq * 1000, None if rng.random() < 0.02 else rng.uniform(20, 300)
            )
            for seq in range(attempts)
        )
        out.append(ProbeResult(target, 1_800_000_000_000_000, 1_800_000_001_000_000, samples))
    return out


def _plain_registry(results: Sequence[ProbeResult], vantage: str) -> CollectorRegistry:
    registry = CollectorRegistry()
    rtt = Histogram("bench_rtt_seconds", "RTT", TARGET_LABELS, buckets=SMOKEPING_BUCKETS_S, registry=registry)
    sent = Counter("bench_probe_sent", "sent", TARGET_LABELS, registry=registry)
    lost = Counter("bench_probe_lost", "lost", TARGET_LABELS, registry=registry)
    for result in results:
        t = result.target
        labels = (
            t.name,
            str(t.method),
            t.host or "",
            t.provider or "",
            t.region or "",
            t.line_type or "",
            vantage,
        )
        child = rtt.labels(*labels)
        for sample in result.samples:
            if sample.rtt_ms is not None:
                child.observe(sample.rtt_ms / 1000)
        sent.labels(*labels).inc(len(result.samples))
        lost.labels(*labels).inc(sum(1 for s in result.samples if s.rtt_ms is None))
    return registry


def _best_and_median(times: list[float]) -> tuple[float, float]:
    return min(times), statistics.median(times)


def _scrape_times(url: str, repeat: int) -> tuple[list[float], int]:
    times = []
    size = 0
    for _ in range(repeat):
        begin = time.perf_counter()
        with urllib.request.urlopen(url, timeout=30) as response:
            size = len(response.read())
        times.append(time.perf_counter() - begin)
    return times, size


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=1000)
    parser.add_argument("--attempts", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    results = _results(args.targets, args.attempts)
    report = RoundReport(1, 1_800_000_000_000_000, 1_800_000_001_000_000, False, tuple(results))

    metrics = RoundMetrics("bench-office", "bench", (r.target for r in results))
    observe = []
    for _ in range(5):
        begin = time.perf_counter()
        metrics.observe(report)
        observe.append(time.perf_counter() - begin)
    server = MetricsServer(metrics.registry, parse_listen("127.0.0.1:0"))
    empty = MetricsServer(CollectorRegistry(), parse_listen("127.0.0.1:0"))
    ours_at, empty_at = server.start(), empty.start()
    try:
        ours, ours_bytes = _scrape_times(f"http://{ours_at}/metrics", args.repeat)
        floor, floor_bytes = _scrape_times(f"http://{empty_at}/metrics", args.repeat)
    finally:
        server.stop()
        empty.stop()
    plain = _plain_registry(results, "bench-office")
    render = []
    plain_bytes = 0
    for _ in range(args.repeat):
        begin = time.perf_counter()
        plain_bytes = len(generate_latest(plain))
        render.append(time.perf_counter() - begin)

    anchor_median = statistics.median(render)
    rows = [
        ("anchor: generate_latest, plain registry (same histogram + counters)", render, plain_bytes),
        ("anchor: HTTP scrape of an empty registry", floor, floor_bytes),
        ("linkvet: HTTP scrape of /metrics", ours, ours_bytes),
    ]
    print(
        f"{args.targets} targets × {args.attempts} attempts, {args.repeat} scrapes each; observing a round "
        f"of every target (the round hook): median {statistics.median(observe) * 1e3:.1f} ms"
    )
    print(f"| {'what':<68} | best ms | median ms | bytes | median ratio to generate_latest |")
    print(f"|{'-' * 70}|---------|-----------|-------|------|")
    for name, times, size in rows:
        best, median = _best_and_median(times)
        print(
            f"| {name:<68} | {best * 1e3:7.1f} | {median * 1e3:9.1f} | {size:,} | {median / anchor_median:.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
