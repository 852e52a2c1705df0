"""Benchmark: store insert rate, samples through `Store.write_round` (results, samples and rollups, one
transaction per round) beside a bare `executemany` of the same rows into a samples table with the same
pragmas (the anchor), in two shapes:

- indexed by target and time (the anchor the goals of ≤ 1.5×, then ≤ 1.2× (#33), were set against: how
  the store kept its samples until schema 8, and how a time series of samples is commonly kept);
- in the store's own shape since schema 12 (keyed by run and position, one tree: WITHOUT ROWID): what is
  left of the ratio then is the store's own work, the results, the rollups and building the rows.

    python -m tests.benchmarks.store_insert_vs_executemany [--samples 1000000] [--targets 100] [--attempts 10]
        [--repeat 3] [--rollups both|hourly|quarter] [--backend sqlite|postgres] [--url URL]

`--backend postgres` measures a PostgreSQL store beside a bare psycopg `executemany` (pipelined, as psycopg
runs it) of the same rows into a same-shaped table of the same server: a throwaway cluster with fsync on
(tests/postgres_server.py), or the empty database at `--url`; each side in its own schema.

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
from typing import Any
from urllib.parse import quote

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
    "keyed by run and position (the store's shape)": (
        "CREATE TABLE samples (result_id INTEGER NOT NULL, pos INTEGER NOT NULL, target_id INTEGER NOT NULL,"
        " ts_us INTEGER NOT NULL, seq INTEGER NOT NULL, rtt_ms REAL, error TEXT, PRIMARY KEY (result_id, pos))"
        " WITHOUT ROWID",
    ),
}


class _Anchor:
    """A bare table of samples shaped by `ddl`, written round by round with `executemany` in a transaction."""

    def __init__(self, backend: str, where: Path | str, ddl: Sequence[str]) -> None:
        self.backend = backend
        if backend == "sqlite":
            self.db: Any = sqlite3.connect(where, isolation_level=None)
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = FULL")
            mark = "?"
        else:
            import psycopg

            self.db = psycopg.connect(str(where), autocommit=True)
            mark = "%s"
        for statement in ddl:
            if backend == "postgres":
                statement = statement.replace("INTEGER", "BIGINT").replace(" WITHOUT ROWID", "")
            self.db.execute(statement)
        self.keyed = "pos" in ddl[0]  # its rows carry their position in their run, after the run
        self.insert = f"INSERT INTO samples VALUES ({', '.join([mark] * (7 if self.keyed else 6))})"

    def write(self, rows: list[tuple[Any, ...]], keyed: list[tuple[Any, ...]]) -> None:
        rows = keyed if self.keyed else rows
        if self.backend == "sqlite":
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(self.insert, rows)
            self.db.execute("COMMIT")
        else:
            with self.db.transaction(), self.db.cursor() as cursor:
                cursor.executemany(self.insert, rows)

    def close(self) -> None:
        self.db.close()


def _postgres_schema(url: str, name: str) -> str:
    """A URL whose tables go to a new schema `name` of the database at `url`."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")  # type: ignore[arg-type]
        db.execute(f"CREATE SCHEMA {name}")  # type: ignore[arg-type]
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={name}', safe='')}"


def _rollup_sizes(store: Store, backend: str) -> dict[str, float]:
    if backend == "sqlite":
        query = (
            "SELECT name, sum(pgsize) / 1048576.0 FROM dbstat WHERE name IN ('hourly', 'quarter_hourly')"
            " GROUP BY name"
        )
    else:
        query = (
            "SELECT t, pg_total_relation_size(t::regclass) / 1048576.0"
            " FROM unnest(ARRAY['hourly', 'quarter_hourly']) AS t"
        )
    return {str(k): float(v) for k, v in store.backend.connection.execute(query).fetchall()}  # type: ignore[attr-defined]


def run_once(
    plan: Plan, prepared: list, folder: Path, backend: str, url: str | None, run: int
) -> tuple[float, list[float], dict[str, float]]:
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
    if backend == "sqlite":
        where: list[Path | str] = [folder / f"anchor{i}.sqlite3" for i in range(len(ANCHORS))]
        store_at: Path | str = folder / "store.sqlite3"
    else:
        assert url is not None
        where = [_postgres_schema(url, f"anchor{i}_{run}") for i in range(len(ANCHORS))]
        store_at = _postgres_schema(url, f"store_{run}")
    anchors = [_Anchor(backend, at, ddl) for at, ddl in zip(where, ANCHORS.values(), strict=True)]
    ours = 0.0
    anchor = [0.0] * len(anchors)
    with Store(store_at) as store:
        for n, ((begin, results), rows) in enumerate(zip(prepared, rows_per_round, strict=True)):
            keyed = [(row[0], row[3], *row[1:]) for row in rows]  # (run, position = seq, the rest)
            sides = list(range(len(anchors) + 1))
            for side in sides[n % len(sides) :] + sides[: n % len(sides)]:  # which goes first rotates
                start = time.perf_counter()
                if side == 0:
                    save_round(store, results, started_us=begin, finished_us=begin + 1, source="bench")
                    ours += time.perf_counter() - start
                else:
                    anchors[side - 1].write(rows, keyed)
                    anchor[side - 1] += time.perf_counter() - start
        stored = store.counts()["samples"]
        sizes = _rollup_sizes(store, backend)
    for a in anchors:
        a.close()
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
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--url", help="an empty PostgreSQL database (default: a throwaway cluster)")
    args = parser.parse_args(argv)
    probes.store.writing.PERIODS_S = VARIANTS[args.rollups]  # a design alternative, for this measurement
    days = max(1, math.ceil(args.samples / (args.targets * args.attempts * 24 * 4)))
    plan = Plan(args.targets, days, args.attempts)
    prepared = list(rounds(plan))
    runs = []
    server = None
    url = args.url
    try:
        if args.backend == "postgres" and url is None:
            from tests.postgres_server import PostgresServer

            server = PostgresServer(fsync=True)
            server.start()
            url = server.url()
        for run in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                runs.append(run_once(plan, prepared, Path(tmp), args.backend, url, run))
    finally:
        if server is not None:
            server.remove()
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
        f"store insert ({args.backend}): {n:,} samples in {plan.rounds} rounds of {plan.targets} targets × {plan.attempts} attempts",
        lines,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
