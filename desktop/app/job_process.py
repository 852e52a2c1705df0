"""Probing and scheduling for the desktop app, in a child process (no Qt here).

Why a process, and why plain frames. Probing is Python work (the runner, the ICMP engine, a callback per
reply). In a thread of the GUI process it shares the interpreter lock with the GUI thread, whose every paint
calls back into Python hundreds of times and then queues behind it: with 200 targets the window stalled for
hundreds of milliseconds. So the child runs exactly what the CLI runs (`probes.runner.Runner`,
`Store.save_round`, `probes.schedule.scheduler.Scheduler.run_until`) and the parent's relay thread only moves bytes;
the frames hold plain tuples and dicts (no dataclasses, whose unpickling runs Python code; a target travels
as `Target.as_dict`), decoded on the GUI thread by the screen's redraw timer.

    python -m desktop.app.job_process      (started by `desktop.app.workers`; reads one job on stdin)

A frame is a 4-byte big-endian length, a 1-byte kind and a pickle. Parent → child (kind J): the job, then
`{"cancel": True}` (drop the run, store nothing) or `{"stop": True}` (end the scheduler after its round);
closing stdin counts as cancel, so the child never outlives the app. Child → parent:
    S  ([(target key, seq, sent_at_us, rtt_ms | None, error | None), …], {target key: summary tuple})
       every 0.1 s while probing; keys are the job's targets' (an ICMP target measured over TCP reports
       under its own key)
    F  [(number, plain result), …]          targets that finished since the last frame
    D  {"order": [number of each target's result, in target order], "round_id", "store_error", "elapsed_s"}
    N  text                                 the scheduler's store cannot be reached: it measures into
                                            the spool until the server is back
    R  plain round report                   after each scheduled round
    T  rounds stored                        the scheduler stopped
    C  None                                 the run was cancelled
    E  message                              the job failed
A trace job (the Routes screen) has frames of its own: `desktop.app.trace_job`.
"""

from __future__ import annotations

import asyncio
import contextlib
import pickle
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import astuple
from typing import IO, Any

from probes.errors import ErrorKind
from probes.results import ProbeResult, Sample
from probes.stats import Summary, summarize
from probes.store_location import StoreLocation, parse_location
from probes.target import Method, Target

FLUSH_S = 0.1
_HEADER = struct.Struct(">IB")
_LOCAL_FAILURE = str(ErrorKind.SEND_FAILED)

SAMPLES, FINISHED, DONE, ROUND, STOPPED, CANCELLED, ERROR, JOB, NOTICE = (k.encode() for k in "SFDRTCEJN")
TERMINAL = frozenset({DONE, STOPPED, CANCELLED, ERROR})

PlainSample = tuple[str, int, int, float | None, str | None]


# -- frames ------------------------------------------------------------------------------------------------


def write_frame(stream: IO[bytes], kind: bytes, payload: object, lock: threading.Lock | None = None) -> None:
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    with lock or contextlib.nullcontext():
        stream.write(_HEADER.pack(len(data), kind[0]) + data)
        stream.flush()


def read_raw_frame(stream: IO[bytes]) -> tuple[bytes, bytes] | None:
    """(kind, undecoded payload) of the next frame, or None at the end of the stream. Releases the
    interpreter lock while it waits, and runs no Python code on the payload."""
    header = _read_exactly(stream, _HEADER.size)
    if header is None:
        return None
    size, kind = _HEADER.unpack(header)
    data = _read_exactly(stream, size)
    if data is None:
        return None
    return bytes([kind]), data


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    """`size` bytes, or None at the end of the stream (an unbuffered stream may return fewer per read)."""
    parts: list[bytes] = []
    missing = size
    while missing:
        part = stream.read(missing)
        if not part:
            return None
        parts.append(part)
        missing -= len(part)
    return b"".join(parts)


def decode(data: bytes) -> Any:
    return pickle.loads(data)


# -- plain forms of the core's objects ---------------------------------------------------------------------


def plain_result(result: ProbeResult) -> tuple[Any, ...]:
    return (
        result.target.as_dict(),
        result.started_at_us,
        result.finished_at_us,
        [
            (s.seq, s.sent_at_us, s.rtt_ms, None if s.error is None else str(s.error), s.phase)
            for s in result.samples
        ],
        None if result.error is None else str(result.error),
        result.message,
        dict(result.metrics),
    )


def result_of(plain: Sequence[Any]) -> ProbeResult:
    target, started, finished, samples, error, message, metrics = plain
    return ProbeResult(
        Target.from_dict(target),
        started,
        finished,
        tuple(
            Sample(seq, at, rtt, None if err is None else ErrorKind(err), phase)
            for seq, at, rtt, err, phase in samples
        ),
        error=None if error is None else ErrorKind(error),
        message=message,
        metrics=metrics,
    )


def summary_of(plain: Sequence[Any]) -> Summary:
    return Summary(*plain)


