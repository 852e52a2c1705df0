"""Benchmark: store insert rate, samples through `Store.write_round` (results, samples and rollups, one
transaction per round) beside a bare `executemany` of the same rows into a samples table with the same
pragmas (the anchor), in two shapes:

- indexed by target and time (the anchor the goal of ≤ 1.5× was set against: how the store kept its samples
  until schema 8, and how a time series of samples is commonly kept);
- in the store's own shape since schema 8 (rows in the order written, indexed by run): what is left of the
  ratio then is the store's own work, the results, the rollups and building the rows.

    python -m tests.benchmarks.store_insert_vs_executemany [--samples 1000000] [--targets 100] [--attempts 10]
        [--repeat 3] [--rollups both|hourly|quarter]

Rounds are shaped like a schedule's: every target measured 4 times an hour, one run of `--attempts` attempts
each (a plan's `count`); the per-round and per-run costs weigh more with short runs. The two sides are timed
round by round, interleaved (which goes first alternates), so a machine busy with other work slows both
alike; `--repeat` runs it again and prints each run's ratio and the spread. The result objects are built
before the clock starts, the anchor's rows too: the figures are the store's cost alone (building its rows
from the results included). `--rollups hourly|quarter` measures the store keeping one rollup length only (the
design alternatives: the store keeps both), with the rollup tables' sizes.
"""

from __future__ import annotations

import argparse
import math
import sqlite3
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import probes.store.writing
from probes.store import Store
from probes.store.rollup import HOUR_S, QUARTER_S
from tests.benchmarks.filling import Plan, report, rounds
from tests.rounds import save_round

VARIANTS = {"both": (HOUR_S, QUARTER_S), "hourly": (HOUR_S,), "quarter": (QUARTER_S,)}


ANCHORS = {
    "by target and time": (
        "CREATE TABLE samples (result_id INTEGER NOT NULL, target_id INTEGER NOT NULL, ts_us INTEGER NOT NULL,"
        " seq INTEGER NOT NULL, rtt_ms REAL, error TEXT)",
        "CREATE INDEX samples_target_time ON samples (target_id, ts_us)",
    ),
    "by run (the store's shape)": (
        "CREATE TABLE samples (result_id INTEGER NOT NULL, target_id INTEGER NOT NULL, ts_us INTEGER NOT NULL,"
        " seq INTEGER NOT NULL, rtt_ms REAL, error TEXT)",
        "CREATE INDEX samples_run ON samples (result_id, seq)",
    ),
}


def _anchor(path: Path, ddl: Sequence[str]) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    for statement in ddl:
        db.execute(statement)
    return db


def run_once(plan: Plan, prepared: list, folder: Path) -> tuple[float, list[float], dict[str, float]]:
    """(write_round seconds, each anchor's seconds, rollup table sizes in MiB) of one interleaved run."""
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
    anchors = [_anchor(folder / f"anchor{i}.sqlite3", ddl) for i, ddl in enumerate(ANCHORS.values())]
    ours = 0.0
    anchor = [0.0] * len(anchors)
    with Store(folder / "store.sqlite3") as store:
        for n, ((begin, results), rows) in enumerate(zip(prepared, rows_per_round, strict=True)):
            sides = list(range(len(anchors) + 1))
            for side in sides[n % len(sides) :] + sides[: n % len(sides)]:  # which goes first rotates
                start = time.perf_counter()
                if side == 0:
                    save_round(store, results, started_us=begin, finished_us=begin + 1, source="bench")
                    ours += time.perf_counter() - start
                else:
                    db = anchors[side - 1]
                    db.execute("BEGIN IMMEDIATE")
                    db.executemany("INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?)", rows)
                    db.execute("COMMIT")
                    anchor[side - 1] += time.perf_counter() - start
        stored = store.counts()["samples"]
        sizes = dict(
            store.backend.connection.execute(  # type: ignore[attr-defined]
                "SELECT name, sum(pgsize) / 1048576.0 FROM dbstat WHERE name IN ('hourly', 'quarter_hourly')"
                " GROUP BY name"
            ).fetchall()
        )
    for db in anchors:
        db.close()
    if stored != plan.samples:
        raise SystemExit(f"stored {stored} samples, expected {plan.samples}")
    return ours, anchor, sizes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--targets", type=int, default=100)
    parser.add_argument("--attempts", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--rollups", choices=sorted(VARIANTS), default="both")
    args = parser.parse_args(argv)
    probes.store.writing.PERIODS_S = VARIANTS[args.rollups]  # a design alternative, for this measurement
    days = max(1, math.ceil(args.samples / (args.targets * args.attempts * 24 * 4)))
    plan = Plan(args.targets, days, args.attempts)
    prepared = list(rounds(plan))
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(run_once(plan, prepared, Path(tmp)))
    n = plan.samples
    ratios = [[ours / anchor[i] for ours, anchor, _ in runs] for i in range(len(ANCHORS))]
    middle = ratios[0].index(sorted(ratios[0])[len(runs) // 2])
    ours, anchor, sizes = runs[middle]
    lines = [
        (
            "rollups kept",
            f"{args.rollups} ({', '.join(f'{k} {v:.1f} MiB' for k, v in sorted(sizes.items()))})",
        ),
        ("Store.write_round", f"{ours:8.2f} s  {n / ours:12,.0f} samples/s"),
    ]
    for i, name in enumerate(ANCHORS):
        lines += [
            (f"anchor: bare executemany, {name}", f"{anchor[i]:8.2f} s  {n / anchor[i]:12,.0f} samples/s"),
            ("  ratio (write_round time / anchor time)", f"{ours / anchor[i]:8.2f}"),
        ]
        if len(runs) > 1:
            lines.append(("  ratios of the runs", ", ".join(f"{r:.2f}" for r in ratios[i])))
            lines.append(("  spread", f"{min(ratios[i]):.2f}–{max(ratios[i]):.2f}"))
    report(
        f"store insert: {n:,} samples in {plan.rounds} rounds of {plan.targets} targets × {plan.attempts} attempts",
        lines,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
