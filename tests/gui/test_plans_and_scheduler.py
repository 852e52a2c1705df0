"""Plan files in and out of the probe list, and the scheduler started and stopped from the app."""

from __future__ import annotations

import os
import socket
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from desktop.usecases.probe_list import TargetEntry, entries_from_plan
from probes.errors import PlanError
from probes.peak import DEFAULT_PEAK_WINDOWS
from probes.schedule.plan import EXAMPLE_PLAN, load_plan
from probes.schedule.plan_writer import plan_text, write_plan
from probes.store import Store
from probes.target import Method, Target, parse_target


def test_a_probe_list_written_as_a_plan_reads_back_the_same(tmp_path: Path) -> None:
    entries = [
        TargetEntry(
            parse_target("198.18.100.1", provider="raksmart", region="los-angeles", line_type="cn2-gia")
        ),
        TargetEntry(
            parse_target("198.18.100.1:22", provider="raksmart", region="los-angeles", line_type="cn2-gia")
        ),
        TargetEntry(Target(Method.DOWNLOAD, url="https://example.com/100mb.bin", name='quote " and 中文')),
        TargetEntry(Target(Method.IPERF3, host="198.18.100.2", port=5202)),
    ]
    text = plan_text(
        [e.target for e in entries],
        name="office",
        every_s=300,
        peak_every_s=60,
        peak_windows=DEFAULT_PEAK_WINDOWS,
        count=20,
        interval_s=0.5,
        timeout_s=1.5,
    )
    plan = write_plan(tmp_path / "office.toml", text)
    assert load_plan(tmp_path / "office.toml") == plan
    assert [p.target for p in plan.targets] == [e.target for e in entries]
    assert plan.every_s == 300 and plan.peak_every_s == 60 and plan.peak_windows == DEFAULT_PEAK_WINDOWS
    assert plan.options[Method.ICMP].count == 20 and plan.options[Method.TCP].timeout_s == 1.5


def test_importing_the_example_plan_labels_entries_with_the_plan() -> None:
    plan, entries = entries_from_plan(EXAMPLE_PLAN)
    assert entries and all(e.origin == f"plan:{plan.name}" for e in entries)
    assert {e.target.key for e in entries} == {p.target.key for p in plan.targets}


