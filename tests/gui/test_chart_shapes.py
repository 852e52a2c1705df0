"""The Charts screen read as a new user meets it: the extents of what each chart draws for one round (the
first `linkvet probe` of a fresh install), two rounds a day apart, and a week, written through the real
store. Boxes and lines must cover only the time their attempts cover, the view must open on the data, and
the charts must say where there is too little data for a box."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from desktop.app.timeline_data import MIN_REPLIES_FOR_P5_P95
from desktop.app.widgets.heatmap_plot import MIN_ROWS
from probes.store import Store
from tests.conftest import REPO_ROOT
from tests.gui.synthetic import DEMO_LINES, write_history, write_rounds

LINE = DEMO_LINES[3]  # hk · CN2 GIA (tcp)
EVERYTHING = -1


def open_charts(window, qtbot, period: int | None = None):  # type: ignore[no-untyped-def]
    screen = window.go_to("charts")
    screen.reload_targets()
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=10_000)
    qtbot.waitUntil(lambda: screen.bundle is not None and not screen.loading, timeout=10_000)
    if period is not None:
        screen.range.setCurrentIndex(screen.range.count() - 1 if period == EVERYTHING else period)
        qtbot.waitUntil(lambda: screen.loading, timeout=5_000)
        qtbot.waitUntil(lambda: not screen.loading, timeout=10_000)
    return screen


def sample_times(db_path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Every stored attempt's send time (epoch s) and its run, oldest first."""
    with Store(db_path, readonly=True) as store:
        frame = store.samples_frame()
    return frame["ts_us"].to_numpy() / 1e6, frame["result_id"].to_numpy()


def box_extents(bars) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    x = np.asarray(bars.opts["x"], dtype=float)
    width = np.broadcast_to(np.asarray(bars.opts["width"], dtype=float), x.shape)
    return x - width / 2, x + width / 2


def finite_segments(item) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """The (start, end) times of the segments a line item draws between two finite points."""
    x, y = item.getOriginalDataset()
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    joined = np.isfinite(y[:-1]) & np.isfinite(y[1:])
    return x[:-1][joined], x[1:][joined]


def test_the_first_run_of_a_fresh_install_draws_its_own_seconds(window, qtbot, listener) -> None:
    """`linkvet probe 127.0.0.1:PORT -c 10` (a 10-second run, TCP so no privileges are needed) into the
    window's fresh store, then Charts → Timeline on the default period (the last 24 hours)."""
    db_path = window.context.settings.db_path
    db_path.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "desktop.cli",
            "probe",
            f"127.0.0.1:{listener}",
            "-c",
            "10",
            "--db",
            str(db_path),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    t_s, _ = sample_times(db_path)
    first, last = float(t_s[0]), float(t_s[-1])
    assert 8.5 < last - first < 10.5

    screen = open_charts(window, qtbot)
    plot = screen.timeline
    assert plot.data is not None and plot.data.sent.sum() == 10
    # One min–max box, over the run's own nine seconds (not a 5-minute bucket of the 24-hour period).
    left, right = box_extents(plot.range_bars)
    assert left.size == 1
    assert left[0] == pytest.approx(first, abs=1e-3) and right[0] == pytest.approx(last, abs=1e-3)
    # Ten replies are too few for a p5–p95 box: none is drawn, and the chart says so.
    assert box_extents(plot.pct_bars)[0].size == 0
    assert "Too little data for p5–p95 boxes" in plot.note.text and "10 attempts" in plot.note.text
    # The median covers the same seconds; the view and the overview open on the run.
    segment_start, segment_end = finite_segments(plot.median)
    assert segment_start.min() >= first - 1e-3 and segment_end.max() <= last + 1e-3
    low, high = plot.main.viewRange()[0]
    assert low <= first and last <= high and high - low < (last - first) * 1.2
    overview_low, overview_high = plot.overview.viewRange()[0]
    assert overview_low <= first and last <= overview_high and overview_high - overview_low < 12
    # The other charts say how little they rest on.
    assert "single day" in screen.profile.note.text
    assert "days with data: 1 of 1" in screen.heatmap.note.text
    assert screen.heatmap.plot.viewRange()[1][1] >= MIN_ROWS - 0.5  # one day is a strip, not the chart
    assert "Too little data for a distribution" in screen.cdf.note.text


