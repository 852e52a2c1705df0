"""Benchmark: offices that follow the evaluation, at a team's scale, on one PostgreSQL server — `--agents` real
`linkvet agent` processes (one per office, each a home of its own), `--evaluations` evaluations naming every
office, `--candidates` candidates each (one loopback endpoint per candidate: ICMP every round, a trace every
15 minutes), at a 1-minute cadence, for `--minutes` (3 by default; `--full`: 15). Mid-run a candidate is added
to the first evaluation (`linkvet eval add`), and the benchmark watches for every office's first result of it.

    python -m tests.benchmarks.agents_team [--agents 10] [--evaluations 3] [--candidates 20] [--minutes 3]
        [--full] [--no-anchor] [--url postgresql://…]

The anchor, in the same run: the way before agents, one `linkvet schedule --plan` per office and evaluation
(the plan files `linkvet eval plan` writes), measuring the same targets against a fresh database of the same
server for the same time.

Printed for each: rounds stored per second held (and per office per minute; the cadence asks for 1), results
and samples stored per second, the rounds that should have been stored and were not, the server's CPU (every
PostgreSQL process's user + system time over the run, ÷ wall time: 1.0 = one core) and the database's size
with bytes per stored sample; for the agents, the time from `eval add` to each office's first result of the
added candidate and in which of that office's rounds it came (goal: the first round that starts after the
change). Then the anchor ÷ agents ratios, and what the figures make a day and a month (rows and bytes) for
the manual's team-mode page. Without `--url` a throwaway cluster is started (tests/postgres_server.py, fsync
on). No timed asserts.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

REPO_ROOT = Path(__file__).resolve().parents[2]
ADDED = "127.99.0.1"  # the candidate added mid-run


def _endpoint(evaluation: int, candidate: int) -> str:
    return f"127.{10 + evaluation}.{candidate // 250}.{1 + candidate % 250}"


def _env(home: Path, url: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LINKVET_OFFICE")
    }
    env.update(
        LANG="C.UTF-8",
        PYTHONPATH=str(REPO_ROOT),
        XDG_DATA_HOME=str(home / "data"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CONFIG_HOME=str(home / "config"),
        LINKVET_CATALOG_DIR=str(home / "catalogs"),
        LINKVET_DB=url,
    )
    return env


def _linkvet(home: Path, url: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "desktop.cli", *args],
        cwd=home,
        env=_env(home, url),
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        raise SystemExit(f"linkvet {' '.join(args)}: {done.stderr}")
    return done.stdout


def _evaluations(url: str, args: argparse.Namespace) -> None:
    """The team's evaluations, written as `linkvet eval new/add` would (straight through the use-case)."""
    from dataclasses import replace

    from catalogs.evaluation.alerting import EvaluationSchedule
    from catalogs.evaluation.model import EXAMPLE_EVALUATION, Candidate, Office, read_evaluation_file
    from desktop.usecases.evaluation import save_evaluation
    from probes.store import Store

    example = read_evaluation_file(EXAMPLE_EVALUATION)
    offices = tuple(Office(f"office-{i:02d}") for i in range(args.agents))
    with Store(url) as store:
        for e in range(args.evaluations):
            candidates = tuple(
                Candidate(f"bench{e}", f"r{c:02d}", None, None, (_endpoint(e, c),), False)
                for c in range(args.candidates)
            )
            store_it = replace(
                example,
                name=f"eval-{e}",
                offices=offices,
                candidates=candidates,
                schedule=EvaluationSchedule(every_s=60.0, peak_every_s=60.0),
            )
            save_evaluation(store, store_it)


