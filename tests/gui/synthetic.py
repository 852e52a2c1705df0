"""Synthetic measurement history written through the real store (`Store.write_round`), for chart tests,
benchmarks and the README screenshots. The lines are invented: each has a base RTT, jitter, and an evening
peak (in Asia/Shanghai) with extra delay and loss, so the charts have something to show."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

from probes.results import ProbeResult, Sample
from probes.store import Store
from probes.target import Method, Target
from tests.rounds import save_round

SHANGHAI = ZoneInfo("Asia/Shanghai")


@dataclass(frozen=True)
class Line:
    target: Target
    base_ms: float
    jitter_ms: float
    peak_extra_ms: float
    loss: float
    peak_loss: float


DEMO_LINES = (
    Line(
        Target(
            Method.ICMP,
            host="198.18.10.1",
            name="raksmart LA · CN2 GIA",
            provider="raksmart",
            region="los-angeles",
            line_type="cn2-gia",
        ),
        132.0,
        1.5,
        6.0,
        0.001,
        0.004,
    ),
    Line(
        Target(
            Method.ICMP,
            host="198.18.10.2",
            name="raksmart LA · BGP",
            provider="raksmart",
            region="los-angeles-bgp",
            line_type="bgp",
        ),
        158.0,
        4.0,
        70.0,
        0.004,
        0.06,
    ),
    Line(
        Target(
            Method.ICMP,
            host="198.18.20.1",
            name="lambda us-west-1",
            provider="lambda",
            region="us-west-1",
            line_type="standard",
        ),
        175.0,
        3.0,
        45.0,
        0.003,
        0.03,
    ),
    Line(
        Target(
            Method.TCP,
            host="198.18.30.1",
            port=22,
            name="hk · CN2 GIA",
            provider="raksmart",
            region="hong-kong",
            line_type="cn2-gia",
        ),
        34.0,
        0.8,
        3.0,
        0.0005,
        0.002,
    ),
)


def is_peak(moment: datetime) -> bool:
    return 20 <= moment.astimezone(SHANGHAI).hour < 23


def write_history(
    path: Path,
    *,
    days: float = 7,
    every_s: int = 900,
    attempts: int = 20,
    end: datetime | None = None,
    lines: tuple[Line, ...] = DEMO_LINES,
    seed: int = 7,
) -> int:
    """Write `days` of rounds (one every `every_s`) of `attempts` each per line; the number of samples."""
    end = end or datetime.now(tz=SHANGHAI)
    start = end - timedelta(days=days)
    starts = []
    moment = start
    while moment < end:
        starts.append(moment)
        moment += timedelta(seconds=every_s)
    return write_rounds(path, starts, attempts=attempts, lines=lines, seed=seed)


def write_rounds(
    path: Path,
    starts: Sequence[datetime],
    *,
    attempts: int = 10,
    interval_s: float = 1.0,
    lines: tuple[Line, ...] = DEMO_LINES,
    seed: int = 7,
) -> int:
    """Write one round per start time, `attempts` per line `interval_s` apart; the number of samples."""
    rng = np.random.default_rng(seed)
    step_us = int(interval_s * 1_000_000)
    total = 0
    with Store(path) as store:
        for moment in starts:
            results = []
            peak = is_peak(moment)
            base_us = int(moment.timestamp() * 1_000_000)
            for line in lines:
                extra = line.peak_extra_ms * (0.6 + 0.4 * rng.random()) if peak else 0.0
                loss = line.peak_loss if peak else line.loss
                rtts = (
                    line.base_ms
                    + extra
                    + np.abs(rng.normal(0, line.jitter_ms * (3 if peak else 1), attempts))
                )
                lost = rng.random(attempts) < loss
                samples = tuple(
                    Sample(i, base_us + i * step_us, None if lost[i] else float(rtts[i]))
                    for i in range(attempts)
                )
                results.append(ProbeResult(line.target, base_us, base_us + attempts * step_us, samples))
                total += attempts
            save_round(
                store,
                results,
                started_us=base_us,
                finished_us=base_us + attempts * step_us,
                source="synthetic",
                peak=peak,
            )
    return total
