"""How exactly the lab's emulator applies what it is asked, and how well Python can time it.

    python -m tests.benchmarks.emulator_accuracy     (root for the lab parts)

Prints: Python's timer overshoot (select() for 1 ms: default timer slack, 1 ns slack, and with the last
250 µs busy-waited, as the emulator does); then, on a live lab at 150 ms RTT, the error of applied against
requested delay per packet (departure lateness) for probe traffic and under a 50 Mbit/s bulk flow, the lag
between a packet's kernel transmit time and the emulator reading it (which the log's kernel timestamps
remove), and ping's own average against the log's truth.
"""

from __future__ import annotations

import ctypes
import os
import select
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tests.lab import anchors, truth
from tests.lab.netlab import Lab, lab_unavailable_reason
from tests.lab.packetlog import FORWARDED, NO_LAG
from tests.lab.profiles import Profile

PR_SET_TIMERSLACK = 29


def _percentiles(values_us: list[float] | np.ndarray) -> str:
    arr = np.asarray(values_us, dtype=float)
    p50, p90, p99 = np.percentile(arr, [50, 90, 99])
    return f"p50 {p50:7.1f}  p90 {p90:7.1f}  p99 {p99:8.1f}  max {arr.max():8.1f} µs  (n={len(arr)})"


def timer_overshoot(n: int = 2000) -> list[tuple[str, list[float]]]:
    """Overshoot of a 1 ms wait: select() with the default 50 µs timer slack, with 1 ns slack, and
    select() until 250 µs before the deadline followed by a busy-wait."""
    out = []

    def sleep_select(deadline: int) -> None:
        select.select([], [], [], max(0, deadline - time.monotonic_ns()) / 1e9)

    def sleep_spin(deadline: int) -> None:
        rest = deadline - time.monotonic_ns() - 250_000
        if rest > 0:
            select.select([], [], [], rest / 1e9)
        while time.monotonic_ns() < deadline:
            select.select([], [], [], 0)

    libc = ctypes.CDLL(None)
    for label, slack, sleeper in (
        ("select(), default 50 µs slack", 50_000, sleep_select),
        ("select(), 1 ns slack", 1, sleep_select),
        ("select() + busy-wait last 250 µs", 1, sleep_spin),
    ):
        libc.prctl(PR_SET_TIMERSLACK, slack, 0, 0, 0)
        errors = []
        for _ in range(n):
            deadline = time.monotonic_ns() + 1_000_000
            sleeper(deadline)
            errors.append((time.monotonic_ns() - deadline) / 1e3)
        out.append((label, errors))
    libc.prctl(PR_SET_TIMERSLACK, 50_000, 0, 0, 0)
    return out


def main() -> int:
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    print("Python timer overshoot, waiting 1 ms:")
    for label, errors in timer_overshoot():
        print(f"  {label:36s} {_percentiles(errors)}")
    reason = lab_unavailable_reason()
    if reason:
        print(f"lab parts skipped: {reason}", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory(prefix="linkvet-lab-") as workdir, Lab(Path(workdir)) as lab:
        host = lab.region().address
        lab.set_profile(Profile.constant(150.0))
        ping = anchors.run_ping(lab, host, count=500, interval_s=0.01, timeout_s=1)
        log = lab.packets(ping.since_ns)
        fwd = log[log["fate"] == FORWARDED]
        late_us = (fwd["t_out_ns"] - fwd["t_due_ns"]) / 1e3
        lag = log["read_lag_ns"][log["read_lag_ns"] != NO_LAG] / 1e3
        echoes = truth.icmp_echoes(log, host, since_ns=ping.since_ns, until_ns=ping.until_ns)
        true_rtts = truth.rtts(echoes)
        print("\nLab at 150 ms RTT, ping every 10 ms (probe traffic):")
        print(f"  applied − requested one-way delay    {_percentiles(late_us)}")
        print(f"  kernel transmit → emulator read      {_percentiles(lag)}   (removed by kernel timestamps)")
        print(
            f"  true RTT − 150 ms (region's stack included): median "
            f"{(statistics.median(true_rtts) - 150) * 1e3:.1f} µs"
        )
        print(
            f"  ping's average − truth's mean: {(ping.figures['avg_ms'] - statistics.fmean(true_rtts)) * 1e3:+.1f} µs"
        )

        lab.set_profile(Profile.constant(150.0, rate_mbps=50.0, queue_ms=100.0))
        bulk = anchors.run_iperf3(lab, host, seconds=6, reverse=True, omit_s=2)
        log = lab.packets(bulk.since_ns)
        fwd = log[log["fate"] == FORWARDED]
        late_us = (fwd["t_out_ns"] - fwd["t_due_ns"]) / 1e3
        print(f"\nLab at 150 ms RTT, 50 Mbit/s, iperf3 -R bulk flow ({len(log)} packets):")
        print(f"  applied − requested one-way delay    {_percentiles(late_us)}")
        print(
            f"  iperf3 -O 2: {bulk.figures['mbps']:.2f} Mbit/s; TUN drops outside the emulator: "
            f"{sum(lab.device_drops().values())}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
