"""Benchmark: probe 1,000 loopback addresses × 10 echoes with linkvet and with fping, same list, same pacing.

    python -m tests.benchmarks.probe_vs_fping [--targets 1000] [--count 10] [--runs 3] [--busy N] [--floor]
        [--c-floor] [--phases] [--python]

Both send one packet per millisecond across targets (fping -i 1) and 200 ms apart to one target (fping -p 200),
so neither can finish in under count × targets × 1 ms. Prints wall time, CPU time (user + system, the whole
process: interpreter start, imports, probing, printing), peak resident memory and lost echoes for each, and
linkvet's figures as ratios to fping's, run by run (fping first, then linkvet, `--runs` times), then the
spread of the ratios with their medians. `--targets` up to 62,500 (127.1.0.1 …; all in 127.0.0.0/8). `--busy N`
keeps N CPU-bound processes (`yes > /dev/null`) running beside every run. Each run also measures the bare
interpreter (`python -c pass`): the memory line compares linkvet's peak with 1.5 × fping's plus that.
Goals (issue 33), at 1,000 and at 10,000 targets: CPU ≤ 1.0× fping's (≤ 1.3× with `--busy 2`), wall ≤ 1.02×,
zero self-inflicted loss, peak memory ≤ 1.5× fping's + the interpreter's.

linkvet runs with its compiled engine thread where it is built (`probes.icmp.native`; the first line says which
it used); `--python` also runs it each run with the Python one (LINKVET_PURE_PYTHON), as `linkvet-py`.

`--floor` also times, each run, a bare Python loop making only the system calls the ICMP engine's thread
makes for the same packets on a socket set up as the engine's (one precise sleep, one `sendto` per packet;
the transmit stamps and replies read every 5 ms): the CPU a Python prober cannot go below (that loop's own
thread, start-up not counted).

`--c-floor` also runs, each run, the same loop as a C program (compiled here with `cc`; raw sockets, so
root): the engine's socket set-up (kernel receive stamps, transmit stamps on the error queue, only echo
replies let through), the same pacing, reads every 5 packets. Its whole process's CPU is what linkvet's
design costs without the interpreter: next to fping's, it shows what the transmit stamps add, and next to
`--floor`, what running the same system calls from Python adds.

`--phases` also runs linkvet once more each run, with each thread's CPU clock read at its turns: the
interpreter's start, the imports, the rest of the main thread (the event loop: tasks, outcomes, results,
output) and the engine's thread.

linkvet runs from bytecode written beforehand (by a one-echo run) into a temporary cache (PYTHONPYCACHEPREFIX),
as an installed package runs from the bytecode pip compiles at install; a checkout run with
PYTHONDONTWRITEBYTECODE set would compile its modules again on each start. PYTHONUNBUFFERED is dropped from its
environment too (each line of --json would be a write of its own). CPU and memory are each process's own, from
wait4 (`tests.benchmarks._rusage`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import astuple, dataclass
from pathlib import Path

from tests.benchmarks._rusage import timed

REPO_ROOT = Path(__file__).resolve().parents[2]


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
    rss_kib: int | None  # None where it cannot be known (`tests.benchmarks._rusage`)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--targets", type=int, default=1000, help="loopback addresses (127.0.0.0/8), at most 62,500"
    )
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor", action="store_true", help="also time the bare system-call loop")
    parser.add_argument("--c-floor", action="store_true", help="also time that loop as a C program")
    parser.add_argument("--phases", action="store_true", help="also split linkvet's CPU by thread and phase")
    parser.add_argument(
        "--python", action="store_true", help="also run linkvet with its Python engine thread"
    )
    parser.add_argument(
        "--busy", type=int, default=0, metavar="N", help="run N CPU-bound processes (`yes`) beside every run"
    )
    args = parser.parse_args()
    if not 1 <= args.targets <= 62_500:
        parser.error("--targets: from 1 to 62,500 (loopback addresses 127.1.0.1 to 127.250.250.250)")
    fping = shutil.which("fping")
    if fping is None:
        print("fping is not installed (apt-get install fping)", file=sys.stderr)
        return 2
    pairs: list[tuple[Run, Run]] = []
    pythons: list[Run] = []
    floors: list[float] = []
    c_floors: list[float] = []
    phases: list[dict[str, float]] = []
    baselines: list[int | None] = []
    with tempfile.TemporaryDirectory() as tmp, busy_processes(args.busy):
        listing = Path(tmp) / "targets.txt"
        listing.write_text("\n".join(addresses(args.targets)) + "\n")
        c_floor = build_c_floor(Path(tmp)) if args.c_floor else None
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"))
        # As a user's shell runs it: bytecode written (below), output buffered (PYTHONUNBUFFERED would make
        # each line of --json a system call of its own).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("PYTHONUNBUFFERED", None)
        # One short run first writes the bytecode of every module a probe imports into that cache.
        warm = [sys.executable, "-m", "desktop.cli", "probe", "--file", str(listing), "-c", "1", "--json"]
        subprocess.run([*warm, "--no-store", "--gap-ms", "0"], env=env, check=True, capture_output=True)
        for _ in range(args.runs):
            f_run = run_fping(fping, listing, args.count, args.targets)
            l_run = run_linkvet(listing, args.count, args.targets, env)
            if l_run is None:
                return 1
            pairs.append((f_run, l_run))
            baselines.append(timed([sys.executable, "-c", "pass"], env)[3])
            if args.python:
                p_run = run_linkvet(listing, args.count, args.targets, env | {"LINKVET_PURE_PYTHON": "1"})
                if p_run is None:
                    return 1
                pythons.append(Run("linkvet-py", *astuple(p_run)[1:]))
            if args.floor:
                floors.append(run_floor(listing, args.count, env))
            if c_floor is not None:
                c_floors.append(run_c_floor(c_floor, listing, args.count))
            if args.phases:
                phases.append(run_phases(listing, args.count, args.targets, env))
    report(args, pairs, pythons, floors, c_floors, phases, baselines)
    return 0


@contextlib.contextmanager
def busy_processes(n: int) -> Iterator[None]:
    """`n` CPU-bound processes (`yes > /dev/null`) running meanwhile: the machine as a busy office box is."""
    started = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(n)]
    try:
        yield
    finally:
        for process in started:
            process.kill()
            process.wait()


def _mib(kib: int | None) -> str:
    return "n/a" if kib is None else f"{kib / 1024:.1f}"


def _spread(values: list[float], digits: int = 2) -> str:
    return (
        f"{min(values):.{digits}f}–{max(values):.{digits}f} (median {statistics.median(values):.{digits}f})"
    )


def report(
    args: argparse.Namespace,
    pairs: list[tuple[Run, Run]],
    pythons: list[Run],
    floors: list[float],
    c_floors: list[float],
    phases: list[dict[str, float]],
    baselines: list[int | None],
) -> None:
    from probes.icmp import native

    engine = "compiled" if native.icmp is not None else f"Python ({native.icmp_problem})"
    print(
        f"{args.targets} loopback targets x {args.count} echoes, 1 ms between packets, 200 ms per target; "
        f"linkvet's engine thread: {engine}"
        + (f"; {args.busy} CPU-bound processes beside" if args.busy else "")
    )
    print(
        f"{'run':<5}{'tool':<11}{'wall s':>8}{'cpu s':>8}{'MiB':>7}{'sent':>8}{'lost':>7}{'median ms':>11}"
        f"{'p99 ms':>9}"
    )
    for number, (f_run, l_run) in enumerate(pairs, start=1):
        for r in (f_run, l_run, *pythons[number - 1 : number]):
            print(
                f"{number:<5}{r.tool:<11}{r.wall_s:>8.2f}{r.cpu_s:>8.2f}{_mib(r.rss_kib):>7}{r.sent:>8}"
                f"{r.lost:>7}{_q(r.rtts_ms, 0.5):>11.3f}{_q(r.rtts_ms, 0.99):>9.3f}"
            )
        memory = f"{l_run.rss_kib / f_run.rss_kib:>7.2f}" if l_run.rss_kib and f_run.rss_kib else ""
        print(
            f"{number:<5}{'ratio':<11}{l_run.wall_s / f_run.wall_s:>8.2f}{l_run.cpu_s / f_run.cpu_s:>8.2f}"
            + memory
        )
        if pythons:
            p_run = pythons[number - 1]
            print(
                f"{number:<5}{'ratio-py':<11}{p_run.wall_s / f_run.wall_s:>8.2f}"
                f"{p_run.cpu_s / f_run.cpu_s:>8.2f}"
            )
    walls = [lr.wall_s / fr.wall_s for fr, lr in pairs]
    cpus = [lr.cpu_s / fr.cpu_s for fr, lr in pairs]
    print(
        f"over {len(pairs)} runs: wall ratio {_spread(walls)}, CPU ratio {_spread(cpus)}; fping CPU "
        f"{_spread([p[0].cpu_s for p in pairs])} s, linkvet {_spread([p[1].cpu_s for p in pairs])} s; lost: fping "
        f"{sum(p[0].lost for p in pairs)}, linkvet {sum(p[1].lost for p in pairs)}; load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    # Memory: linkvet's peak against 1.5 x fping's plus the interpreter's own (`python -c pass`, same run).
    known = [
        (fr.rss_kib, lr.rss_kib, base)
        for (fr, lr), base in zip(pairs, baselines, strict=True)
        if fr.rss_kib and lr.rss_kib and base
    ]
    if known:
        print(
            f"peak RSS: fping {_spread([f / 1024 for f, _l, _b in known], 1)} MiB, linkvet "
            f"{_spread([lv / 1024 for _f, lv, _b in known], 1)} MiB, the interpreter alone (python -c pass) "
            f"{_spread([b / 1024 for _f, _l, b in known], 1)} MiB; linkvet / (1.5 x fping + interpreter): "
            f"{_spread([lv / (1.5 * f + b) for f, lv, b in known])}"
        )
    else:
        print("peak RSS: not measured (no C compiler for the launcher, tests/benchmarks/_rusage.py)")
    if pythons:
        ratios = [p.cpu_s / fr.cpu_s for p, (fr, _lr) in zip(pythons, pairs, strict=True)]
        print(
            f"linkvet with the Python engine thread: CPU {_spread([p.cpu_s for p in pythons])} s, "
            f"{_spread(ratios)}× fping's, lost {sum(p.lost for p in pythons)}"
        )
    if floors:
        print(
            f"bare loop of the engine thread's system calls: {min(floors):.2f}–{max(floors):.2f} s CPU "
            f"({', '.join(f'{f:.2f}' for f in floors)}), {min(floors) / max(p[0].cpu_s for p in pairs):.2f}–"
            f"{max(floors) / min(p[0].cpu_s for p in pairs):.2f}× fping's whole run"
        )
    if c_floors:
        ratios = [c / fr.cpu_s for c, (fr, _lr) in zip(c_floors, pairs, strict=True)]
        print(
            f"that loop as a C program (whole process): {min(c_floors):.2f}–{max(c_floors):.2f} s CPU "
            f"({', '.join(f'{c:.2f}' for c in c_floors)}), {min(ratios):.2f}–{max(ratios):.2f}× fping's run "
            "by run"
        )
    if phases:
        print(
            "linkvet's CPU by phase (thread CPU clocks, s): "
            + "; ".join(
                f"{name} {min(p[name] for p in phases):.3f}–{max(p[name] for p in phases):.3f}"
                for name in phases[0]
            )
        )


_FLOOR = """
import socket, sys, time
from probes.icmp.socket import FamilySocket
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


