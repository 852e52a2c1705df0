"""Measuring that outlives the window: the scheduling agent run as a process of its own, started detached
(its own session, no terminal, no pipe to the window), found again from a record beside the spool or from the
plan's lock in the store, and stopped. The window starts, shows and stops it; closing the window leaves it
measuring. No Qt, and never the CLI's modules: the agent is the `linkvet` program itself, run as
`python -m desktop.cli` (a frozen build answers that command line too: packaging/pyinstaller/frozen_child.py).

    agent = start_agent(db, "q1-gpu", "shanghai", catalogs)   # started, and seen holding its plan's lock
    measure_once(db, "q1-gpu", "shanghai")                    # one round now, by the same command (--once)
    status = measuring_status(db, evaluation, catalogs, "shanghai")   # the agent, its last round, backlog, next
    stop_agent(status.agent or status.holder)                  # SIGTERM: the round in flight gets its grace

Which command the agent is: `agent_arguments` (one line to change when `linkvet agent` measures every
evaluation of a store). Records live in `probes.paths.data_dir() / "agents"`, one JSON file per store,
evaluation and office: {pid, command, evaluation, vantage, store, log, started_us}.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.i18n import _
from desktop.usecases.errors import InputError
from probes.store_location import StoreLocation, identity, location_or_default, location_text
from probes.timestamps import now_us

if TYPE_CHECKING:
    from catalogs.evaluation.model import Evaluation
    from catalogs.loader import CatalogSet
    from probes.schedule.plan import Plan
    from probes.store.documents import AgentHealth

RECORD_FORMAT = 1
STARTED_WAIT_S = 20.0  # how long `start_agent` waits to see the agent hold its plan's lock
STOP_WAIT_S = 30.0  # the round in flight gets 10 s (--grace), the writer a little more
_children: dict[int, subprocess.Popen[bytes]] = {}  # agents this process started: polled, so none is a zombie


def agent_arguments(evaluation: str, vantage: str | None, db: StoreLocation, log: Path) -> list[str]:
    """The agent's command line after the program (`linkvet` / `python -m desktop.cli`): the one place that
    says which command measures an evaluation in the background."""
    office = ["--vantage", vantage] if vantage else []
    return ["schedule", "--eval", evaluation, *office, "--db", location_text(db), "--log-file", str(log)]


def once_arguments(evaluation: str, vantage: str | None, db: StoreLocation, log: Path) -> list[str]:
    """The agent's command line for one round now."""
    return [*agent_arguments(evaluation, vantage, db, log), "--once", "--quiet"]


def program() -> list[str]:
    """How to run `linkvet` from this process: this interpreter with `-m desktop.cli`."""
    return [sys.executable, "-m", "desktop.cli"]


class AgentFailed(InputError):
    """The agent ended as soon as it started (its log's last lines say why)."""


@dataclass(frozen=True, slots=True)
class BackgroundAgent:
    """An agent this user started (from the window): which evaluation and office it measures, into which
    store, its process, its log, since when; `alive` whether that process still runs."""

    evaluation: str
    vantage: str | None
    store: str  # as people read it (a URL without its password)
    pid: int
    command: list[str]
    log: str
    started_us: int
    record: str = field(default="", compare=False)
    alive: bool = True


@dataclass(frozen=True, slots=True)
class LockHolder:
    """Who holds the plan's lock in the store (an agent this window did not start: `linkvet schedule` in a
    terminal, a service), and whether it looks alive (its heartbeat is recent)."""

    pid: int | None
    host: str | None
    since_us: int
    heartbeat_us: int
    alive: bool
    here: bool  # it runs on this machine (so it can be stopped from here)


@dataclass(frozen=True, slots=True)
class MeasuringStatus:
    """An evaluation's measuring from one office, as the window shows it."""

    evaluation: str
    vantage: str | None
    agent: BackgroundAgent | None  # the one this user started (alive or ended)
    holder: LockHolder | None  # who holds the plan's lock in the store, if anyone
    last_round_us: int | None
    spooled_rounds: int
    next_round_s: float | None  # when the next round is due (UTC seconds), while an agent measures
    targets: int
    health: tuple[AgentHealth, ...] = ()  # what agents reported about themselves in the store
    unreachable: str | None = None  # why the store could not be read

    @property
    def measuring(self) -> bool:
        return (self.agent is not None and self.agent.alive) or (
            self.holder is not None and self.holder.alive
        )


