"""Selecting and grouping targets: by target, region or line type; labels a grouping needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from probes.analysis import Scope, ScopeError, compare_peak, hour_of_day
from probes.store import Store
from probes.target import Method, Target
from tests.analysis.synthetic import Series, StepModel, utc_us, write_series
from tests.analysis.week import LA, SJC


def test_one_target_by_name_host_or_key(week_store: Store) -> None:
    (c,) = compare_peak(week_store, Scope(by="target", target="icmp:127.0.0.1"), intervals=False)
    assert c.labels["target"] == "127.0.0.1" and c.labels["method"] == "icmp"
    assert c.labels["region"] == "los-angeles" and c.peak.sent == 7 * 3 * 4 * 30
    # The host matches the ping target and the download served from it: one group each.
    ping, download = compare_peak(week_store, Scope(by="target", target="127.0.0.1"), intervals=False)
    assert (ping.labels["method"], download.labels["method"]) == ("icmp", "download")
    assert download.peak.sent == 0 and download.peak.throughput_mbps == 30.0
    assert download.verdict == "throughput 80 → 30 Mbit/s"
    with pytest.raises(ScopeError, match=r"no stored target is called 'nowhere\.example'"):
        compare_peak(week_store, Scope(target="nowhere.example"))


def test_group_by_line_type(week_store: Store) -> None:
    labels = [c.labels["label"] for c in compare_peak(week_store, Scope(by="line_type"), intervals=False)]
    assert labels == ["bgp", "cn2-gia"]


def test_unlabelled_targets_are_left_out_of_regions_but_not_of_targets(tmp_path: Path) -> None:
    bare = Target(method=Method.ICMP, host="127.0.0.5")
    with Store(tmp_path / "s.sqlite3") as store:
        write_series(
            store,
            [Series(bare, StepModel(50.0, 60.0)), Series(LA, StepModel(150.0, 200.0))],
            utc_us(2026, 11, 2),
            2,
        )
        assert [c.labels["label"] for c in compare_peak(store, intervals=False)] == ["raksmart/los-angeles"]
        by_target = compare_peak(store, Scope(by="target"), intervals=False)
        assert sorted(c.labels["target"] for c in by_target) == ["127.0.0.1", "127.0.0.5"]


def test_a_region_with_two_targets_merges_them(tmp_path: Path) -> None:
    second = Target(method=Method.TCP, host="127.0.0.3", port=443, provider="raksmart", region="los-angeles")
    with Store(tmp_path / "s.sqlite3") as store:
        write_series(
            store,
            [Series(LA, StepModel(100.0, 100.0)), Series(second, StepModel(300.0, 300.0))],
            utc_us(2026, 11, 2),
            2,
        )
        profile = hour_of_day(store, Scope(), tz="UTC")
        row = profile.loc[profile["sent"] > 0].iloc[0]
        assert row["sent"] == 2 * 4 * 30  # both targets' attempts in each hour
        assert 100 * 0.99 <= row["rtt_median_ms"] <= 300 * 1.01


def test_empty_period_is_refused() -> None:
    with pytest.raises(ScopeError, match="period is empty"):
        Scope(since_us=utc_us(2026, 11, 3), until_us=utc_us(2026, 11, 2))
    with pytest.raises(ScopeError, match="cannot group by"):
        Scope(by="country")  # type: ignore[arg-type]
    assert SJC.region == "us-west-1"
