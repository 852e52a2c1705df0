"""A synthetic route history written through the real store: a region traced every few hours whose line falls
from CN2 GIA (59.43.x.x hops) to ChinaNet 163 (202.97.x.x) at a given moment, with echo rounds whose RTT
grows when it does, for the Routes screen's tests and the README screenshots. The paths are invented; each
trace is classified by the real classifier with the bundled network table, as `linkvet trace` would."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from probes.methods.trace import to_probe_result
from probes.results import ProbeResult, Sample
from probes.routes import PathHop, bundled_table, classify_path
from probes.store import Store
from probes.target import Method, Target
from probes.traceroute.result import HopReply, TraceHop, TraceResult
from tests.rounds import save_round

REGION = {"provider": "raksmart", "region": "san-jose", "line_type": "cn2-gia"}
HOST = "198.18.10.5"
TRACE_TARGET = Target(Method.TRACE, host=HOST, name="raksmart San Jose · CN2 GIA", **REGION)
ECHO_TARGET = Target(Method.ICMP, host=HOST, name="raksmart San Jose · CN2 GIA", **REGION)
GIA_PATH = ("198.18.0.254", "59.43.180.1", "59.43.182.37", HOST)
N163_PATH = ("198.18.0.254", "202.97.50.1", "202.97.94.121", HOST)


def build_trace(moment: datetime, path: Sequence[str], rtt_ms: float, probes: int = 3) -> TraceResult:
    """A trace of `path` (one address per TTL, the last the destination), `probes` per hop."""
    table = bundled_table()
    start_us = int(moment.timestamp() * 1_000_000)
    hops = []
    for ttl, address in enumerate(path, start=1):
        last = ttl == len(path)
        replies = tuple(
            HopReply(
                probe,
                start_us + (probe * len(path) + ttl) * 1000,
                "reached" if last else "time-exceeded",
                address,
                rtt_ms * ttl / len(path) + 0.3 * probe,
            )
            for probe in range(probes)
        )
        hops.append(TraceHop(ttl, replies, ((address, table.lookup(address)),)))
    verdict = classify_path([PathHop(h.ttl, h.addresses) for h in hops], table, reached=True)
    return TraceResult(
        target=TRACE_TARGET.name,
        address=HOST,
        protocol="icmp",
        port=None,
        probes_per_hop=probes,
        max_hops=30,
        started_at_us=start_us,
        finished_at_us=start_us + 2_000_000,
        hops=tuple(hops),
        privileged=True,
        verdict=verdict,
    )


def write_route_history(
    path: Path, *, start: datetime, change_at: datetime, days: float = 7, every_h: float = 3
) -> list[datetime]:
    """Trace the region every `every_h` hours for `days` from `start` (CN2 GIA before `change_at`, 163 from
    then on) and ping it at the same moments; the trace times."""
    rng = np.random.default_rng(11)
    moments = []
    moment = start
    with Store(path) as store:
        while moment < start + timedelta(days=days):
            fallen = moment >= change_at
            rtt = (178.0 if fallen else 134.0) + float(rng.normal(0, 2.0))
            trace = build_trace(moment, N163_PATH if fallen else GIA_PATH, rtt)
            start_us = trace.started_at_us
            save_round(
                store,
                [to_probe_result(TRACE_TARGET, trace)],
                started_us=start_us,
                finished_us=trace.finished_at_us,
                source="trace",
            )
            samples = tuple(
                Sample(i, start_us + 5_000_000 + i * 1_000_000, rtt + abs(float(rng.normal(0, 1.5))))
                for i in range(10)
            )
            echoes = ProbeResult(ECHO_TARGET, start_us + 5_000_000, start_us + 15_000_000, samples)
            save_round(
                store,
                [echoes],
                started_us=start_us + 5_000_000,
                finished_us=start_us + 15_000_000,
                source="synthetic",
            )
            moments.append(moment)
            moment += timedelta(hours=every_h)
    return moments
