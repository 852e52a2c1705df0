"""Benchmark: the analysis goal on PostgreSQL — hour-of-day over `--samples` samples (10,000,000: a month of
100 regions) in under a second, as on SQLite, with the SQLite figure in the same run, on the same rows.

    python -m tests.benchmarks.analysis_postgres_vs_sqlite [--samples 10000000] [--days 30] [--regions 100]
        [--repeat 3] [--db PATH] [--url postgresql://…]

The SQLite store is filled through `Store.write_round` as in `tests.benchmarks.analysis_vs_sql` (`--db PATH`
keeps it for the next run); its rows are then copied as they are into an empty PostgreSQL store (COPY, table by
table: the same targets, rounds, samples and rollups, ids included), so both answer from identical data. Each
step is timed on both, interleaved (which goes first alternates), `--repeat` times: printed are the best, the
worst, and the PostgreSQL ÷ SQLite ratio of the bests. The answers must be equal (checked). Without `--url` a
throwaway PostgreSQL cluster is started (tests/postgres_server.py, fsync on). No timed asserts.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path

import pandas as pd

from probes.analysis import Scope, compare_peak, hour_of_day, link_summaries
from probes.store import Store
from tests.benchmarks.analysis_vs_sql import filled_store
from tests.benchmarks.filling import Plan, Timer, report

# Parents before children (PostgreSQL checks the references).
TABLES = (
    "series",
    "rounds",
    "results",
    "samples",
    "hourly",
    "quarter_hourly",
    "traces",
    "trace_replies",
    "store_facts",  # the sample reach: without it a window's raw samples of runs started before it are missed
)


def copy_into_postgres(sqlite_path: Path, url: str) -> float:
    """Copy every row of the SQLite store into the empty PostgreSQL store at `url`; the seconds it took."""
    import psycopg

    Store(url).close()  # the schema
    with (
        Timer() as copying,
        closing(sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)) as source,
        psycopg.connect(url) as target,
    ):
        target.execute(
            "DELETE FROM store_facts"
        )  # what the new store's migrations wrote: replaced by the copy
        for table in TABLES:
            cursor = source.execute(f"SELECT * FROM {table}")
            columns = [d[0] for d in cursor.description]
            with (
                target.cursor() as out,
                out.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
            ):  # type: ignore[arg-type]
                while rows := cursor.fetchmany(100_000):
                    for row in rows:
                        copy.write_row(row)
        for table in ("series", "rounds", "results"):  # identity columns continue after the copied ids
            target.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), coalesce(max(id), 1)) FROM {table}"  # type: ignore[arg-type]
            )
        target.execute("ANALYZE")
    return copying.seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--regions", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--db", type=Path, help="keep the filled SQLite store here (and reuse it)")
    parser.add_argument("--url", help="an empty PostgreSQL database or schema to copy the rows into")
    args = parser.parse_args(argv)
    plan = Plan.for_samples(args.samples, targets=args.regions, days=args.days, runs_per_hour=1, spread=True)
    server = None
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "bench.sqlite3"
        fill_seconds, _upgrade = filled_store(path, plan)
        try:
            url = args.url
            if url is None:
                from tests.postgres_server import PostgresServer

                server = PostgresServer(fsync=True)
                server.start()
                url = server.url()
            copy_seconds = copy_into_postgres(path, url)
            return measure(path, url, plan, fill_seconds, copy_seconds, args.repeat)
        finally:
            if server is not None:
                server.remove()


def measure(path: Path, url: str, plan: Plan, fill_s: float | None, copy_s: float, repeat: int) -> int:
    by_region = Scope(by="region")
    steps: dict[str, Callable[[Store], object]] = {
        "hour_of_day, Asia/Shanghai (hourly rollups)": lambda s: hour_of_day(s, by_region),
        "hour_of_day, Asia/Kolkata (quarter-hour rollups)": lambda s: hour_of_day(
            s, by_region, tz="Asia/Kolkata"
        ),
        "link_summaries": lambda s: link_summaries(s),
        "compare_peak + bootstrap CIs (1000)": lambda s: compare_peak(s),
    }
    times: dict[tuple[str, str], list[float]] = {}
    answers: dict[tuple[str, str], object] = {}
    with Store(path, readonly=True) as sqlite, Store(url, readonly=True) as postgres:
        stores = {"sqlite": sqlite, "postgres": postgres}
        for k in range(repeat):
            for name, step in steps.items():
                for backend in ("sqlite", "postgres") if k % 2 == 0 else ("postgres", "sqlite"):
                    started = time.perf_counter()
                    answers[(name, backend)] = step(stores[backend])
                    times.setdefault((name, backend), []).append(time.perf_counter() - started)
        counts = (sqlite.counts(), postgres.counts())
    problems = []
    if counts[0] != counts[1]:
        problems.append(f"the stores hold different rows: {counts}")
    for name in steps:
        a, b = answers[(name, "sqlite")], answers[(name, "postgres")]
        same = a.equals(b) if isinstance(a, pd.DataFrame) else repr(a) == repr(b)
        if not same:
            problems.append(f"{name}: the answers differ")
    profile = answers[("hour_of_day, Asia/Shanghai (hourly rollups)", "postgres")]
    assert isinstance(profile, pd.DataFrame)
    if int(profile["sent"].sum()) != plan.samples:
        problems.append("the PostgreSQL profile does not count every sample once")
    rows = [
        (
            "samples",
            f"{plan.samples:,} ({plan.targets} regions × {plan.days} days × {plan.attempts} an hour)",
        ),
        ("SQLite fill (write_round)", "reused" if fill_s is None else f"{fill_s:.1f} s"),
        ("copied into PostgreSQL (COPY)", f"{copy_s:.1f} s"),
    ]
    for name in steps:
        sqlite_t, pg_t = times[(name, "sqlite")], times[(name, "postgres")]
        rows.append(
            (
                name,
                f"sqlite {min(sqlite_t):7.3f} s (worst {max(sqlite_t):.3f})   postgres {min(pg_t):7.3f} s"
                f" (worst {max(pg_t):.3f})   ratio {min(pg_t) / min(sqlite_t):.2f}",
            )
        )
    rows.append(("answers equal on both", "yes" if not problems else "; ".join(problems)))
    report(f"analysis of {plan.samples:,} samples, PostgreSQL beside SQLite ({repeat} runs each)", rows)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
