"""Benchmark: probe 1,000 loopback addresses × 10 echoes with linkvet and with fping, same list, same pacing.

    python -m tests.benchmarks.probe_vs_fping [--targets 1000] [--count 10] [--runs 3] [--floor]

Both send one packet per millisecond across targets (fping -i 1) and 200 ms apart to one target (fping -p 200),
so neither can finish in under count × targets × 1 ms. Prints wall time, CPU time (user + system, the whole
process: interpreter start, imports, probing, printing) and lost echoes for each, and linkvet's figures as
ratios to fping's, run by run (fping first, then linkvet, `--runs` times), then the spread of the ratios.
Goal (issue 18): CPU ≤ 2× fping's and wall ≤ 1.05× fping's, with zero self-inflicted loss.

`--floor` also times, each run, a bare Python loop making only the system calls the ICMP engine's thread
makes for the same packets on a socket set up as the engine's (one precise sleep, one `sendto` per packet;
the transmit stamps and replies read every 5 ms): the CPU a Python prober cannot go below (that loop's own
thread, start-up not counted).

linkvet runs from bytecode written beforehand (by a one-echo run) into a temporary cache (PYTHONPYCACHEPREFIX),
as an installed package runs from the bytecode pip compiles at install; a checkout run with
PYTHONDONTWRITEBYTECODE set would compile its modules again on each start.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def timed(
    command: list[str], env: dict[str, str] | None = None
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def addresses(n: int) -> list[str]:
    return [f"127.{1 + i // 250 // 250}.{i // 250 % 250}.{i % 250 + 1}" for i in range(n)]


def _q(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


@dataclass(frozen=True)
class Run:
    tool: str
    wall_s: float
    cpu_s: float
    sent: int
    lost: int
    rtts_ms: list[float]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=1000)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor", action="store_true", help="also time the bare system-call loop")
    args = parser.parse_args()
    fping = shutil.which("fping")
    if fping is None:
        print("fping is not installed (apt-get install fping)", file=sys.stderr)
        return 2
    pairs: list[tuple[Run, Run]] = []
    floors: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "targets.txt"
        listing.write_text("\n".join(addresses(args.targets)) + "\n")
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        # One short run first writes the bytecode of every module a probe imports into that cache.
        warm = [sys.executable, "-m", "desktop.cli", "probe", "127.0.0.1", "-c", "1", "--json", "--no-store"]
        subprocess.run(warm, env=env, check=True, capture_output=True)
        for _ in range(args.runs):
            f_run = run_fping(fping, listing, args.count, args.targets)
            l_run = run_linkvet(listing, args.count, args.targets, env)
            if l_run is None:
                return 1
            pairs.append((f_run, l_run))
            if args.floor:
                floors.append(run_floor(listing, args.count, env))
    print(f"{args.targets} loopback targets x {args.count} echoes, 1 ms between packets, 200 ms per target")
    print(
        f"{'run':<5}{'tool':<10}{'wall s':>9}{'cpu s':>9}{'sent':>8}{'lost':>7}{'median ms':>11}{'p99 ms':>9}"
    )
    for number, (f_run, l_run) in enumerate(pairs, start=1):
        for r in (f_run, l_run):
            print(
                f"{number:<5}{r.tool:<10}{r.wall_s:>9.2f}{r.cpu_s:>9.2f}{r.sent:>8}{r.lost:>7}"
                f"{_q(r.rtts_ms, 0.5):>11.3f}{_q(r.rtts_ms, 0.99):>9.3f}"
            )
        print(f"{number:<5}{'ratio':<10}{l_run.wall_s / f_run.wall_s:>9.2f}{l_run.cpu_s / f_run.cpu_s:>9.2f}")
    walls = [lr.wall_s / fr.wall_s for fr, lr in pairs]
    cpus = [lr.cpu_s / fr.cpu_s for fr, lr in pairs]
    print(
        f"over {len(pairs)} runs: wall ratio {min(walls):.2f}–{max(walls):.2f}, CPU ratio {min(cpus):.2f}–"
        f"{max(cpus):.2f} (fping CPU {min(p[0].cpu_s for p in pairs):.2f}–{max(p[0].cpu_s for p in pairs):.2f} s,"
        f" linkvet {min(p[1].cpu_s for p in pairs):.2f}–{max(p[1].cpu_s for p in pairs):.2f} s); "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    if floors:
        print(
            f"bare loop of the engine thread's system calls: {min(floors):.2f}–{max(floors):.2f} s CPU "
            f"({', '.join(f'{f:.2f}' for f in floors)}), {min(floors) / max(p[0].cpu_s for p in pairs):.2f}–"
            f"{max(floors) / min(p[0].cpu_s for p in pairs):.2f}× fping's whole run"
        )
    return 0


_FLOOR = """
import socket, sys, time
from probes.icmp_socket import FamilySocket
from probes.pacing import fine_timer_slack
from probes.sockets import read_tx_stamps

