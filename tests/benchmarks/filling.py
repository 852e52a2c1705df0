"""Filling a store with many synthetic samples through its API, and small helpers, for the benchmarks."""

from __future__ import annotations

import math
import resource
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from probes.errors import ErrorKind
from probes.results import ProbeResult, Sample
from probes.target import Method, Target

US = 1_000_000
HOUR_US = 3600 * US
START_US = 1_793_577_600 * US  # 2026-11-01 00:00 UTC


def region_targets(n: int) -> list[Target]:
    """One ICMP target per region, regions r000…, half of them claiming CN2 GIA."""
    return [
        Target(
            method=Method.ICMP,
            host=f"127.0.{i // 250}.{i % 250 + 1}",
            provider=f"provider{i % 10}",
            region=f"r{i:03d}",
            line_type="cn2-gia" if i % 2 else "bgp",
        )
        for i in range(n)
    ]


@dataclass(frozen=True)
class Plan:
    """`targets` measured `runs_per_hour` times an hour for `days` days, runs of `attempts` attempts
    `spacing_s` apart."""

    targets: int
    days: int
    attempts: int
    runs_per_hour: int = 4
    spacing_s: float = 1.0

    @property
    def rounds(self) -> int:
        return self.days * 24 * self.runs_per_hour

    @property
    def samples(self) -> int:
        return self.rounds * self.targets * self.attempts

    @classmethod
    def for_samples(
        cls, samples: int, targets: int = 100, days: int = 30, runs_per_hour: int = 4, spread: bool = False
    ) -> Plan:
        """A plan of at least `samples` samples; with `spread`, each run's attempts fill its slot."""
        attempts = max(1, math.ceil(samples / (targets * days * 24 * runs_per_hour)))
        spacing = 3600 / runs_per_hour / attempts * 0.98 if spread else 1.0
        return cls(targets, days, attempts, runs_per_hour, spacing)


def rounds(plan: Plan, seed: int = 1) -> Iterator[tuple[int, list[ProbeResult]]]:
    """(start µs, results) per round: RTT 150 ms + 2 ms noise, +60 ms and 5% loss 12:00-15:00 UTC."""
    rng = np.random.default_rng(seed)
    targets = region_targets(plan.targets)
    offsets = (np.arange(plan.attempts) * plan.spacing_s * US).astype(np.int64)
    for k in range(plan.rounds):
        begin = START_US + k * (HOUR_US // plan.runs_per_hour)
        peak = 12 <= (begin // HOUR_US) % 24 < 15
        rtt = 150.0 + (60.0 if peak else 0.0) + rng.normal(0, 2, (plan.targets, plan.attempts))
        lost = rng.random((plan.targets, plan.attempts)) < (0.05 if peak else 0.002)
        results = []
        for i, target in enumerate(targets):
            ts = (begin + offsets).tolist()
            values = rtt[i].tolist()
            gone = lost[i].tolist()
            samples = tuple(
                Sample(j, ts[j], None, ErrorKind.TIMEOUT) if gone[j] else Sample(j, ts[j], values[j])
                for j in range(plan.attempts)
            )
            results.append(ProbeResult(target, begin, int(begin + offsets[-1] + US), samples))
        yield begin, results


def peak_rss_mib() -> float:
    """This process's peak resident memory so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Timer:
    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start


def report(title: str, rows: list[tuple[str, str]]) -> None:
    """Print a benchmark's figures (visible with `pytest -s`)."""
    width = max(len(name) for name, _ in rows)
    print(f"\n== {title}")
    for name, value in rows:
        print(f"   {name.ljust(width)}  {value}")
