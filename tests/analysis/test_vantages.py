"""One region seen from each office (`compare_vantages`): side by side, the worst peak, route classes by office."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from probes.analysis import Scope, compare_vantages, link_summaries, route_verdicts
from probes.routes import bundled_table
from probes.store import Store
from probes.target import Method, Target
from tests.analysis.synthetic import Series, StepModel, trace_result, utc_us, write_series
from tests.analysis.week import LA, SJC
from tests.rounds import save_round

START = utc_us(2026, 11, 2)
TRACED = Target(
    Method.TRACE, host="127.0.0.9", provider="raksmart", region="los-angeles", line_type="cn2-gia"
)
CN2 = ["10.0.0.1", "59.43.1.1", "59.43.2.2"]
CHINANET = ["10.0.0.1", "202.97.12.1", "202.97.50.1"]


def _traces(store: Store, vantage: str, path: list[str], count: int = 3, start_us: int = START) -> None:
    for n in range(count):
        result = trace_result(TRACED, start_us + 3_600_000_000 + n * 60_000_000, path)
        save_round(
            store,
            [result],
            started_us=result.started_at_us,
            finished_us=result.finished_at_us,
            source="trace",
            vantage=vantage,
        )


def write_offices(store: Store, start_us: int = START) -> None:
    """Shanghai and Beijing measure LA (Beijing's evening is worse, and its route goes over 163) and Shenzhen
    measures LA too; only Shanghai measures SJC. 24 hours from `start_us` (the GUI's screenshots: yesterday)."""
    write_series(
        store,
        [Series(LA, StepModel(150.0, 200.0)), Series(SJC, StepModel(170.0, 175.0))],
        start_us,
        24,
        vantage="shanghai",
    )
    write_series(
        store,
        [Series(LA, StepModel(155.0, 260.0, offpeak_loss_per_mille=2, peak_loss_per_mille=40))],
        start_us,
        24,
        vantage="beijing",
    )
    write_series(store, [Series(LA, StepModel(145.0, 190.0))], start_us, 24, vantage="shenzhen")
    _traces(store, "shanghai", CN2, start_us=start_us)
    _traces(store, "beijing", CHINANET, start_us=start_us)
    _traces(store, "shenzhen", CN2, start_us=start_us)


@pytest.fixture
def offices(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "s.sqlite3") as store:
        write_offices(store)
        yield store


def _links(store: Store) -> list[Any]:
    table = bundled_table()
    return link_summaries(store, routes=lambda scope: route_verdicts(store, scope, table=table))


def test_one_region_from_each_office_side_by_side(offices: Store) -> None:
    (la,) = compare_vantages(_links(offices))  # SJC is measured from one office only: nothing to compare
    assert (la.provider, la.region) == ("raksmart", "los-angeles")
    assert la.vantages == ("beijing", "shanghai", "shenzhen")
    assert la.judged == 3 and la.worst_peak == "beijing" and la.best_peak == "shenzhen"
    by = {v.vantage: v for v in la.views}
    p95 = {v: view.peak_rtt_p95_ms or 0.0 for v, view in by.items()}
    assert p95["beijing"] > p95["shanghai"] > p95["shenzhen"] > 0
    assert la.peak_p95_spread_ms == pytest.approx(p95["beijing"] - p95["shenzhen"])
    assert by["beijing"].peak_loss is not None and by["beijing"].peak_loss > 0.02
    # Beijing's traces run over ChinaNet's 163 backbone, the others' over CN2: the class differs by office.
    assert (by["shanghai"].route_class, by["beijing"].route_class) == ("cn2-gia", "163")
    assert by["beijing"].route_agrees is False and by["shanghai"].route_agrees is True
    assert la.route_differs and la.route_classes == ("163", "cn2-gia")
    assert la.as_dict()["worst_peak"] == "beijing" and len(la.as_dict()["vantages"]) == 3  # type: ignore[arg-type]


def test_the_same_route_from_every_office_does_not_differ(offices: Store) -> None:
    links = [link for link in _links(offices) if link.vantage != "beijing"]
    (la,) = compare_vantages(links)
    assert (
        la.vantages == ("shanghai", "shenzhen") and not la.route_differs and la.route_classes == ("cn2-gia",)
    )


def test_one_vantage_point_or_none_compares_nothing(offices: Store) -> None:
    only = link_summaries(offices, Scope(vantage="shanghai"))
    assert compare_vantages(only) == []
    assert compare_vantages([]) == []


def test_an_office_is_called_worse_only_beyond_the_interval_of_its_figures(tmp_path: Path) -> None:
    # Two offices seeing the same line: their peak p95 lies 0.00 ms apart, so neither is the "worst"; a third
    # whose evening is 1 ms worse on 200 ms (within the 2 % a p95 reading resolves) is not either.
    with Store(tmp_path / "same.sqlite3") as store:
        for vantage, peak_ms in (("shanghai", 200.0), ("beijing", 200.0), ("shenzhen", 201.0)):
            write_series(store, [Series(LA, StepModel(150.0, peak_ms))], START, 24, vantage=vantage)
        (la,) = compare_vantages(link_summaries(store))
    assert la.judged == 3 and la.worst_peak is None and la.best_peak is None
    assert la.peak_p95_spread_ms is not None and la.peak_p95_spread_ms < 200 * 0.02
    assert la.as_dict()["worst_peak"] is None


def test_linkvet_vantages_says_no_office_is_worse_within_the_interval(tmp_path: Path) -> None:
    from desktop.cli.vantages import _spread_line

    with Store(tmp_path / "same.sqlite3") as store:
        for vantage in ("shanghai", "beijing"):
            write_series(store, [Series(LA, StepModel(150.0, 200.0))], START, 24, vantage=vantage)
        (la,) = compare_vantages(link_summaries(store))
    assert _spread_line(la).startswith("no office sees a worse peak than the others")
