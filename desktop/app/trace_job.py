"""The Routes screen's trace, in the probing child process (`desktop.app.job_process`, which says why a
process and why plain frames; no Qt here). It runs what `linkvet trace` runs: `trace_repeatedly` for each
chosen target, the traces stored as rounds and checked against the claimed line type
(`desktop.usecases.routes`).

The job: {"kind": "trace", "targets": [Target.as_dict, …], "options": TraceOptions fields, "traces": N,
"claimed": line type | None, "networks": path | None, "db_path": path | None, "vantage": name | None}.
Child → parent, besides job_process' C (cancelled) and E (failed):
    H  [(target number, trace number, ttl, probe, kind, address, rtt_ms, sent_at_us, label, asn, cidr), …]
       every 0.1 s while tracing: each probe's answer as it came (label, asn and cidr of the address's network
       in the table, None where it is in none)
    X  (target number, trace number, TraceResult.as_dict())     a trace ended
    D  {"merged": [per target: {"class", "summary", "doubts", "traces", "agreeing"} or None],
        "claim": this run's claim check, "stored_claim": the region's over every stored trace,
        "store_error": text | None}
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import IO, Any

from desktop.app.frames import DONE, FLUSH_S, run_cancellable, write_frame
from probes.store_location import parse_location
from probes.target import Target

HOPS, TRACE = b"H", b"X"

PlainReply = tuple[int, int, int, int, str, str | None, float | None, int, str | None, int | None, str | None]


class _Replies:
    """Answers since the last flush, sent every FLUSH_S as one H frame."""

    def __init__(self, stream: IO[bytes], lock: threading.Lock, table: Any) -> None:
        self.stream = stream
        self.lock = lock
        self.table = table
        self.pending: list[PlainReply] = []

    def add(self, target: int, trace: int, ttl: int, probe: int, answer: Any) -> None:
        match = None if answer.address is None else self.table.lookup(answer.address)
        self.pending.append(
            (
                target,
                trace,
                ttl,
                probe,
                answer.kind,
                answer.address,
                answer.rtt_ms,
                answer.sent_at_us,
                None if match is None else match.as_info.label,
                None if match is None else match.asn,
                None if match is None else match.prefix.cidr,
            )
        )

    def flush(self) -> None:
        if self.pending:
            batch, self.pending = self.pending, []
            write_frame(self.stream, HOPS, batch, self.lock)

    async def pump(self) -> None:
        while True:
            await asyncio.sleep(FLUSH_S)
            self.flush()


def run(job: dict[str, Any], out: IO[bytes], lock: threading.Lock, stdin: IO[bytes]) -> int:
    from desktop.usecases.routes import claim_check
    from probes.routes import load_network_table
    from probes.traceroute import TraceOptions

    table = load_network_table(Path(job["networks"]) if job.get("networks") else None)
    options = TraceOptions(**job["options"])
    targets = [Target.from_dict(t) for t in job["targets"]]
    replies = _Replies(out, lock, table)
    work = _trace_all(targets, options, table, int(job.get("traces", 1)), replies, out, lock)
    ended, runs = run_cancellable(work, replies.pump(), out, lock, stdin)
    if not ended:
        return 0
    replies.flush()
    done: dict[str, Any] = {"merged": [_merged(traces) for traces in runs], "store_error": None}
    every = [trace for traces in runs for trace in traces]
    done["claim"] = claim_check(job.get("claimed"), every)
    done["stored_claim"] = None
    if job.get("db_path"):
        done["store_error"], done["stored_claim"] = _store(job, targets, runs, table)
    write_frame(out, DONE, done, lock)
    return 0


async def _trace_all(
    targets: list[Target],
    options: Any,
    table: Any,
    count: int,
    replies: _Replies,
    out: IO[bytes],
    lock: threading.Lock,
) -> list[list[Any]]:
    from probes.traceroute import trace_repeatedly

    runs = []
    for number, target in enumerate(targets):

        def ended(index: int, result: Any, number: int = number) -> None:
            replies.flush()  # the trace's last answers go before its end
            write_frame(out, TRACE, (number, index, result.as_dict()), lock)

        def heard(index: int, ttl: int, probe: int, answer: Any, number: int = number) -> None:
            replies.add(number, index, ttl, probe, answer)

        assert target.host is not None
        runs.append(
            await trace_repeatedly(target.host, options, table, count, on_reply=heard, on_trace=ended)
        )
    return runs


def _merged(traces: list[Any]) -> dict[str, Any] | None:
    from probes.routes import merge_verdicts

    verdicts = [t.verdict for t in traces if t.verdict is not None and t.hops]
    if not verdicts:
        return None
    merged = merge_verdicts(verdicts)
    return {
        "class": merged.line_class,
        "summary": merged.summary(),
        "doubts": list(merged.doubts),
        "traces": merged.traces,
        "agreeing": merged.agreeing,
    }


def _store(
    job: dict[str, Any], targets: list[Target], runs: list[list[Any]], table: Any
) -> tuple[str | None, dict[str, Any] | None]:
    """Store every trace as `linkvet trace` does; (why it failed or None, the region's stored claim check)."""
    from desktop.app.errors import error_text
    from desktop.usecases.routes import store_traces, stored_route_check

    db_path = parse_location(job["db_path"])
    try:
        for target, traces in zip(targets, runs, strict=True):
            store_traces(db_path, target, traces, job.get("vantage"))
        first = targets[0] if targets else None
        if first is None or not (first.provider and first.region):
            return None, None
        claimed = job.get("claimed") or first.line_type
        return None, stored_route_check(db_path, first.provider, first.region, claimed, table)
    except Exception as exc:
        return error_text(exc), None
