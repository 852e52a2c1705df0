"""The probe methods. Each is `async def measure(target, options, context) -> ProbeResult` and never raises
for anything the network or the target does: failures come back as results.

`MEASURES[method]` imports a method's module on first use, so that a run of pings does not load httpx."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable

from probes.methods._context import RunContext
from probes.results import ProbeResult
from probes.target import Method, ProbeOptions, Target

Measure = Callable[[Target, ProbeOptions, RunContext], Awaitable[ProbeResult]]

_MODULES = {
    Method.ICMP: "icmp",
    Method.TCP: "tcp",
    Method.HTTP: "http",
    Method.DOWNLOAD: "download",
    Method.IPERF3: "iperf3",
    Method.TRACE: "trace",
    Method.RESPONSIVENESS: "responsiveness",
}


class _Measures(dict[Method, Measure]):
    """Method → its `measure`, the module imported when first asked for."""

    def __missing__(self, method: Method) -> Measure:
        module = importlib.import_module(f"probes.methods.{_MODULES[method]}")
        measure: Measure = module.measure
        self[method] = measure
        return measure

    def load(self, method: Method) -> None:
        """Import the method's module now (a run does, for each of its methods, before measuring)."""
        if method not in self:
            self.__missing__(method)


MEASURES = _Measures()

# Methods that move bulk data: they run one at a time, after the latency probes of the same round, so that
# they neither compete with each other for the office's uplink nor inflate the RTTs measured beside them
# (responsiveness loads the line on purpose, and must not measure the other targets' traffic either).
BULK_METHODS = frozenset({Method.DOWNLOAD, Method.IPERF3, Method.RESPONSIVENESS})

__all__ = ["BULK_METHODS", "MEASURES", "Measure", "RunContext"]
