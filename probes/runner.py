"""Runs many targets at once: bounded concurrency, paced sends, one shared ICMP socket per family, a
progress hook, and cancellation that returns nothing half-done. The probe backend (`probes.backends`) is
chosen when the runner is made: this platform's, or the one `backend=` or LINKVET_PROBE_BACKEND names.

    results = run(targets, ProbeOptions(count=10), progress=print)

Latency methods (icmp, tcp, http) run concurrently; bulk methods (download, iperf3, responsiveness) run
afterwards, one at a time, so they neither compete for the uplink nor inflate the RTTs measured beside them.

ICMP targets at IP addresses (no name to resolve), where this machine may send ICMP, need no task of their own:
one coroutine hands their echo trains to the engine as the concurrency limit lets it and makes each result
when its train ends (`_measure_trains`). A task, its coroutines and its timeout cost ~50 µs of CPU and ~5 KB a
target, which at 10,000 targets is half a second and 50 MB; the rules are the same (the budget, what a target
given up keeps, an internal error's result).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from probes.backends import ProbeBackend, choose_backend
from probes.errors import ErrorKind
from probes.i18n import _
from probes.methods import BULK_METHODS, MEASURES, RunContext
from probes.methods._context import SampleHook
from probes.pacing import Pacer
from probes.resolve import Resolved, resolve_literal
from probes.results import ProbeResult, Progress, ProgressHook, Sample
from probes.target import Method, ProbeOptions, Target
from probes.timestamps import now_us

if TYPE_CHECKING:
    from probes.icmp.echoes import EchoOutcome

log = logging.getLogger("linkvet.runner")

DEFAULT_CONCURRENCY = 256
DEFAULT_GAP_MS = 1.0  # fping's `-i 1`: at most one packet per millisecond across all targets
_DEADLINE_SLACK_S = 30.0


OptionsLike = ProbeOptions | Mapping[Method, ProbeOptions]


class Runner:
    """Measures a list of targets; reusable across rounds (each `run` opens and closes its own sockets)."""

    def __init__(
        self,
        options: OptionsLike | None = None,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        gap_ms: float = DEFAULT_GAP_MS,
        privileged: bool | None = None,
        progress: ProgressHook | None = None,
        on_sample: SampleHook | None = None,
        iperf3_binary: str = "iperf3",
        backend: str | ProbeBackend | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.backend = choose_backend(backend)  # ProbeBackendError for a name that cannot run here
        self.options = options if options is not None else ProbeOptions()
        self.concurrency = concurrency
        self.gap_ms = gap_ms
        self.privileged = privileged
        self.progress = progress
        self.on_sample = on_sample
        self.iperf3_binary = iperf3_binary

    def options_for(self, method: Method) -> ProbeOptions:
        if isinstance(self.options, ProbeOptions):
            return self.options
        return self.options.get(method) or ProbeOptions()

    async def run(self, targets: Sequence[Target]) -> list[ProbeResult]:
        """Measure every target; results in the order of `targets`. Cancelling returns nothing."""
        started = time.monotonic()
        total = len(targets)
        results: list[ProbeResult | None] = [None] * total
        done = 0

        def finished(index: int, result: ProbeResult) -> None:
            nonlocal done
            results[index] = result
            done += 1
            if self.progress is not None:
                self.progress(Progress(done, total, result, time.monotonic() - started))

        # Every method the round needs is imported now, before any measurement is in flight: importing one
        # mid-round (httpx for the first HTTP target) holds the event loop up for as long as it takes, and
        # a refusal, timed when the loop sees it, would read that much later (or past its timeout: lost).
        for method in {t.method for t in targets}:
            MEASURES.load(method)
        if self.progress is not None:
            self.progress(Progress(0, total, None, 0.0))
        # Every attempt's sample is also kept here, so a target that overruns its time budget still
        # reports what it measured.
        taken: dict[int, list[Sample]] = {}  # by id(target): the run holds every target

        def collect(target: Target, sample: Sample) -> None:
            taken.setdefault(id(target), []).append(sample)
            if self.on_sample is not None:
                self.on_sample(target, sample)

        latency = [(i, t) for i, t in enumerate(targets) if t.method not in BULK_METHODS]
        bulk = [(i, t) for i, t in enumerate(targets) if t.method in BULK_METHODS]
        # A target may wait for its turn behind every other packet of the run: that is part of its budget.
        pacing_s = sum(self.options_for(t.method).count for _i, t in latency) * self.gap_ms / 1000.0
        async with self.backend.open_icmp(self.privileged) as engine:
            ctx = RunContext(
                Pacer(self.gap_ms / 1000.0),
                engine,
                self.backend,
                collect,
                self.iperf3_binary,
                watched=self.on_sample is not None,
            )
            limit = asyncio.Semaphore(self.concurrency)

            async def one(index: int, target: Target) -> None:
                async with limit:
                    finished(index, await self._measure(target, ctx, pacing_s, taken))

            trains, tasked = _trains_and_tasks(latency, ctx)
            async with asyncio.TaskGroup() as group:
                if trains:
                    group.create_task(self._measure_trains(trains, ctx, limit, pacing_s, finished))
                for index, target in tasked:
                    group.create_task(one(index, target))
            for index, target in bulk:
                finished(index, await self._measure(target, ctx, 0.0, taken))
        return [r for r in results if r is not None]

    async def _measure(
        self, target: Target, ctx: RunContext, pacing_s: float, taken: dict[int, list[Sample]]
    ) -> ProbeResult:
        options = self.options_for(target.method)
        started = now_us()
        budget = _budget_s(target.method, options) + pacing_s
        try:
            async with asyncio.timeout(budget):
                return await MEASURES[target.method](target, options, ctx)
        except TimeoutError:
            samples = sorted(taken.get(id(target), ()), key=lambda s: s.seq)
            return _given_up(target, started, budget, samples, options.count)
        except Exception as exc:  # a fault in a method must not cost the round the other targets' results
            return _internal_error(target, started, exc)

    async def _measure_trains(
        self,
        trains: list[tuple[int, Target, Resolved]],
        ctx: RunContext,
        limit: asyncio.Semaphore,
        pacing_s: float,
        finished: Callable[[int, ProbeResult], None],
    ) -> None:
        """ICMP targets at IP addresses: each one's train handed to the engine as soon as the concurrency limit
        lets it, its result made when it ends (see the module's docstring). A train still going at its
        target's deadline (the budget, as `_measure` gives it) is given up, keeping what finished."""
        from probes.methods.icmp import EchoTrain

        loop = asyncio.get_running_loop()
        options = self.options_for(Method.ICMP)
        budget = _budget_s(Method.ICMP, options) + pacing_s
        going: dict[int, EchoTrain] = {}  # by index
        deadlines: deque[tuple[float, int]] = deque()  # one budget for all: in the order they started
        everything: asyncio.Future[None] = loop.create_future()
        left = len(trains)
        abandoned = False
        watchdog: asyncio.TimerHandle | None = None

        def ended(index: int, train: EchoTrain, future: asyncio.Future[list[EchoOutcome]]) -> None:
            nonlocal left
            going.pop(index, None)
            limit.release()
            if abandoned:  # the run was cancelled: it returns nothing
                return
            if future.cancelled():
                result = _given_up(
                    train.target, train.started_us, budget, train.finished_samples(), options.count
                )
            else:
                try:
                    result = train.result(future.result())
                except Exception as exc:  # a fault (the engine's thread failed) costs this target alone
                    result = _internal_error(train.target, train.started_us, exc)
            try:
                finished(index, result)
            except Exception as exc:  # the progress hook's: the run fails with it, as a task's would
                if not everything.done():
                    everything.set_exception(exc)
                return
            left -= 1
            if left == 0 and not everything.done():
                everything.set_result(None)

        def expire() -> None:
            nonlocal watchdog
            now = loop.time()
            while deadlines and deadlines[0][0] <= now:
                train = going.get(deadlines.popleft()[1])
                if train is not None:
                    train.future.cancel()  # the engine sends no more of it; `ended` makes its result
            watchdog = loop.call_at(deadlines[0][0], expire) if deadlines else None

        try:
            for index, target, resolved in trains:
                await limit.acquire()
                started = now_us()
                try:
                    train = EchoTrain.start(target, options, ctx, resolved, started)
                except Exception as exc:  # as in `_measure`: this target's result says so, the others go on
                    limit.release()
                    finished(index, _internal_error(target, started, exc))
                    left -= 1
                    continue
                going[index] = train
                deadlines.append((loop.time() + budget, index))
                if watchdog is None:
                    watchdog = loop.call_at(deadlines[0][0], expire)
                train.future.add_done_callback(functools.partial(ended, index, train))
            if left:
                await everything
        except asyncio.CancelledError:
            abandoned = True
            for train in list(going.values()):
                train.future.cancel()
            raise
        finally:
            if watchdog is not None:
                watchdog.cancel()


def _trains_and_tasks(
    latency: list[tuple[int, Target]], ctx: RunContext
) -> tuple[list[tuple[int, Target, Resolved]], list[tuple[int, Target]]]:
    """The ICMP targets at IP addresses whose family this machine may send ICMP to (their trains need no task),
    and the other latency targets (a task each: names to resolve, the TCP fallback where ICMP is refused)."""
    trains: list[tuple[int, Target, Resolved]] = []
    tasked: list[tuple[int, Target]] = []
    permitted: dict[int, bool] = {}
    for index, target in latency:
        resolved = resolve_literal(target.host) if target.method is Method.ICMP and target.host else None
        if resolved is not None:
            if resolved.family not in permitted:
                try:
                    ctx.icmp.privileged(resolved.family)
                    permitted[resolved.family] = True
                except Exception:  # not permitted, or no socket: each target's task says why (or falls back)
                    permitted[resolved.family] = False
            if permitted[resolved.family]:
                trains.append((index, target, resolved))
                continue
        tasked.append((index, target))
    return trains, tasked


def _given_up(
    target: Target, started: int, budget: float, samples: Sequence[Sample], count: int
) -> ProbeResult:
    """The result of a target past its time budget: what had finished is kept."""
    return ProbeResult(
        target,
        started,
        now_us(),
        samples=tuple(samples),
        error=ErrorKind.DEADLINE,
        message=_(
            "gave up after {seconds} s (the target's overall time budget); {done} of {count} "
            "attempts had finished and are kept"
        ).format(seconds=f"{budget:.0f}", done=len(samples), count=count),
    )


def _internal_error(target: Target, started: int, exc: Exception) -> ProbeResult:
    """The result of a target whose method failed (called where `exc` is being handled: the log has its
    traceback)."""
    log.exception(
        _("internal error measuring {target} with {method}").format(target=target.name, method=target.method)
    )
    return ProbeResult(
        target,
        started,
        now_us(),
        error=ErrorKind.INTERNAL,
        message=_(
            "internal error in linkvet's {method} probe: {error}: {reason} (please report it; the "
            "traceback is in the log)"
        ).format(method=target.method, error=type(exc).__name__, reason=exc),
    )


def _budget_s(method: Method, options: ProbeOptions) -> float:
    """A safety net above every method's own per-attempt timeouts and caps."""
    per_attempt = options.interval_s + options.timeout_s
    if method is Method.DOWNLOAD:
        per_attempt += options.download_max_seconds + options.timeout_s
    elif method is Method.IPERF3:
        per_attempt += 2 * (options.iperf3_seconds + options.iperf3_omit_s + options.timeout_s + 5)
    elif method is Method.HTTP:
        per_attempt += 4 * options.timeout_s * (options.http_max_redirects + 1)
    elif method is Method.RESPONSIVENESS:
        # Idle phase (twice, when ICMP goes unanswered and TCP takes over), then each direction's load
        # with its connect and response waits, then the last probes' timeout.
        load = options.download_max_seconds + 4 * options.timeout_s
        per_attempt += 2 * options.load_idle_s + 2 * load + options.timeout_s
    elif method is Method.TRACE:
        # Rounds `interval_s` apart, and round 0 may wait out a timeout per few silent hops.
        return options.count * per_attempt + options.trace_max_hops * options.timeout_s + _DEADLINE_SLACK_S
    return options.count * per_attempt + _DEADLINE_SLACK_S


def run(
    targets: Sequence[Target], options: OptionsLike | None = None, **runner_args: object
) -> list[ProbeResult]:
    """Measure `targets` in a new event loop (for scripts and tests; the CLI and GUI use `Runner`)."""
    runner = Runner(options, **runner_args)  # type: ignore[arg-type]
    return asyncio.run(runner.run(targets))
