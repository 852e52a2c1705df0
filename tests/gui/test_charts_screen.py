"""The Charts screen over a store: it lists the stored targets, draws the selection's charts off the GUI
thread, reads values out under the cursor, and saves PNGs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage

from tests.gui.synthetic import DEMO_LINES, write_history


@pytest.fixture
def charts(window, qtbot, qsettings):  # type: ignore[no-untyped-def]
    write_history(window.context.settings.db_path, days=2, every_s=1800, attempts=10)
    screen = window.go_to("charts")
    screen.reload_targets()
    qtbot.waitUntil(lambda: screen.model.rowCount() == len(DEMO_LINES), timeout=10_000)
    qtbot.waitUntil(lambda: screen.bundle is not None and not screen.loading, timeout=10_000)
    return screen


def rows_by_name(screen) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {screen.model.target(r).name: r for r in range(screen.model.rowCount())}


def test_selecting_and_ticking_targets_draws_their_charts(charts, qtbot) -> None:
    rows = rows_by_name(charts)
    bgp, gia = DEMO_LINES[1].target.name, DEMO_LINES[0].target.name
    charts.range.setCurrentIndex(charts.range.count() - 1)  # everything
    charts.list.selectRow(rows[bgp])
    for name in (bgp, gia):
        charts.model.setData(
            charts.model.index(rows[name], 0), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole
        )
    qtbot.waitUntil(lambda: charts.bundle.current == bgp and len(charts.bundle.profiles) == 2, timeout=10_000)
    qtbot.waitUntil(lambda: not charts.loading, timeout=10_000)
    bundle = charts.bundle
    assert bundle.timeline.sent.sum() == 96 * 10
    assert charts.timeline.data is bundle.timeline
    # The synthetic BGP line is ~70 ms slower inside the Shanghai evening peak than outside it.
    profile = dict(bundle.profiles)[bgp]
    assert np.nanmean(profile.median_ms[20:23]) - np.nanmean(profile.median_ms[8:18]) > 30
    assert charts.profile._shading and len(charts.cdf.cdfs) == 2
    assert charts.heatmap.matrix is bundle.matrix and len(bundle.matrix.days) >= 2
    text = charts.timeline.describe(
        float(bundle.timeline.bin_centre_s[np.flatnonzero(bundle.timeline.sent)[0]])
    )
    assert "median" in text and "replies" in text
    assert charts.cdf.describe(10_000.0).count("100.0%") == 2
    assert "20:00–21:00" in charts.profile.describe(20)


def test_the_crosshair_reads_out_under_the_mouse(charts, qtbot) -> None:
    plot = charts.timeline
    charts.tabs.setCurrentIndex(0)
    data = plot.data
    centre = float(data.bin_centre_s[np.flatnonzero(data.sent)[3]])
    view = plot.main.getViewBox()
    scene_point = view.mapViewToScene(QPointF(centre, float(np.nanmedian(data.median_ms))))
    plot._mouse_moved((scene_point,))
    assert plot.v_line.isVisible() and abs(plot.v_line.value() - centre) < data.bin_width_s
    assert "median" in plot.readout.text


def test_save_as_png_writes_the_current_chart(charts, tmp_path: Path) -> None:
    for index in range(charts.tabs.count()):
        charts.tabs.setCurrentIndex(index)
        path = charts.save_png(tmp_path / f"chart-{index}.png")
        image = QImage(str(path))
        assert not image.isNull() and image.width() > 200 and image.height() > 200


def test_an_empty_store_says_how_to_get_data(window, qtbot) -> None:
    screen = window.go_to("charts")
    qtbot.waitUntil(lambda: "No measurements yet" in screen.status.text(), timeout=10_000)
    assert screen.model.rowCount() == 0
