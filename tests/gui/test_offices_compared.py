"""The Charts screen over a store three offices measured into (tests/analysis/test_vantages.py's
`write_offices`: Beijing sees Los Angeles worst in the evening and its traces go over 163, Shanghai and
Shenzhen's over CN2): the "Offices compared" tab and the vantage-point choice that narrows the charts."""

from __future__ import annotations

import numpy as np
import pytest

from probes.store import THIS_MACHINE, Store
from tests.analysis.test_vantages import write_offices
from tests.analysis.week import LA


@pytest.fixture
def charts(window, qtbot, qsettings):  # type: ignore[no-untyped-def]
    with Store(window.context.settings.db_path) as store:
        write_offices(store)
    screen = window.go_to("charts")
    screen.range.setCurrentIndex(screen.range.count() - 1)  # everything: the offices measured in November
    screen.reload_targets()
    qtbot.waitUntil(lambda: screen.model.rowCount() >= 2, timeout=10_000)
    qtbot.waitUntil(lambda: not screen.offices_loading and bool(screen.offices.comparisons), timeout=20_000)
    qtbot.waitUntil(lambda: screen.bundle is not None and not screen.loading, timeout=10_000)
    return screen


def _select(screen, qtbot, name: str) -> None:  # type: ignore[no-untyped-def]
    row = next(r for r in range(screen.model.rowCount()) if screen.model.target(r).name == name)
    screen.list.selectRow(row)
    qtbot.waitUntil(lambda: screen.bundle is not None and screen.bundle.current == name, timeout=10_000)
    qtbot.waitUntil(lambda: not screen.loading, timeout=10_000)


def _table(panel) -> list[list[str]]:  # type: ignore[no-untyped-def]
    table = panel.table
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def test_the_offices_side_by_side_mark_the_worst_peak_and_the_route_difference(charts) -> None:
    panel = charts.offices
    charts.tabs.setCurrentWidget(panel)
    assert panel.table.isVisible() and not panel.notice.isVisible()
    rows = _table(panel)
    # Only Los Angeles: us-west-1 is measured from Shanghai alone.
    assert [r[panel.OFFICE] for r in rows] == ["beijing", "shanghai", "shenzhen"]
    assert [r[panel.REGION] for r in rows] == ["raksmart / los-angeles", "", ""]  # named once per region
    by_office = {r[panel.OFFICE]: r for r in rows}
    p95 = {office: float(r[panel.P95]) for office, r in by_office.items()}
    assert p95["beijing"] > p95["shanghai"] > p95["shenzhen"] and p95["beijing"] > 240
    assert float(by_office["beijing"][panel.LOSS].rstrip("%")) > 1.0  # 4 % lost in Beijing's evening
    assert [rows[r][panel.OFFICE] for r in panel.worst_rows()] == ["beijing"]
    assert "worst peak" in by_office["beijing"][panel.NOTE] and not by_office["shanghai"][panel.NOTE]
    assert by_office["beijing"][panel.ROUTE] != by_office["shanghai"][panel.ROUTE]
    assert by_office["shanghai"][panel.ROUTE] == by_office["shenzhen"][panel.ROUTE] == "CN2 GIA"  # in words
    assert by_office["beijing"][panel.ROUTE] == "ChinaNet 163"
    (note,) = panel.route_notes()
    assert "los-angeles" in note and "differs by office" in note and "beijing ChinaNet 163" in note
    assert panel.notes.isVisible() and panel.notes.text() == note