def plain_report(report: Any) -> tuple[Any, ...]:
    return (
        report.round_id,
        report.started_us,
        report.finished_us,
        report.peak,
        [plain_result(r) for r in report.results],
        report.store_error,
        report.outcome,
        report.slot_us,
    )


def report_of(plain: Sequence[Any]) -> Any:
    from probes.schedule.report import RoundReport

    round_id, started, finished, peak, results, store_error, outcome, slot_us = plain
    return RoundReport(
        round_id, started, finished, peak, tuple(result_of(r) for r in results), store_error, outcome, slot_us
    )


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


def watch_parent(stdin: IO[bytes], on_message: Callable[[dict[str, Any]], None]) -> None:
    """Reads the parent's later frames (cancel/stop); end of input counts as cancel."""
    while True:
        frame = read_raw_frame(stdin)
        if frame is None:
            on_message({"cancel": True})
            return
        on_message(decode(frame[1]))


def run_cancellable(
    work: Coroutine[Any, Any, Any],
    pump: Coroutine[Any, Any, Any],
    out: IO[bytes],
    lock: threading.Lock,
    stdin: IO[bytes],
) -> tuple[bool, Any]:
    """Run `work` on a new event loop beside `pump` (which sends its frames as they come) until it ends, or
    until the parent asks to cancel or stop (or goes away): then the C frame is sent. (Whether it ended,
    what it returned.)"""
    loop = asyncio.new_event_loop()
    task = loop.create_task(work)
    pumping = loop.create_task(pump)

    def on_message(message: dict[str, Any]) -> None:
        if message.get("cancel") or message.get("stop"):
            loop.call_soon_threadsafe(task.cancel)

    threading.Thread(target=watch_parent, args=(stdin, on_message), daemon=True).start()
    try:
        return True, loop.run_until_complete(task)
    except asyncio.CancelledError:
        write_frame(out, CANCELLED, None, lock)
        return False, None
    finally:
        pumping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            loop.run_until_complete(pumping)
        loop.close()


def save_round(db_path: StoreLocation, results: list[ProbeResult], source: str = "probe") -> int | None:
    """Store one finished run as `linkvet probe` does (one round: results, samples and rollups)."""
    from probes.store import Store

    with Store(db_path) as store:
        return store.save_results(results, source=source, meta={"interface": "gui"})


def _probe(job: dict[str, Any], out: IO[bytes], lock: threading.Lock, stdin: IO[bytes]) -> int:
    from probes.runner import Runner

    targets: list[Target] = job["targets"]
    outbox = _Outbox(out, lock, targets)
    runner = Runner(
        job["options"],
        concurrency=job.get("concurrency", 256),
        gap_ms=job.get("gap_ms", 1.0),
        progress=outbox.progress,
        on_sample=outbox.sample,
    )
    started = time.monotonic()
    ended, results = run_cancellable(runner.run(targets), outbox.pump(), out, lock, stdin)
    if not ended:
        return 0
    outbox.flush()
    round_id, store_error = None, None
    if job.get("db_path") and results:
        try:
            round_id = save_round(parse_location(job["db_path"]), results, job.get("source", "probe"))
        except Exception as exc:
            from desktop.app.errors import error_text

            store_error = error_text(exc)
    done = {
        "order": [outbox.serial[id(r)] for r in results],
        "round_id": round_id,
        "store_error": store_error,
        "elapsed_s": time.monotonic() - started,
    }
    write_frame(out, DONE, done, lock)
    return 0


def _schedule(job: dict[str, Any], out: IO[bytes], lock: threading.Lock, stdin: IO[bytes]) -> int:
    from desktop.usecases.schedule_store import open_schedule_store
    from probes.schedule.plan import load_plan
    from probes.schedule.scheduler import Scheduler

    plan = load_plan(job["plan_path"])
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def on_message(message: dict[str, Any]) -> None:
        loop.call_soon_threadsafe(stop.set)  # stop or cancel: the parent kills us if it cannot wait

    threading.Thread(target=watch_parent, args=(stdin, on_message), daemon=True).start()

    def on_round(report: Any) -> None:
        write_frame(out, ROUND, plain_report(report), lock)

    store, unreachable = open_schedule_store(parse_location(job["db_path"]))
    if unreachable is not None:
        write_frame(out, NOTICE, unreachable, lock)
    with store:
        scheduler = Scheduler(plan, store)
        try:
            stored = loop.run_until_complete(
                scheduler.run_until(stop, grace_s=float(job.get("grace_s", 10.0)), on_round=on_round)
            )
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
            from desktop.app import trace_job

            return trace_job.run(job, out, lock, stdin)
        raise ValueError(f"unknown job kind {job['kind']!r}")
    except Exception as exc:
        traceback.print_exc()
        from desktop.app.errors import error_text

        write_frame(out, ERROR, error_text(exc), lock)
        return 1


if __name__ == "__main__":
    sys.exit(main())
