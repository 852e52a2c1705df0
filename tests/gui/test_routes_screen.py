"""The Routes screen: a live trace on loopback in the probing child process (rows fill as answers come, the
verdict and claim check follow, the traces are stored), the stored history of a region with its change on
the timeline, and, as root, a trace through the route lab's backbone-addressed routers."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from PySide6.QtCore import Qt

from desktop.app.models.trace_hops import TraceHopsModel
from desktop.usecases.probe_list import TargetEntry
from probes.store import Store
from probes.target import Method, Target
from tests.chinese import glued
from tests.gui.synthetic_routes import ECHO_TARGET, write_route_history
from tests.lab.route_lab import RouteLab, lab_unavailable_reason

DISPLAY = Qt.ItemDataRole.DisplayRole
SHANGHAI = ZoneInfo("Asia/Shanghai")


def cell(model: TraceHopsModel, row: int, column: int) -> str:
    return str(model.data(model.index(row, column), DISPLAY))


def test_a_loopback_trace_fills_the_hops_live_then_shows_the_verdict_and_is_stored(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.context.targets.set_entries(
        [TargetEntry(Target(Method.ICMP, host="127.0.0.1", name="loopback", provider="acme", region="lo"))]
    )
    screen = window.go_to("routes")
    assert screen.target.itemText(0) == "loopback (127.0.0.1) — acme/lo"
    screen.target.setCurrentIndex(0)
    screen.protocol.setCurrentText("udp")  # no privileges needed
    screen.probes.setValue(4)
    screen.traces.setValue(3)
    screen.interval.setValue(0.3)
    screen.claim.setCurrentIndex(screen.claim.findData("cn2-gia"))
    qtbot.mouseClick(screen.run_button, Qt.MouseButton.LeftButton)
    assert screen.running and not screen.run_button.isEnabled()
    model = screen.model
    # the first answers show while the run is still going
    qtbot.waitUntil(lambda: screen.running and model.rowCount() == 1, timeout=15_000)
    qtbot.waitUntil(lambda: not screen.running, timeout=60_000)
    assert model.rowCount() == 1
    assert cell(model, 0, TraceHopsModel.ADDRESS) == "127.0.0.1"
    assert cell(model, 0, TraceHopsModel.SENT) == "12"  # 3 traces × 4 probes, every probe counted
    assert cell(model, 0, TraceHopsModel.LOSS) == "0.0%"
    assert "(destination)" in cell(model, 0, TraceHopsModel.NETWORK)
    assert float(cell(model, 0, TraceHopsModel.BEST)) <= float(cell(model, 0, TraceHopsModel.WORST))
    text = screen.verdict.toPlainText()
    # the core's words: the loopback path crosses none of the listed backbones
    assert "Verdict: other" in text and "none of the listed backbones" in text
    assert "other on 3 of 3 traces" in text  # merged over the traces
    assert "Claim check (MISMATCH)" in text and "claims CN2 GIA" in text
    assert "stored" in screen.status.text()
    with Store(window.context.settings.db_path, readonly=True) as store:
        traces = store.traces(provider="acme", region="lo")
    assert len(traces) == 3 and {t.route_class for t in traces} == {"other"}
    # the region now has a history
    qtbot.waitUntil(lambda: screen.history.region.count() == 1, timeout=10_000)
    assert screen.history.region.currentData() == ("acme", "lo")


def test_stop_stores_nothing(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    screen = window.go_to("routes")
    screen.target.setEditText("127.0.0.1")
    screen.protocol.setCurrentText("udp")
    screen.probes.setValue(20)
    screen.interval.setValue(1.0)
    qtbot.mouseClick(screen.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=15_000)
    qtbot.mouseClick(screen.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not screen.running, timeout=20_000)
    assert "nothing of it was stored" in screen.status.text()
    path = window.context.settings.db_path
    if path.exists():
        with Store(path, readonly=True) as store:
            assert store.traces() == []


def test_a_typed_host_that_is_not_one_says_so(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    screen = window.go_to("routes")
    screen.target.setEditText("not a host")
    qtbot.mouseClick(screen.run_button, Qt.MouseButton.LeftButton)
    assert not screen.running
    assert window.last_error is not None and "cannot be part of a host" in window.last_error.text()


def test_the_history_names_the_fall_from_cn2_gia_to_163_on_its_timeline(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    start = datetime(2026, 11, 28, 9, 0, tzinfo=SHANGHAI)
    change = datetime(2026, 12, 1, 21, 0, tzinfo=SHANGHAI)  # a Tuesday, at the evening peak
    write_route_history(window.context.settings.db_path, start=start, change_at=change, days=6, every_h=3)
    window.context.settings.time_zone = "Asia/Shanghai"
    screen = window.go_to("routes")
    panel = screen.history
    panel.period.setCurrentIndex(3)  # everything (the synthetic week is in the past)
    qtbot.waitUntil(lambda: panel.history is not None and not panel.loading, timeout=15_000)
    history = panel.history
    assert history.provider == "raksmart" and len(history.points) == 48
    (fall,) = history.changes
    assert (fall.before, fall.after, fall.direction) == ("cn2-gia", "163", "down")
    assert fall.at_us == int(change.timestamp() * 1e6)
    assert fall.hops_changed and fall.class_changed
    assert panel.changes.rowCount() == 1
    assert panel.changes.item(0, 0).text() == "Tue 2026-12-01 21:00"
    assert panel.changes.item(0, 2).text() == "the line fell from CN2 GIA to ChinaNet 163 (other hops)"
    assert "59.43.180.1" in panel.changes.item(0, 2).toolTip()
    # the timeline: one lane, CN2 GIA up to the change, 163 after it, a marker at the change
    classes = [s[3] for s in panel.timeline.segments]
    assert classes == ["cn2-gia"] * 28 + ["163"] * 20  # 09:00 on the 28th to 21:00 on the 1st: 28 traces
    assert panel.timeline.markers == [(change.timestamp(), "CN2 GIA → ChinaNet 163")]
    # the region's RTT beside it, from its echoes
    assert history.rtt_method == "icmp/tcp" and len(history.rtt) == 48
    x, y = panel.timeline.rtt_curve.getData()
    assert len(x) == 48 and y[:28].max() < 150 < y[28:].min()
    # the claim check over the whole period (the class most traces show)
    assert "claims CN2 GIA, traced via 59.43 (CN2), no 163 hop, on 28 of 48 traces" in panel.note.text()
    with Store(window.context.settings.db_path, readonly=True) as store:
        assert store.find_series(ECHO_TARGET.host or "")
    # in the window's language: its own words and the core's class names (电信 163; CN2 GIA is a name)
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: screen.title.text() == "路由")
    assert panel.changes.item(0, 0).text() == "周二 2026-12-01 21:00"
    assert panel.changes.item(0, 2).text() == "线路从 CN2 GIA 降级为 电信 163（跳点也变了）"
    assert panel.timeline.markers == [(change.timestamp(), "CN2 GIA → 电信 163")]
    assert panel.changes.horizontalHeaderItem(2).text() == "变化"
    assert screen.model.headerData(TraceHopsModel.LOSS, Qt.Orientation.Horizontal) == "丢包率"


_LAB = lab_unavailable_reason()


def test_the_verdict_reads_as_chinese_sentences(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """In Chinese the verdict, its rule and the claim check are labelled with full-width colons and
    brackets: no label glued on with English punctuation."""
    window.set_language("zh_CN")
    window.context.targets.set_entries(
        [TargetEntry(Target(Method.ICMP, host="127.0.0.1", name="loopback", provider="acme", region="lo"))]
    )
    screen = window.go_to("routes")
    screen.target.setCurrentIndex(0)
    screen.protocol.setCurrentText("udp")
    screen.probes.setValue(2)
    screen.claim.setCurrentIndex(screen.claim.findData("cn2-gia"))
    qtbot.mouseClick(screen.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: not screen.running and "线路声明核对" in screen.verdict.toPlainText(), timeout=60_000
    )
    text = screen.verdict.toPlainText()
    assert "判定：other" in text and "规则：" in text and "线路声明核对（不符）：" in text, text
    assert not glued(text), text


def test_a_child_that_cannot_start_is_said_in_the_window_language(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The tracing child process cannot be started (its command is missing): the error dialog says so in
    Chinese, naming the system's reason; the screen is ready for another run."""
    window.set_language("zh_CN")
    window.context.targets.set_entries([TargetEntry(Target(Method.ICMP, host="127.0.0.1", name="loopback"))])
    screen = window.go_to("routes")
    screen.target.setCurrentIndex(0)
    screen.child_prefix = ("/nonexistent/linkvet-no-such-program",)
    errors: list[tuple[str, str]] = []
    window.context.reporter.fatal.connect(lambda title, message: errors.append((title, message)))
    qtbot.mouseClick(screen.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(errors) and not screen.running, timeout=30_000)
    (_title, message), *_ = errors
    assert message.startswith("无法启动路由追踪进程：") and "linkvet-no-such-program" in message, message
    assert screen.run_button.isEnabled()