def test_the_vantage_choice_draws_one_offices_rounds(charts, qtbot) -> None:
    assert charts.vantage.isVisible()
    assert [charts.vantage.itemText(i) for i in range(charts.vantage.count())] == [
        "all vantage points",
        "beijing",
        "shanghai",
        "shenzhen",
    ]
    _select(charts, qtbot, LA.name)
    every = charts.bundle
    sent_all = int(every.timeline.sent.sum())
    assert sent_all == 3 * 24 * 4 * 30  # three offices, 24 hours, 4 rounds an hour, 30 attempts

    peak_median = {}
    for office in ("beijing", "shanghai"):
        charts.choose_vantage(office)
        qtbot.waitUntil(
            lambda o=office: charts.bundle.choice.vantage == o and not charts.loading, timeout=10_000
        )
        bundle = charts.bundle
        assert int(bundle.timeline.sent.sum()) == sent_all // 3
        assert charts.timeline.data is bundle.timeline
        ((cdf_name, cdf),) = bundle.cdfs
        ((_, profile),) = bundle.profiles
        assert cdf_name == LA.name and 0 < cdf.received <= sent_all // 3
        assert int(profile.sent.sum()) == sent_all // 3
        peak_median[office] = float(np.nanmax(profile.median_ms))
    # Beijing's evening (~260 ms) is worse than Shanghai's (~200 ms): each office's own series.
    assert peak_median["beijing"] - peak_median["shanghai"] > 40
    charts.vantage.setCurrentIndex(0)
    qtbot.waitUntil(lambda: charts.bundle.choice.all and not charts.loading, timeout=10_000)
    assert int(charts.bundle.timeline.sent.sum()) == sent_all


def test_one_office_only_says_so_instead_of_an_empty_table(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from tests.analysis.synthetic import Series, StepModel, write_series
    from tests.analysis.test_vantages import START

    with Store(window.context.settings.db_path) as store:
        write_series(store, [Series(LA, StepModel(150.0, 200.0))], START, 6, vantage="shanghai")
    screen = window.go_to("charts")
    screen.range.setCurrentIndex(screen.range.count() - 1)
    screen.reload_targets()
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=10_000)
    qtbot.waitUntil(lambda: not screen.offices_loading, timeout=20_000)
    screen.tabs.setCurrentWidget(screen.offices)
    panel = screen.offices
    assert panel.comparisons == [] and panel.notice.isVisible() and not panel.table.isVisible()
    assert "Only one vantage point" in panel.notice.text()
    assert not screen.vantage.isVisible()  # nothing to choose between


def test_the_comparison_speaks_chinese(charts, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = charts.window()
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: charts.title.text() == "图表")
    panel = charts.offices
    assert charts.tabs.tabText(charts.tabs.indexOf(panel)) == "各测量点对比"
    assert charts.vantage_label.text() == "测量点" and charts.vantage.itemText(0) == "全部测量点"
    headers = [panel.table.horizontalHeaderItem(c).text() for c in range(panel.table.columnCount())]
    assert headers[panel.P95] == "晚高峰 p95（毫秒）" and headers[panel.LOSS] == "晚高峰丢包率"
    assert "晚高峰最差" in panel.table.item(0, panel.NOTE).text()
    assert "线路类别不同" in panel.notes.text()
    assert charts.vantage.count() == 4  # the choice survives the language change


def test_rounds_that_recorded_no_vantage_point_are_an_office_of_their_own(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from tests.analysis.synthetic import Series, StepModel, write_series
    from tests.analysis.test_vantages import START

    with Store(window.context.settings.db_path) as store:
        write_offices(store)
        write_series(
            store, [Series(LA, StepModel(150.0, 200.0))], START, 6
        )  # the app's own probes: no vantage
    screen = window.go_to("charts")
    screen.range.setCurrentIndex(screen.range.count() - 1)
    screen.reload_targets()
    qtbot.waitUntil(lambda: not screen.offices_loading and bool(screen.offices.comparisons), timeout=20_000)
    assert screen.vantage.itemText(screen.vantage.count() - 1) == "this machine"
    assert _table(screen.offices)[-1][screen.offices.OFFICE] == "this machine"
    _select(screen, qtbot, LA.name)
    screen.choose_vantage(THIS_MACHINE)
    qtbot.waitUntil(lambda: not screen.bundle.choice.all and not screen.loading, timeout=10_000)
    assert int(screen.bundle.timeline.sent.sum()) == 6 * 4 * 30
    ((_, profile),) = screen.bundle.profiles
    assert int(profile.sent.sum()) == 6 * 4 * 30
