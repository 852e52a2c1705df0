"""The background agent as the user's own service, so that it measures after a reboot too: a systemd user
unit (Linux), a launchd agent (macOS), a Task Scheduler task at logon (Windows), each running the very command
`desktop.usecases.agent_process` starts (`agent_arguments`). Installed for this user only, with no privilege
(the system-wide services for an always-on office machine are packaging/systemd, packaging/macos and
packaging/windows). No Qt.

    service = user_service(db, "q1-gpu", "shanghai")      # where it goes, its text, how it is switched on
    install_service(service)                              # written, then switched on (systemctl --user …)
    remove_service(service)
"""

from __future__ import annotations

import os
import plistlib
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from desktop.i18n import _
from desktop.usecases.agent_process import agent_arguments, agent_environment, program, records_folder
from desktop.usecases.errors import InputError
from desktop.usecases.files import write_text
from probes.store_location import StoreLocation, location_or_default

Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


@dataclass(frozen=True, slots=True)
class UserService:
    """One agent as a service of this user: its name, its file and text, the commands that switch it on and
    off (run in order), and what the user may still need to do (e.g. let it run while logged out)."""

    name: str
    path: Path
    text: str
    enable: tuple[tuple[str, ...], ...]
    disable: tuple[tuple[str, ...], ...]
    note: str = ""


def service_name(evaluation: str, vantage: str | None) -> str:
    return f"linkvet-agent-{evaluation}" + (f"-{vantage}" if vantage else "")


def _command(db: StoreLocation, evaluation: str, vantage: str | None) -> list[str]:
    name = service_name(evaluation, vantage)
    return [*program(), *agent_arguments(evaluation, vantage, db, records_folder() / f"{name}.log")]


def user_service(
    db: StoreLocation | None, evaluation: str, vantage: str | None, *, platform: str | None = None
) -> UserService:
    """The service for this platform (`sys.platform` unless given)."""
    location = location_or_default(db)
    command = _command(location, evaluation, vantage)
    name = service_name(evaluation, vantage)
    path_variable = agent_environment()["PYTHONPATH"]
    where = platform or sys.platform
    if where == "darwin":
        return _launchd(name, command, path_variable)
    if where == "win32":
        return _task(name, command, path_variable)
    return _systemd(name, command, path_variable, evaluation, vantage)


def _config_home() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def _systemd_word(word: str) -> str:
    """One argument of ExecStart, quoted as systemd reads it (`%` and `$` would be expanded)."""
    word = word.replace("%", "%%").replace("$", "$$")
    if re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _systemd(
    name: str, command: list[str], path_variable: str, evaluation: str, vantage: str | None
) -> UserService:
    unit = f"{name}.service"
    office = f" from {vantage}" if vantage else ""
    text = "\n".join(
        [
            f"# linkvet's agent for the evaluation {evaluation}{office}, installed by the window for this user.",
            "# Stop it: systemctl --user disable --now " + unit,
            "[Unit]",
            f"Description=linkvet: measure the evaluation {evaluation}{office}",
            "After=network-online.target",
            "",
            "[Service]",
            "Type=simple",
            "ExecStart=" + " ".join(_systemd_word(w) for w in command),
            "Environment=" + _systemd_word(f"PYTHONPATH={path_variable}"),
            "KillSignal=SIGTERM",
            "TimeoutStopSec=30",
            "Restart=on-failure",
            "RestartSec=10",
            "",
            "[Install]",
            "WantedBy=default.target",
            "",
        ]
    )
    systemctl = ("systemctl", "--user")
    return UserService(
        name,
        _config_home() / "systemd" / "user" / unit,
        text,
        ((*systemctl, "daemon-reload"), (*systemctl, "enable", "--now", unit)),
        ((*systemctl, "disable", "--now", unit),),
        _(
            "It runs while you are logged in; to keep it measuring while you are logged out too: "
            "loginctl enable-linger"
        ),
    )


def _launchd(name: str, command: list[str], path_variable: str) -> UserService:
    label = f"local.{name}"
    log = str(records_folder() / f"{name}.out")
    text = plistlib.dumps(
        {
            "Label": label,
            "ProgramArguments": command,
            "EnvironmentVariables": {"PYTHONPATH": path_variable},
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False},
            "ThrottleInterval": 10,
            "ExitTimeOut": 30,
            "ProcessType": "Standard",
            "StandardOutPath": log,
            "StandardErrorPath": log,
        }
    ).decode()
    path = Path.home() / "Library" / "LaunchAgents" / f"{label}.plist"
    domain = f"gui/{os.getuid()}" if hasattr(os, "getuid") else "gui/0"
    return UserService(
        name,
        path,
        text,
        (("launchctl", "bootstrap", domain, str(path)),),
        (("launchctl", "bootout", f"{domain}/{label}"),),
    )


def _task(name: str, command: list[str], path_variable: str) -> UserService:
    arguments = subprocess.list2cmdline(command[1:])
    text = f"""<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo><Description>linkvet: {escape(name)}</Description></RegistrationInfo>
  <Triggers><LogonTrigger><Enabled>true</Enabled></LogonTrigger></Triggers>
  <Principals><Principal id="Author"><LogonType>InteractiveToken</LogonType>
    <RunLevel>LeastPrivilege</RunLevel></Principal></Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure><Interval>PT1M</Interval><Count>10</Count></RestartOnFailure>
  </Settings>
  <Actions Context="Author"><Exec>
    <Command>{escape(command[0])}</Command>
    <Arguments>{escape(arguments)}</Arguments>
    <WorkingDirectory>{escape(path_variable.split(os.pathsep)[0])}</WorkingDirectory>
  </Exec></Actions>
</Task>
"""
    path = records_folder() / f"{name}.xml"
    return UserService(
        name,
        path,
        text,
        (("schtasks", "/Create", "/F", "/TN", name, "/XML", str(path)), ("schtasks", "/Run", "/TN", name)),
        (("schtasks", "/End", "/TN", name), ("schtasks", "/Delete", "/F", "/TN", name)),
    )


def _run(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=60, check=False)


def install_service(service: UserService, runner: Runner = _run) -> Path:
    """Write the service's file and switch it on; `InputError` with the command's own words when one of
    the commands refuses (say, no systemd user session)."""
    encoding = "utf-16" if service.path.suffix == ".xml" else "utf-8"
    service.path.parent.mkdir(parents=True, exist_ok=True)
    if encoding == "utf-8":
        write_text(service.path, service.text)
    else:
        service.path.write_text(service.text, encoding=encoding)
    _run_all(service.enable, runner)
    return service.path


def remove_service(service: UserService, runner: Runner = _run) -> None:
    """Switch the service off and delete its file."""
    if service.path.exists():
        _run_all(service.disable, runner)
        service.path.unlink()


def _run_all(commands: Sequence[Sequence[str]], runner: Runner) -> None:
    for command in commands:
        try:
            done = runner(command)
        except (OSError, subprocess.SubprocessError) as exc:
            raise InputError(_("{command}: {reason}").format(command=" ".join(command), reason=exc)) from exc
        if done.returncode != 0:
            said = (done.stderr or done.stdout or "").strip().splitlines()
            raise InputError(
                _("{command} failed (exit {code}): {reason}").format(
                    command=" ".join(command), code=done.returncode, reason=said[-1] if said else "-"
                )
            )