@pytest.mark.lab
@pytest.mark.skipif(_LAB is not None, reason=_LAB or "")
def test_through_the_route_lab_the_screen_tells_cn2_gt(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    with RouteLab({"gt": ["202.97.1.1", "59.43.3.1"]}, icmp_ratelimit_ms=0) as lab:
        assert lab.office is not None
        screen = window.go_to("routes")
        screen.child_prefix = ("ip", "netns", "exec", lab.office.name)  # the child traces from the office
        screen.target.setEditText(lab.region("gt"))
        screen.probes.setValue(3)
        screen.claim.setCurrentIndex(screen.claim.findData("cn2-gia"))
        qtbot.mouseClick(screen.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not screen.running, timeout=60_000)
    model = screen.model
    addresses = [cell(model, row, TraceHopsModel.ADDRESS) for row in range(model.rowCount())]
    assert addresses[1:3] == ["202.97.1.1", "59.43.3.1"]
    assert cell(model, 1, TraceHopsModel.NETWORK).startswith("163 AS4134 202.97.0.0/16")
    assert cell(model, 2, TraceHopsModel.NETWORK).startswith("CN2 AS4809 59.43.0.0/16")
    text = screen.verdict.toPlainText()
    assert "Verdict: cn2-gt" in text and "rule" in text.lower() and "oneclickvirt/backtrace" in text
    assert "Claim check (MISMATCH)" in text
