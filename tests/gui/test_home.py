"""The evaluation home: the guide makes an evaluation with a vendor created in place; the background agent
measures on after the window closes (rounds keep arriving in the store), the next window finds it and stops
it; the quit question keeps, stops or stays; a cell's Measure now measures one round. Real store, real agent
process (`python -m desktop.cli schedule --eval`), real probes of loopback addresses."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from catalogs.needs import EXAMPLE_NEEDS
from probes.peak import PeakWindow
from probes.store import Store
from probes.timestamps import now_us


@pytest.fixture
def no_agents_left() -> Iterator[None]:
    """Whatever a test leaves measuring is stopped (a process of its own would outlive the test)."""
    yield
    from desktop.usecases.agent_process import running_agents, stop_agent

    for agent in running_agents():
        stop_agent(agent, wait_s=30)


def _home(window):  # type: ignore[no-untyped-def]
    return window.go_to("home")


def _quit(window, text: str) -> str:  # type: ignore[no-untyped-def]
    """Close the window and click `text` in the quit question; what the question said."""
    window.close()
    box = window.quit_box
    assert box is not None and box.isVisible()
    said = box.text()
    [button] = [b for b in box.buttons() if b.text().replace("&", "") == text]
    button.click()
    return str(said)


def test_the_guide_makes_an_evaluation_with_a_vendor_created_in_place(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    home = _home(window)
    qtbot.waitUntil(lambda: home.data is not None, timeout=30_000)
    assert home.pages.currentIndex() == 0  # no evaluation yet: the empty page with New evaluation…
    wizard = home.new_evaluation()
    wizard.job.name.setText("q1-gpu")
    wizard.next()
    assert wizard.currentPage() is wizard.offices
    wizard.offices.add_office("shanghai", "ct")
    wizard.next()
    page = wizard.candidates
    assert not page.isComplete()
    page.provider.setCurrentIndex(page.provider.findData("lambda"))
    page.region.setCurrentIndex(page.region.findData("asia-northeast-1"))
    assert not page.provider_name.isEnabled() and not page.region_name.isEnabled()
    page.addresses.setText("127.0.0.41")
    assert page.add_candidate()
    # A vendor the catalogs do not have, typed in: created with its names only.
    page.provider.setEditText("vendorb")
    page.provider_name.setText("Vendor B")
    page.region.setEditText("tokyo-2")
    page.region_name.setText("Tokyo 2")
    assert "vendorb" in page.new_note.text() and "tokyo-2" in page.new_note.text()
    page.addresses.setText("not an address!")
    assert not page.add_candidate() and "endpoint" in page.error.text()
    page.addresses.setText("127.0.0.42")
    assert page.add_candidate() and page.table.rowCount() == 2
    wizard.next()
    assert wizard.currentPage() is wizard.peak
    wizard.peak.windows.setPlainText("20:00-23:00 Asia/Shanghai\n25:00-26:00 Mars/Olympus")
    wizard.accept()
    assert "peak window 2" in wizard.peak.error.text() and wizard.isVisible()
    wizard.peak.windows.setPlainText("19:30-23:00 Asia/Shanghai")
    wizard.peak.start.setChecked(False)
    with qtbot.waitSignal(wizard.created, timeout=30_000) as created:
        wizard.accept()
    assert created.args == ["q1-gpu", False]

    from desktop.usecases.evaluation import load_evaluation

    db = window.context.settings.store_location
    evaluation = load_evaluation(db, "q1-gpu")
    assert [c.label for c in evaluation.candidates] == ["lambda/asia-northeast-1", "vendorb/tokyo-2"]
    assert [(o.name, o.carrier) for o in evaluation.offices] == [("shanghai", "ct")]
    assert [str(w) for w in evaluation.peak_windows] == ["19:30-23:00 Asia/Shanghai"]
    overlay = Path(os.environ["LINKVET_CATALOG_DIR"]) / "vendorb.overlay.toml"
    text = overlay.read_text(encoding="utf-8")
    assert 'value = "Vendor B"' in text and 'value = "Tokyo 2"' in text
    assert text.count("[[facts]]") == 2  # its names, nothing else claimed
    # The home shows it, and its peak windows are the window's now.
    qtbot.waitUntil(lambda: home.evaluation is not None and home.evaluation.name == "q1-gpu", timeout=30_000)
    assert home.model.rowCount() == 2 and home.pages.currentIndex() == 1
    assert [str(w) for w in window.context.settings.peak_windows] == ["19:30-23:00 Asia/Shanghai"]
    assert window.context.settings.evaluation == "q1-gpu"
    assert home.panel.office_name() == "shanghai"
    line = home.model.cell(1, 1)
    assert line is not None and line[0].kind == "line" and line[1].state == "missing"
    assert [b.text() for b in home.buttons(1, 1)] == ["Measure now"]


def _lab_evaluation(db: Path, name: str = "lab") -> None:
    """An evaluation of one candidate at a loopback address, a vendor created in place (no catalog
    endpoints), peak all day (a round every minute)."""
    from desktop.usecases.evaluation import add_candidate, new_evaluation
    from desktop.usecases.offerings import load_catalog_set

    new_evaluation(db, name, EXAMPLE_NEEDS, peak_windows=[PeakWindow.parse("00:00-23:59 UTC")])
    add_candidate(
        db, name, load_catalog_set(), provider="labvendor", region="lab-1", endpoints=["127.0.0.31"]
    )


def _rounds_after(db: Path, plan: str, after_us: int) -> int:
    with Store(db, readonly=True) as store:
        return sum(1 for r in store.rounds(plan=plan) if (r.finished_us or 0) > after_us)


def test_the_agent_measures_on_after_the_window_closes_and_the_next_window_stops_it(
    qapp, qtbot, qsettings, no_agents_left
) -> None:  # type: ignore[no-untyped-def]
    from desktop.app.main import build_window
    from desktop.usecases.agent_process import process_alive, running_agents

    db = Path(str(qsettings.value("data/dir"))) / "linkvet.sqlite3"
    _lab_evaluation(db)
    first = build_window(qapp, qsettings, warm=False, welcome=False)
    qtbot.addWidget(first)
    first.show()
    home = _home(first)
    qtbot.waitUntil(lambda: home.panel.status is not None, timeout=30_000)
    assert not home.panel.measuring and home.panel.start_button.isEnabled()
    home.panel.start_button.click()
    qtbot.waitUntil(lambda: home.panel.measuring, timeout=60_000)
    [agent] = running_agents(db)
    assert agent.evaluation == "lab" and agent.command[-4:-2] == ["--db", str(db)]
    # The quit question: Cancel stays; Keep measuring closes and leaves the agent measuring.
    said = _quit(first, "Cancel")
    assert "measuring lab in the background" in said and first.isVisible()
    _quit(first, "Keep measuring")
    assert not first.isVisible()
    closed_us = now_us()
    qtbot.waitUntil(lambda: _rounds_after(db, "lab", closed_us) >= 1, timeout=90_000)
    assert [a.pid for a in running_agents(db)] == [agent.pid]

    # The next window finds it measuring, with its last round, and stops it.
    second = build_window(qapp, qsettings, warm=False, welcome=False)
    qtbot.addWidget(second)
    second.show()
    home = _home(second)
    qtbot.waitUntil(lambda: home.panel.status is not None and home.panel.measuring, timeout=30_000)
    status = home.panel.status
    assert status.agent is not None and status.agent.pid == agent.pid
    assert status.last_round_us is not None and status.last_round_us > closed_us
    assert "process" in home.panel.state.text() and "Last round" in home.panel.state.text()
    assert status.next_round_s is not None and "Next round" in home.panel.state.text()
    qtbot.waitUntil(lambda: home.panel.stop_button.isEnabled(), timeout=10_000)
    home.panel.stop_button.click()
    qtbot.waitUntil(lambda: home.panel.status is not None and not home.panel.measuring, timeout=60_000)
    assert running_agents(db) == [] and not process_alive(agent.pid)
    # Started again, then "Stop measuring and quit": asked to stop, it ends by itself.
    home.panel.start_button.click()
    qtbot.waitUntil(lambda: home.panel.measuring, timeout=60_000)
    [again] = running_agents(db)
    _quit(second, "Stop measuring and quit")
    assert not second.isVisible()
    qtbot.waitUntil(lambda: not process_alive(again.pid), timeout=60_000)
    assert running_agents(db) == []
    log = Path(again.log).read_text(encoding="utf-8")
    assert "received SIGTERM, stopping" in log and "stopped after" in log


def test_measure_now_measures_one_round_into_the_evidence(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    db = window.context.settings.store_location
    _lab_evaluation(db, "now")
    home = _home(window)
    home.reload("now")
    qtbot.waitUntil(lambda: home.evaluation is not None and home.model.rowCount() == 1, timeout=30_000)
    qtbot.waitUntil(lambda: bool(home.buttons(0, 1)), timeout=30_000)
    [button] = home.buttons(0, 1)
    assert button.text() == "Measure now"
    button.click()
    qtbot.waitUntil(lambda: not home.evidence_actions.busy, timeout=90_000)
    qtbot.waitUntil(lambda: home.model.cell(0, 1)[1].state != "missing", timeout=30_000)  # type: ignore[index]
    spec, cell = home.model.cell(0, 1)  # type: ignore[misc]
    assert spec.kind == "line" and cell.figures["offpeak_samples"] + cell.figures["peak_samples"] >= 10
    assert _rounds_after(db, "now", 0) == 1


def test_the_quit_question_names_the_probe_screens_scheduler(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    probe = window.go_to("probe")
    probe.scheduler.start()
    qtbot.waitUntil(lambda: probe.scheduler.running, timeout=10_000)
    said = _quit(window, "Cancel")
    assert window.isVisible() and "scheduler" in said and "stops with it" in said
    assert [b.text() for b in window.ask_before_closing().buttons()] == ["Quit", "Cancel"]
    window.quit_box.button(QMessageBox.StandardButton.Cancel).click()
    probe.scheduler.stop()
    qtbot.waitUntil(lambda: not probe.scheduler.running, timeout=30_000)


def test_the_other_offices_agents_are_listed_with_their_health(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """What `linkvet eval show` lists, the home says too: each other office's agent measuring, spooling or
    silent, and an office whose agent never reported."""
    from catalogs.evaluation.model import Office
    from desktop.usecases.evaluation import new_evaluation
    from probes.store import AgentHealth

    db = window.context.settings.store_location
    offices = [Office("shanghai", "ct"), Office("beijing", "cu"), Office("shenzhen", "cm"), Office("chengdu")]
    new_evaluation(db, "team", EXAMPLE_NEEDS, offices=offices)
    now = now_us()
    with Store(db) as store:
        store.put_agent(AgentHealth("beijing", "team", "bj-box", 11, "0.1.0", now - 60_000_000, 0, now))
        store.put_agent(AgentHealth("shenzhen", "team", "sz-box", 12, "0.1.0", now - 60_000_000, 3, now))
        long_ago = now - 86_400_000_000
        store.put_agent(AgentHealth("chengdu", "team", "cd-box", 13, "0.1.0", long_ago, 0, long_ago))
    home = _home(window)
    home.reload("team")
    qtbot.waitUntil(lambda: home.evaluation is not None and home.evaluation.name == "team", timeout=30_000)
    home.panel.office.setCurrentIndex(home.panel.office.findData("shanghai"))
    qtbot.waitUntil(lambda: "bj-box" in home.panel.others.text(), timeout=30_000)
    said = home.panel.others.text()
    assert "shanghai" not in said  # this computer's office is the panel's own sentence
    assert "beijing: measuring, last round" in said and "on bj-box" in said
    assert "shenzhen: 3 round(s) in its spool" in said
    assert "chengdu: silent since" in said


def test_the_evaluation_opened_last_opens_at_the_next_start(qapp, qtbot, qsettings) -> None:  # type: ignore[no-untyped-def]
    from desktop.app.main import build_window
    from desktop.usecases.evaluation import new_evaluation

    db = Path(str(qsettings.value("data/dir"))) / "linkvet.sqlite3"
    new_evaluation(db, "alpha", EXAMPLE_NEEDS, peak_windows=[PeakWindow.parse("20:00-23:00 Asia/Shanghai")])
    new_evaluation(db, "beta", EXAMPLE_NEEDS, peak_windows=[PeakWindow.parse("19:00-22:00 Asia/Shanghai")])
    first = build_window(qapp, qsettings, warm=False, welcome=False)
    qtbot.addWidget(first)
    first.show()
    home = _home(first)
    qtbot.waitUntil(lambda: home.evaluation is not None, timeout=30_000)
    assert [home.chooser.itemText(i) for i in range(home.chooser.count())] == ["alpha", "beta"]
    # One after another: the chooser opens beta, and its peak windows become the window's.
    home.chooser.setCurrentIndex(1)
    home.chooser.activated.emit(1)
    qtbot.waitUntil(lambda: home.evaluation is not None and home.evaluation.name == "beta", timeout=30_000)
    assert [str(w) for w in first.context.settings.peak_windows] == ["19:00-22:00 Asia/Shanghai"]
    first.close()
    first.context.workers.wait(30_000)
    second = build_window(qapp, qsettings, warm=False, welcome=False)
    qtbot.addWidget(second)
    second.show()
    home = _home(second)
    qtbot.waitUntil(lambda: home.evaluation is not None, timeout=30_000)
    assert home.evaluation.name == "beta" and home.chooser.currentText() == "beta"
    second.close()
    second.context.workers.wait(30_000)
