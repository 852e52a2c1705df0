"""Benchmark: `linkvet trace` beside the system `traceroute` through the route lab (root only).

    sudo python -m tests.benchmarks.trace_vs_traceroute [--runs 5] [--probes 3]

One path of 8 hops (edge, three 202.97 routers, three 59.43 routers, region host), routers answering every
probe (no ICMP rate limit). Each tool traces it `--runs` times per protocol, `--probes` probes per hop, from
the lab's office namespace: ICMP (`traceroute -I`) and UDP (traceroute's default). Prints, per tool, the
median wall time of a run (process start to exit), whether every run saw the same hop addresses as
traceroute, the median over hops of each hop's smallest RTT, and linkvet's figures as ratios. linkvet's
wall time includes starting Python and importing linkvet; "trace only" is the trace itself.
linkvet sends its rounds `--interval` apart (0 here, as traceroute sends all probes at once).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.conftest import cli_env
from tests.lab.route_lab import RouteLab, lab_unavailable_reason

PATH = ["202.97.1.1", "202.97.2.1", "202.97.3.1", "59.43.1.1", "59.43.2.1", "59.43.3.1"]
_HOP = re.compile(r"^\s*(\d+)\s+(.*)$")
_ADDRESS_RTT = re.compile(r"(\d+\.\d+\.\d+\.\d+)|(\d+\.\d+) ms|\*")


def parse_traceroute(text: str) -> list[tuple[list[str], list[float]]]:
    """Per hop: the addresses seen and the RTTs (traceroute -n output)."""
    hops = []
    for line in text.splitlines()[1:]:
        match = _HOP.match(line)
        if not match:
            continue
        addresses: list[str] = []
        rtts: list[float] = []
        for address, rtt in _ADDRESS_RTT.findall(match.group(2)):
            if address:
                addresses.append(address)
            elif rtt:
                rtts.append(float(rtt))
        hops.append((addresses, rtts))
    return hops


def _seconds(start: str, end: str) -> float:
    from datetime import datetime

    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def timed(lab: RouteLab, argv: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    started = time.monotonic()
    done = lab.run_in_office(argv, env=env, timeout=300)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr}")
    return wall, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--probes", type=int, default=3)
    args = parser.parse_args()
    reason = lab_unavailable_reason()
    if reason:
        print(f"skipped: {reason}", file=sys.stderr)
        return 2
    traceroute = shutil.which("traceroute")
    if traceroute is None:
        print("traceroute is not installed (apt-get install traceroute)", file=sys.stderr)
        return 2
    probe = subprocess.run([traceroute, "-V"], capture_output=True, text=True)
    version = (probe.stdout + probe.stderr).strip().splitlines()[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, RouteLab({"gt": PATH}, icmp_ratelimit_ms=0) as lab:
        env = cli_env(Path(tmp))
        dest = lab.region("gt")
        for protocol, anchor_flags in (("icmp", ["-I"]), ("udp", [])):
            anchor_walls, anchor_mins, anchor_paths = [], [], []
            for _ in range(args.runs):
                wall, out = timed(lab, [traceroute, "-n", *anchor_flags, "-q", str(args.probes), dest])
                hops = parse_traceroute(out)
                anchor_walls.append(wall)
                anchor_paths.append([h[0][0] if h[0] else None for h in hops])
                anchor_mins.append(statistics.median(min(h[1]) for h in hops if h[1]))
            ours_walls, ours_traces, ours_mins, ours_paths, sent, received = [], [], [], [], 0, 0
            for _ in range(args.runs):
                wall, out = timed(
                    lab,
                    [
                        sys.executable,
                        "-m",
                        "desktop.cli",
                        "trace",
                        dest,
                        "-P",
                        protocol,
                        "-q",
                        str(args.probes),
                        "-i",
                        "0",
                        "--json",
                        "--no-store",
                    ],
                    env=env,
                )
                (trace,) = json.loads(out)["traces"]
                ours_walls.append(wall)
                ours_traces.append(_seconds(trace["started_at"], trace["finished_at"]))
                ours_paths.append([h["address"] for h in trace["hops"]])
                ours_mins.append(statistics.median(h["rtt_min_ms"] for h in trace["hops"] if h["received"]))
                sent += sum(h["sent"] for h in trace["hops"])
                received += sum(h["received"] for h in trace["hops"])
            reference = anchor_paths[0]
            rows.append(
                (
                    protocol,
                    statistics.median(anchor_walls),
                    statistics.median(ours_walls),
                    statistics.median(ours_traces),
                    all(p == reference for p in anchor_paths + ours_paths),
                    statistics.median(anchor_mins),
                    statistics.median(ours_mins),
                    f"{received}/{sent}",
                )
            )
    print(f"{len(PATH) + 2} hops, {args.probes} probes per hop, {args.runs} runs per tool; anchor: {version}")
    print(
        f"{'protocol':<9}{'traceroute s':>13}{'linkvet s':>11}{'ratio':>7}{'(trace only s)':>15}{'same hops':>11}"
        f"{'tr min-RTT ms':>15}{'lv min-RTT ms':>15}{'ratio':>7}{'lv answered':>13}"
    )
    for protocol, a_wall, o_wall, o_trace, same, a_min, o_min, answered in rows:
        print(
            f"{protocol:<9}{a_wall:>13.3f}{o_wall:>11.3f}{o_wall / a_wall:>7.2f}{o_trace:>15.3f}{same!s:>11}"
            f"{a_min:>15.3f}{o_min:>15.3f}{o_min / a_min:>7.2f}{answered:>13}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