@dataclass
class ServerCpu:
    """Every PostgreSQL process's CPU time, sampled every second (backends come and go)."""

    data_dir: Path | None
    seen: dict[int, int] = field(default_factory=dict)
    first: dict[int, int] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)

    def _ticks(self) -> dict[int, int]:
        if self.data_dir is None:
            return {}
        try:
            postmaster = int((self.data_dir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return {}
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid, ppid = int(entry.name), int(fields[1])
            if pid == postmaster or ppid == postmaster:
                found[pid] = int(fields[11]) + int(fields[12])  # utime + stime, clock ticks
        return found

    def run(self) -> None:
        while not self.stop.wait(1.0):
            for pid, ticks in self._ticks().items():
                self.first.setdefault(pid, ticks)
                self.seen[pid] = ticks

    def start(self) -> None:
        self.first = dict(self._ticks())
        self.seen = dict(self.first)
        threading.Thread(target=self.run, daemon=True).start()

    def seconds(self) -> float:
        self.stop.set()
        return sum(self.seen[p] - self.first.get(p, 0) for p in self.seen) / os.sysconf("SC_CLK_TCK")


def _count(url: str, sql: str) -> int:
    with psycopg.connect(url) as db:
        row = db.execute(sql).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _stop(processes: list[subprocess.Popen[str]]) -> None:
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate(timeout=10)


@dataclass
class Phase:
    name: str
    seconds: float
    rounds: int
    expected: int
    results: int
    samples: int
    cpu_s: float
    size_bytes: int
    sample_bytes: float
    added: dict[str, tuple[float, int]] = field(default_factory=dict)  # office → (s, round of its own)


def _run(name: str, url: str, args: argparse.Namespace, root: Path, cpu: ServerCpu, *, agents: bool) -> Phase:
    homes = [root / name / f"office-{i:02d}" for i in range(args.agents)]
    processes = []
    for i, home in enumerate(homes):
        home.mkdir(parents=True)
        office = f"office-{i:02d}"
        if agents:
            commands = [["agent", "--vantage", office, "--quiet"]]
        else:
            commands = []
            for e in range(args.evaluations):
                plan = home / f"eval-{e}.toml"
                _linkvet(home, url, "eval", "plan", f"eval-{e}", "--office", office, "--out", str(plan))
                commands.append(["schedule", "--plan", str(plan), "--quiet"])
        for k, command in enumerate(commands):
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "desktop.cli", *command, "--log-file", str(home / f"log-{k}.txt")],
                    cwd=home,
                    env=_env(home, url),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
    cpu.start()
    began = time.time()
    added: dict[str, tuple[float, int]] = {}
    try:
        if agents:
            time.sleep(min(75.0, args.minutes * 30.0))  # every office has measured a round or two
            added = _add_and_watch(url, args, root)
        remaining = began + args.minutes * 60.0 - time.time()
        if remaining > 0:
            time.sleep(remaining)
    finally:
        _stop(processes)
    elapsed = time.time() - began
    cpu_s = cpu.seconds()
    rounds = _count(url, f"SELECT count(*) FROM rounds WHERE started_us >= {int(began * 1e6)}")
    per_office = args.evaluations if not agents else 1
    expected = int(args.agents * per_office * (elapsed // 60))
    results = _count(url, f"SELECT count(*) FROM results WHERE started_us >= {int(began * 1e6)}")
    samples = _count(url, "SELECT count(*) FROM samples")
    size = _count(url, "SELECT pg_database_size(current_database())")
    sample_table = _count(url, "SELECT pg_total_relation_size('samples')")
    return Phase(
        name, elapsed, rounds, expected, results, samples, cpu_s, size, sample_table / max(samples, 1), added
    )


def _add_and_watch(url: str, args: argparse.Namespace, root: Path) -> dict[str, tuple[float, int]]:
    """Add a candidate to the first evaluation; for each office, seconds until its first result of it and which
    of its rounds (1: the first that started after the change) measured it."""
    lead = root / "lead"
    lead.mkdir(exist_ok=True)
    at = time.time()
    _linkvet(
        lead, url, "eval", "add", "eval-0", "--provider", "bench0", "--region", "added", "--test-ip", ADDED
    )
    found: dict[str, tuple[float, int]] = {}
    deadline = at + 180
    while len(found) < args.agents and time.time() < deadline:
        time.sleep(1.0)
        with psycopg.connect(url) as db:
            rows = db.execute(
                "SELECT s.vantage, min(r.started_us), min(r.finished_us) FROM results r"
                " JOIN series s ON s.id = r.series_id WHERE s.host = %s AND s.method = 'icmp' GROUP BY s.vantage",
                (ADDED,),
            ).fetchall()
            for office, started_us, finished_us in rows:
                if office in found:
                    continue
                nth = db.execute(  # its rounds that started after the change, up to the one that measured it
                    "SELECT count(*) FROM rounds WHERE vantage = %s AND started_us >= %s AND started_us <= %s",
                    (office, int(at * 1e6), int(started_us)),
                ).fetchone()
                found[str(office)] = (int(finished_us) / 1e6 - at, int(nth[0]) if nth else 0)
    return found


def _database(url: str, name: str) -> str:
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    base, _sep, query = url.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


def _print(phase: Phase, args: argparse.Namespace) -> None:
    minutes = phase.seconds / 60
    print(
        f"{phase.name}: {phase.rounds} rounds in {phase.seconds:.0f} s = {phase.rounds / phase.seconds:.3f} rounds/s"
        f" ({phase.rounds / args.agents / minutes:.2f} per office per minute); {phase.results / phase.seconds:.1f}"
        f" results/s; missing {max(0, phase.expected - phase.rounds)} of {phase.expected} expected;"
        f" server CPU {phase.cpu_s:.1f} s = {phase.cpu_s / phase.seconds:.3f} cores;"
        f" database {phase.size_bytes / 1e6:.1f} MB, {phase.sample_bytes:.0f} B per stored sample"
    )
    if phase.added:
        delays = sorted(s for s, _n in phase.added.values())
        rounds = sorted(n for _s, n in phase.added.values())
        print(
            f"  candidate added: measured by {len(phase.added)} of {args.agents} offices; after"
            f" {delays[0]:.0f}-{delays[-1]:.0f} s (median {statistics.median(delays):.0f} s); in round"
            f" {rounds[0]}-{rounds[-1]} of each office after the change (1 = its next round)"
        )
    elif phase.name == "agents":
        print("  candidate added: measured by none")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--evaluations", type=int, default=3)
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--full", action="store_true", help="15 minutes each")
    parser.add_argument("--no-anchor", action="store_true", help="leave out the plan-file schedulers")
    parser.add_argument("--url", help="an existing server's database (the benchmark creates two databases)")
    args = parser.parse_args()
    if args.full:
        args.minutes = 15.0
    from tests.postgres_server import PostgresServer

    server = None
    if args.url is None:
        server = PostgresServer(fsync=True)
        server.start()
        admin = server.url()
    else:
        admin = args.url
    stamp = int(time.time())
    try:
        with tempfile.TemporaryDirectory(prefix="linkvet-team-bench-") as folder:
            root = Path(folder)
            data_dir = server.data if server is not None else None
            print(
                f"{args.agents} offices × {args.evaluations} evaluations × {args.candidates} candidates, 1-minute"
                f" cadence, {args.minutes:g} min each; PostgreSQL {'(throwaway, fsync on)' if server else args.url}"
            )
            url = _database(admin, f"bench_agents_{stamp}")
            _evaluations(url, args)
            agents = _run("agents", url, args, root, ServerCpu(data_dir), agents=True)
            _print(agents, args)
            if not args.no_anchor:
                anchor_url = _database(admin, f"bench_plans_{stamp}")
                _evaluations(anchor_url, args)
                anchor = _run("plan files", anchor_url, args, root, ServerCpu(data_dir), agents=False)
                _print(anchor, args)
                print(
                    f"plan files ÷ agents: server CPU {anchor.cpu_s / max(agents.cpu_s, 1e-9):.2f},"
                    f" rounds {anchor.rounds / max(agents.rounds, 1):.2f},"
                    f" results {anchor.results / max(agents.results, 1):.2f}"
                )
            per_day = agents.samples / agents.seconds * 86_400
            print(
                f"a day at this rate: {per_day / 1e6:.1f} M samples, {agents.results / agents.seconds * 86_400 / 1e3:.0f} k"
                f" results, {agents.rounds / agents.seconds * 86_400:.0f} rounds;"
                f" {per_day * agents.sample_bytes / 1e9:.2f} GB of samples a day,"
                f" {per_day * agents.sample_bytes * 30 / 1e9:.1f} GB a month"
            )
    finally:
        if server is not None:
            server.remove()


if __name__ == "__main__":
    main()
