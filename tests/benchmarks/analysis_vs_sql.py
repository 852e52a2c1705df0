"""Benchmark: a month of 100 regions' samples aggregated by `probes.analysis` from the hourly rollups, beside
the same hour-of-day question answered from the raw samples by SQLite's GROUP BY and by pandas (the
anchors).

    python -m tests.benchmarks.analysis_vs_sql [--samples 10000000] [--days 30] [--regions 100] [--db PATH]

The store is filled through `Store.save_round` (one round an hour, one run per region spread over the
hour); `--db PATH` keeps it and reuses it next time. Goal: 10,000,000 samples aggregate in under a second.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from probes.analysis import Scope, breach_shares, compare_peak, hour_of_day, link_summaries
from probes.store import Store
from tests.benchmarks.filling import Plan, Timer, peak_rss_mib, report, rounds


def filled_store(path: Path, plan: Plan) -> float | None:
    """Make the store at `path` hold the plan's samples (reused when it already does); fill seconds or None."""
    if path.exists():
        with Store(path) as store:  # read-write: an older store is upgraded
            if store.counts()["samples"] == plan.samples:
                return None
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    with Store(path) as store, Timer() as fill:
        for begin, results in rounds(plan):
            store.save_round(results, started_us=begin, finished_us=begin + 1, source="bench")
    return fill.seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--regions", type=int, default=100)
    parser.add_argument("--db", type=Path, help="keep the filled store here (and reuse it)")
    args = parser.parse_args(argv)
    plan = Plan.for_samples(args.samples, targets=args.regions, days=args.days, runs_per_hour=1, spread=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "bench.sqlite3"
        fill_seconds = filled_store(path, plan)
        return measure(path, plan, fill_seconds)


def measure(path: Path, plan: Plan, fill_seconds: float | None) -> int:
    timings: dict[str, float] = {}
    with Store(path, readonly=True) as store:
        with Timer() as t:
            profile = hour_of_day(store, Scope(by="region"), tz="Asia/Shanghai")
        timings["hour_of_day (from rollups)"] = t.seconds
        with Timer() as t:
            summaries = link_summaries(store)
        timings["link_summaries"] = t.seconds
        with Timer() as t:
            comparisons = compare_peak(store)
        timings["compare_peak + bootstrap CIs (1000)"] = t.seconds
        with Timer() as t:
            breach_shares(store)
        timings["breach_shares"] = t.seconds
        rss_rollups = peak_rss_mib()
        with Timer() as t:
            kolkata = hour_of_day(store, Scope(by="region"), tz="Asia/Kolkata")
        timings["hour_of_day, Asia/Kolkata (raw samples)"] = t.seconds
        rss_raw = peak_rss_mib()
        with Timer() as load:
            samples = store.samples_frame()
    problems = []
    if not int(profile["sent"].sum()) == plan.samples == int(kolkata["sent"].sum()):
        problems.append("the profiles do not count every sample once")
    if not len(comparisons) == len(summaries) == plan.targets:
        problems.append("not one summary per region")
    # Anchor 1: SQLite GROUP BY over the raw samples (counts and mean; SQL has no percentiles).
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with Timer() as sql:
        rows = db.execute(
            "SELECT t.provider, t.region, ((s.ts_us / 3600000000) + 8) % 24 AS hour, count(*),"
            " count(s.rtt_ms), avg(s.rtt_ms) FROM samples s JOIN targets t ON t.id = s.target_id"
            " GROUP BY t.provider, t.region, hour"
        ).fetchall()
    db.close()
    if sum(r[3] for r in rows) != plan.samples:
        problems.append("the SQL anchor lost samples")
    # Anchor 2: pandas over the raw samples, with the percentiles.
    with Timer() as grouping:
        frame = samples.assign(hour=(samples["ts_us"] // 3_600_000_000 + 8) % 24)
        grouped = frame.groupby(["target_id", "hour"])["rtt_ms"]
        pd.concat([grouped.size(), grouped.count(), grouped.median(), grouped.quantile(0.95)], axis=1)
    ours = timings["hour_of_day (from rollups)"]
    report(
        f"analysis of {plan.days} days of samples",
        [
            (
                "samples",
                f"{plan.samples:,} ({plan.targets} regions, {plan.days} days, "
                f"{plan.targets * plan.days * 24:,} hourly rollups)",
            ),
            ("fill through Store.save_round", "reused" if fill_seconds is None else f"{fill_seconds:.1f} s"),
            *[(name, f"{seconds:8.3f} s") for name, seconds in timings.items()],
            ("anchor: SQLite GROUP BY on raw samples (no percentiles)", f"{sql.seconds:8.3f} s"),
            ("anchor: pandas groupby + quantiles (samples in memory)", f"{grouping.seconds:8.3f} s"),
            ("anchor: pandas incl. reading the samples", f"{load.seconds + grouping.seconds:8.3f} s"),
            ("ratio SQLite / hour_of_day", f"{sql.seconds / ours:8.1f}"),
            ("ratio pandas incl. reading / hour_of_day", f"{(load.seconds + grouping.seconds) / ours:8.1f}"),
            ("peak RSS after the rollup analyses", f"{rss_rollups:8.0f} MiB"),
            ("peak RSS after the raw-sample fallback", f"{rss_raw:8.0f} MiB"),
            ("peak RSS after the anchors (all samples in memory)", f"{peak_rss_mib():8.0f} MiB"),
        ],
    )
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
