"""Benchmark: many agents writing to one store at once — `--agents` processes, each with its own vantage point,
its own spool and the scheduler's writer (`probes.store.writer.StoreWriter`: spool first, then the store),
writing rounds of `--targets` loopback targets × `--attempts` attempts into one PostgreSQL server, and the same
into one SQLite file (the anchor: the embedded default), in the same run.

    python -m tests.benchmarks.agents_postgres_vs_sqlite [--agents 10] [--targets 100] [--attempts 10]
        [--rounds 20] [--repeat 2] [--url postgresql://…]

Each agent first measures one real round: TCP connects to `--targets` loopback addresses (127.0.1.x, one
listener of this benchmark's on each), `--attempts` each. It then stores `--rounds` rounds of those results,
each moved to a slot of its own, as fast as the store takes them; all agents start together. Printed per
backend: rounds stored per second (all agents together), each round's delivery time (median and p95 over every
agent's rounds), lost rounds (rounds delivered minus rounds of that vantage point in the store: must be 0),
and the PostgreSQL ÷ SQLite ratio per repeat with the spread. Without `--url` a throwaway PostgreSQL cluster is
started (tests/postgres_server.py, fsync on, as SQLite writes with synchronous=FULL). No timed asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from tests.benchmarks.filling import report

REPO_ROOT = Path(__file__).resolve().parents[2]
SLOT0_US = 1_796_000_000 * 1_000_000


def _hosts(n: int) -> list[str]:
    return [f"127.0.{1 + i // 250}.{1 + i % 250}" for i in range(n)]


def _listeners(hosts: Sequence[str]) -> tuple[list[socket.socket], int]:
    """One listening socket per loopback address the agents probe, all on one port (never accepting: the
    kernel completes the handshakes)."""
    sockets: list[socket.socket] = []
    port = 0
    for host in hosts:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        port = sock.getsockname()[1]
        sock.listen(4096)
        sockets.append(sock)
    return sockets, port


def agent(
    location: str, vantage: str, port: int, targets: int, attempts: int, rounds: int, start_at: float
) -> None:
    """One agent (run in its own process): measure a round, then deliver `rounds` copies; prints JSON."""
    from probes.runner import Runner
    from probes.store import Store, measured_results, records
    from probes.store.delivery import Delivery
    from probes.store.measured import MeasuredRound
    from probes.store.sqlite.spool import Spool
    from probes.store.writer import StoreWriter
    from probes.target import Method, ProbeOptions, Target

    hosts = [
        Target(Method.TCP, host=h, port=port, provider="bench", region=f"r{i:03d}")
        for i, h in enumerate(_hosts(targets))
    ]
    options = ProbeOptions(count=attempts, interval_s=0.0, timeout_s=2.0)
    results = asyncio.run(Runner(options, concurrency=50).run(hosts))
    first = measured_results(results, source="schedule", plan="bench", vantage=vantage)
    assert first is not None
    uid, slot = records.ROUND_COLUMNS.index("uid"), records.ROUND_COLUMNS.index("slot_us")

    def moved(k: int) -> MeasuredRound:
        row = list(first.round)
        row[0], row[1] = row[0] + k * 60_000_000, row[1] + k * 60_000_000
        row[uid], row[slot] = uuid.uuid4().hex, SLOT0_US + k * 60_000_000
        return MeasuredRound(tuple(row), first.results)

    copies = [moved(k) for k in range(rounds)]
    with tempfile.TemporaryDirectory() as spool_dir, Store(location) as store:
        writer = StoreWriter(Delivery(store, Spool(Path(spool_dir) / "spool.sqlite3")))

        async def deliver_all() -> tuple[list[float], list[str]]:
            times, outcomes = [], []
            for measured in copies:
                began = time.perf_counter()
                outcomes.append((await writer.deliver(measured)).outcome.value)
                times.append(time.perf_counter() - began)
            return times, outcomes

        while time.time() < start_at:
            time.sleep(0.001)
        began = time.perf_counter()
        times, outcomes = asyncio.run(deliver_all())
        elapsed = time.perf_counter() - began
        writer.close()
        writer.delivery.spool.close()
    print(json.dumps({"times": times, "outcomes": outcomes, "elapsed": elapsed, "samples": first.samples}))


def run_agents(location: str, args: argparse.Namespace, port: int) -> dict[str, float]:
    """All agents against one store at once: rounds/s, delivery median and p95 (s), lost rounds."""
    from probes.store import Store

    Store(location).close()  # created (and migrated) before the clock starts
    start_at = time.time() + 3.0 + 0.3 * args.agents  # every agent has measured its round and waits
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    processes = [
        subprocess.Popen(
            [
                *(sys.executable, "-m", "tests.benchmarks.agents_postgres_vs_sqlite", "--agent", location),
                *(
                    f"office-{a}",
                    str(port),
                    str(args.targets),
                    str(args.attempts),
                    str(args.rounds),
                    str(start_at),
                ),
            ],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for a in range(args.agents)
    ]
    outputs = [json.loads(p.communicate(timeout=1800)[0]) for p in processes]
    if any(p.returncode for p in processes):
        raise SystemExit("an agent failed")
    times = sorted(t for out in outputs for t in out["times"])
    delivered = sum(out["outcomes"].count("stored") for out in outputs)
    wall = max(out["elapsed"] for out in outputs)
    with Store(location, readonly=True) as store:
        stored = {a: 0 for a in range(args.agents)}
        for info in store.rounds(plan="bench"):
            stored[int(str(info.vantage).split("-")[1])] += 1
    lost = sum(len(out["outcomes"]) for out in outputs) - sum(stored.values())
    return {
        "rounds_per_s": sum(stored.values()) / wall,
        "median_s": statistics.median(times),
        "p95_s": times[int(0.95 * (len(times) - 1))],
        "lost": float(lost),
        "stored": float(sum(stored.values())),
        "delivered": float(delivered),
        "wall_s": wall,
        "samples_per_round": float(outputs[0]["samples"]),
    }


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--agent":
        location, vantage, port, targets, attempts, rounds, start_at = argv[1:8]
        agent(location, vantage, int(port), int(targets), int(attempts), int(rounds), float(start_at))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--targets", type=int, default=100)
    parser.add_argument("--attempts", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=20, help="rounds each agent stores")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--url", help="an existing PostgreSQL database to use (its tables are made if absent)"
    )
    args = parser.parse_args(argv)
    sockets, port = _listeners(_hosts(args.targets))
    server = None
    try:
        if args.url is None:
            from tests.postgres_server import PostgresServer

            server = PostgresServer(fsync=True)
            server.start()
        figures: dict[str, list[dict[str, float]]] = {"postgres": [], "sqlite": []}
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(args.repeat):
                order = ["postgres", "sqlite"] if k % 2 == 0 else ["sqlite", "postgres"]
                for backend in order:
                    if backend == "sqlite":
                        location = str(Path(tmp) / f"agents-{k}.sqlite3")
                    elif server is not None:
                        location = _fresh_database(server, f"agents_{k}")
                    else:
                        location = str(args.url)
                    figures[backend].append(run_agents(location, args, port))
        rows = []
        for backend, runs in figures.items():
            for k, f in enumerate(runs):
                rows.append(
                    (
                        f"{backend:8} run {k + 1}",
                        f"{f['rounds_per_s']:8.1f} rounds/s   delivery median {f['median_s'] * 1000:7.1f} ms"
                        f"   p95 {f['p95_s'] * 1000:7.1f} ms   lost {int(f['lost'])}"
                        f"   ({int(f['stored'])} rounds in {f['wall_s']:.1f} s)",
                    )
                )
        ratios = [
            p["rounds_per_s"] / s["rounds_per_s"]
            for p, s in zip(figures["postgres"], figures["sqlite"], strict=True)
        ]
        rows.append(
            (
                "postgres ÷ sqlite, rounds/s",
                ", ".join(f"{r:.2f}" for r in ratios) + f"   (spread {max(ratios) - min(ratios):.2f})",
            )
        )
        samples = int(figures["sqlite"][0]["samples_per_round"])
        report(
            f"{args.agents} agents × {args.targets} loopback targets × {args.attempts} attempts "
            f"({samples} samples a round), {args.rounds} rounds each, at once",
            rows,
        )
        lost = sum(int(f["lost"]) for runs in figures.values() for f in runs)
        return 1 if lost else 0
    finally:
        for sock in sockets:
            sock.close()
        if server is not None:
            server.remove()


def _fresh_database(server: object, name: str) -> str:
    import psycopg

    url = server.url()  # type: ignore[attr-defined]
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f"DROP DATABASE IF EXISTS {name}")  # type: ignore[arg-type]
        db.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    return str(server.url(name))  # type: ignore[attr-defined]


if __name__ == "__main__":
    sys.exit(main())
