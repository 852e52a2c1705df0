"""The frames between the app and its child process (`desktop.app.job_process`, which says why a process and
why plain frames): a 4-byte big-endian length, a 1-byte kind and a pickle of plain tuples and dicts; the
plain forms of the core's objects that travel in them; and running a job in the child until it ends or the
parent cancels it. No Qt.

Parent → child (kind J): the job, then `{"cancel": True}` (drop the run, store nothing) or `{"stop": True}`
(end the scheduler after its round); closing stdin counts as cancel, so the child never outlives the app.
Child → parent:
    S  ([(target key, seq, sent_at_us, rtt_ms | None, error | None), …], {target key: summary tuple})
       every 0.1 s while probing; keys are the job's targets' (an ICMP target measured over TCP reports
       under its own key)
    F  [(number, plain result), …]          targets that finished since the last frame
    D  {"order": [number of each target's result, in target order], "round_id", "outcome", "store_error",
        "elapsed_s"}
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
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import IO, Any

from probes.errors import ErrorKind
from probes.results import ProbeResult, Sample
from probes.stats import Summary
from probes.target import Target

FLUSH_S = 0.1
_HEADER = struct.Struct(">IB")

SAMPLES, FINISHED, DONE, ROUND, STOPPED, CANCELLED, ERROR, JOB, NOTICE = (k.encode() for k in "SFDRTCEJN")
TERMINAL = frozenset({DONE, STOPPED, CANCELLED, ERROR})


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


# -- running a job in the child ---------------------------------------------------------------------------


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
