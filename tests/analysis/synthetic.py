"""Synthetic measurement series written through the store's API, with a peak whose size is known."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from probes.errors import ErrorKind
from probes.results import ProbeResult, Sample
from probes.store import Store
from probes.target import Target
from tests.rounds import save_round

US = 1_000_000
HOUR_US = 3600 * US

# An RTT model: UTC µs timestamps of one run's attempts → RTTs in ms, NaN for a lost attempt.
RttModel = Callable[[np.ndarray], np.ndarray]


def utc_us(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> int:
    return int(datetime(year, month, day, hour, minute, tzinfo=UTC).timestamp()) * US


def shanghai_evening(ts: np.ndarray) -> np.ndarray:
    """20:00-23:00 Asia/Shanghai (UTC+8, no DST): 12:00-15:00 UTC."""
    hour = (ts // HOUR_US) % 24
    return (hour >= 12) & (hour < 15)


@dataclass
class StepModel:
    """A line that is `offpeak_ms` off-peak and `peak_ms` at peak (`is_peak`), plus normal noise of
    `noise_sd_ms` (seeded), losing exactly `*_loss_per_mille` attempts of every thousand on each side, spread
    evenly (the n-th attempt of a side is lost when ⌊n·k/1000⌋ steps)."""

    offpeak_ms: float
    peak_ms: float
    offpeak_loss_per_mille: int = 0
    peak_loss_per_mille: int = 0
    noise_sd_ms: float = 0.0
    is_peak: Callable[[np.ndarray], np.ndarray] = shanghai_evening
    seed: int = 7
    _counts: list[int] = field(default_factory=lambda: [0, 0])
    _rng: np.random.Generator | None = None

    def __call__(self, ts: np.ndarray) -> np.ndarray:
        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        peak = self.is_peak(ts)
        rtt = np.where(peak, self.peak_ms, self.offpeak_ms).astype(np.float64)
        if self.noise_sd_ms:
            rtt = rtt + self._rng.normal(0.0, self.noise_sd_ms, ts.size)
        out = rtt.copy()
        for i, at_peak in enumerate(peak):
            side = int(at_peak)
            k = self.peak_loss_per_mille if at_peak else self.offpeak_loss_per_mille
            n = self._counts[side]
            if (n + 1) * k // 1000 != n * k // 1000:
                out[i] = np.nan
            self._counts[side] = n + 1
        return out


@dataclass(frozen=True)
class Series:
    target: Target
    model: RttModel


def write_series(
    store: Store,
    series: Sequence[Series],
    start_us: int,
    hours: int,
    *,
    runs_per_hour: int = 4,
    attempts_per_run: int = 30,
    spacing_us: int = US,
    vantage: str | None = None,
    extra: Callable[[int], Sequence[ProbeResult]] | None = None,
) -> None:
    """One round every 60/runs_per_hour minutes over `hours` hours; in each, every series gets a run of
    `attempts_per_run` attempts `spacing_us` apart, RTTs from its model. `extra(begin_us)` may add results
    (e.g. downloads) to a round."""
    step = HOUR_US // runs_per_hour
    for k in range(hours * runs_per_hour):
        begin = start_us + k * step
        results = []
        for s in series:
            ts = begin + np.arange(attempts_per_run, dtype=np.int64) * spacing_us
            rtt = s.model(ts)
            samples = tuple(
                Sample(
                    i, int(t), None if np.isnan(r) else float(r), ErrorKind.TIMEOUT if np.isnan(r) else None
                )
                for i, (t, r) in enumerate(zip(ts, rtt, strict=True))
            )
            results.append(ProbeResult(s.target, begin, int(ts[-1]) + 1000, samples))
        if extra is not None:
            results.extend(extra(begin))
        save_round(
            store,
            results,
            started_us=begin,
            finished_us=begin + attempts_per_run * spacing_us,
            source="synthetic",
            vantage=vantage,
        )


def trace_result(target: Target, started_us: int, hop_addresses: Sequence[str]) -> ProbeResult:
    """A traceroute to 127.0.0.9 through the given router addresses (one probe per hop), classified with the
    bundled network table, as the `trace` method returns it."""
    from dataclasses import replace

    from probes.methods.trace import to_probe_result
    from probes.routes import bundled_table, classify_path
    from probes.traceroute.result import HopReply, TraceHop, TraceResult

    hops = tuple(
        TraceHop(ttl, (HopReply(0, started_us + ttl, "time-exceeded", address, 1.0 + ttl),))
        for ttl, address in enumerate(hop_addresses, start=1)
    )
    destination = TraceHop(len(hops) + 1, (HopReply(0, started_us + 99, "reached", "127.0.0.9", 150.0),))
    trace = TraceResult(
        target=target.name,
        address="127.0.0.9",
        protocol="icmp",
        port=None,
        probes_per_hop=1,
        max_hops=30,
        started_at_us=started_us,
        finished_at_us=started_us + 1000,
        hops=(*hops, destination),
    )
    verdict = classify_path(trace.path, bundled_table(), reached=True)
    return to_probe_result(target, replace(trace, verdict=verdict))


def save_traces(store: Store, target: Target, paths: Sequence[Sequence[str]], started_us: int) -> None:
    """One stored trace round per path (`trace_result`), a minute apart from `started_us`."""
    for n, hop_addresses in enumerate(paths):
        result = trace_result(target, started_us + n * 60_000_000, hop_addresses)
        save_round(
            store,
            [result],
            started_us=result.started_at_us,
            finished_us=result.finished_at_us,
            source="trace",
        )
