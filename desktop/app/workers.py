"""Work that must not run on the GUI thread: probing, store queries, exports.

Each job is a `QRunnable` run by the injected `Workers` pool; it reports through a small `QObject` of
signals created on the GUI thread, so its results arrive there as queued signal deliveries. Callbacks passed
to `Workers.submit` should be methods of live `QObject`s (screens), which Qt calls on their own thread.

`ProbeTask` runs the same `probes.runner.Runner` the CLI runs, in its own asyncio event loop on a pool
thread, then saves the round to the store as `linkvet probe` does. Samples arrive faster than a screen should
redraw, so they go into a `SampleBuffer` that the screen drains from a 2-5 Hz timer; per-target progress
comes as a signal.
"""

from __future__ import annotations

import asyncio
import collections
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from probes.results import ProbeResult, Sample
from probes.target import Method, ProbeOptions, Target


def describe_error(exc: BaseException) -> str:
    """One line a user can act on: our own errors already say what and where; others get their type."""
    from probes.errors import ProbesError

    if isinstance(exc, ProbesError | ValueError | OSError):
        return str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {exc}"


class TaskSignals(QObject):
    finished = Signal(object)
    failed = Signal(str)


class FunctionTask(QRunnable):
    """Calls `fn(*args, **kwargs)` on a pool thread; `finished(result)` or `failed(message)`."""

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.signals = TaskSignals()

    def run(self) -> None:
        try:
            result = self.fn(*self.args, **self.kwargs)
        except Exception as exc:
            traceback.print_exc()
            self.signals.failed.emit(describe_error(exc))
        else:
            self.signals.finished.emit(result)


class Workers(QObject):
    """The thread pool the screens share (injected, never a global), keeping each task alive until done."""

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = pool if pool is not None else QThreadPool(self)
        if self.pool.maxThreadCount() < 4:
            self.pool.setMaxThreadCount(4)
        self._alive: dict[QObject, QRunnable] = {}

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        **kwargs: Any,
    ) -> FunctionTask:
        task = FunctionTask(fn, *args, **kwargs)
        if on_done is not None:
            task.signals.finished.connect(on_done)
        if on_error is not None:
            task.signals.failed.connect(on_error)
        self.start(task, task.signals, task.signals.finished, task.signals.failed)
        return task

    def start(self, task: QRunnable, signals: QObject, *ends: Any) -> None:
        """Run `task`; keep it referenced until one of the `ends` signals (of `signals`) arrives here."""
        self._alive[signals] = task
        for end in ends:
            end.connect(self._forget)
        self.pool.start(task)

    @Slot()
    def _forget(self, *_: object) -> None:
        self._alive.pop(self.sender(), None)

    @property
    def busy(self) -> int:
        return len(self._alive)

    def wait(self, msecs: int = 30_000) -> bool:
        return bool(self.pool.waitForDone(msecs))


class SampleBuffer:
    """Samples handed over from the probing thread; `drain()` takes everything added so far."""

    def __init__(self) -> None:
        self._items: collections.deque[tuple[Target, Sample]] = collections.deque()

    def append(self, target: Target, sample: Sample) -> None:
        self._items.append((target, sample))  # deque.append is atomic: safe from another thread

    def drain(self) -> list[tuple[Target, Sample]]:
        out = []
        while True:
            try:
                out.append(self._items.popleft())
            except IndexError:
                return out

    def __len__(self) -> int:
        return len(self._items)


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    """A finished run: the results in target order, the stored round's id, or why it was not stored."""

    results: list[ProbeResult]
    round_id: int | None
    store_error: str | None
    elapsed_s: float


class ProbeSignals(QObject):
    progress = Signal(object)  # probes.runner.Progress
    finished = Signal(object)  # ProbeOutcome
    cancelled = Signal()
    failed = Signal(str)


