"""What looking at every screen at 1280×800 and 1366×768 in both languages changed, held: the evaluation's
nine columns fit a 1280-pixel window (text wraps before a column goes off screen), the Needs & score screen
folds the needs and their sizing away on a laptop, the time axes name months in the window's language, an
empty chart reads as the last day with no SI multiplier on its axis, a route lane ends where the data ends
and a change's name sits above the RTT line, and a single value keeps a colour scale with labels."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from desktop.app.widgets.heatmap_plot import single_value_scale
from desktop.app.widgets.route_timeline import RouteTimeline
from desktop.usecases.evaluation import ensure_example
from desktop.usecases.routes import RouteChange, TracePoint


def test_the_evaluations_columns_fit_a_1280_pixel_window(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from desktop.usecases.agent_process import measure_once

    db = window.context.settings.store_location
    measure_once(db, ensure_example(db), None)  # one real round (loopback): the cells' longer sentences
    window.resize(1280, 800)
    home = window.go_to("home")
    home.reload("example")
    qtbot.waitUntil(lambda: home.evaluation is not None and home.model.rowCount() == 3, timeout=30_000)
    qtbot.waitUntil(lambda: bool(home.buttons(0, 1)), timeout=30_000)
    table = home.table
    columns = home.model.columnCount()
    assert columns == 9
    widths = [table.columnWidth(c) for c in range(columns)]
    assert sum(widths) <= table.viewport().width(), widths
    # Each column still holds its title and its buttons.
    for column in range(1, columns):
        for button in home.buttons(0, column):
            assert button.sizeHint().width() <= widths[column], (column, button.text())
    # A cell with several actions: its arrow is part of its text, not drawn over its last letter.
    grouped = [b for c in range(columns) for b in home.buttons(0, c) if b.menu() is not None]
    assert grouped and all(b.text().endswith(" ▾") for b in grouped)
    # The wider window gives the text its line again (no column wider than 190 pixels).
    window.resize(1800, 900)
    qtbot.waitUntil(lambda: sum(table.columnWidth(c) for c in range(columns)) > sum(widths), timeout=5_000)
    assert max(table.columnWidth(c) for c in range(1, columns)) <= 190
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: [table.columnWidth(c) for c in range(columns)] == widths, timeout=5_000)


def test_the_score_screen_folds_the_needs_and_their_sizing_on_a_laptop(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.resize(1366, 768)
    score = window.go_to("score")
    qtbot.waitUntil(lambda: not score.needs_toggle.isChecked(), timeout=5_000)
    assert score.splitter.sizes()[0] == 0 and not score.sizing.isVisible()
    score.needs_toggle.setChecked(True)
    assert score.splitter.sizes()[0] > 0 and score.sizing.isVisible()
    assert "fits from 18 GPU(s)" in score.sizing.sizing_text.text()
    score.needs_toggle.setChecked(False)
    assert not score.sizing.isVisible()


def test_the_time_axes_name_months_and_units_in_chinese(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.language.apply("zh_CN")
    charts = window.go_to("charts")
    plot = charts.timeline
    start = datetime(2026, 10, 1, tzinfo=UTC).timestamp()
    end = datetime(2026, 12, 31, tzinfo=UTC).timestamp()
    plot.main.setXRange(start, end, padding=0)
    qtbot.wait(50)
    axis = plot.loss_plot.getAxis("bottom")
    labels = [
        label
        for spacing, values in axis.tickValues(start, end, axis.width())
        for label in axis.tickStrings(values, 1.0, spacing)
    ]
    assert "11月" in labels and "12月" in labels, labels
    assert not {"Oct", "Nov", "Dec"} & set(labels)
    assert plot._duration(1800) == "30 分钟" and plot._duration(86400 * 2) == "2 天"
    window.language.apply("en")
    qtbot.waitUntil(lambda: plot._duration(1800) == "30 min", timeout=5_000)


def test_an_empty_chart_opens_on_the_last_day_without_an_si_multiplier(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    charts = window.go_to("charts")
    qtbot.waitUntil(lambda: "No measurements yet" in charts.status.text(), timeout=10_000)
    low, high = charts.timeline.main.viewRange()[0]
    assert high - low == pytest.approx(86400, rel=0.01) and high > datetime.now(UTC).timestamp() - 3600
    heatmap = charts.heatmap
    assert heatmap.matrix is None or not heatmap.matrix.days
    axis = heatmap.plot.getAxis("bottom")
    assert "(x" not in axis.labelString() and axis.labelString()
    assert heatmap.plot.viewRange()[0] == pytest.approx([0, 24])


def _point(at_s: float, target: str, line_class: str) -> TracePoint:
    return TracePoint(
        at_us=int(at_s * 1e6), series_id=1, target=target, line_class=line_class, hops=(), reached=True
    )


def test_route_lanes_end_where_the_data_ends_and_a_change_is_named_above_the_line(qtbot) -> None:  # type: ignore[no-untyped-def]
    timeline = RouteTimeline()
    qtbot.addWidget(timeline)
    timeline.resize(900, 300)
    timeline.show()
    t0 = datetime(2026, 12, 1, 12, tzinfo=UTC).timestamp()
    points = [_point(t0, "a", "cn2-gia"), _point(t0 + 3600, "a", "163"), _point(t0 + 1800, "b", "cn2-gia")]
    change = RouteChange(
        at_us=int((t0 + 3600) * 1e6),
        previous_us=int(t0 * 1e6),
        target="a",
        before="cn2-gia",
        after="163",
        class_changed=True,
        hops_changed=False,
        direction="down",
        before_hops=(),
        after_hops=(),
    )
    rtt = [(int((t0 + 60 * i) * 1e6), 0.02 + 0.001 * i) for i in range(0, 121, 10)]  # loopback: 0.02 ms
    timeline.set_history(points, [change], rtt)
    data_end = rtt[-1][0] / 1e6
    ends = {(s[2], s[3]): s[1] for s in timeline.segments}
    # The last trace of each lane reaches the region's last measurement, never the present.
    assert ends[(0, "163")] == data_end and ends[(1, "cn2-gia")] == data_end
    assert ends[(0, "cn2-gia")] == t0 + 3600
    assert timeline.lanes.viewRange()[0][1] < datetime.now(UTC).timestamp()
    # Milliseconds read as milliseconds (no "(x0.001)"), and the change's name sits above the highest RTT.
    for axis in (
        timeline.rtt.getAxis("left"),
        timeline.rtt.getAxis("bottom"),
        timeline.lanes.getAxis("bottom"),
    ):
        assert "(x" not in axis.labelString()
    [marker] = [item for plot, item in timeline._items if plot is timeline.rtt and hasattr(item, "textItem")]
    box = marker.mapRectToView(marker.boundingRect())  # the text's extent in RTT units
    assert min(box.top(), box.bottom()) > max(v for _, v in rtt)
    # A lone trace with nothing after it is a mark, not a bar into the future.
    timeline.set_history([_point(t0, "a", "cn2-gia")], [], [])
    assert [(s[0], s[1]) for s in timeline.segments] == [(t0, t0)]


def test_a_single_value_keeps_a_labelled_colour_scale(qtbot) -> None:  # type: ignore[no-untyped-def]
    assert single_value_scale(0.0, loss=True) == (0.0, 1.0)
    assert single_value_scale(0.02, loss=False) == (0.0, 2.0)
    low, high = single_value_scale(180.0, loss=False)
    assert low < 180.0 < high and high - low >= 2


def test_an_empty_route_history_opens_on_the_last_day(qtbot) -> None:  # type: ignore[no-untyped-def]
    timeline = RouteTimeline()
    qtbot.addWidget(timeline)
    for plot in (timeline.lanes, timeline.rtt):
        low, high = plot.viewRange()[0]
        assert high - low == pytest.approx(86400, rel=0.01) and high > datetime.now(UTC).timestamp() - 3600
