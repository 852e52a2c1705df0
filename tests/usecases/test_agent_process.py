"""The background agent as a process of its own (`desktop.usecases.agent_process`) and as the user's service
(`desktop.usecases.agent_service`): started detached, found by its record and by the store's lock, refused
twice, stopped with SIGTERM; one that cannot start says why; the service files as each system reads them."""

from __future__ import annotations

import plistlib
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from catalogs.needs import EXAMPLE_NEEDS
from desktop.usecases.agent_process import (
    AgentFailed,
    find_agent,
    measuring_status,
    process_alive,
    running_agents,
    start_agent,
    stop_agent,
)
from desktop.usecases.agent_service import install_service, remove_service, user_service
from desktop.usecases.errors import InputError
from desktop.usecases.evaluation import add_candidate, load_evaluation, new_evaluation
from desktop.usecases.offerings import load_catalog_set
from probes.peak import PeakWindow


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Path]:
    """A store with the evaluation `lab`: one candidate at a loopback address (a vendor created in place, so
    no catalog endpoint is measured), peak all day."""
    db = tmp_path / "lab.sqlite3"
    new_evaluation(db, "lab", EXAMPLE_NEEDS, peak_windows=[PeakWindow.parse("00:00-23:59 UTC")])
    add_candidate(
        db, "lab", load_catalog_set(), provider="labvendor", region="lab-1", endpoints=["127.0.0.51"]
    )
    yield db
    for agent in running_agents():
        stop_agent(agent)


def test_an_agent_started_is_found_refused_twice_and_stopped(lab: Path) -> None:
    catalogs = load_catalog_set()
    agent = start_agent(lab, "lab", None, catalogs)
    assert process_alive(agent.pid) and agent.command[-4:] == ["--db", str(lab), "--log-file", agent.log]
    assert find_agent(lab, "lab", None) == agent and running_agents(lab) == [agent]
    status = measuring_status(lab, load_evaluation(lab, "lab"), catalogs, None)
    assert status.measuring and status.holder is not None and status.holder.pid == agent.pid
    assert status.next_round_s is not None and status.targets == 2  # ICMP and the trace of 127.0.0.51
    with pytest.raises(InputError, match="being measured already"):
        start_agent(lab, "lab", None, catalogs)
    assert stop_agent(agent)
    assert not process_alive(agent.pid) and running_agents(lab) == [] and find_agent(lab, "lab", None) is None
    assert "received SIGTERM, stopping" in Path(agent.log).read_text(encoding="utf-8")
    after = measuring_status(lab, load_evaluation(lab, "lab"), catalogs, None)
    assert not after.measuring and after.next_round_s is None


def test_an_agent_that_cannot_start_says_why(lab: Path) -> None:
    with pytest.raises(InputError, match="no office 'beijing'"):
        start_agent(lab, "lab", "beijing", load_catalog_set())
    # A log the agent cannot write (a folder where its file goes): it ends at once, its words the error.
    from desktop.usecases.agent_process import _record_path

    _record_path(lab, "lab", None).with_suffix(".log").mkdir(parents=True)
    with pytest.raises(AgentFailed, match="ended at once") as failed:
        start_agent(lab, "lab", None, load_catalog_set(), wait_s=60)
    assert "exit 3" in str(failed.value) and "it is a folder" in str(failed.value)
    assert running_agents() == []


class Recorder:
    """Stands in for systemctl/launchctl/schtasks: records the commands the install runs, answers as told."""

    def __init__(self, code: int = 0, said: str = "") -> None:
        self.commands: list[list[str]] = []
        self.code, self.said = code, said

    def __call__(self, command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        self.commands.append(list(command))
        return subprocess.CompletedProcess(list(command), self.code, "", self.said)


def test_the_user_service_runs_the_agents_command_and_systemd_reads_it(
    lab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    service = user_service(lab, "lab", None, platform="linux")
    assert service.path == tmp_path / "config" / "systemd" / "user" / "linkvet-agent-lab.service"
    assert "ExecStart=" in service.text and f"--eval lab --db {lab}" in service.text
    runner = Recorder()
    install_service(service, runner)
    assert service.path.read_text(encoding="utf-8") == service.text
    assert runner.commands == [
        ["systemctl", "--user", "daemon-reload"],
        ["systemctl", "--user", "enable", "--now", "linkvet-agent-lab.service"],
    ]
    if shutil.which("systemd-analyze"):
        done = subprocess.run(
            ["systemd-analyze", "verify", str(service.path)], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
    remove_service(service, runner)
    assert not service.path.exists() and runner.commands[-1][-2:] == ["--now", "linkvet-agent-lab.service"]
    refused = Recorder(1, "Failed to connect to bus: No medium found")
    with pytest.raises(InputError, match="No medium found"):
        install_service(service, refused)


def test_a_path_with_spaces_and_percent_survives_systemds_quoting(tmp_path: Path) -> None:
    odd = tmp_path / "a b" / "100%" / "s.sqlite3"
    service = user_service(odd, "lab", "shanghai", platform="linux")
    line = next(line for line in service.text.splitlines() if line.startswith("ExecStart="))
    assert f'"{tmp_path}/a b/100%%/s.sqlite3"' in line and "--vantage shanghai" in line


def test_launchd_and_task_scheduler_files_parse(lab: Path) -> None:
    mac = user_service(lab, "lab", None, platform="darwin")
    plist = plistlib.loads(mac.text.encode())
    assert plist["ProgramArguments"][-6:-4] == ["--eval", "lab"] and plist["RunAtLoad"] is True
    assert mac.enable[0][:2] == ("launchctl", "bootstrap")
    windows = user_service(lab, "lab", None, platform="win32")
    task = ET.fromstring(windows.text.split("\n", 1)[1])
    namespace = "{http://schemas.microsoft.com/windows/2004/02/mit/task}"
    arguments = task.find(f"{namespace}Actions/{namespace}Exec/{namespace}Arguments")
    assert arguments is not None and "--eval lab" in str(arguments.text)
    assert windows.enable[0][:2] == ("schtasks", "/Create")