# -- the records -------------------------------------------------------------------------------------------


def records_folder() -> Path:
    from probes.paths import data_dir

    return data_dir() / "agents"


def _record_path(db: StoreLocation, evaluation: str, vantage: str | None) -> Path:
    store = hashlib.sha256(identity(db).encode()).hexdigest()[:12]
    return records_folder() / f"{evaluation}@{vantage or '-'}@{store}.json"


def _read_record(path: Path) -> BackgroundAgent | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        agent = BackgroundAgent(
            evaluation=str(data["evaluation"]),
            vantage=data["vantage"] if isinstance(data["vantage"], str) else None,
            store=str(data["store"]),
            pid=int(data["pid"]),
            command=[str(a) for a in data["command"]],
            log=str(data["log"]),
            started_us=int(data["started_us"]),
            record=str(path),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no record, or not one of ours: nothing known about an agent
    return agent if process_alive(agent.pid, agent.command) else replace(agent, alive=False)


def find_agent(db: StoreLocation | None, evaluation: str, vantage: str | None) -> BackgroundAgent | None:
    """The agent started for this store, evaluation and office (alive or ended), or None."""
    return _read_record(_record_path(location_or_default(db), evaluation, vantage))


def running_agents(db: StoreLocation | None = None) -> list[BackgroundAgent]:
    """The agents started from here that still run (for one store, or every store)."""
    folder = records_folder()
    store = None if db is None else str(location_or_default(db))
    found = [_read_record(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    return [a for a in found if a is not None and a.alive and (store is None or a.store == store)]


# -- processes ---------------------------------------------------------------------------------------------


def process_alive(pid: int, command: list[str] | None = None) -> bool:
    """Whether the process runs (not a zombie) and, where this system says, runs `command`."""
    child = _children.get(pid)
    if child is not None:
        if child.poll() is not None:
            _children.pop(pid, None)
            return False
        return True
    if sys.platform == "win32":
        return _alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    proc = Path(f"/proc/{pid}")
    if proc.is_dir():  # Linux: a zombie has ended; another program under a reused pid is not ours
        try:
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
            if state in ("Z", "X"):
                return False
            if command is not None:
                running = (proc / "cmdline").read_bytes().split(b"\0")
                return all(part.encode() in running for part in command[-4:])
        except OSError:
            return False
    return True


def _alive_windows(pid: int) -> bool:  # pragma: no cover - Windows only
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    try:
        code = ctypes.c_ulong()
        kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def agent_environment() -> dict[str, str]:
    """The agent runs this program's own code (the folder `desktop` is in comes first on its path)."""
    import desktop

    root = str(Path(desktop.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    from desktop.i18n import chosen

    if (language := chosen()) is not None:  # the agent's log in the window's language
        env["LANGUAGE"] = language
    return env


def start_agent(
    db: StoreLocation | None,
    evaluation: str,
    vantage: str | None,
    catalogs: CatalogSet,
    *,
    wait_s: float = STARTED_WAIT_S,
) -> BackgroundAgent:
    """Start the agent for an evaluation and office, detached from this process, and wait (up to `wait_s`)
    until it holds its plan's lock. Refused when one already measures it (from here or elsewhere);
    `AgentFailed` with its log's last lines when it ends at once (say, a store it cannot open)."""
    from desktop.usecases.evaluation import load_evaluation

    location = location_or_default(db)
    plan = _plan(load_evaluation(location, evaluation), catalogs, vantage)
    running = find_agent(location, evaluation, vantage)
    if running is not None and running.alive:
        raise InputError(
            _("{evaluation} is being measured already (process {pid}, since {since})").format(
                evaluation=evaluation, pid=running.pid, since=_when(running.started_us)
            )
        )
    holder = _holder(location, plan)
    if holder is not None and holder.alive:
        raise InputError(
            _("{evaluation} is being measured already, by process {pid} on {host}").format(
                evaluation=evaluation, pid=holder.pid or "?", host=holder.host or "?"
            )
        )
    record = _record_path(location, evaluation, vantage)
    record.parent.mkdir(parents=True, exist_ok=True)
    log = record.with_suffix(".log")
    command = [*program(), *agent_arguments(evaluation, vantage, location, log)]
    output = record.with_suffix(".out")
    process = _detached(command, output, record.parent)
    agent = BackgroundAgent(
        evaluation, vantage, str(location), process.pid, command, str(log), now_us(), str(record)
    )
    body = {"format_version": RECORD_FORMAT, **asdict(agent)}
    del body["record"], body["alive"]
    record.write_text(json.dumps(body, indent=1), encoding="utf-8")
    _wait_started(process, location, plan, output, wait_s)
    return agent


def _detached(command: list[str], output: Path, folder: Path) -> subprocess.Popen[bytes]:
    """Start `command` so that it outlives this process: its own session (no terminal's hang-up, no Ctrl+C
    of ours; on Windows its own process group without a console), its output into `output`."""
    with output.open("wb") as out:
        if sys.platform == "win32":  # pragma: no cover - Windows only
            flags = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS  # type: ignore[attr-defined]
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=agent_environment(),
                cwd=str(folder),
                creationflags=flags,
            )
        else:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=agent_environment(),
                cwd=str(folder),
                start_new_session=True,
            )
    _children[process.pid] = process
    return process


def _wait_started(
    process: subprocess.Popen[bytes], location: StoreLocation, plan: Plan, output: Path, wait_s: float
) -> None:
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        code = process.poll()
        if code is not None:
            _children.pop(process.pid, None)
            raise AgentFailed(
                _("the agent ended at once (exit {code}): {reason}").format(
                    code=code, reason=_tail(output) or "-"
                )
            )
        holder = _holder(location, plan)
        if holder is not None and holder.pid == process.pid:
            return
        time.sleep(0.2)


def _tail(path: Path, lines: int = 4) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return " ".join(line.strip() for line in text.strip().splitlines()[-lines:])


@dataclass(frozen=True, slots=True)
class MeasuredOnce:
    """One round measured now: the command's exit code (0 all measured, 1 some target failed) and what it
    printed (the round's table, or why nothing was stored)."""

    code: int
    output: str


def measure_once(
    db: StoreLocation | None,
    evaluation: str,
    vantage: str | None,
    *,
    cancelled: threading.Event | None = None,
) -> MeasuredOnce:
    """One round of the evaluation's plan now, by the agent's own command with `--once` (refused by the
    plan's lock while an agent measures it). The round goes on if `cancelled` is set (the window closes): it
    is stored all the same; this returns at once then."""
    location = location_or_default(db)
    record = _record_path(location, evaluation, vantage)
    record.parent.mkdir(parents=True, exist_ok=True)
    command = [*program(), *once_arguments(evaluation, vantage, location, record.with_suffix(".log"))]
    output = record.with_suffix(".once")
    process = _detached(command, output, record.parent)
    while True:
        try:
            process.wait(timeout=0.1)
            break
        except subprocess.TimeoutExpired:
            if cancelled is not None and cancelled.is_set():
                return MeasuredOnce(-1, "")  # it measures on and stores its round
    _children.pop(process.pid, None)
    text = output.read_text(encoding="utf-8", errors="replace")
    if process.returncode not in (0, 1):
        raise AgentFailed(
            _("the round was not measured (exit {code}): {reason}").format(
                code=process.returncode, reason=_tail(output) or "-"
            )
        )
    return MeasuredOnce(process.returncode, text)


def stop_agent(agent: BackgroundAgent | LockHolder, *, wait_s: float = STOP_WAIT_S) -> bool:
    """Ask the agent to stop (SIGTERM: the round in flight may finish, what is measured is stored) and wait
    up to `wait_s` for it (0: do not wait, it ends by itself); whether it has ended. Refused for an agent on
    another machine."""
    if isinstance(agent, LockHolder):
        if not agent.here or agent.pid is None:
            raise InputError(
                _("process {pid} runs on {host}: stop it there").format(
                    pid=agent.pid or "?", host=agent.host or "?"
                )
            )
        pid, command = agent.pid, None
    else:
        pid, command = agent.pid, agent.command
    if process_alive(pid, command):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    if isinstance(agent, BackgroundAgent) and agent.record:
        with contextlib.suppress(OSError):  # asked to stop: no longer one to show as ended
            Path(agent.record).unlink()
    deadline = time.monotonic() + wait_s
    while process_alive(pid, command):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


# -- what the window shows ---------------------------------------------------------------------------------


def _plan(evaluation: Evaluation, catalogs: CatalogSet, vantage: str | None) -> Plan:
    from desktop.usecases.evaluation_plan import evaluation_plan

    if vantage is not None and evaluation.office(vantage) is None:
        raise InputError(
            _("{name} has no office {office!r} (it has: {known})").format(
                name=evaluation.name,
                office=vantage,
                known=", ".join(o.name for o in evaluation.offices) or "-",
            )
        )
    return evaluation_plan(evaluation, catalogs, vantage)


def _holder(location: StoreLocation, plan: Plan) -> LockHolder | None:
    """Who holds the plan's lock in the store (None: nobody, or no store yet, or it cannot be read)."""
    import socket

    from probes.errors import StoreError
    from probes.schedule.timetable import lock_name
    from probes.store import Store
    from probes.store.locks import STALE_AFTER_S
    from probes.store_location import exists

    if not exists(location):
        return None
    try:
        with Store(location, readonly=True) as store:
            row = store.backend.lock_row(lock_name(plan))
    except StoreError:
        return None
    if row is None:
        return None
    _name, _token, pid, host, _what, since_us, heartbeat_us = row
    here = host == socket.gethostname()
    fresh = now_us() - int(heartbeat_us) < STALE_AFTER_S * 1e6
    alive = fresh and (not here or pid is None or process_alive(int(pid)))
    return LockHolder(None if pid is None else int(pid), host, int(since_us), int(heartbeat_us), alive, here)


def measuring_status(
    db: StoreLocation | None, evaluation: Evaluation, catalogs: CatalogSet, vantage: str | None
) -> MeasuringStatus:
    """How an evaluation is measured from an office: the agent started from here (alive or ended), who holds
    the plan's lock in the store, its last stored round, the rounds waiting in the spool, the next round."""
    from desktop.usecases.agent import agent_status, next_rounds
    from probes.errors import StoreError
    from probes.store import Store
    from probes.store_location import exists

    location = location_or_default(db)
    # An evaluation without candidates yet has nothing to measure: no plan, no lock, no rounds.
    plan = _plan(evaluation, catalogs, vantage) if evaluation.candidates else None
    status = agent_status(plan, location) if plan is not None else None
    agent = find_agent(location, evaluation.name, vantage)
    holder = _holder(location, plan) if plan is not None else None
    unreachable = None if status is None or status.unreachable is None else str(status.unreachable)
    health: tuple[AgentHealth, ...] = ()
    if exists(location) and unreachable is None:
        with contextlib.suppress(StoreError), Store(location, readonly=True) as store:
            health = tuple(store.agents(evaluation_or_plan=evaluation.name))
    measuring = (agent is not None and agent.alive) or (holder is not None and holder.alive)
    upcoming = next_rounds(plan, 1)[0][0] if plan is not None and measuring and plan.targets else None
    return MeasuringStatus(
        evaluation.name,
        vantage,
        agent,
        holder,
        status.last_round[1] if status is not None and status.last_round else None,
        status.spooled_rounds if status is not None else 0,
        upcoming,
        len(plan.targets) if plan is not None else 0,
        health,
        unreachable,
    )


def _when(moment_us: int) -> str:
    from probes.timestamps import iso_utc

    return iso_utc(moment_us)
