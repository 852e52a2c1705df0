"""The Probe screen against real loopback targets: rows fill while the run goes, errors land in their row,
the round is stored as `linkvet probe` stores it, and Stop leaves nothing half-stored."""

from __future__ import annotations

import socket

import pyqtgraph as pg
from PySide6.QtCore import Qt

from desktop.app.models.live_probe import LiveProbeModel
from desktop.usecases.probe_list import TargetEntry
from probes.store import Store
from probes.target import Method, Target

DISPLAY = Qt.ItemDataRole.DisplayRole


def closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def test_run_now_fills_rows_live_and_stores_the_round(window, qtbot, listener) -> None:
    targets = [
        # ICMP where permitted, else measured over TCP on the listener (the engine's fallback).
        TargetEntry(Target(Method.ICMP, host=f"127.0.0.{i}", port=listener, name=f"lo{i}"))
        for i in (1, 2, 3)
    ]
    targets.append(TargetEntry(Target(Method.TCP, host="127.0.0.1", port=listener, name="tcp listener")))
    targets.append(TargetEntry(Target(Method.HTTP, url=f"http://127.0.0.1:{closed_port()}/", name="closed")))
    window.context.targets.set_entries(targets)
    probe = window.go_to("probe")
    probe.count.setValue(40)
    probe.interval.setValue(0.02)
    probe.timeout.setValue(1.0)
    qtbot.mouseClick(probe.run_button, Qt.MouseButton.LeftButton)
    assert probe.running and not probe.run_button.isEnabled()
    model: LiveProbeModel = probe.model
    # Rows fill while the run is still going (the redraw timer drains samples).
    qtbot.waitUntil(lambda: probe.running and any(0 < len(r.rtts) < 40 for r in model.rows()), timeout=10_000)
    qtbot.waitUntil(lambda: not probe.running, timeout=60_000)
    rows = {r.target.name: r for r in model.rows()}
    for name in ("lo1", "lo2", "lo3", "tcp listener"):
        row = rows[name]
        assert row.result is not None and row.result.error is None, row.result
        assert row.summary.sent == 40 and row.summary.loss == 0.0
        assert row.summary.rtt_median_ms is not None and row.summary.rtt_median_ms < 50
    closed = model.rowCount() - 1
    assert model.data(model.index(closed, LiveProbeModel.STATUS), DISPLAY).startswith("error: refused")
    # The live chart counts seconds from the start of the run, and says so on its axis.
    assert probe.chart.getAxis("bottom").labelText == "Seconds since the run started"
    curve = next(i for i in probe.chart.getPlotItem().listDataItems() if isinstance(i, pg.PlotDataItem))
    x, _ = curve.getData()
    assert 0 <= x[0] < 5 and x[-1] < 30
    assert "could not be measured" in window.statusBar().currentMessage()
    assert "stored as round" in window.statusBar().currentMessage()
    with Store(window.context.settings.db_path, readonly=True) as store:
        counts = store.counts()
        assert counts["rounds"] == 1 and counts["results"] == 5
        assert counts["samples"] == 4 * 40 + 40  # every attempt of every target, the refused ones too
    # The charts list what was just stored.
    charts = window.go_to("charts")
    qtbot.waitUntil(lambda: charts.model.rowCount() == 5, timeout=10_000)


def test_stop_cancels_the_run_and_stores_nothing(window, qtbot, listener) -> None:
    window.context.targets.set_entries([TargetEntry(Target(Method.TCP, host="127.0.0.1", port=listener))])
    probe = window.go_to("probe")
    probe.count.setValue(10_000)
    probe.interval.setValue(0.01)
    probe.run_button.click()
    qtbot.waitUntil(lambda: len(probe.model.row(0).rtts) > 5, timeout=10_000)
    probe.stop_button.click()
    qtbot.waitUntil(lambda: not probe.running, timeout=10_000)
    assert "nothing of this run was stored" in window.statusBar().currentMessage()
    assert (
        not window.context.settings.db_path.exists()
        or Store(window.context.settings.db_path, readonly=True).counts()["rounds"] == 0
    )


def test_nothing_switched_on_says_so(window, qtbot) -> None:
    window.context.targets.set_entries([])
    probe = window.go_to("probe")
    probe.run_button.click()
    assert not probe.running
    assert "Nothing to probe" in window.statusBar().currentMessage()


def test_a_method_the_target_cannot_take_is_an_error_row_not_a_crash(window, qtbot, listener) -> None:
    window.context.targets.set_entries(
        [
            TargetEntry(Target(Method.ICMP, host="127.0.0.1", name="host only")),
            TargetEntry(Target(Method.HTTP, url=f"http://127.0.0.1:{listener}/", name="url")),
        ]
    )
    probe = window.go_to("probe")
    probe.method.setCurrentIndex(probe.method.findData(Method.DOWNLOAD))
    probe.count.setValue(1)
    probe.timeout.setValue(0.5)
    probe.store_results.setChecked(False)
    probe.run_button.click()
    qtbot.waitUntil(lambda: not probe.running, timeout=30_000)
    statuses = [probe.model.data(probe.model.index(r, LiveProbeModel.STATUS), DISPLAY) for r in range(2)]
    assert any("needs a URL" in s for s in statuses), statuses
    assert not window.context.settings.db_path.exists()


