"""Benchmark: an evaluation's decision report and its workbook over 3 candidates × 2 offices × 30 days at a
1-minute cadence (the store `offices_vs_sql` fills, reused: `--samples` 10,000,000 by default). Goals: the PDF
≤ 5 s, the HTML ≤ 3 s and ≤ 2 MB, the workbook's Summary sheet adding ≤ 10 % to `export --eval`'s time.

    python -m tests.benchmarks.report_speed [--samples 10000000] [--days 30] [--repeat 5] [--db PATH]

The evaluation (`bench`: the filler's three vendors, created in a private user catalog folder as `eval add`
creates an unknown vendor; offices beijing and shanghai; the example 70B job) goes into the filled store. Each
step runs `--repeat` times, interleaved: the anchor (the bare link summaries of both offices, what `eval show`
reads: `offices_vs_sql.ours`), the HTML report, the PDF report (Qt's writer in its child process), the
workbook with the Summary and without it. Printed: best, median and worst (spread = worst ÷ best), each
step's ratio to the anchor, the HTML's size and the Summary's share. No timed asserts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.benchmarks.filling import report
from tests.benchmarks.offices_vs_sql import (
    CANDIDATES,
    MINUTE_US,
    OFFICES,
    START_US,
    attempts_per_run,
    filled_store,
    ours,
)

NAME = "bench"


def make_evaluation(db: Path) -> None:
    """The filler's candidates as an evaluation in its store (made once; kept with `--db`)."""
    from catalogs.evaluation.model import Office
    from catalogs.needs import EXAMPLE_NEEDS
    from catalogs.user import load_with_user
    from desktop.usecases.evaluation import add_candidate, list_evaluations, new_evaluation

    if any(e.name == NAME for e in list_evaluations(db)):
        return
    new_evaluation(db, NAME, EXAMPLE_NEEDS, offices=[Office(o) for o in OFFICES])
    for target in CANDIDATES:
        assert target.provider is not None and target.region is not None
        add_candidate(
            db,
            NAME,
            load_with_user(),
            provider=target.provider,
            region=target.region,
            endpoints=[str(target.host)],
            line_type=target.line_type,
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", type=Path, help="keep the filled SQLite store here (and reuse it)")
    args = parser.parse_args(argv)
    attempts = attempts_per_run(args.samples, args.days)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["LINKVET_CATALOG_DIR"] = str((args.db.parent if args.db else Path(tmp)) / "bench-catalogs")
        path = args.db or Path(tmp) / "offices.sqlite3"
        fill_s = filled_store(path, args.days, attempts)
        make_evaluation(path)
        return measure(path, Path(tmp), args.days, attempts, fill_s, args.repeat)


def measure(path: Path, out: Path, days: int, attempts: int, fill_s: float | None, repeat: int) -> int:
    from catalogs.user import load_with_user
    from desktop.usecases.export import ExportJob, run_export
    from desktop.usecases.report import ReportJob, write_report
    from probes.store import Store

    catalogs = load_with_user()
    since_us, until_us = START_US, START_US + days * 24 * 60 * MINUTE_US

    def anchor() -> object:
        with Store(path, readonly=True) as store:
            return [ours(store, office, since_us, until_us) for office in OFFICES]

    def report_as(suffix: str) -> Callable[[], object]:
        return lambda: write_report(ReportJob(NAME, out / f"report.{suffix}", catalogs, db=path))

    def workbook(summary: bool) -> Callable[[], object]:
        return lambda: run_export(
            ExportJob(
                out=out / f"book-{summary}.xlsx",
                file_format="xlsx",
                db_path=path,
                catalogs=catalogs,
                evaluation=NAME,
                summary=summary,
            )
        )

    steps: dict[str, Callable[[], object]] = {
        "anchor: both offices' link summaries (eval show's read)": anchor,
        "HTML report": report_as("html"),
        "PDF report (Qt's writer, child process)": report_as("pdf"),
        "workbook with the Summary (export --eval)": workbook(True),
        "workbook without the Summary": workbook(False),
    }
    times: dict[str, list[float]] = {name: [] for name in steps}
    names = list(steps)
    for k in range(repeat):
        for name in names if k % 2 == 0 else names[::-1]:
            started = time.perf_counter()
            steps[name]()
            times[name].append(time.perf_counter() - started)
    samples = len(OFFICES) * len(CANDIDATES) * days * 24 * 60 * attempts
    html_mb = (out / "report.html").stat().st_size / 1e6
    pdf_mb = (out / "report.pdf").stat().st_size / 1e6
    rows = [
        (
            "samples",
            f"{samples:,} ({len(CANDIDATES)} candidates × {len(OFFICES)} offices × {days} days × 1/min"
            f" × {attempts} attempts)",
        ),
        ("SQLite fill (write_round)", "reused" if fill_s is None else f"{fill_s:.1f} s"),
    ]
    for name, t in times.items():
        rows.append(
            (
                name,
                f"best {min(t):7.3f} s  median {statistics.median(t):7.3f} s  worst {max(t):7.3f} s"
                f"  spread {max(t) / min(t):.2f}",
            )
        )
    base = statistics.median(times[names[0]])
    for name in names[1:]:
        rows.append((f"ratio {name} / anchor", f"median {statistics.median(times[name]) / base:.2f}"))
    with_summary = statistics.median(times[names[3]])
    without = statistics.median(times[names[4]])
    rows += [
        ("HTML size (goal ≤ 2 MB)", f"{html_mb:.2f} MB"),
        ("PDF size", f"{pdf_mb:.2f} MB"),
        ("HTML median (goal ≤ 3 s)", f"{statistics.median(times[names[1]]):.2f} s"),
        ("PDF median (goal ≤ 5 s)", f"{statistics.median(times[names[2]]):.2f} s"),
        (
            "the Summary's share of export --eval (goal ≤ 10 %)",
            f"{(with_summary / without - 1) * 100:+.1f} %",
        ),
    ]
    report(f"an evaluation's report and workbook over {samples:,} samples ({repeat} runs each)", rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
