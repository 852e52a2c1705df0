"""The probe methods. Each is `async def measure(target, options, context) -> ProbeResult` and never raises
for anything the network or the target does: failures come back as results."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from probes.methods import download, http, icmp, iperf3, responsiveness, tcp, trace
from probes.methods._context import RunContext
from probes.results import ProbeResult
from probes.target import Method, ProbeOptions, Target

Measure = Callable[[Target, ProbeOptions, RunContext], Awaitable[ProbeResult]]

MEASURES: dict[Method, Measure] = {
    Method.ICMP: icmp.measure,
    Method.TCP: tcp.measure,
    Method.HTTP: http.measure,
    Method.DOWNLOAD: download.measure,
    Method.IPERF3: iperf3.measure,
    Method.TRACE: trace.measure,
    Method.RESPONSIVENESS: responsiveness.measure,
}

# Methods that move bulk data: they run one at a time, after the latency probes of the same round, so that
# they neither compete with each other for the office's uplink nor inflate the RTTs measured beside them
# (responsiveness loads the line on purpose, and must not measure the other targets' traffic either).
BULK_METHODS = frozenset({Method.DOWNLOAD, Method.IPERF3, Method.RESPONSIVENESS})

__all__ = ["BULK_METHODS", "MEASURES", "Measure", "RunContext"]
