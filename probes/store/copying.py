"""Rounds read back whole from a store, as the write path takes them, and one store merged into another: an
office's SQLite store into the team's PostgreSQL store (or any store into any other). No SQL: the rows come
from `Backend.round_batch` in `probes.store.statements.COPY_QUERIES`' column orders.

A merge writes each round of the source through the destination's own write path (`probes.store.writing`),
so it is stored once whatever happens: a round the destination holds already (its uid, e.g. forwarded
there by an agent, or merged before) is left alone, its results and samples not even read, and so is a scheduled round whose (vantage, plan, slot)
the destination holds from another round. A round stored before rounds had ids (schema 5) gets one made
from what it measured, the same every time, so merging twice stores it once too. Rollups are the
destination's: its write path adds each round's samples to them. A round without a vantage point may be
given one (`vantage`), so that an office's old rounds take their place beside the others'.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from probes.store import records
from probes.store.backend import Backend, Row
from probes.store.measured import MeasuredRound, ResultRows
from probes.store.writing import WriteStatus

if TYPE_CHECKING:
    from probes.store.store import Store

# Rounds read at a time: memory stays bounded (a round of 100 targets × 10 attempts holds 1,000 samples).
_BATCH_ROUNDS = 20
_UID = records.ROUND_COLUMNS.index("uid")
_VANTAGE = records.ROUND_COLUMNS.index("vantage")
_TARGET_WIDTH = len(records.TARGET_COLUMNS)
_MADE_UID_NAMESPACE = uuid.UUID("6c696e6b-7665-7400-8000-726f756e6473")  # linkvet's, for rounds


@dataclass(frozen=True, slots=True)
class MergeCounts:
    """What a merge did, round by round: stored, already there (same uid), or not stored because the
    destination holds another round of the same plan, vantage point and slot; the samples stored."""

    stored: int = 0
    already_stored: int = 0
    slot_taken: int = 0
    samples: int = 0

    @property
    def rounds(self) -> int:
        return self.stored + self.already_stored + self.slot_taken


def stored_rounds(
    backend: Backend, *, vantage: str | None = None, held: Callable[[str], bool] | None = None
) -> Iterator[MeasuredRound | str]:
    """Every round of the store, oldest id first, as a `MeasuredRound` (read a batch of rounds at a time);
    a round without a vantage point gets `vantage` when one is given. A round whose uid `held` says is
    held elsewhere comes as that uid alone, none of its rows read (a round stored without a uid is always
    read whole: its uid is made from what it measured)."""
    after = 0
    uid_at = 1 + _UID  # in a round row, behind its id
    read: set[int] = set()  # the batch's rounds read whole

    def unheld(rounds: list[Row]) -> set[int]:
        nonlocal read
        read = {int(r[0]) for r in rounds if held is None or r[uid_at] is None or not held(str(r[uid_at]))}
        return read

    while True:
        rounds, results, samples, traces, replies = backend.round_batch(after, _BATCH_ROUNDS, unheld)
        if not rounds:
            return
        whole = [row for row in rounds if int(row[0]) in read]
        assembled = _assembled(whole, results, samples, traces, replies, vantage)
        for row in rounds:
            yield next(assembled) if int(row[0]) in read else str(row[uid_at])
        after = int(rounds[-1][0])


def merge_into(
    source: Store,
    destination: Store,
    *,
    vantage: str | None = None,
    on_round: Callable[[MergeCounts], None] | None = None,
) -> MergeCounts:
    """Write every round of `source` into `destination` (each in its own transaction); the counts. A round
    the destination holds already (its uid) is counted without reading its results and samples, so merging
    the same store again reads little more than its rounds."""
    stored = already = taken = samples = 0

    def held(uid: str) -> bool:
        return destination.backend.round_of(uid) is not None

    for measured in stored_rounds(source.backend, vantage=vantage, held=held):
        if isinstance(measured, str):
            already += 1
        else:
            written = destination.write_round(measured)
            if written.status is WriteStatus.STORED:
                stored += 1
                samples += measured.samples
            elif written.status is WriteStatus.ALREADY_STORED:
                already += 1
            else:
                taken += 1
        if on_round is not None:
            on_round(MergeCounts(stored, already, taken, samples))
    return MergeCounts(stored, already, taken, samples)


def _assembled(
    rounds: list[Row],
    results: list[Row],
    samples: list[Row],
    traces: list[Row],
    replies: list[Row],
    vantage: str | None,
) -> Iterator[MeasuredRound]:
    by_round: dict[int, list[Row]] = defaultdict(list)
    for row in results:
        by_round[int(row[0])].append(row)
    sample_rows: dict[int, list[Row]] = defaultdict(list)
    for row in samples:
        sample_rows[int(row[0])].append(row)
    trace_of = {int(row[0]): tuple(row[1:]) for row in traces}
    reply_rows: dict[int, list[Row]] = defaultdict(list)
    for row in replies:
        reply_rows[int(row[0])].append(tuple(row[1:]))
    for round_row in rounds:
        round_id, fields = int(round_row[0]), list(round_row[1:])
        rows = tuple(
            _result_rows(result, sample_rows.get(int(result[1]), []), trace_of, reply_rows)
            for result in by_round.get(round_id, [])
        )
        if fields[_VANTAGE] is None and vantage is not None:
            fields[_VANTAGE] = vantage
        if fields[_UID] is None:
            fields[_UID] = _made_uid(round_row, rows)
        yield MeasuredRound(tuple(fields), rows)


def _result_rows(
    result: Row, samples: list[Row], trace_of: dict[int, Row], replies: dict[int, list[Row]]
) -> ResultRows:
    result_id = int(result[1])
    target, summary = tuple(result[2 : 2 + _TARGET_WIDTH]), tuple(result[2 + _TARGET_WIDTH :])
    columns = list(zip(*samples, strict=True)) if samples else [()] * 6
    _ids, ts_us, seq, rtt_ms, error, phase = columns
    trace = trace_of.get(result_id)
    return ResultRows(
        target,
        summary,
        tuple(ts_us),
        tuple(seq),
        tuple(rtt_ms),
        tuple(error),
        tuple(phase),
        trace,
        tuple(replies.get(result_id, ())) if trace is not None else (),
    )


def _made_uid(round_row: Row, results: tuple[ResultRows, ...]) -> str:
    """A uid for a round stored without one: the same for the same round in any store (what it measured:
    when, by which plan, from where, and each result's target and start)."""
    what = repr((tuple(round_row[1:]), [(r.target[0], r.result[0]) for r in results]))
    return uuid.uuid5(_MADE_UID_NAMESPACE, what).hex  # the form of the ids measuring gives (uuid4().hex)
