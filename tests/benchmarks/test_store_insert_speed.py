"""Store insert rate: samples through `Store.save_round` (results, samples and hourly rollups in one
transaction per round) beside a bare `executemany` into a same-shaped table with the same pragmas (the
anchor). Run the issue's size with LINKVET_BENCH_INSERT_SAMPLES=1000000 python -m pytest -s <this file>."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from probes.store import Store
from tests.benchmarks.filling import Plan, Timer, env_int, report, rounds


def test_save_round_rate_beside_bare_executemany(tmp_path: Path) -> None:
    wanted = env_int("LINKVET_BENCH_INSERT_SAMPLES", 200_000)
    plan = Plan.for_samples(wanted, targets=100, days=1)
    prepared = list(rounds(plan))  # built before timing: the store's cost, not the objects'
    with Store(tmp_path / "store.sqlite3") as store:
        with Timer() as ours:
            for begin, results in prepared:
                store.save_round(results, started_us=begin, finished_us=begin + 1, source="bench")
        counts = store.counts()
    assert counts["samples"] == plan.samples

    anchor_db = sqlite3.connect(tmp_path / "anchor.sqlite3", isolation_level=None)
    anchor_db.execute("PRAGMA journal_mode = WAL")
    anchor_db.execute("PRAGMA synchronous = FULL")
    anchor_db.execute(
        "CREATE TABLE samples (result_id INTEGER NOT NULL, target_id INTEGER NOT NULL, ts_us INTEGER NOT NULL,"
        " seq INTEGER NOT NULL, rtt_ms REAL, error TEXT)"
    )
    anchor_db.execute("CREATE INDEX samples_target_time ON samples (target_id, ts_us)")
    rows_per_round = [
        [
            (n, i, s.sent_at_us, s.seq, s.rtt_ms, None if s.error is None else str(s.error))
            for i, result in enumerate(results)
            for s in result.samples
        ]
        for n, (_begin, results) in enumerate(prepared)
    ]
    with Timer() as anchor:
        for rows in rows_per_round:
            anchor_db.execute("BEGIN IMMEDIATE")
            anchor_db.executemany("INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?)", rows)
            anchor_db.execute("COMMIT")
    anchor_db.close()

    n = plan.samples
    report(
        f"store insert: {n:,} samples, {plan.rounds} rounds of {plan.targets} targets x {plan.attempts}",
        [
            ("Store.save_round", f"{ours.seconds:7.2f} s  {n / ours.seconds:12,.0f} samples/s"),
            ("bare executemany (anchor)", f"{anchor.seconds:7.2f} s  {n / anchor.seconds:12,.0f} samples/s"),
            ("ratio (save_round / anchor time)", f"{ours.seconds / anchor.seconds:7.2f}x"),
        ],
    )