_C_FLOOR = r"""
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/icmp.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static uint16_t checksum(const uint16_t *p, int n) {
    uint32_t s = 0;
    for (; n > 1; n -= 2) s += *p++;
    s = (s >> 16) + (s & 0xffff);
    return (uint16_t)~(s + (s >> 16));
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    static struct sockaddr_in to[65536];
    char line[64];
    int targets = 0, count = atoi(argv[2]);
    FILE *listing = fopen(argv[1], "r");
    while (listing && targets < 65536 && fgets(line, sizeof line, listing)) {
        line[strcspn(line, "\n")] = 0;
        to[targets].sin_family = AF_INET;
        if (inet_aton(line, &to[targets].sin_addr)) targets++;
    }
    int fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, IPPROTO_ICMP);
    if (fd < 0) { perror("raw ICMP socket"); return 1; }
    int on = 1, stamping = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE |
                           SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;
    struct icmp_filter replies_only = {~(1U << ICMP_ECHOREPLY)};
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &stamping, sizeof stamping);
    setsockopt(fd, SOL_RAW, ICMP_FILTER, &replies_only, sizeof replies_only);
    prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
    int64_t due = now_ns();
    long replies = 0, stamps = 0;
    for (long n = 0; n < (long)count * targets; n++) {
        struct timespec at = {due / 1000000000LL, due % 1000000000LL};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
        uint16_t packet[32] = {0};
        struct icmphdr *header = (struct icmphdr *)packet;
        header->type = ICMP_ECHO;
        header->un.echo.id = htons(0x6c76);
        header->un.echo.sequence = htons((uint16_t)n);
        header->checksum = checksum(packet, sizeof packet);
        sendto(fd, packet, sizeof packet, 0, (struct sockaddr *)&to[n % targets], sizeof to[0]);
        due = now_ns() + 1000000;
        if (n % 5) continue;
        char data[2048], control[512];
        for (int queue = MSG_ERRQUEUE; ; ) {
            struct iovec io = {data, sizeof data};
            struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control,
                               .msg_controllen = sizeof control};
            if (recvmsg(fd, &m, queue) >= 0) { queue ? stamps++ : replies++; continue; }
            if (!queue) break;
            queue = 0;
        }
    }
    printf("%ld %ld\n", replies, stamps);
    return 0;
}
"""


