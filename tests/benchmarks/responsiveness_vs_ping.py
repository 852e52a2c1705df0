"""Latency under load, side by side on the emulated link: `linkvet probe -m responsiveness` and the tool users
reach for, `ping` run idle and then during an `iperf3 -R` (four streams), each against the lab's truth.

    sudo python -m tests.benchmarks.responsiveness_vs_ping [--seconds 8] [--repeat 1]

One lab link, one run, one tool at a time: 40 Mbit/s, 40 ms RTT, a 200 ms drop-tail queue each way.
(Flent's RRUL would be the closer anchor, but it loads the line with netperf, which Debian does not ship.)
For each tool: its idle median RTT, its loaded median RTT (probes sent after the load's first second), and
the increase; the truth of the same echoes from the emulator's log (true RTTs, and the time each echo
waited in the rate limiter). linkvet's |error| is printed as a ratio to ping's (goal ≤ 1.0).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.lab import anchors, truth
from tests.lab.netlab import IPERF3_PORT, Lab, lab_unavailable_reason
from tests.lab.profiles import Profile

RTT_MS = 40.0
DEEP = Profile.constant(RTT_MS, rate_mbps=40.0, queue_ms=200.0)
INTERVAL_S = 0.1
IDLE_S = 3.0
RAMP_S = 1.0


@dataclass
class Figures:
    tool: str
    idle_ms: float | None
    loaded_ms: float | None
    increase_ms: float | None
    true_loaded_ms: float | None
    true_increase_ms: float | None
    throughput_mbps: float | None
    wall_s: float


def _truth(lab: Lab, since: int, until: int) -> tuple[list[truth.Exchange], list[float | None]]:
    host = lab.region().address
    log = lab.packets(since)
    echoes = truth.icmp_echoes(log, host, since_ns=since, until_ns=until, timeout_s=2.0)
    queued = truth.echo_queueing(
        log, host, delay_up_ms=RTT_MS / 2, delay_down_ms=RTT_MS / 2, since_ns=since, until_ns=until
    )
    return echoes, queued


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def run_ping(lab: Lab, seconds: float) -> Figures:
    host = lab.region().address
    started = time.monotonic()
    idle = anchors.run_ping(lab, host, int(IDLE_S / INTERVAL_S), INTERVAL_S, 2.0)
    _, idle_queue = _truth(lab, idle.since_ns, idle.until_ns)
    load = subprocess.Popen(
        lab.office_command(
            ["iperf3", "-c", host, "-p", str(IPERF3_PORT), "-R", "-P", "4", "-J", "-t", f"{seconds:g}"]
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        time.sleep(RAMP_S)
        loaded = anchors.run_ping(lab, host, int((seconds - RAMP_S - 0.5) / INTERVAL_S), INTERVAL_S, 2.0)
        out, _ = load.communicate(timeout=seconds + 60)
    finally:
        if load.poll() is None:
            load.kill()
            load.wait()
    echoes, queued = _truth(lab, loaded.since_ns, loaded.until_ns)
    report = json.loads(out or "{}")
    received = (report.get("end") or {}).get("sum_received") or {}
    idle_ms, loaded_ms = _median(list(idle.rtts_ms)), _median(list(loaded.rtts_ms))
    true_idle_queue, true_queue = _median(idle_queue), _median(queued)
    return Figures(
        "ping + iperf3 -R -P 4",
        idle_ms,
        loaded_ms,
        None if idle_ms is None or loaded_ms is None else loaded_ms - idle_ms,
        _median([e.rtt_ms for e in echoes]),
        None if true_queue is None or true_idle_queue is None else true_queue - true_idle_queue,
        received.get("bits_per_second", 0) / 1e6 or None,
        time.monotonic() - started,
    )


def run_linkvet(lab: Lab, seconds: float) -> Figures:
    region = lab.region()
    started = time.monotonic()
    run = anchors.run_linkvet_probe(
        lab,
        region.large_url,
        "--method",
        "responsiveness",
        "--idle-seconds",
        f"{IDLE_S:g}",
        "--max-seconds",
        f"{seconds:g}",
        "--max-bytes",
        "400000000",
        "--probe-interval",
        f"{INTERVAL_S:g}",
    )
    result = run.result
    echoes, queued = _truth(lab, run.since_ns, run.until_ns)
    phases = [s["phase"] for s in result["samples"]]
    if len(echoes) != len(phases):
        raise SystemExit(f"linkvet sent {len(phases)} probes, the log holds {len(echoes)} echoes")
    loaded_rtts = [e.rtt_ms for e, p in zip(echoes, phases, strict=True) if p == "download"]
    loaded_queue = [q for q, p in zip(queued, phases, strict=True) if p == "download"]
    idle_queue = [q for q, p in zip(queued, phases, strict=True) if p == "idle"]
    true_queue, true_idle_queue = _median(loaded_queue), _median(idle_queue)
    return Figures(
        "linkvet responsiveness",
        result["idle_rtt_median_ms"],
        result["loaded_rtt_median_ms"],
        result["loaded_rtt_increase_ms"],
        _median(loaded_rtts),
        None if true_queue is None or true_idle_queue is None else true_queue - true_idle_queue,
        result["download_mbps"],
        time.monotonic() - started,
    )


def _error(value: float | None, true: float | None) -> float | None:
    return None if value is None or true is None else abs(value - true)


def render(ping: Figures, linkvet: Figures) -> str:
    lines = [
        f"{'tool':<24} {'idle ms':>9} {'loaded ms':>10} {'truth':>9} {'|err|':>7} "
        f"{'increase':>9} {'logged':>8} {'|err|':>7} {'Mbit/s':>7} {'wall s':>7}"
    ]
    for f in (ping, linkvet):
        lines.append(
            f"{f.tool:<24} {_fmt(f.idle_ms):>9} {_fmt(f.loaded_ms):>10} {_fmt(f.true_loaded_ms):>9} "
            f"{_fmt(_error(f.loaded_ms, f.true_loaded_ms)):>7} {_fmt(f.increase_ms):>9} "
            f"{_fmt(f.true_increase_ms):>8} {_fmt(_error(f.increase_ms, f.true_increase_ms)):>7} "
            f"{_fmt(f.throughput_mbps, 1):>7} {f.wall_s:>7.1f}"
        )
    for figure, mine, theirs in (
        (
            "loaded median",
            _error(linkvet.loaded_ms, linkvet.true_loaded_ms),
            _error(ping.loaded_ms, ping.true_loaded_ms),
        ),
        (
            "increase",
            _error(linkvet.increase_ms, linkvet.true_increase_ms),
            _error(ping.increase_ms, ping.true_increase_ms),
        ),
    ):
        ratio = "-" if mine is None or not theirs else f"{mine / theirs:.2f}"
        lines.append(f"ratio linkvet/ping |error|, {figure}: {ratio}")
    return "\n".join(lines)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds of load per tool (default 8)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of both tools (default 1)")
    args = parser.parse_args(argv)
    reason = lab_unavailable_reason()
    if reason:
        print(f"skipped: {reason}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as workdir, Lab(Path(workdir), regions=("r1",)) as lab:
        if not lab.has_iperf3:
            print("skipped: needs iperf3 (apt-get install iperf3)", file=sys.stderr)
            return 2
        lab.set_profile(DEEP)
        print("40 Mbit/s, 40 ms RTT, 200 ms drop-tail queue each way; probes every 100 ms")
        for number in range(args.repeat):
            ping = run_ping(lab, args.seconds)
            linkvet = run_linkvet(lab, args.seconds)
            print(f"\nrun {number + 1} of {args.repeat}\n{render(ping, linkvet)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
