"""The Routes screen's trace off the GUI thread: `desktop.app.trace_job` in the probing child process
(`desktop.app.workers.JobProcess`), whose frames a pool thread only relays; the screen's refresh timer
decodes them (`collect`) on the GUI thread, as the Probe screen does with `ProbeTask`."""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Signal

from desktop.app.workers import JobProcess
from probes.target import Target


class TraceSignals(QObject):
    finished = Signal(object)  # the child's "done" report (merged verdicts, claim checks, store error)
    cancelled = Signal()
    failed = Signal(str)


class TraceTask(QRunnable):
    """Trace each of `targets` `traces` times with `options` (TraceOptions' fields), storing the traces at
    `db_path` when given. `prefix` starts the child inside another command (see `JobProcess`)."""

    def __init__(
        self,
        targets: Sequence[Target],
        options: dict[str, Any],
        traces: int,
        *,
        claimed: str | None,
        db_path: Path | None,
        vantage: str | None = None,
        networks: Path | None = None,
        prefix: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.job = {
            "kind": "trace",
            "targets": [t.as_dict() for t in targets],
            "options": dict(options),
            "traces": traces,
            "claimed": claimed,
            "db_path": None if db_path is None else str(db_path),
            "vantage": vantage,
            "networks": None if networks is None else str(networks),
        }
        self.prefix = tuple(prefix)
        self.signals = TraceSignals()
        self._frames: collections.deque[tuple[bytes, bytes]] = collections.deque()
        self._lock = threading.Lock()
        self._child: JobProcess | None = None
        self._cancel_requested = False

    def cancel(self) -> None:
        """Stop tracing (from any thread): nothing of it is stored, `cancelled` fires."""
        with self._lock:
            self._cancel_requested = True
            child = self._child
        if child is not None:
            child.send({"cancel": True})
            child.kill_after(10.0)

    @property
    def backlog(self) -> int:
        return len(self._frames)

    def collect(
        self, budget_s: float = 0.004
    ) -> tuple[list[tuple[Any, ...]], list[tuple[int, int, dict[str, Any]]]]:
        """Decode what arrived since the last call, within `budget_s`: the answers (H frames' tuples) and
        the traces that ended ((target number, trace number, TraceResult.as_dict()))."""
        from desktop.app.job_process import decode
        from desktop.app.trace_job import HOPS, TRACE

        replies: list[tuple[Any, ...]] = []
        ended: list[tuple[int, int, dict[str, Any]]] = []
        deadline = time.perf_counter() + budget_s
        while time.perf_counter() < deadline:
            try:
                kind, data = self._frames.popleft()
            except IndexError:
                break
            if kind == HOPS:
                replies.extend(decode(data))
            elif kind == TRACE:
                ended.append(decode(data))
        return replies, ended

    def run(self) -> None:
        from desktop.app.job_process import CANCELLED, DONE, ERROR, TERMINAL, decode

        try:
            child = JobProcess(self.job, self.prefix)
        except OSError as exc:
            self.signals.failed.emit(f"could not start the tracing process: {exc}")
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
                self._frames.append((kind, data))
        errors = child.finish()
        if ending is None:
            self.signals.failed.emit(f"the tracing process ended unexpectedly: {errors or 'no message'}")
        elif ending[0] == CANCELLED:
            self.signals.cancelled.emit()
        elif ending[0] == ERROR:
            self.signals.failed.emit(str(ending[1]))
        elif ending[0] == DONE:
            self.signals.finished.emit(ending[1])
