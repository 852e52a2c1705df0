"""Benchmark: probe 1,000 loopback addresses × 10 echoes with linkvet and with fping, same list, same pacing.

    python -m tests.benchmarks.probe_vs_fping [--targets 1000] [--count 10]

Both send one packet per millisecond across targets (fping -i 1) and 200 ms apart to one target (fping -p 200),
so neither can finish in under count × targets × 1 ms. Prints wall time, CPU time and lost echoes for each,
and linkvet's figures as ratios to fping's. Goal: wall ≤ 1.5× fping's with zero self-inflicted loss.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=1000)
    parser.add_argument("--count", type=int, default=10)
    args = parser.parse_args()
    fping = shutil.which("fping")
    if fping is None:
        print("fping is not installed (apt-get install fping)", file=sys.stderr)
        return 2
    sent = args.targets * args.count
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "targets.txt"
        listing.write_text("\n".join(addresses(args.targets)) + "\n")
        f_wall, f_cpu, f_out = timed(
            [fping, "-C", str(args.count), "-q", "-i", "1", "-p", "200", "-t", "2000", "-f", str(listing)]
        )
        f_values = [
            v for line in f_out.stderr.splitlines() if ":" in line for v in line.split(":", 1)[1].split()
        ]
        f_lost = f_values.count("-")
        f_rtts = sorted(float(v) for v in f_values if v != "-")
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
        l_wall, l_cpu, l_out = timed(
            [
                sys.executable,
                "-m",
                "desktop.cli",
                "probe",
                "--file",
                str(listing),
                "--count",
                str(args.count),
                "--interval",
                "0.2",
                "--gap-ms",
                "1",
                "--timeout",
                "2",
                "--concurrency",
                str(args.targets),
                "--json",
                "--no-store",
            ],
            env=env,
        )
        if l_out.returncode not in (0, 1):
            print(l_out.stderr, file=sys.stderr)
            return 1
        records = [json.loads(line) for line in l_out.stdout.splitlines()]
        l_lost = sum(r["sent"] - r["received"] for r in records)
        l_sent = sum(r["sent"] for r in records)
        l_rtts = sorted(s["rtt_ms"] for r in records for s in r["samples"] if s["rtt_ms"] is not None)
    print(f"{args.targets} loopback targets x {args.count} echoes, 1 ms between packets, 200 ms per target")
    print(f"{'tool':<10}{'wall s':>9}{'cpu s':>9}{'sent':>8}{'lost':>7}{'median ms':>11}{'p99 ms':>9}")
    for name, wall, cpu, n, lost, rtts in (
        ("fping", f_wall, f_cpu, sent, f_lost, f_rtts),
        ("linkvet", l_wall, l_cpu, l_sent, l_lost, l_rtts),
    ):
        print(f"{name:<10}{wall:>9.2f}{cpu:>9.2f}{n:>8}{lost:>7}{_q(rtts, 0.5):>11.3f}{_q(rtts, 0.99):>9.3f}")
    print(f"{'ratio':<10}{l_wall / f_wall:>9.2f}{l_cpu / f_cpu:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
