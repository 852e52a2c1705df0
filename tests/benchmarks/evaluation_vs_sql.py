"""Benchmark: `linkvet eval show` and `linkvet score --eval` end to end — 3 candidates measured from 2 offices for
30 days at a 1-minute cadence (`--samples` 10,000,000, the store `offices_vs_sql` fills) — beside the bare SQL
aggregation of the same rows (per series, peak or not) in the same run, on SQLite and on PostgreSQL. The goal:
≤ 1 s each.

    python -m tests.benchmarks.evaluation_vs_sql [--samples 10000000] [--days 30] [--repeat 5] [--db PATH]
        [--url postgresql://…]

What is timed is what the commands do after parsing their arguments: the evaluation read from the store, the
evidence table (each candidate region's line per office, routes, transfers, the catalogs' answers, checks and
prices: `desktop.usecases.evidence.evidence_table`) and the ranking of exactly the candidates on the worse
office's line (`desktop.usecases.evaluation_score.rank_evaluation`). The candidates' providers live in a
temporary user catalog folder, created as `linkvet eval add` creates a vendor. Printed: best, median, worst and
spread per step and backend, and the ratio of our median to the SQL anchor's. The evidence must count the same
samples as SQL. No timed asserts.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from catalogs.evaluation.model import Candidate, Evaluation, Office, to_toml
from catalogs.needs import EXAMPLE_NEEDS, load_needs
from catalogs.overlay import OverlayFact
from catalogs.user import load_with_user
from probes.store import Store
from tests.benchmarks.analysis_postgres_vs_sqlite import copy_into_postgres
from tests.benchmarks.filling import START_US, report
from tests.benchmarks.offices_vs_sql import (
    CANDIDATES,
    MINUTE_US,
    OFFICES,
    WINDOWS,
    anchor,
    attempts_per_run,
    filled_store,
)

NAME = "bench"


def evaluation() -> Evaluation:
    return Evaluation(
        NAME,
        load_needs(EXAMPLE_NEEDS),
        tuple(Office(o) for o in OFFICES),
        tuple(
            Candidate(str(t.provider), str(t.region), None, t.line_type, (str(t.host),)) for t in CANDIDATES
        ),
        WINDOWS,
        "worst",
    )


def vendors(folder: Path) -> None:
    """The candidates' providers and regions in a user catalog folder, as `eval add` creates them."""
    from desktop.usecases.user_catalogs import apply_facts

    for target in CANDIDATES:
        facts = [
            OverlayFact(key=key, value=value, standing="claimed", source="benchmark", as_of="2026-12-01")
            for key, value in (
                ("provider.name", str(target.provider)),
                (f"region[{target.region}].name", str(target.region)),
            )
        ]
        known = load_with_user(user_dir=folder)
        _path, _changes, errors = apply_facts(known, str(target.provider), facts, folder)
        assert not errors, errors


def _anchor(db: Path | str, since_us: int, until_us: int) -> list[list[tuple[object, ...]]]:
    with Store(db, readonly=True) as store:
        return [anchor(store, office, since_us, until_us) for office in OFFICES]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", type=Path, help="keep the filled SQLite store here (and reuse it)")
    parser.add_argument("--url", help="an empty PostgreSQL database or schema to copy the rows into")
    args = parser.parse_args(argv)
    attempts = attempts_per_run(args.samples, args.days)
    from desktop.usecases.evaluation_score import rank_evaluation
    from desktop.usecases.evidence import evidence_table
    from tests.postgres_server import PostgresServer

    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "offices.sqlite3"
        fill_s = filled_store(path, args.days, attempts)
        vendors(Path(tmp) / "catalogs")
        catalogs = load_with_user(user_dir=Path(tmp) / "catalogs")
        server = None
        if args.url is None:
            server = PostgresServer(fsync=True)
            server.start()
        try:
            url = args.url or server.url()  # type: ignore[union-attr]
            copy_s = copy_into_postgres(path, url)
            for location in (path, url):
                with Store(location) as store:
                    store.put_evaluation(NAME, to_toml(evaluation()), format=1)
            since_us, until_us = START_US, START_US + args.days * 24 * 60 * MINUTE_US
            steps = {
                "SQL anchor: GROUP BY series, peak, both offices": lambda db: _anchor(db, since_us, until_us),
                "eval show (evidence table)": lambda db: evidence_table(db, NAME, catalogs),
                "score --eval (ranking)": lambda db: rank_evaluation(db, NAME, catalogs),
            }
            times: dict[tuple[str, str], list[float]] = {}
            answers: dict[tuple[str, str], object] = {}
            backends = {"sqlite": path, "postgres": url}
            for k in range(args.repeat):
                for name, step in steps.items():
                    for backend in ("sqlite", "postgres") if k % 2 == 0 else ("postgres", "sqlite"):
                        started = time.perf_counter()
                        answers[(name, backend)] = step(backends[backend])
                        times.setdefault((name, backend), []).append(time.perf_counter() - started)
        finally:
            if server is not None:
                server.remove()
    problems = []
    for backend in backends:
        table = answers[("eval show (evidence table)", backend)]
        sql = answers[("SQL anchor: GROUP BY series, peak, both offices", backend)]
        counted = sum(
            (cell.figures["offpeak_samples"] or 0) + (cell.figures["peak_samples"] or 0)
            for row in table.candidates  # type: ignore[attr-defined]
            for cell in row.cells["line"].offices.values()
        )
        expected = sum(int(r[2]) for office_rows in sql for r in office_rows)  # type: ignore[attr-defined]
        if counted != expected:
            problems.append(f"{backend}: the evidence counts {counted} samples, SQL {expected}")
    samples = len(OFFICES) * len(CANDIDATES) * args.days * 24 * 60 * attempts
    rows = [
        (
            "samples",
            f"{samples:,} ({len(CANDIDATES)} candidates × {len(OFFICES)} offices × {args.days} days × 1/min)",
        ),
        ("SQLite fill (write_round)", "reused" if fill_s is None else f"{fill_s:.1f} s"),
        ("copied into PostgreSQL (COPY)", f"{copy_s:.1f} s"),
    ]
    anchor_name = next(iter(steps))
    for name in steps:
        for backend in backends:
            t = times[(name, backend)]
            rows.append(
                (
                    f"{name} [{backend}]",
                    f"best {min(t):7.3f} s  median {statistics.median(t):7.3f} s  worst {max(t):7.3f} s"
                    f"  spread {max(t) / min(t):.2f}",
                )
            )
    for name in list(steps)[1:]:
        for backend in backends:
            ratio = statistics.median(times[(name, backend)]) / statistics.median(
                times[(anchor_name, backend)]
            )
            rows.append((f"ratio {name} / SQL [{backend}]", f"median {ratio:.3f}"))
    rows.append(
        ("evidence counts agree with SQL, both backends", "yes" if not problems else "; ".join(problems))
    )
    report(f"eval show and score --eval over {samples:,} samples ({args.repeat} runs each)", rows)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