addresses = open(sys.argv[1]).read().split()
count = int(sys.argv[2])
fs = FamilySocket(socket.AF_INET, None, b"linkvet!")
fine_timer_slack()
receive_stamp, request, parse = fs.style.receive_wall_ns, fs.wire.request, fs.wire.parse
started = time.thread_time()
due = time.monotonic_ns()
awaiting = 0
for n in range(count * len(addresses)):
    delay = due - time.monotonic_ns()
    if delay > 0:
        time.sleep(delay / 1e9)
    fs.sock.sendto(request(n & 0xFFFF, 56), (addresses[n % len(addresses)], 0))
    awaiting += fs.tx_stamps
    due += 1_000_000
    if n % 5 == 0:
        awaiting -= len(read_tx_stamps(fs.sock, awaiting)) if fs.tx_stamps else 0
        while True:
            try:
                data, ancdata, _flags, source = fs.sock.recvmsg(2048, 256)
            except BlockingIOError:
                break
            receive_stamp(ancdata)
            parse(data, source[0])
print(time.thread_time() - started)
"""


def run_floor(listing: Path, count: int, env: dict[str, str]) -> float:
    """The CPU seconds of the bare system-call loop (its thread's), in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _FLOOR, str(listing), str(count)], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return float(done.stdout.strip())


def run_fping(fping: str, listing: Path, count: int, targets: int) -> Run:
    f_wall, f_cpu, f_out = timed(
        [fping, "-C", str(count), "-q", "-i", "1", "-p", "200", "-t", "2000", "-f", str(listing)]
    )
    f_values = [v for line in f_out.stderr.splitlines() if ":" in line for v in line.split(":", 1)[1].split()]
    rtts = sorted(float(v) for v in f_values if v != "-")
    return Run("fping", f_wall, f_cpu, targets * count, f_values.count("-"), rtts)


def run_linkvet(listing: Path, count: int, targets: int, env: dict[str, str]) -> Run | None:
    l_wall, l_cpu, l_out = timed(
        [
            sys.executable,
            "-m",
            "desktop.cli",
            "probe",
            "--file",
            str(listing),
            "--count",
            str(count),
            "--interval",
            "0.2",
            "--gap-ms",
            "1",
            "--timeout",
            "2",
            "--concurrency",
            str(targets),
            "--json",
            "--no-store",
        ],
        env=env,
    )
    if l_out.returncode not in (0, 1):
        print(l_out.stderr, file=sys.stderr)
        return None
    records = [json.loads(line) for line in l_out.stdout.splitlines()]
    lost = sum(r["sent"] - r["received"] for r in records)
    sent = sum(r["sent"] for r in records)
    rtts = sorted(s["rtt_ms"] for r in records for s in r["samples"] if s["rtt_ms"] is not None)
    return Run("linkvet", l_wall, l_cpu, sent, lost, rtts)


if __name__ == "__main__":
    sys.exit(main())
