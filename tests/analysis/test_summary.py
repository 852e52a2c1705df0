"""The measured links scoring consumes (`MeasuredLink`, in the LinkSummary JSON shape catalogs.link_quality
reads): figures, vantage points, routes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from probes.analysis import MeasuredLink, Scope, compare_peak, link_summaries
from probes.analysis.clock import in_peak
from probes.analysis.data import prepare
from probes.peak import DEFAULT_PEAK_WINDOWS
from probes.store import THIS_MACHINE, Store
from tests.analysis.synthetic import Series, StepModel, save_traces, utc_us, write_series
from tests.analysis.week import LA, OFFPEAK_MS, PEAK_MS

SIDE_KEYS = {
    "rtt_median_ms",
    "rtt_p95_ms",
    "loss",
    "jitter_ms",
    "throughput_mbps",
    "samples",
    "hours",
    "loaded_rtt_increase_ms",
    "rpm",
    "load_tests",
    "minutes",
    "evenings",
    "throughput_lower_bound",
}


def summary_dicts(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """`link_summaries` in the published JSON shape (`MeasuredLink.as_dict`, `linkvet score --links`)."""
    links = link_summaries(*args, **kwargs)
    assert all(isinstance(link, MeasuredLink) for link in links)
    return [link.as_dict() for link in links]


TOP_KEYS = {
    "provider",
    "region",
    "vantage",
    "period_start",
    "period_end",
    "peak_windows",
    "peak",
    "offpeak",
    "route",
}


def test_summary_has_the_contract_shape_and_the_figures(week_store: Store) -> None:
    summaries = {s["region"]: s for s in summary_dicts(week_store)}
    assert set(summaries) == {"los-angeles", "us-west-1"}
    la = summaries["los-angeles"]
    assert set(la) == TOP_KEYS
    assert set(la["peak"]) == SIDE_KEYS and set(la["offpeak"]) == SIDE_KEYS
    assert la["provider"] == "raksmart"
    assert la["vantage"] == THIS_MACHINE and la["route"] is None  # the week's rounds named no vantage point
    assert la["period_start"] == "2026-11-02T00:00:00Z"
    assert la["period_end"] == "2026-11-09T00:00:00Z"
    assert la["peak_windows"] == ["20:00-23:00 Asia/Shanghai"]
    assert la["peak"]["rtt_p95_ms"] == PEAK_MS and la["offpeak"]["rtt_median_ms"] == OFFPEAK_MS
    assert la["peak"]["samples"] == 2520 and la["peak"]["hours"] == 21
    assert la["offpeak"]["samples"] == 17640 and la["offpeak"]["hours"] == 147
    # the time measured: a week of three-hour evenings is 7 evenings and 21 × 60 minutes at peak
    assert la["peak"]["minutes"] == 21 * 60 and la["peak"]["evenings"] == 7
    assert la["offpeak"]["minutes"] == 147 * 60 and la["offpeak"]["evenings"] is None
    assert la["peak"]["throughput_mbps"] == 30.0
    assert summaries["us-west-1"]["peak"]["throughput_mbps"] is None  # not measured: null, never 0
    json.dumps(la, allow_nan=False)  # plain JSON, no NaN
    comparison = {c.labels["region"]: c for c in compare_peak(week_store)}["los-angeles"]
    assert (
        la["peak"]["loss"] == comparison.peak.loss
        and la["offpeak"]["jitter_ms"] == comparison.offpeak.jitter_ms
    )


def test_period_is_the_scopes_when_given(week_store: Store) -> None:
    scope = Scope(since_us=utc_us(2026, 11, 3), until_us=utc_us(2026, 11, 5))
    la = {s["region"]: s for s in summary_dicts(week_store, scope)}["los-angeles"]
    assert (la["period_start"], la["period_end"]) == ("2026-11-03T00:00:00Z", "2026-11-05T00:00:00Z")
    assert la["peak"]["hours"] == 6 and la["offpeak"]["hours"] == 42


def test_route_verdicts_are_passed_through(week_store: Store) -> None:
    route = {
        "claimed_line_type": "cn2-gia",
        "measured_class": "163",
        "agrees": False,
        "traces": 8,
        "agreeing_traces": 2,
        "evidence": "traced via 202.97 (163) on 6 of 8 traces",
    }
    summaries = {
        s["region"]: s for s in summary_dicts(week_store, routes={("raksmart", "los-angeles"): route})
    }
    assert summaries["los-angeles"]["route"] == route
    assert summaries["us-west-1"]["route"] is None


def test_one_summary_per_vantage_point(tmp_path: Path) -> None:
    with Store(tmp_path / "v.sqlite3") as store:
        start = utc_us(2026, 11, 2)
        write_series(
            store, [Series(LA, StepModel(150.0, 220.0, 0, 50))], start, 24, vantage="shanghai-office"
        )
        write_series(store, [Series(LA, StepModel(180.0, 240.0, 0, 0))], start, 24, vantage="beijing-office")
        summaries = {s["vantage"]: s for s in summary_dicts(store)}
        assert set(summaries) == {"shanghai-office", "beijing-office"}
        shanghai, beijing = summaries["shanghai-office"], summaries["beijing-office"]
        assert shanghai["offpeak"]["rtt_median_ms"] == pytest.approx(150.0, rel=0.01)
        assert beijing["offpeak"]["rtt_median_ms"] == pytest.approx(180.0, rel=0.01)
        assert shanghai["peak"]["samples"] == beijing["peak"]["samples"] == 3 * 4 * 30
        assert shanghai["peak"]["loss"] == pytest.approx(0.05) and beijing["peak"]["loss"] == 0.0
        only = summary_dicts(store, Scope(vantage="beijing-office"))
        assert only == [beijing]


def test_a_single_vantage_point_is_named_and_read_from_rollups(tmp_path: Path) -> None:
    with Store(tmp_path / "v.sqlite3") as store:
        write_series(store, [Series(LA, StepModel(150.0, 220.0))], utc_us(2026, 11, 2), 24, vantage="office")
        (summary,) = summary_dicts(store)
        assert summary["vantage"] == "office"
        prepared = prepare(store, Scope(vantage="office"), [in_peak(DEFAULT_PEAK_WINDOWS)])
        assert prepared.cells.raw_cells == 0


def test_route_verdicts_from_stored_traces_fill_the_route_part(tmp_path: Path) -> None:
    from probes.analysis import route_verdicts
    from probes.routes import bundled_table, route_summary_from_traces
    from probes.target import Method, Target

    traced = Target(
        method=Method.TRACE, host="127.0.0.9", provider="raksmart", region="los-angeles", line_type="cn2-gia"
    )
    with Store(tmp_path / "r.sqlite3") as store:
        write_series(store, [Series(LA, StepModel(150.0, 220.0))], utc_us(2026, 11, 2), 24)
        start = utc_us(2026, 11, 2, 3)
        # Six traces through 163's backbone (202.97), two through CN2 (59.43) only.
        paths = [["10.0.0.1", "202.97.12.1", "202.97.50.1"]] * 6 + [
            ["10.0.0.1", "59.43.1.1", "59.43.2.2"]
        ] * 2
        save_traces(store, traced, paths, start)
        routes = route_verdicts(store, table=bundled_table())
        assert set(routes) == {("raksmart", "los-angeles")}
        route = routes[("raksmart", "los-angeles")]
        expected = route_summary_from_traces("cn2-gia", store.traces(region="los-angeles"), bundled_table())
        assert route == expected
        assert (route["claimed_line_type"], route["agrees"], route["traces"]) == ("cn2-gia", False, 8)
        assert route["agreeing_traces"] == 2 and route["measured_class"] == "163"
        (summary,) = summary_dicts(store, routes=routes)
        assert summary["route"] == route
        assert summary["peak"]["samples"] == 3 * 4 * 30  # the trace targets' probes are not RTT samples


def test_rounds_without_a_vantage_point_are_this_machines_office_beside_named_ones(tmp_path: Path) -> None:
    with Store(tmp_path / "v.sqlite3") as store:
        start = utc_us(2026, 11, 2)
        write_series(store, [Series(LA, StepModel(150.0, 220.0))], start, 24, vantage="shanghai-office")
        write_series(store, [Series(LA, StepModel(300.0, 300.0))], start, 24, vantage=None)
        summaries = {s["vantage"]: s for s in summary_dicts(store)}
        assert list(summaries) == ["shanghai-office", THIS_MACHINE]  # the named ones first
        here = summaries[THIS_MACHINE]
        assert here["offpeak"]["rtt_median_ms"] == pytest.approx(300.0, rel=0.01)
        assert summaries["shanghai-office"]["offpeak"]["rtt_median_ms"] == pytest.approx(150.0, rel=0.01)
        assert here["peak"]["samples"] == summaries["shanghai-office"]["peak"]["samples"] == 360


def _unlabelled_163_traces(store: Store, region: str = "los-angeles") -> None:
    """Eight traces to a region whose trace target carries no line-type label: six via 163 (202.97), two via
    CN2 (59.43)."""
    from probes.target import Method, Target

    traced = Target(method=Method.TRACE, host="127.0.0.9", provider="raksmart", region=region)
    paths = [["10.0.0.1", "202.97.12.1", "202.97.50.1"]] * 6 + [["10.0.0.1", "59.43.1.1", "59.43.2.2"]] * 2
    save_traces(store, traced, paths, utc_us(2026, 11, 2, 3))


def test_unlabelled_traces_are_checked_against_the_catalogs_claim(tmp_path: Path) -> None:
    from probes.analysis import route_verdicts
    from probes.routes import bundled_table

    with Store(tmp_path / "c.sqlite3") as store:
        _unlabelled_163_traces(store)
        unclaimed = route_verdicts(store, table=bundled_table())[("raksmart", "los-angeles")]
        assert unclaimed["claimed_line_type"] == "unknown" and unclaimed["agrees"] is None
        claims = {("raksmart", "los-angeles"): "cn2-gia", ("raksmart", "tokyo"): "cn2-gia"}
        routes = route_verdicts(store, table=bundled_table(), claims=claims)
    assert set(routes) == {("raksmart", "los-angeles")}  # a claim alone, without traces, is no verdict
    route = routes[("raksmart", "los-angeles")]
    assert (route["claimed_line_type"], route["measured_class"], route["agrees"]) == ("cn2-gia", "163", False)
    assert (route["traces"], route["agreeing_traces"]) == (8, 2)
    assert route["evidence"].startswith("the catalog claims CN2 GIA, traced via 202.97")


def test_a_target_label_outweighs_the_catalogs_claim(tmp_path: Path) -> None:
    from probes.analysis import route_verdicts
    from probes.routes import bundled_table
    from probes.target import Method, Target

    # The region sells CN2 GIA and BGP; the user labelled this target as the BGP line.
    traced = Target(method=Method.TRACE, host="127.0.0.9", provider="raksmart", region="hk", line_type="163")
    with Store(tmp_path / "l.sqlite3") as store:
        save_traces(store, traced, [["10.0.0.1", "202.97.12.1"]] * 3, utc_us(2026, 11, 2, 3))
        routes = route_verdicts(store, table=bundled_table(), claims={("raksmart", "hk"): "cn2-gia"})
    route = routes[("raksmart", "hk")]
    assert (route["claimed_line_type"], route["agrees"]) == ("163", True)
    assert route["evidence"].startswith("claims 163,")


def test_breach_shares_come_with_the_links_when_thresholds_are_given(week_store: Store) -> None:
    from probes.analysis import Thresholds, breach_shares

    plain = link_summaries(week_store)
    assert all(link.breach_share_peak is None and link.breach_share_offpeak is None for link in plain)
    links = {link.region: link for link in link_summaries(week_store, thresholds=Thresholds())}
    shares = breach_shares(week_store).set_index("region")
    for region, link in links.items():
        assert link.breach_share_peak == pytest.approx(shares.loc[region, "any_breach_share_peak"])
        assert link.breach_share_offpeak == pytest.approx(shares.loc[region, "any_breach_share_offpeak"])
    assert links["los-angeles"].breach_share_peak is not None and links["los-angeles"].breach_share_peak > 0.5
    # the figures are the same with or without them
    assert [link.as_dict() for link in plain] == [links[link.region].as_dict() for link in plain]