def test_a_broken_plan_is_reported_with_file_and_line(window, qtbot, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('version = 1\n[[targets]]\nhost = "198.18.100.1"\nmethods = ["smoke-signals"]\n')
    targets = window.go_to("targets")
    before = window.context.targets.rowCount()
    assert targets.import_plan(bad) == 0
    assert window.context.targets.rowCount() == before
    assert window.last_error is not None and f"{bad}:4" in window.last_error.text()
    with pytest.raises(PlanError):
        entries_from_plan(bad)


def test_import_then_save_the_probe_list_as_a_plan(window, qtbot, tmp_path: Path) -> None:
    targets = window.go_to("targets")
    window.context.targets.set_entries([])
    assert targets.import_plan(EXAMPLE_PLAN) == 3
    saved = tmp_path / "mine.toml"
    targets.save_plan(saved)
    assert [p.target.key for p in load_plan(saved).targets] == [
        e.target.key for e in window.context.targets.entries()
    ]
    assert "linkvet schedule --plan" in window.statusBar().currentMessage()


def test_the_scheduler_runs_rounds_of_the_probe_list_until_stopped(window, qtbot, listener) -> None:
    window.context.targets.set_entries(
        [TargetEntry(Target(Method.TCP, host="127.0.0.1", port=listener, name="lo"))]
    )
    probe = window.go_to("probe")
    panel = probe.scheduler
    with qtbot.waitSignal(panel.round_done, timeout=30_000) as round_signal:
        panel.start_button.click()
        assert panel.running
    report = round_signal.args[0]
    assert report.round_id is not None and report.results[0].loss == 0.0
    # The round shows in the live table and the status line says when the next one is.
    assert probe.model.row(0).result is not None
    assert "1 round(s) stored; next round at" in panel.status.text()
    with qtbot.waitSignal(panel.task.signals.stopped, timeout=30_000):
        panel.stop_button.click()
    assert not panel.running and panel.start_button.isEnabled()
    plan_file = window.context.settings.data_dir / "gui-plan.toml"
    assert load_plan(plan_file).targets[0].target.port == listener
    with Store(window.context.settings.db_path, readonly=True) as store:
        rounds = store.rounds()
    assert len(rounds) == 1 and rounds[0].plan == "gui-plan" and rounds[0].source == "schedule"


def test_the_scheduler_will_not_start_without_targets(window, qtbot) -> None:
    window.context.targets.set_entries([])
    panel = window.go_to("probe").scheduler
    panel.start()
    assert not panel.running
    assert window.last_error is not None and "no targets switched on" in window.last_error.text()


def test_with_its_shared_store_unreachable_the_scheduler_measures_into_the_spool(
    window, qtbot, listener, tmp_path: Path
) -> None:
    """As `linkvet schedule` does: a PostgreSQL server that cannot be reached at start does not stop the
    scheduler; it says so, measures, and keeps each round in the spool until the server is back."""
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: the connection is refused
    window.context.settings.store_url = f"postgresql://linkvet@127.0.0.1:{port}/linkvet"
    window.context.targets.set_entries(
        [TargetEntry(Target(Method.TCP, host="127.0.0.1", port=listener, name="lo"))]
    )
    panel = window.go_to("probe").scheduler
    notes: list[str] = []
    window.context.reporter.note.connect(notes.append)
    with qtbot.waitSignal(panel.round_done, timeout=60_000) as round_signal:
        panel.start_button.click()
        assert panel.running
    report = round_signal.args[0]
    assert report.round_id is None and report.outcome == "spooled" and report.results[0].loss == 0.0
    status = panel.status.text()
    assert "0 round(s) stored" in status and "kept in the spool" in status, status
    assert any("cannot be reached" in note and "measuring into the spool" in note for note in notes), notes
    with qtbot.waitSignal(panel.task.signals.stopped, timeout=60_000):
        panel.stop_button.click()
    spool = Path(os.environ["XDG_DATA_HOME"]) / "linkvet" / "linkvet-spool.sqlite3"
    with closing(sqlite3.connect(spool)) as db:
        assert db.execute("SELECT count(*) FROM spooled").fetchone()[0] >= 1


def test_the_windows_scheduler_alerts_as_linkvet_schedule_does(
    window, qtbot, silent_port, receiver, tmp_path: Path, monkeypatch
) -> None:
    """The window's scheduler is the agent `linkvet schedule` runs (`desktop.usecases.agent`): a plan with an
    alert rule fires it to the plan's webhook (a loopback receiver), the secret resolved from the
    environment, as tests/alerts/test_schedule_alerts.py shows for the command."""
    monkeypatch.setenv("T_WECOM_URL", f"{receiver.base}/cgi-bin/webhook/send?key=window-key")
    plan = tmp_path / "office.toml"
    plan.write_text(
        f"""\
version = 1
vantage = "shanghai"
[schedule]
every = "1m"
peak_windows = []
[defaults]
count = 3
interval = 0.01
timeout = 0.3
[[targets]]
name = "line"
host = "127.0.0.1"
port = {silent_port}
methods = ["tcp"]
[[alerts]]
name = "line-loss"
when = "loss"
above = 50
rounds = 1
notify = ["ops"]
[notifiers.ops]
type = "wecom"
url_env = "T_WECOM_URL"
"""
    )
    panel = window.go_to("probe").scheduler
    panel.add_plan_file(plan)
    with qtbot.waitSignal(panel.round_done, timeout=60_000) as round_signal:
        panel.start_button.click()
        assert panel.running
    assert round_signal.args[0].results[0].loss == 1.0
    (message,) = receiver.wait_for(1, timeout=30)
    content = message.json["markdown"]["content"]
    assert "FIRING line-loss from shanghai" in content and "loss 100.0%" in content
    assert message.query["key"] == ["window-key"]
    with qtbot.waitSignal(panel.task.signals.stopped, timeout=60_000):
        panel.stop_button.click()
