"""Latency under load in the analyses: stored responsiveness tests per local hour, at peak against off-peak,
into the link summary, and never mixed into the region's RTT statistics."""

from __future__ import annotations

from pathlib import Path

import pytest

from probes.analysis import Scope, compare_peak, hour_of_day, link_summaries
from probes.loaded_latency import figures
from probes.results import ProbeResult, Sample
from probes.store import Store
from probes.target import Method, Target
from tests.analysis.synthetic import HOUR_US, US, utc_us

REGION = {"provider": "raksmart", "region": "los-angeles"}
LOAD = Target(Method.RESPONSIVENESS, url="http://198.18.1.1/large.bin", **REGION)
ECHO = Target(Method.ICMP, host="198.18.1.1", **REGION)


def _test(started_us: int, idle_ms: float, loaded_ms: float) -> ProbeResult:
    """A responsiveness test with 20 idle probes and 40 under load (synthetic RTTs), its figures computed
    from them as the method does."""
    samples = [Sample(i, started_us + i * 100_000, idle_ms, None, "idle") for i in range(20)]
    samples += [
        Sample(20 + i, started_us + (20 + i) * 100_000, loaded_ms + (i % 3), None, "download")
        for i in range(40)
    ]
    metrics = dict(figures(samples)) | {"download_mbps": 40.0, "throughput_mbps": 40.0}
    return ProbeResult(LOAD, started_us, started_us + 6 * US, samples=tuple(samples), metrics=metrics)


def _echoes(started_us: int, rtt_ms: float) -> ProbeResult:
    samples = tuple(Sample(i, started_us + i * US, rtt_ms) for i in range(10))
    return ProbeResult(ECHO, started_us, started_us + 10 * US, samples=samples)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    path = tmp_path / "loads.sqlite3"
    with Store(path) as writer:
        for day in range(2, 5):
            for hour_utc, loaded in ((3, 70.0), (13, 300.0)):  # 11:00 and 21:00 in Shanghai
                start = utc_us(2026, 11, day, hour_utc, 10)
                writer.save_round(
                    [_echoes(start, 40.0), _test(start + 20 * US, 40.0, loaded)],
                    started_us=start,
                    finished_us=start + 30 * US,
                    source="test",
                )
    return Store(path, readonly=True)


def test_hour_of_day_has_the_median_increase_of_the_tests_started_in_each_hour(store: Store) -> None:
    profile = hour_of_day(store, Scope(by="region"), tz="Asia/Shanghai").set_index("hour")
    assert profile.loc[11, "loaded_rtt_increase_ms"] == pytest.approx(31.0)  # 70 + (0, 1, 2) − 40
    assert profile.loc[21, "loaded_rtt_increase_ms"] == pytest.approx(261.0)
    assert profile.loc[21, "load_tests"] == 3 and profile.loc[12, "load_tests"] == 0
    assert profile.loc[21, "rpm"] == pytest.approx(60000 / 301.0, rel=0.01)
    # the loaded probes are not RTT samples of the region: its median stays the echoes' 40 ms
    assert profile.loc[21, "rtt_median_ms"] == pytest.approx(40.0, rel=0.02)
    assert profile.loc[21, "sent"] == 30


def test_peak_comparison_and_the_link_summary_carry_it(store: Store) -> None:
    (comparison,) = compare_peak(store, Scope(by="region"))
    assert comparison.peak.loaded_rtt_increase_ms == pytest.approx(261.0)
    assert comparison.offpeak.loaded_rtt_increase_ms == pytest.approx(31.0)
    assert (comparison.peak.load_tests, comparison.offpeak.load_tests) == (3, 3)
    assert "under load +31 ms → +261 ms (grade B → D)" in comparison.verdict
    (link,) = link_summaries(store)
    side = link.as_dict()["peak"]
    assert side["loaded_rtt_increase_ms"] == pytest.approx(261.0) and side["load_tests"] == 3
    assert link.period_start_us is not None and link.period_start_us <= utc_us(2026, 11, 2, 3, 10)
    assert link.period_end_us is not None and link.period_end_us >= utc_us(2026, 11, 4, 13, 10) + HOUR_US // 2