def build_c_floor(folder: Path) -> Path | None:
    """The C loop, compiled; None (with why) where no C compiler is installed or it fails."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        print("--c-floor: no C compiler here (apt-get install gcc); left out", file=sys.stderr)
        return None
    source, binary = folder / "c_floor.c", folder / "c_floor"
    source.write_text(_C_FLOOR)
    done = subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"--c-floor: the C loop did not compile; left out\n{done.stderr}", file=sys.stderr)
        return None
    return binary


def run_c_floor(binary: Path, listing: Path, count: int) -> float:
    """The CPU seconds of the C loop's whole process."""
    _wall, cpu, done, _rss = timed([str(binary), str(listing), str(count)])
    if done.returncode != 0:
        raise SystemExit(f"the C loop failed (raw sockets need root): {done.stderr.strip()}")
    return cpu


def run_fping(fping: str, listing: Path, count: int, targets: int) -> Run:
    f_wall, f_cpu, f_out, f_rss = timed(
        [fping, "-C", str(count), "-q", "-i", "1", "-p", "200", "-t", "2000", "-f", str(listing)]
    )
    f_values = [v for line in f_out.stderr.splitlines() if ":" in line for v in line.split(":", 1)[1].split()]
    rtts = sorted(float(v) for v in f_values if v != "-")
    return Run("fping", f_wall, f_cpu, targets * count, f_values.count("-"), rtts, f_rss)


