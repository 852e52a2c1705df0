"""A download too short to leave TCP slow start says only that the line carries at least that much: the
analysis marks a side whose transfers mostly were short (`throughput_lower_bound`), the LinkSummary carries
it, scoring counts such a rate only where it already scores full marks, and says so."""

from __future__ import annotations

from pathlib import Path

from catalogs.checklist import default_checklist
from catalogs.link_quality import LinkSummary, PeriodStats
from catalogs.scoring.criteria.line import _describe_period, line_period_score
from desktop.usecases.links import measured_link_summaries
from probes.analysis import Scope
from probes.results import ProbeResult
from probes.store import Store
from probes.target import Method, Target
from tests.analysis.synthetic import HOUR_US, utc_us
from tests.rounds import save_round

LA = Target(Method.DOWNLOAD, url="http://198.18.7.1/100MB.bin", provider="acme", region="la", line_type="bgp")


def _download(begin_us: int, seconds: float, rate: float) -> ProbeResult:
    return ProbeResult(
        LA,
        begin_us,
        begin_us + int((seconds + 0.2) * 1e6),
        metrics={"throughput_mbps": rate, "bytes": int(rate * 1e6 / 8 * seconds), "seconds": seconds},
    )


def test_short_transfers_make_a_lower_bound_and_long_ones_the_line(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite3") as store:
        day = utc_us(2026, 11, 2)
        for hour in range(24):
            begin = day + hour * HOUR_US
            peak = 12 <= hour < 15  # 20:00-23:00 in Shanghai
            # at peak a 4 MB file on a 150 ms line: over in 1.5 s, still in slow start; off-peak a 15 s transfer
            result = _download(begin, 1.5, 8.0) if peak else _download(begin, 15.0, 25.0)
            save_round(store, [result], started_us=begin, finished_us=begin + 16_000_000, source="t")
        (summary,) = measured_link_summaries(store, Scope(provider="acme", region="la"))
    assert summary.peak is not None and summary.offpeak is not None
    assert summary.peak.throughput_mbps == 8.0 and summary.peak.throughput_lower_bound is True
    assert summary.offpeak.throughput_mbps == 25.0 and summary.offpeak.throughput_lower_bound is False
    assert LinkSummary.from_dict(summary.as_dict()) == summary  # the flag travels in the shape


def test_a_lower_bound_counts_only_where_it_is_good_enough() -> None:
    params = next(c.params for c in default_checklist().weighted if c.id == "line_quality")
    base = PeriodStats(rtt_median_ms=300.0, loss=0.01, jitter_ms=20.0)
    slow = PeriodStats(rtt_median_ms=300.0, loss=0.01, jitter_ms=20.0, throughput_mbps=5.0)
    floor = PeriodStats(
        rtt_median_ms=300.0, loss=0.01, jitter_ms=20.0, throughput_mbps=5.0, throughput_lower_bound=True
    )
    fast_floor = PeriodStats(
        rtt_median_ms=300.0, loss=0.01, jitter_ms=20.0, throughput_mbps=10_000.0, throughput_lower_bound=True
    )
    assert line_period_score(slow, params) < line_period_score(base, params)  # type: ignore[operator]
    assert line_period_score(floor, params) == line_period_score(base, params)  # says nothing against it
    assert line_period_score(fast_floor, params) > line_period_score(base, params)  # type: ignore[operator]
    assert "at least 5 Mbit/s" in _describe_period(floor, True) and "slow start" in _describe_period(
        floor, True
    )
