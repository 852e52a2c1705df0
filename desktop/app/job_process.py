"""Probing and scheduling for the desktop app, in a child process (no Qt here).

Why a process, and why plain frames. Probing is Python work (the runner, the ICMP engine, a callback per
reply). In a thread of the GUI process it shares the interpreter lock with the GUI thread, whose every paint
calls back into Python hundreds of times and then queues behind it: with 200 targets the window stalled for
hundreds of milliseconds. So the child runs exactly what the CLI runs (`desktop.usecases.measuring` for a
probe run, `desktop.usecases.agent` for the scheduler) and the parent's relay thread only moves bytes; the
frames (`desktop.app.frames`) hold plain tuples and dicts (no dataclasses, whose unpickling runs Python code;
a target travels as `Target.as_dict`), decoded on the GUI thread by the screen's redraw timer.

    python -m desktop.app.job_process      (started by `desktop.app.workers`; reads one job on stdin)

A trace job (the Routes screen) is `desktop.app.trace_job`.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from dataclasses import astuple
from typing import IO, Any

from desktop.app import trace_job
from desktop.app.frames import (
    DONE,
    ERROR,
    FINISHED,
    FLUSH_S,
    NOTICE,
    ROUND,
    SAMPLES,
    STOPPED,
    decode,
    plain_report,
    plain_result,
    read_raw_frame,
    run_cancellable,
    watch_parent,
    write_frame,
)
from probes.errors import ErrorKind
from probes.results import Sample
from probes.stats import summarize
from probes.store_location import parse_location
from probes.target import Method, Target

_LOCAL_FAILURE = str(ErrorKind.SEND_FAILED)

PlainSample = tuple[str, int, int, float | None, str | None]


# -- the child ---------------------------------------------------------------------------------------------


class _Outbox:
    """What the run produced since the last flush, sent every FLUSH_S with the live summaries of the targets
    the new samples belong to (`probes.stats.summarize` over the attempts so far, in send order)."""

    MAX_SAMPLES_PER_FRAME = 4000
    MAX_RESULTS_PER_FRAME = 10

    def __init__(self, stream: IO[bytes], lock: threading.Lock, targets: Sequence[Target]) -> None:
        self.stream = stream
        self.lock = lock
        self.keys = {t.key for t in targets}
        # An ICMP target that fell back to TCP reports under the TCP twin's key: map it back.
        self.twins = {
            t.with_method(Method.TCP).key: t.key
            for t in targets
            if t.method is Method.ICMP and t.port is not None
        }
        self.samples: list[PlainSample] = []
        self.finished: list[tuple[int, tuple[Any, ...]]] = []
        self.serial: dict[int, int] = {}  # id(result) -> its number in the F frames
        self._rtts: dict[str, dict[int, float | None]] = {}

    def key_of(self, target: Target) -> str:
        key = target.key
        return key if key in self.keys else self.twins.get(key, key)

    def sample(self, target: Target, sample: Sample) -> None:
        self.samples.append(
            (
                self.key_of(target),
                sample.seq,
                sample.sent_at_us,
                sample.rtt_ms,
                None if sample.error is None else str(sample.error),
            )
        )

    def progress(self, progress: Any) -> None:
        if progress.result is not None:
            number = len(self.serial)
            self.serial[id(progress.result)] = number
            self.finished.append((number, plain_result(progress.result)))

    def flush(self) -> None:
        while self.samples:
            batch = self.samples[: self.MAX_SAMPLES_PER_FRAME]
            del self.samples[: self.MAX_SAMPLES_PER_FRAME]
            touched = set()
            for key, seq, _, rtt, error in batch:
                if error != _LOCAL_FAILURE:  # an attempt this machine could not send: neither sent nor lost
                    self._rtts.setdefault(key, {})[seq] = rtt
                touched.add(key)
            summaries = {
                key: astuple(summarize([self._rtts[key][s] for s in sorted(self._rtts.get(key, {}))]))
                for key in touched
            }
            write_frame(self.stream, SAMPLES, (batch, summaries), self.lock)
        while self.finished:
            chunk = self.finished[: self.MAX_RESULTS_PER_FRAME]
            del self.finished[: self.MAX_RESULTS_PER_FRAME]
            write_frame(self.stream, FINISHED, chunk, self.lock)

    async def pump(self) -> None:
        while True:
            await asyncio.sleep(FLUSH_S)
            self.flush()


def _probe(job: dict[str, Any], out: IO[bytes], lock: threading.Lock, stdin: IO[bytes]) -> int:
    """Measure and keep the round as `linkvet probe` does (`desktop.usecases.measuring`): stored, else kept
    in the spool, else lost; the D frame says which, and the error that tells the user when not stored."""
    from desktop.usecases.measuring import MeasuringJob

    targets: list[Target] = job["targets"]
    outbox = _Outbox(out, lock, targets)
    db = job.get("db_path")
    measuring = MeasuringJob(
        targets,
        job["options"],
        location=parse_location(db) if db else None,
        keep=bool(db),
        source=job.get("source", "probe"),
        vantage=job.get("vantage"),
        interface="gui",
        concurrency=job.get("concurrency", 256),
        gap_ms=job.get("gap_ms", 1.0),
    )
    started = time.monotonic()
    try:
        ended, results = run_cancellable(
            measuring.measure(progress=outbox.progress, on_sample=outbox.sample),
            outbox.pump(),
            out,
            lock,
            stdin,
        )
        if not ended:
            return 0
        outbox.flush()
        round_id, outcome, store_error = None, None, None
        if results:
            try:
                kept = measuring.keep(results)
            except Exception as exc:  # the store could not even be opened: nothing kept
                from desktop.app.errors import error_text

                store_error, outcome = error_text(exc), "lost"
            else:
                if kept is not None:
                    round_id, outcome = kept.round_id, kept.outcome
                    store_error = None if kept.problem is None else str(kept.problem)
    finally:
        measuring.close()
    done = {
        "order": [outbox.serial[id(r)] for r in results],
        "round_id": round_id,
        "outcome": outcome,
        "store_error": store_error,
        "elapsed_s": time.monotonic() - started,
    }
    write_frame(out, DONE, done, lock)
    return 0


def _schedule(job: dict[str, Any], out: IO[bytes], lock: threading.Lock, stdin: IO[bytes]) -> int:
    """The plan's rounds by the agent `linkvet schedule` runs (`desktop.usecases.agent`: spool, lock,
    alerts, metrics), until the parent asks to stop."""
    from desktop.usecases.agent import Agent
    from probes.schedule.plan import load_plan

    plan = load_plan(job["plan_path"])
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def on_message(message: dict[str, Any]) -> None:
        loop.call_soon_threadsafe(stop.set)  # stop or cancel: the parent kills us if it cannot wait

    threading.Thread(target=watch_parent, args=(stdin, on_message), daemon=True).start()

    def on_round(report: Any) -> None:
        write_frame(out, ROUND, plain_report(report), lock)

    agent = Agent.prepare(plan, parse_location(job["db_path"]))
    if agent.unreachable is not None:
        write_frame(out, NOTICE, agent.unreachable, lock)
    try:
        stored = loop.run_until_complete(
            agent.run_until(stop, grace_s=float(job.get("grace_s", 10.0)), on_round=on_round)
        )
    finally:
        try:
            agent.close()
        finally:
            loop.close()
    write_frame(out, STOPPED, stored, lock)
    return 0


def main() -> int:
    # Unbuffered stdin: the thread that waits for the parent's cancel blocks in a read until the parent
    # closes the pipe, and a buffered reader's lock held by it at interpreter shutdown made Python wait 1 s
    # and then abort ("could not acquire lock for <stdin>"), so every run ended 1 s late, killed by SIGABRT.
    stdin = open(sys.stdin.fileno(), "rb", buffering=0, closefd=False)  # noqa: SIM115 (the process's own)
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed by accident must not corrupt the frames
    lock = threading.Lock()
    frame = read_raw_frame(stdin)
    job = decode(frame[1]) if frame is not None else None
    if not isinstance(job, dict):
        return 2
    try:
        if job["kind"] == "probe":
            return _probe(job, out, lock, stdin)
        if job["kind"] == "schedule":
            return _schedule(job, out, lock, stdin)
        if job["kind"] == "trace":
            return trace_job.run(job, out, lock, stdin)
        raise ValueError(f"unknown job kind {job['kind']!r}")
    except Exception as exc:
        traceback.print_exc()
        from desktop.app.errors import error_text

        write_frame(out, ERROR, error_text(exc), lock)
        return 1


if __name__ == "__main__":
    sys.exit(main())
