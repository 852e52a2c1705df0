"""Work that must not run on the GUI thread: probing, store queries, exports.

Each job is a `QRunnable` run by the injected `Workers` pool; it reports through a small `QObject` of
signals created on the GUI thread, so its results arrive there as queued signal deliveries (a failure as
the text `desktop.app.errors.error_text` gives). Callbacks passed to `Workers.submit` should be methods of
live `QObject`s (screens), which Qt calls on their own thread.

`ProbeTask` and `SchedulerTask` run the same `probes.runner.Runner` and `probes.schedule.scheduler.Scheduler` the CLI
runs, in a child process (`desktop.app.job_process`, which says why); their pool thread only relays what the
child reports. Samples arrive faster than a screen should redraw, so they go into buffers that the screen
drains from a 2-5 Hz timer.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, Signal, Slot

from desktop.app.errors import error_text
from probes.results import ProbeResult
from probes.stats import Summary
from probes.store_location import StoreLocation, location_text
from probes.target import Method, ProbeOptions, Target

PlainSample = tuple[str, int, int, float | None, str | None]  # target key, seq, sent_at_us, rtt_ms, error


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
            self.signals.failed.emit(error_text(exc))
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


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    """A finished run: the results in target order, the stored round's id, or why it was not stored (and
    whether it waits in the spool: `outcome` "spooled", or is lost)."""

    results: list[ProbeResult]
    round_id: int | None
    store_error: str | None
    elapsed_s: float
    outcome: str | None = None  # probes.results.Outcome's value; None when nothing was to be kept

    @property
    def spooled(self) -> bool:
        return self.outcome == "spooled"


class JobProcess:
    """A `desktop.app.job_process` child: send it a job, read its frames, cancel or stop it. `prefix` is
    put before the child's command line (e.g. `ip netns exec NAME` to measure from a network namespace)."""

    def __init__(self, job: dict[str, Any], prefix: Sequence[str] = ()) -> None:
        import subprocess
        import sys
        import tempfile

        import desktop
        from desktop.i18n import chosen as chosen_language

        root = str(Path(desktop.__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        if (language := chosen_language()) is not None:  # the child words its messages as the window does
            env["LANGUAGE"] = language
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in finish())
        try:
            self.process = subprocess.Popen(
                [*prefix, sys.executable, "-m", "desktop.app.job_process"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                env=env,
            )
        except OSError:  # the command cannot be started: there is no child to finish
            self.stderr.close()
            raise
        self._lock = threading.Lock()
        self.send(job)

    def send(self, message: dict[str, Any]) -> None:
        from desktop.app.frames import JOB, write_frame

        assert self.process.stdin is not None
        with contextlib.suppress(
            BrokenPipeError, ValueError, OSError
        ):  # the child has ended: its frames say how
            write_frame(self.process.stdin, JOB, message, self._lock)

    def frames(self) -> Iterator[tuple[bytes, bytes]]:
        """The child's frames, (kind, undecoded payload), until it exits (blocking: call on a pool thread)."""
        from desktop.app.frames import read_raw_frame

        assert self.process.stdout is not None
        while (frame := read_raw_frame(self.process.stdout)) is not None:
            yield frame

    def finish(self, wait_s: float = 5.0) -> str:
        """Wait for the child to exit (kill it after `wait_s`); the tail of what it wrote to stderr."""
        import subprocess

        try:
            self.process.wait(wait_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        self.stderr.seek(0)
        tail = self.stderr.read()[-2000:].decode("utf-8", "replace").strip()
        self.stderr.close()
        return tail

    def kill_after(self, seconds: float) -> None:
        """Kill the child if it is still running after `seconds` (from any thread)."""

        def later() -> None:
            try:
                self.process.wait(seconds)
            except Exception:
                with contextlib.suppress(OSError):
                    self.process.kill()

        threading.Thread(target=later, daemon=True).start()


class ChildTaskSignals(QObject):
    finished = Signal(object)  # the child's "done" report
    cancelled = Signal()
    failed = Signal(str)


class ChildTask(QRunnable):
    """A job run to its end in a `desktop.app.job_process` child (a probe run, a trace): the pool thread only
    relays the child's frames, undecoded (it must not hold the GIL); the screen decodes them on the GUI
    thread from its redraw timer (a subclass's `collect`, through `_collected`). The terminal frame fires
    `finished` (with the child's report), `cancelled` or `failed`. `prefix` starts the child inside another
    command (see `JobProcess`); `activity` names the child in failure messages ("probing")."""

    def activity(self) -> str:
        return QCoreApplication.translate("Workers", "measuring")

    def __init__(self, job: dict[str, Any], prefix: Sequence[str] = ()) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.job = job
        self.prefix = tuple(prefix)
        self.signals = ChildTaskSignals()
        self._frames: collections.deque[tuple[bytes, bytes]] = collections.deque()
        self._lock = threading.Lock()
        self._child: JobProcess | None = None
        self._cancel_requested = False

    def cancel(self) -> None:
        """Stop the job (from any thread): nothing of it is stored, `cancelled` fires."""
        with self._lock:
            self._cancel_requested = True
            child = self._child
        if child is not None:
            child.send({"cancel": True})
            child.kill_after(10.0)

    @property
    def backlog(self) -> int:
        """Frames received but not collected yet."""
        return len(self._frames)

    def _collected(self, budget_s: float) -> Iterator[tuple[bytes, bytes]]:
        """The frames received since the last call, until `budget_s` of decoding has passed (the rest waits
        for the next call, so a burst is spread over several refreshes instead of freezing one)."""
        import time

        deadline = time.perf_counter() + budget_s
        while time.perf_counter() < deadline:
            try:
                yield self._frames.popleft()
            except IndexError:
                return

    def run(self) -> None:
        from desktop.app.frames import CANCELLED, DONE, ERROR, TERMINAL, decode

        try:
            child = JobProcess(self.job, self.prefix)
        except OSError as exc:
            self.signals.failed.emit(
                QCoreApplication.translate(
                    "Workers", "could not start the {activity} process: {reason}"
                ).format(activity=self.activity(), reason=exc)
            )
            return
        with self._lock:
            self._child = child
            if self._cancel_requested:
                child.send({"cancel": True})
        ending: tuple[bytes, Any] | None = None
        for kind, data in child.frames():
            if kind in TERMINAL:
                ending = (kind, decode(data))
            else:
                self._frames.append((kind, data))  # no decoding here: this thread must not hold the GIL
        errors = child.finish()
        if ending is None:
            self.signals.failed.emit(
                QCoreApplication.translate(
                    "Workers", "the {activity} process ended unexpectedly: {reason}"
                ).format(
                    activity=self.activity(),
                    reason=errors or QCoreApplication.translate("Workers", "no message"),
                )
            )
        elif ending[0] == CANCELLED:
            self.signals.cancelled.emit()
        elif ending[0] == ERROR:
            self.signals.failed.emit(str(ending[1]))
        elif ending[0] == DONE:
            self.signals.finished.emit(ending[1])


class ProbeTask(ChildTask):
    """One run of the runner over `targets` in a child process, saved to the store at `db_path` if given;
    the screen calls `collect()` from its redraw timer and `outcome()` once `finished` fired."""

    def activity(self) -> str:
        return QCoreApplication.translate("Workers", "probing")

    def __init__(
        self,
        targets: Sequence[Target],
        options: ProbeOptions | Mapping[Method, ProbeOptions],
        db_path: StoreLocation | None,
        *,
        concurrency: int = 256,
        gap_ms: float = 1.0,
        source: str = "probe",
    ) -> None:
        super().__init__(
            {
                "kind": "probe",
                "targets": list(targets),
                "options": options if isinstance(options, ProbeOptions) else dict(options),
                "db_path": None if db_path is None else location_text(db_path),
                "concurrency": concurrency,
                "gap_ms": gap_ms,
                "source": source,
            }
        )
        self.done = 0  # targets finished so far (as collected)
        self._results: dict[int, ProbeResult] = {}

    def collect(
        self, budget_s: float = 0.004
    ) -> tuple[list[PlainSample], dict[str, Summary], list[ProbeResult]]:
        """Decode what arrived since the last call (within `budget_s`): samples, the live summaries, finished
        targets' results."""
        from desktop.app.frames import FINISHED, SAMPLES, decode, result_of, summary_of

        samples: list[PlainSample] = []
        summaries: dict[str, Summary] = {}
        finished: list[ProbeResult] = []
        for kind, data in self._collected(budget_s):
            if kind == SAMPLES:
                batch, live = decode(data)
                samples.extend(batch)
                summaries.update({key: summary_of(value) for key, value in live.items()})
            elif kind == FINISHED:
                for number, plain in decode(data):
                    result = result_of(plain)
                    self._results[number] = result
                    finished.append(result)
        self.done = len(self._results)
        return samples, summaries, finished

    def outcome(self, done: dict[str, Any]) -> ProbeOutcome:
        """The whole run, once `finished` fired with the child's report (call `collect()` first)."""
        return ProbeOutcome(
            [self._results[number] for number in done["order"]],
            done["round_id"],
            done["store_error"],
            done["elapsed_s"],
            done.get("outcome"),
        )


class SchedulerSignals(QObject):
    round_done = Signal(object)  # probes.schedule.scheduler.RoundReport
    notice = Signal(str)  # the store cannot be reached: rounds wait in the spool until it is back
    stopped = Signal(int)  # rounds stored
    failed = Signal(str)


class SchedulerTask(QRunnable):
    """`linkvet schedule` inside the app: `probes.schedule.scheduler.Scheduler.run_until` in a child process until
    `stop()`; the round in flight gets `grace_s` to finish, else it is dropped (never half-stored)."""

    def __init__(self, plan: Any, db_path: StoreLocation, *, grace_s: float = 10.0) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.plan = plan
        self.job = {
            "kind": "schedule",
            "plan_path": plan.path,
            "db_path": location_text(db_path),
            "grace_s": grace_s,
        }
        self.grace_s = grace_s
        self.signals = SchedulerSignals()
        self._lock = threading.Lock()
        self._child: JobProcess | None = None
        self._stop_requested = False

    def stop(self, grace_s: float | None = None) -> None:
        """Ask the scheduler to stop (from any thread); after the grace period its round is dropped."""
        with self._lock:
            self._stop_requested = True
            child = self._child
        if child is not None:
            child.send({"stop": True})
            child.kill_after((self.grace_s if grace_s is None else grace_s) + 5.0)

    def run(self) -> None:
        from desktop.app.frames import ERROR, NOTICE, ROUND, STOPPED, decode, report_of

        try:
            child = JobProcess(self.job)
        except OSError as exc:
            self.signals.failed.emit(
                QCoreApplication.translate(
                    "Workers", "could not start the scheduler process: {reason}"
                ).format(reason=exc)
            )
            return
        with self._lock:
            self._child = child
            if self._stop_requested:
                child.send({"stop": True})
        ending: tuple[bytes, Any] | None = None
        for kind, data in child.frames():
            if kind == ROUND:  # one frame per round (minutes apart): decoded here
                self.signals.round_done.emit(report_of(decode(data)))
            elif kind == NOTICE:
                self.signals.notice.emit(str(decode(data)))
            else:
                ending = (kind, decode(data))
        errors = child.finish()
        if ending is not None and ending[0] == STOPPED:
            self.signals.stopped.emit(int(ending[1]))
        elif ending is not None and ending[0] == ERROR:
            self.signals.failed.emit(str(ending[1]))
        elif self._stop_requested:
            self.signals.stopped.emit(0)  # killed after the grace period: the round in flight was dropped
        else:
            self.signals.failed.emit(
                QCoreApplication.translate(
                    "Workers", "the scheduler process ended unexpectedly: {reason}"
                ).format(reason=errors or QCoreApplication.translate("Workers", "no message"))
            )
