"""What the runner lends every method for one run: the pacer, the probe backend and its shared ICMP engine,
the sample hook.

`on_sample` hears of every attempt's sample: the run keeps them (a target that overruns its time budget still
reports what it measured) and passes them on to whoever watches the run live (the window). `watched` says
whether anyone does: without, a method whose attempts finish in bulk (ICMP echo trains) may hand its samples to
`on_sample` only if it is given up before its end, instead of one call per attempt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from probes.backends.base import EchoEngine, ProbeBackend
from probes.pacing import Pacer
from probes.results import Sample
from probes.target import Target

SampleHook = Callable[[Target, Sample], None]


@dataclass
class RunContext:
    pacer: Pacer
    icmp: EchoEngine
    backend: ProbeBackend
    on_sample: SampleHook | None = None
    iperf3_binary: str = "iperf3"
    watched: bool = True
    extra: dict[str, object] = field(default_factory=dict)

    def emit(self, target: Target, sample: Sample) -> None:
        if self.on_sample is not None:
            self.on_sample(target, sample)