def test_two_rounds_a_day_apart_stand_alone_without_a_bridge(window, qtbot) -> None:
    first_round = datetime(2026, 11, 2, 12, 0, 5, tzinfo=UTC)  # 20:00 in Shanghai, two days running
    write_rounds(
        window.context.settings.db_path, [first_round, first_round + timedelta(days=1)], lines=(LINE,)
    )
    t_s, runs = sample_times(window.context.settings.db_path)
    rounds = [(float(t_s[runs == r].min()), float(t_s[runs == r].max())) for r in np.unique(runs)]

    screen = open_charts(window, qtbot, EVERYTHING)
    plot = screen.timeline
    left, right = box_extents(plot.range_bars)
    assert left.size == 2
    for (start, end), box_left, box_right in zip(rounds, np.sort(left), np.sort(right), strict=True):
        assert box_left == pytest.approx(start, abs=1e-3) and box_right == pytest.approx(end, abs=1e-3)
    # Nothing bridges the day between them: not the median, not the raw trace; each round gets a dot.
    gap = (rounds[0][1], rounds[1][0])
    for item in (plot.median, plot.raw, plot.overview_line):
        starts, ends = finite_segments(item)
        assert not ((starts < gap[0] + 1) & (ends > gap[1] - 1)).any()
    assert len(plot.lone.data) == 2
    low, high = plot.main.viewRange()[0]
    assert low <= rounds[0][0] and rounds[1][1] <= high and high - low < 1.1 * 86400
    assert f"a box needs {MIN_REPLIES_FOR_P5_P95} replies, the fullest bin has 10" in plot.note.text
    # Hour 20 measured on two days; the heatmap has two rows and room for a week; 20 replies make a CDF.
    profile = screen.profile
    assert "1 of 24 hours measured, on 2 days" in profile.note.text
    assert screen.heatmap.matrix is not None and len(screen.heatmap.matrix.days) == 2
    assert "days with data: 2 of 2" in screen.heatmap.note.text
    assert screen.cdf.note.text == ""


def test_a_week_of_rounds_draws_continuous_smoke_from_first_to_last_attempt(window, qtbot) -> None:
    end = datetime(2026, 11, 9, 4, 0, 0, tzinfo=UTC)
    write_history(window.context.settings.db_path, days=7, every_s=900, attempts=20, end=end, lines=(LINE,))
    t_s, _ = sample_times(window.context.settings.db_path)
    first, last = float(t_s[0]), float(t_s[-1])

    screen = open_charts(window, qtbot, EVERYTHING)
    plot = screen.timeline
    data = plot.data
    assert data is not None and data.sent.sum() == t_s.size
    left, right = box_extents(plot.range_bars)
    order = np.argsort(left)
    left, right = left[order], right[order]
    # From the first attempt to the last, box against box (a round every 15 minutes: no gaps), and every
    # box has its p5–p95 part.
    assert left[0] == pytest.approx(first, abs=1e-3) and right[-1] == pytest.approx(last, abs=1e-3)
    assert np.allclose(right[:-1], left[1:])
    assert box_extents(plot.pct_bars)[0].size == left.size
    assert (data.received[data.sent > 0] >= MIN_REPLIES_FOR_P5_P95).all()
    assert "Too little" not in plot.note.text and "672 rounds" in plot.note.text
    low, high = plot.main.viewRange()[0]
    assert low <= first and last <= high and high - low < (last - first) * 1.1
    assert screen.profile.note.text == ""  # every hour, on seven days: nothing to warn about
    assert screen.profile.profiles[0][1].days.min() >= 7
    assert "days with data: 8 of 8" in screen.heatmap.note.text
    assert screen.cdf.note.text == ""


def test_a_period_without_data_shows_that_period_and_when_the_target_was_last_measured(window, qtbot) -> None:
    three_days_ago = datetime.now(UTC) - timedelta(days=3)
    write_rounds(window.context.settings.db_path, [three_days_ago], lines=(LINE,))
    screen = open_charts(window, qtbot)  # the last 24 hours
    plot = screen.timeline
    assert "nothing measured in this period; last measured" in plot.note.text
    low, high = plot.main.viewRange()[0]
    assert high - low == pytest.approx(86400, rel=0.01) and high > datetime.now(UTC).timestamp() - 60


def test_the_notes_follow_the_language(window, qtbot) -> None:
    write_rounds(
        window.context.settings.db_path, [datetime(2026, 11, 2, 12, 0, 5, tzinfo=UTC)], lines=(LINE,)
    )
    screen = open_charts(window, qtbot, EVERYTHING)
    window.language.apply("zh_CN")
    qtbot.waitUntil(lambda: "数据太少" in screen.timeline.note.text, timeout=5_000)
    assert "10 次尝试" in screen.timeline.note.text
    assert "周一" in " ".join(label for _, label in screen.heatmap.plot.getAxis("left")._tickLevels[0])


def test_a_round_with_every_attempt_lost_says_so_and_draws_its_loss(window, qtbot) -> None:
    from dataclasses import replace

    lost = replace(LINE, loss=1.0, peak_loss=1.0)
    write_rounds(window.context.settings.db_path, [datetime(2026, 11, 2, 3, 0, tzinfo=UTC)], lines=(lost,))
    screen = open_charts(window, qtbot, EVERYTHING)
    plot = screen.timeline
    assert "every attempt was lost" in plot.note.text
    assert box_extents(plot.range_bars)[0].size == 0
    left, right = box_extents(plot.loss_bars)
    t_s, _ = sample_times(window.context.settings.db_path)
    assert (
        left.size == 1
        and left[0] == pytest.approx(t_s[0], abs=1e-3)
        and right[0] == pytest.approx(t_s[-1], abs=1e-3)
    )
    assert list(plot.loss_bars.opts["height"]) == [100.0]