def test_the_method_choice_is_linkvet_probes_and_every_target_method_has_a_count(window) -> None:
    from probes.target import DEFAULT_COUNTS

    probe = window.go_to("probe")
    offered = {probe.method.itemData(i) for i in range(1, probe.method.count())}
    assert {str(m) for m in offered} == set(DEFAULT_COUNTS)
    options = probe.options_for(set(Method))  # a plan may hold trace targets: they get probes per hop
    assert options[Method.TRACE].count == 3 and options[Method.ICMP].count == 10


def test_progress_does_not_paint_the_live_table_synchronously(window, qtbot) -> None:
    """QProgressBar.setValue repaints at once, and a synchronous repaint paints every dirty region of the
    window: the live table a refresh just changed. The screen's progress update waits for the next paint."""
    from PySide6.QtCore import QEvent, QObject

    from desktop.app.probe_screen import set_progress

    probe = window.go_to("probe")
    qtbot.waitExposed(window)
    painted: list[int] = []

    class PaintSpy(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                painted.append(1)
            return False

    spy = PaintSpy()
    probe.table.viewport().installEventFilter(spy)
    probe.progress.setRange(0, 100)
    for step, set_value in enumerate((probe.progress.setValue, lambda v: set_progress(probe.progress, v))):
        qtbot.wait(50)  # nothing left to paint
        painted.clear()
        probe.table.viewport().update()  # dirty, as a refresh of the live table leaves it
        set_value(40 + 20 * step)
        if step == 0:
            assert painted, "Qt's own setValue no longer repaints at once: set_progress may go"
        else:
            assert not painted and probe.progress.value() == 60
    qtbot.waitUntil(lambda: bool(painted))  # the table and the bar paint with the next update


def test_responsiveness_is_a_method_and_its_probes_fill_the_row(window, qtbot, http_server) -> None:  # type: ignore[no-untyped-def]
    target = Target(Method.DOWNLOAD, url=f"http://{http_server}/trickle", name="trickle")
    window.context.targets.set_entries([TargetEntry(target)])
    probe = window.go_to("probe")
    index = probe.method.findData(Method.RESPONSIVENESS)
    assert index > 0 and probe.method.itemText(index) == "responsiveness"
    probe.method.setCurrentIndex(index)
    probe.count.setValue(0)  # auto: one test
    probe.timeout.setValue(1.0)
    qtbot.mouseClick(probe.run_button, Qt.MouseButton.LeftButton)
    model: LiveProbeModel = probe.model
    # the latency probes arrive while the test runs, idle phase first
    qtbot.waitUntil(lambda: probe.running and len(model.rows()[0].rtts) >= 20, timeout=20_000)
    qtbot.waitUntil(lambda: not probe.running, timeout=60_000)
    (row,) = model.rows()
    assert row.result is not None and row.result.error is None, row.result
    assert row.result.metrics["grade"] is not None and row.result.metrics["connections"] == 4
    # 5 s idle and a 10 s download at one probe every 100 ms
    assert row.expected == 150 and 120 <= len(row.rtts) <= 160  # (connection set-up takes a little more)
    with Store(window.context.settings.db_path, readonly=True) as store:
        phases = set(store.samples_frame()["phase"])
    assert phases == {"idle", "download-ramp", "download"}


def test_a_round_the_store_refuses_waits_in_the_spool_and_reaches_the_store_later(
    window, qtbot, listener, tmp_path
) -> None:
    """As `linkvet probe` does (`desktop.usecases.measuring`): a full disk refuses the round, the window says
    it is kept in the spool, and the next run that reaches the store forwards it before its own."""
    import os
    import sqlite3
    from contextlib import closing
    from pathlib import Path

    from tests.disks import fill, tiny_disk

    def spooled() -> int:
        spool = Path(os.environ["XDG_DATA_HOME"]) / "linkvet" / "linkvet-spool.sqlite3"
        if not spool.exists():
            return 0
        with closing(sqlite3.connect(spool)) as db:
            return int(db.execute("SELECT count(*) FROM spooled").fetchone()[0])

    def run_once() -> None:
        probe.run_button.click()
        qtbot.waitUntil(lambda: not probe.running, timeout=60_000)

    with tiny_disk(tmp_path) as disk:
        window.context.settings.data_dir = disk
        window.context.targets.set_entries(
            [TargetEntry(Target(Method.TCP, host="127.0.0.1", port=listener, name="lo"))]
        )
        probe = window.go_to("probe")
        probe.count.setValue(3)
        probe.interval.setValue(0.01)
        run_once()
        assert "stored as round 1" in window.statusBar().currentMessage()
        filler = fill(disk)
        run_once()
        assert window.last_error is not None
        assert "kept in the spool" in window.last_error.text(), window.last_error.text()
        assert spooled() == 1
        filler.unlink()  # room again: the next run stores the spooled round, then its own
        run_once()
        assert spooled() == 0
        with Store(window.context.settings.db_path, readonly=True) as store:
            assert store.counts()["rounds"] == 3