_PHASES = """
import sys, time
start = time.thread_time()
import desktop.cli, desktop.cli.probe, probes.icmp.worker, probes.icmp.compiled
imported = time.thread_time()
thread = {}
def timed(run):
    def timed_run(self):
        began = time.thread_time()
        try:
            run(self)
        finally:
            thread["cpu"] = time.thread_time() - began
    return timed_run
for worker in (probes.icmp.worker.Worker, probes.icmp.compiled.CompiledWorker):
    worker._run = timed(worker._run)
code = desktop.cli.main(sys.argv[1:])
main = time.thread_time()
print(f"{start} {imported - start} {main - imported} {thread['cpu']}", file=sys.stderr)
sys.exit(code)
"""


def run_phases(listing: Path, count: int, targets: int, env: dict[str, str]) -> dict[str, float]:
    """One more linkvet run, its CPU split by thread and phase."""
    done = subprocess.run(
        [sys.executable, "-c", _PHASES, *_probe_arguments(listing, count, targets)],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr)
    start, imports, event_loop, engine = (float(v) for v in done.stderr.splitlines()[-1].split())
    return {"start": start, "imports": imports, "event loop": event_loop, "engine thread": engine}


def _probe_arguments(listing: Path, count: int, targets: int) -> list[str]:
    return [
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
    ]


def run_linkvet(listing: Path, count: int, targets: int, env: dict[str, str]) -> Run | None:
    l_wall, l_cpu, l_out, l_rss = timed(
        [sys.executable, "-m", "desktop.cli", *_probe_arguments(listing, count, targets)], env=env
    )
    if l_out.returncode not in (0, 1):
        print(l_out.stderr, file=sys.stderr)
        return None
    records = [json.loads(line) for line in l_out.stdout.splitlines()]
    lost = sum(r["sent"] - r["received"] for r in records)
    sent = sum(r["sent"] for r in records)
    rtts = sorted(s["rtt_ms"] for r in records for s in r["samples"] if s["rtt_ms"] is not None)
    return Run("linkvet", l_wall, l_cpu, sent, lost, rtts, l_rss)


if __name__ == "__main__":
    sys.exit(main())
