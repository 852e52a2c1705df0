"""Latency under load in the analyses: stored responsiveness tests per local hour, at peak against off-peak,
into the link summary, and never mixed into the region's RTT statistics."""

from __future__ import annotations

from pathlib import Path

import pytest

from probes.analysis import Scope, compare_peak, hour_of_day, link_summaries
from probes.store import Store
from tests.analysis.synthetic import HOUR_US, utc_us
from tests.analysis.synthetic_loads import write_loads


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(write_loads(tmp_path / "loads.sqlite3"), readonly=True)


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