class ProbeTask(QRunnable):
    """One run of the runner over `targets`, optionally saved to the store at `db_path`."""

    def __init__(
        self,
        targets: Sequence[Target],
        options: ProbeOptions | Mapping[Method, ProbeOptions],
        db_path: Path | None,
        *,
        concurrency: int = 256,
        gap_ms: float = 1.0,
        source: str = "probe",
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.targets = list(targets)
        self.options = options
        self.db_path = db_path
        self.concurrency = concurrency
        self.gap_ms = gap_ms
        self.source = source
        self.samples = SampleBuffer()
        self.signals = ProbeSignals()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[list[ProbeResult]] | None = None
        self._cancel_requested = False

    def cancel(self) -> None:
        """Stop the run (from any thread): nothing of it is stored, `cancelled` fires."""
        with self._lock:
            self._cancel_requested = True
            if self._loop is not None and self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)

    def run(self) -> None:
        import time

        from probes.runner import Runner

        started = time.monotonic()
        runner = Runner(
            self.options,
            concurrency=self.concurrency,
            gap_ms=self.gap_ms,
            progress=self.signals.progress.emit,
            on_sample=self.samples.append,
        )
        loop = asyncio.new_event_loop()
        try:
            task = loop.create_task(runner.run(self.targets))
            with self._lock:
                self._loop, self._task = loop, task
                if self._cancel_requested:
                    task.cancel()
            try:
                results = loop.run_until_complete(task)
            except asyncio.CancelledError:
                self.signals.cancelled.emit()
                return
        except Exception as exc:
            traceback.print_exc()
            self.signals.failed.emit(describe_error(exc))
            return
        finally:
            with self._lock:
                self._loop = self._task = None
            loop.close()
        round_id, store_error = None, None
        if self.db_path is not None and results:
            try:
                round_id = save_probe_round(self.db_path, results, self.source)
            except Exception as exc:
                store_error = describe_error(exc)
        self.signals.finished.emit(ProbeOutcome(results, round_id, store_error, time.monotonic() - started))


def save_probe_round(db_path: Path, results: Sequence[ProbeResult], source: str = "probe") -> int:
    """Store one finished run as `linkvet probe` does (one round: results, samples and rollups)."""
    from probes.store import Store, run_metadata

    privileged = next((r.metrics.get("privileged") for r in results if "privileged" in r.metrics), None)
    meta = run_metadata(None if privileged is None else bool(privileged))
    meta["interface"] = "gui"
    with Store(db_path) as store:
        return store.save_round(
            results,
            started_us=min(r.started_at_us for r in results),
            finished_us=max(r.finished_at_us for r in results),
            source=source,
            meta=meta,
        )


class SchedulerSignals(QObject):
    round_done = Signal(object)  # probes.scheduler.RoundReport
    stopped = Signal(int)  # rounds stored
    failed = Signal(str)


class SchedulerTask(QRunnable):
    """`linkvet schedule` inside the app: `probes.scheduler.Scheduler.run_until` on a pool thread until
    `stop()`; the round in flight gets `grace_s` to finish, else it is dropped (never half-stored)."""

    def __init__(self, plan: Any, db_path: Path, *, grace_s: float = 10.0) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.plan = plan
        self.db_path = db_path
        self.grace_s = grace_s
        self.signals = SchedulerSignals()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._stop_requested = False

    def stop(self, grace_s: float | None = None) -> None:
        """Ask the scheduler to stop (from any thread)."""
        with self._lock:
            if grace_s is not None:
                self.grace_s = grace_s
            self._stop_requested = True
            if self._loop is not None and self._stop is not None:
                self._loop.call_soon_threadsafe(self._stop.set)

    def run(self) -> None:
        from probes.scheduler import Scheduler
        from probes.store import Store

        loop = asyncio.new_event_loop()
        try:
            with Store(self.db_path) as store:
                scheduler = Scheduler(self.plan, store)

                async def main() -> int:
                    stop = asyncio.Event()
                    with self._lock:
                        self._loop, self._stop = loop, stop
                        if self._stop_requested:
                            stop.set()
                    return await scheduler.run_until(
                        stop, grace_s=self.grace_s, on_round=self.signals.round_done.emit
                    )

                stored = loop.run_until_complete(main())
        except Exception as exc:
            traceback.print_exc()
            self.signals.failed.emit(describe_error(exc))
            return
        finally:
            with self._lock:
                self._loop = self._stop = None
            loop.close()
        self.signals.stopped.emit(stored)
