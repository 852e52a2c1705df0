"""Responsiveness tests written through the store's API: a region with echoes at a steady RTT and load tests
whose added delay is known (11:00 and 21:00 in Shanghai, on three days), for the analysis and export tests."""

from __future__ import annotations

from pathlib import Path

from probes.loaded_latency import figures
from probes.results import ProbeResult, Sample
from probes.store import Store
from probes.target import Method, Target
from tests.analysis.synthetic import US, utc_us
from tests.rounds import save_round

REGION = {"provider": "raksmart", "region": "los-angeles"}
LOAD = Target(Method.RESPONSIVENESS, url="http://198.18.1.1/large.bin", **REGION)
ECHO = Target(Method.ICMP, host="198.18.1.1", **REGION)
OFFPEAK_LOADED_MS, PEAK_LOADED_MS, IDLE_MS = 70.0, 300.0, 40.0  # increases: 31 and 261 ms (median +1)


def load_test(started_us: int, idle_ms: float, loaded_ms: float) -> ProbeResult:
    """A responsiveness test with 20 idle probes and 40 under load (synthetic RTTs: loaded_ms + 0, 1, 2),
    its figures computed from them as the method does."""
    samples = [Sample(i, started_us + i * 100_000, idle_ms, None, "idle") for i in range(20)]
    samples += [
        Sample(20 + i, started_us + (20 + i) * 100_000, loaded_ms + (i % 3), None, "download")
        for i in range(40)
    ]
    metrics = dict(figures(samples)) | {"download_mbps": 40.0, "throughput_mbps": 40.0}
    return ProbeResult(LOAD, started_us, started_us + 6 * US, samples=tuple(samples), metrics=metrics)


def echoes(started_us: int, rtt_ms: float) -> ProbeResult:
    samples = tuple(Sample(i, started_us + i * US, rtt_ms) for i in range(10))
    return ProbeResult(ECHO, started_us, started_us + 10 * US, samples=samples)


def write_loads(path: Path) -> Path:
    with Store(path) as writer:
        for day in range(2, 5):
            for hour_utc, loaded in ((3, OFFPEAK_LOADED_MS), (13, PEAK_LOADED_MS)):  # 11:00, 21:00 Shanghai
                start = utc_us(2026, 11, day, hour_utc, 10)
                save_round(
                    writer,
                    [echoes(start, IDLE_MS), load_test(start + 20 * US, IDLE_MS, loaded)],
                    started_us=start,
                    finished_us=start + 30 * US,
                    source="test",
                )
    return path
