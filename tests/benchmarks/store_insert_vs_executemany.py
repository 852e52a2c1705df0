"""Benchmark: store insert rate, samples through `Store.save_round` (results, samples and hourly rollups, one
transaction per round) beside a bare `executemany` of the same rows into a same-shaped table with the same
pragmas (the anchor).

    python -m tests.benchmarks.store_insert_vs_executemany [--samples 1000000] [--targets 100] [--attempts 10]

Rounds are shaped like a schedule's: every target measured 4 times an hour, one run of `--attempts` attempts
each (a plan's `count`); the per-round and per-run costs weigh more with short runs.
The result objects are built before the clock starts: the figures are the store's cost alone.
"""

from __future__ import annotations

import argparse
import math
import sqlite3
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from probes.store import Store
from tests.benchmarks.filling import Plan, Timer, report, rounds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--targets", type=int, default=100)
    parser.add_argument("--attempts", type=int, default=10)
    args = parser.parse_args(argv)
    days = max(1, math.ceil(args.samples / (args.targets * args.attempts * 24 * 4)))
    plan = Plan(args.targets, days, args.attempts)
    prepared = list(rounds(plan))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with Store(folder / "store.sqlite3") as store:
            with Timer() as ours:
                for begin, results in prepared:
                    store.save_round(results, started_us=begin, finished_us=begin + 1, source="bench")
            stored = store.counts()["samples"]
        if stored != plan.samples:
            print(f"stored {stored} samples, expected {plan.samples}", file=sys.stderr)
            return 1
        rows_per_round = [
            [
                (
                    n * plan.targets + i,
                    i,
                    s.sent_at_us,
                    s.seq,
                    s.rtt_ms,
                    None if s.error is None else str(s.error),
                )
                for i, result in enumerate(results)
                for s in result.samples
            ]
            for n, (_begin, results) in enumerate(prepared)
        ]
        db = sqlite3.connect(folder / "anchor.sqlite3", isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        db.execute(
            "CREATE TABLE samples (result_id INTEGER NOT NULL, target_id INTEGER NOT NULL, ts_us INTEGER NOT NULL,"
            " seq INTEGER NOT NULL, rtt_ms REAL, error TEXT)"
        )
        db.execute("CREATE INDEX samples_target_time ON samples (target_id, ts_us)")
        with Timer() as anchor:
            for rows in rows_per_round:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?)", rows)
                db.execute("COMMIT")
        db.close()
    n = plan.samples
    report(
        f"store insert: {n:,} samples in {plan.rounds} rounds of {plan.targets} targets × {plan.attempts} attempts",
        [
            ("Store.save_round", f"{ours.seconds:8.2f} s  {n / ours.seconds:12,.0f} samples/s"),
            ("bare executemany (anchor)", f"{anchor.seconds:8.2f} s  {n / anchor.seconds:12,.0f} samples/s"),
            ("ratio (save_round time / anchor time)", f"{ours.seconds / anchor.seconds:8.2f}"),
        ],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
