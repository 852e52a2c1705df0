"""The charts' arrays (Qt-free) against the definitions the rest of linkvet uses."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import numpy as np
import pandas as pd
import pytest

from desktop.app import chart_data
from probes import histogram
from probes.analysis import Scope, hour_of_day
from probes.peak import PeakWindow
from probes.results import ProbeResult, Sample
from probes.stats import percentile, summarize
from probes.store import Store
from probes.target import Method, Target
from tests.rounds import save_round


def test_timeline_bins_match_the_stats_module_bin_by_bin() -> None:
    rng = np.random.default_rng(3)
    n = 20_000
    ts_us = 1_750_000_000_000_000 + np.sort(rng.integers(0, 86_400_000_000, n))
    rtt = rng.gamma(4, 10, n) + 100
    rtt[rng.random(n) < 0.03] = np.nan
    line = chart_data.timeline(ts_us, rtt, max_bins=300)
    assert line.bin_width_s == 300  # a day in at most 300 bins: 5 minutes each
    assert line.sent.sum() == n and line.received.sum() == np.isfinite(rtt).sum()
    for index in rng.choice(np.flatnonzero(line.received), 25, replace=False):
        start = line.bin_start_s[index]
        inside = (ts_us / 1e6 >= start) & (ts_us / 1e6 < start + line.bin_width_s)
        values = sorted(rtt[inside][np.isfinite(rtt[inside])])
        summary = summarize([None if np.isnan(v) else float(v) for v in rtt[inside]])
        assert line.median_ms[index] == pytest.approx(summary.rtt_median_ms)
        assert line.p95_ms[index] == pytest.approx(summary.rtt_p95_ms)
        assert line.p5_ms[index] == pytest.approx(percentile(values, 5))
        assert line.min_ms[index] == summary.rtt_min_ms and line.max_ms[index] == summary.rtt_max_ms
        assert line.loss[index] == pytest.approx(summary.loss)


def test_timeline_leaves_gaps_where_nothing_was_measured_or_everything_was_lost() -> None:
    ts_us = np.array([0, 1, 2, 600, 601], dtype=np.int64) * 1_000_000
    rtt = np.array([1.0, 2.0, 3.0, np.nan, np.nan])
    line = chart_data.timeline(ts_us, rtt, max_bins=60)
    assert line.bin_width_s == 15
    assert line.median_ms[0] == 2.0 and np.isnan(line.median_ms[1])  # a bin with no attempts
    assert np.isnan(line.loss[1]) and line.loss[-1] == 1.0 and np.isnan(line.median_ms[-1])
    assert line.bin_at(605.0) == 40 and line.bin_at(-1) is None


def _store_with(path, rtts_by_hour: dict[int, list[float | None]]) -> Store:  # type: ignore[no-untyped-def]
    store = Store(path)
    target = Target(Method.ICMP, host="198.18.101.1")
    for hour_s, rtts in rtts_by_hour.items():
        samples = tuple(Sample(i, hour_s * 1_000_000 + i * 1_000_000, r) for i, r in enumerate(rtts))
        result = ProbeResult(target, hour_s * 1_000_000, hour_s * 1_000_000 + len(rtts) * 1_000_000, samples)
        save_round(
            store, [result], started_us=result.started_at_us, finished_us=result.finished_at_us, source="t"
        )
    return store


def test_hour_profile_and_heatmap_are_the_analysis_figures_per_target(tmp_path) -> None:
    day = int(datetime(2026, 11, 2, tzinfo=UTC).timestamp())  # a Monday; 12:00 UTC is 20:00 in Shanghai
    rng = np.random.default_rng(5)
    by_hour = {
        day + 12 * 3600: [float(v) for v in rng.normal(200, 10, 400)] + [None] * 8,
        day + 13 * 3600: [float(v) for v in rng.normal(150, 3, 300)],
        day + 2 * 86400 + 12 * 3600: [float(v) for v in rng.normal(210, 10, 100)],
    }
    path = tmp_path / "s.sqlite3"
    _store_with(path, by_hour).close()
    (target,) = chart_data.load_stored_targets(path)
    bundle = chart_data.load_charts(
        path, (target.id, target.name), [(target.id, target.name)], tz="Asia/Shanghai"
    )
    profile = dict(bundle.profiles)[target.name]
    with Store(path, readonly=True) as store:
        expected = hour_of_day(store, Scope(by="target", target=target.key), "Asia/Shanghai").set_index(
            "hour"
        )
    assert np.allclose(profile.median_ms, expected["rtt_median_ms"].to_numpy(), equal_nan=True)
    assert profile.sent[20] == 408 + 100 and profile.loss[20] == pytest.approx(8 / 508)
    evening = [r for h in (by_hour[day + 12 * 3600], by_hour[day + 2 * 86400 + 12 * 3600]) for r in h]
    assert profile.median_ms[20] == pytest.approx(
        summarize(evening).rtt_median_ms, rel=histogram.RELATIVE_ERROR * 1.01
    )
    matrix = bundle.matrix
    # Every day of the span is a row, measured or not.
    assert matrix.days == [date(2026, 11, 2), date(2026, 11, 3), date(2026, 11, 4)]
    assert matrix.sent[0, 20] == 408 and matrix.sent[0, 21] == 300 and matrix.sent[2, 20] == 100
    assert matrix.sent[1].sum() == 0 and np.isnan(matrix.median_ms[1]).all()
    assert matrix.loss[0, 20] == pytest.approx(8 / 408)
    cdf = dict(bundle.cdfs)[target.name]
    assert cdf.received == 800 and cdf.fraction[-1] == pytest.approx(1.0)
    assert cdf.fraction_at(170.0) == pytest.approx(300 / 800, abs=0.01)  # the 150 ms hour, nothing else


def test_empty_inputs_give_empty_charts_not_errors() -> None:
    empty = pd.DataFrame(columns=["hour_s", "hist_index", "hist_count"])
    assert chart_data.hour_profile(pd.DataFrame(), "UTC").sent.sum() == 0
    assert chart_data.day_hour_grid(pd.DataFrame(), "UTC").days == []
    assert chart_data.rtt_cdf(empty).received == 0
    assert chart_data.timeline(np.empty(0, np.int64), np.empty(0)).bin_start_s.size == 0


def test_peak_spans_follow_the_charts_time_zone() -> None:
    evening = PeakWindow(time(20), time(23), "Asia/Shanghai")
    late = PeakWindow(time(22), time(2), "Asia/Shanghai")
    assert chart_data.peak_spans([evening], "Asia/Shanghai") == [(20.0, 23.0)]
    assert chart_data.peak_spans([evening], "UTC") == [(12.0, 15.0)]
    assert chart_data.peak_spans([late], "Asia/Shanghai") == [(22.0, 24.0), (0.0, 2.0)]
    # 20:00-23:00 Shanghai is 13:00-16:00 in Berlin in winter (UTC+1) and 14:00-17:00 in summer.
    assert chart_data.peak_spans([evening], "Europe/Berlin", date(2026, 1, 15)) == [(13.0, 16.0)]
    assert chart_data.peak_spans([evening], "Europe/Berlin", date(2026, 7, 15)) == [(14.0, 17.0)]


def test_load_charts_reads_the_store_for_the_selection(tmp_path) -> None:
    from tests.gui.synthetic import DEMO_LINES, write_history

    path = tmp_path / "demo.sqlite3"
    write_history(path, days=1, every_s=1800, attempts=10)
    targets = chart_data.load_stored_targets(path)
    assert sorted(t.name for t in targets) == sorted(line.target.name for line in DEMO_LINES)
    first, second = targets[0], targets[1]
    bundle = chart_data.load_charts(
        path, (first.id, first.name), [(first.id, first.name), (second.id, second.name)], tz="Asia/Shanghai"
    )
    assert bundle.current == first.name and bundle.timeline is not None
    assert bundle.timeline.sent.sum() == 48 * 10
    assert [name for name, _ in bundle.profiles] == [first.name, second.name]
    assert all(cdf.received > 400 for _, cdf in bundle.cdfs)
    assert chart_data.load_stored_targets(tmp_path / "missing.sqlite3") == []


def test_a_short_run_is_one_bin_whose_box_covers_its_attempts_only() -> None:
    start_us = 1_764_580_000_123_456  # not on any bin edge
    ts_us = start_us + np.arange(10, dtype=np.int64) * 1_000_000
    rtt = np.linspace(0.05, 0.13, 10)
    line = chart_data.timeline(ts_us, rtt, np.full(10, 7))
    assert line.rounds == 1 and line.sent.tolist() == [10]
    assert line.bin_width_s == 30  # room for a p5–p95 box of attempts a second apart
    assert line.cover_start_s[0] == pytest.approx(start_us / 1e6) and line.cover_end_s[0] == pytest.approx(
        start_us / 1e6 + 9
    )
    assert line.range_box.tolist() == [True] and line.p5_p95_box.tolist() == [False]
    assert line.isolated.tolist() == [True]
    x, y = line.median_steps()
    assert np.nanmin(x) == line.cover_start_s[0] and np.nanmax(x) == line.cover_end_s[0]
    assert np.nanmax(y) == pytest.approx(percentile(list(rtt), 50))


def test_a_round_is_kept_whole_in_the_bin_it_starts_in() -> None:
    runs = np.repeat([1, 2], 10)
    # Round 1 starts 25 s into a 30-s bin and runs 9 s past its edge; round 2 starts an hour later.
    starts = np.array([25, 3625], dtype=np.int64) * 1_000_000
    ts_us = np.concatenate([s + np.arange(10, dtype=np.int64) * 1_000_000 for s in starts])
    line = chart_data.timeline(ts_us, np.full(20, 1.0), runs, max_bins=600)
    measured = np.flatnonzero(line.sent)
    assert line.sent[measured].tolist() == [10, 10]
    assert line.cover_end_s[measured[0]] - line.cover_start_s[measured[0]] == pytest.approx(9)


def test_a_series_of_rounds_fills_its_bins_and_a_gap_of_days_stays_empty() -> None:
    every_s, attempts = 300, 20
    round_starts = [k * every_s for k in range(48)] + [3 * 86400 + k * every_s for k in range(48)]
    ts_us = np.array(
        [(s + i) * 1_000_000 + 40_000 for s in round_starts for i in range(attempts)], dtype=np.int64
    )
    runs = np.repeat(np.arange(len(round_starts)), attempts)
    line = chart_data.timeline(ts_us, np.full(ts_us.size, 30.0), runs, max_bins=600)
    assert line.rounds == 96 and line.bin_width_s == 600  # 3 days in 600 bins: 10 minutes, two rounds each
    measured = line.sent > 0
    assert (line.sent[measured] == 2 * attempts).all()  # the bin edges fall between rounds
    # Two stretches of continuous smoke: boxes meet inside each, nothing covers the three days between.
    first = np.flatnonzero(measured)
    stretches = np.split(first, np.flatnonzero(np.diff(first) > 1) + 1)
    assert len(stretches) == 2
    for stretch in stretches:
        assert np.allclose(line.cover_end_s[stretch[:-1]], line.cover_start_s[stretch[1:]])
    assert line.cover_end_s[stretches[0][-1]] == pytest.approx(ts_us[48 * attempts - 1] / 1e6)
    assert line.cover_start_s[stretches[1][0]] == pytest.approx(ts_us[48 * attempts] / 1e6)
    x, y = line.trace()
    gap = (ts_us[48 * attempts - 1] / 1e6, ts_us[48 * attempts] / 1e6)
    inside = (x > gap[0]) & (x < gap[1])
    assert inside.sum() == 1 and np.isnan(y[inside]).all()  # one break, at a real time (x stays sorted)
    assert np.all(np.diff(x) >= 0)


def test_the_cdf_curve_is_flat_where_no_reply_fell() -> None:
    rtts = [50.0] * 9 + [120.0]
    dense = np.bincount(histogram.bucket_of(rtts), minlength=histogram.N_BUCKETS)
    used = np.flatnonzero(dense)
    cdf = chart_data.Cdf(histogram.bucket_value(used), np.cumsum(dense[used]) / 10, 10)
    x, y = cdf.curve()
    assert np.all(np.diff(x) >= 0) and y[0] == 0.0 and y[-1] == 1.0
    for between in (60.0, 90.0, 115.0):  # between the buckets nothing was measured: the share stays 90 %
        assert cdf.fraction_at(between) == pytest.approx(0.9)
    assert cdf.fraction_at(10.0) == 0.0 and cdf.fraction_at(500.0) == 1.0
