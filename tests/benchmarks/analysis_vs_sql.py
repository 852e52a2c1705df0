"""Benchmark: a month of 100 regions' samples aggregated by `probes.analysis` from the rollups (hourly, and
quarter-hourly for a +05:30 zone and a window starting at :30), beside the same hour-of-day question answered
from the raw samples by SQLite's GROUP BY and by pandas (the anchors), in the same run.

    python -m tests.benchmarks.analysis_vs_sql [--samples 10000000] [--days 30] [--regions 100] [--db PATH]
        [--repeat 3]

The store is filled through `Store.write_round` (one round an hour, one run per region spread over the
hour); `--db PATH` keeps it and reuses it next time (an older store is upgraded first, and the upgrade timed).
Goals: 10,000,000 samples aggregate in under a second in a whole-hour zone, and in under 1.5 s in
Asia/Kolkata or with a window such as 20:30-23:00. `--repeat` times each analysis step that many times and
prints the best and the spread. Also timed: the design without hourly rollups (every question from the
quarter hours), and the raw-sample answer the quarter hours replace (what a window off the quarter hour
still costs for the quarters it splits).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

import probes.analysis.sources
from probes.analysis import Scope, breach_shares, compare_peak, hour_of_day, link_summaries
from probes.analysis.cells import merge_cells
from probes.analysis.clock import local_hour
from probes.analysis.sources import build_cells
from probes.peak import PeakWindow
from probes.store import Store
from probes.store.rollup import QUARTER_S
from tests.benchmarks.filling import Plan, Timer, peak_rss_mib, report, rounds
from tests.rounds import save_round

WINDOW = [PeakWindow.parse("20:30-23:00 Asia/Shanghai")]
OFF_QUARTER = [PeakWindow.parse("20:10-23:00 Asia/Shanghai")]


def filled_store(path: Path, plan: Plan) -> tuple[float | None, float | None]:
    """Make the store at `path` hold the plan's samples (reused when it already does): (fill seconds or
    None, upgrade seconds or None)."""
    if path.exists():
        started = time.perf_counter()
        with Store(path) as store:  # read-write: an older store is upgraded
            upgraded = time.perf_counter() - started
            if store.counts()["samples"] == plan.samples:
                return None, upgraded if upgraded > 1 else None
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    with Store(path) as store, Timer() as fill:
        for begin, results in rounds(plan):
            save_round(store, results, started_us=begin, finished_us=begin + 1, source="bench")
    return fill.seconds, None


def timed(repeat: int, step: Callable[[], object]) -> tuple[float, float, object]:
    """(best seconds, worst seconds, the step's result) of `repeat` runs."""
    times = []
    result: object = None
    for _ in range(repeat):
        started = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - started)
    return min(times), max(times), result


def quarters_only(step: Callable[[], object]) -> Callable[[], object]:
    """The step as it would run if the store kept quarter-hour rollups only (the design alternative)."""

    def run() -> object:
        kept = probes.analysis.sources.PERIODS_S
        probes.analysis.sources.PERIODS_S = (QUARTER_S,)
        try:
            return step()
        finally:
            probes.analysis.sources.PERIODS_S = kept

    return run


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--regions", type=int, default=100)
    parser.add_argument("--db", type=Path, help="keep the filled store here (and reuse it)")
    parser.add_argument("--repeat", type=int, default=1, help="time each analysis step this many times")
    args = parser.parse_args(argv)
    plan = Plan.for_samples(args.samples, targets=args.regions, days=args.days, runs_per_hour=1, spread=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "bench.sqlite3"
        fill_seconds, upgrade_seconds = filled_store(path, plan)
        return measure(path, plan, fill_seconds, upgrade_seconds, args.repeat)


def measure(
    path: Path, plan: Plan, fill_seconds: float | None, upgrade_seconds: float | None, repeat: int = 1
) -> int:
    timings: dict[str, tuple[float, float]] = {}
    results: dict[str, object] = {}

    def step(name: str, run: Callable[[], object], times: int = repeat) -> None:
        best, worst, results[name] = timed(times, run)
        timings[name] = (best, worst)

    with Store(path, readonly=True) as store:
        by_region = Scope(by="region")
        step("hour_of_day, Asia/Shanghai (hourly rollups)", lambda: hour_of_day(store, by_region))
        step("link_summaries", lambda: link_summaries(store))
        step("compare_peak + bootstrap CIs (1000)", lambda: compare_peak(store))
        step("breach_shares", lambda: breach_shares(store))
        step(
            "hour_of_day, Asia/Kolkata (quarter-hour rollups)",
            lambda: hour_of_day(store, by_region, tz="Asia/Kolkata"),
        )
        step(
            "compare_peak, window 20:30-23:00 (quarter hours; no CIs)",
            lambda: compare_peak(store, windows=WINDOW, intervals=False),
        )
        step(
            "compare_peak, window 20:30-23:00 + bootstrap CIs (1000)",
            lambda: compare_peak(store, windows=WINDOW),
        )
        step(
            "compare_peak, window 20:10-23:00 (split quarters raw; no CIs)",
            lambda: compare_peak(store, windows=OFF_QUARTER, intervals=False),
        )
        step(
            "alternative, quarter hours only: hour_of_day, Asia/Shanghai",
            quarters_only(lambda: hour_of_day(store, by_region)),
        )
        rss_rollups = peak_rss_mib()
        ids = [t.id for t in store.series()]
        step(
            "hour_of_day, Asia/Kolkata from raw samples (the fallback)",
            lambda: merge_cells(
                build_cells(store, ids, [local_hour("Asia/Kolkata")], raw_only=True), ["hour"]
            ),
            times=1,
        )
        rss_raw = peak_rss_mib()
        sizes = dict(
            store.backend.connection.execute(  # type: ignore[attr-defined]
                "SELECT name, sum(pgsize) / 1048576.0 FROM dbstat"
                " WHERE name IN ('hourly', 'quarter_hourly', 'samples') GROUP BY name"
            ).fetchall()
        )
        with Timer() as load:
            samples = store.samples_frame()
    profile = results["hour_of_day, Asia/Shanghai (hourly rollups)"]
    kolkata = results["hour_of_day, Asia/Kolkata (quarter-hour rollups)"]
    only_quarters = results["alternative, quarter hours only: hour_of_day, Asia/Shanghai"]
    raw = results["hour_of_day, Asia/Kolkata from raw samples (the fallback)"]
    comparisons = results["compare_peak + bootstrap CIs (1000)"]
    summaries = results["link_summaries"]
    assert isinstance(profile, pd.DataFrame) and isinstance(kolkata, pd.DataFrame)
    assert isinstance(only_quarters, pd.DataFrame) and isinstance(comparisons, list)
    assert isinstance(summaries, list)
    problems = []
    if not int(profile["sent"].sum()) == plan.samples == int(kolkata["sent"].sum()):
        problems.append("the profiles do not count every sample once")
    if not len(comparisons) == len(summaries) == plan.targets:
        problems.append("not one summary per region")
    by_hour = kolkata.groupby("hour")[["sent", "received"]].sum()
    raw_frame = raw.frame.set_index("hour")  # type: ignore[attr-defined]
    if not (by_hour.to_numpy() == raw_frame[["sent", "received"]].to_numpy()).all():
        problems.append("the Kolkata profile from quarter hours differs from the raw samples' answer")
    if not np.allclose(only_quarters["rtt_p95_ms"], profile["rtt_p95_ms"], equal_nan=True):
        problems.append("quarter hours alone give another answer than the hourly rollups")
    # Anchor 1: SQLite GROUP BY over the raw samples (counts and mean; SQL has no percentiles).
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with Timer() as sql:
        rows = db.execute(
            "SELECT t.provider, t.region, ((s.ts_us / 3600000000) + 8) % 24 AS hour, count(*),"
            " count(s.rtt_ms), avg(s.rtt_ms) FROM samples s JOIN series t ON t.id = s.series_id"
            " GROUP BY t.provider, t.region, hour"
        ).fetchall()
    db.close()
    if sum(r[3] for r in rows) != plan.samples:
        problems.append("the SQL anchor lost samples")
    # Anchor 2: pandas over the raw samples, with the percentiles.
    with Timer() as grouping:
        frame = samples.assign(hour=(samples["ts_us"] // 3_600_000_000 + 8) % 24)
        grouped = frame.groupby(["series_id", "hour"])["rtt_ms"]
        pd.concat([grouped.size(), grouped.count(), grouped.median(), grouped.quantile(0.95)], axis=1)
    ours = timings["hour_of_day, Asia/Shanghai (hourly rollups)"][0]
    kolkata_s = timings["hour_of_day, Asia/Kolkata (quarter-hour rollups)"][0]

    def shown(best: float, worst: float) -> str:
        return f"{best:8.3f} s" + (f"  (worst {worst:.3f})" if repeat > 1 else "")

    report(
        f"analysis of {plan.days} days of samples",
        [
            (
                "samples",
                f"{plan.samples:,} ({plan.targets} regions, {plan.days} days, "
                f"{plan.targets * plan.days * 24:,} hourly and {plan.targets * plan.days * 96:,} "
                "quarter-hourly rollups)",
            ),
            ("fill through Store.write_round", "reused" if fill_seconds is None else f"{fill_seconds:.1f} s"),
            *(
                [("upgrade of the kept store (rollups rebuilt)", f"{upgrade_seconds:.1f} s")]
                if upgrade_seconds
                else []
            ),
            (
                "storage (MiB)",
                ", ".join(f"{name} {mib:.1f}" for name, mib in sorted(sizes.items())),
            ),
            *[(name, shown(*seconds)) for name, seconds in timings.items()],
            ("anchor: SQLite GROUP BY on raw samples (no percentiles)", f"{sql.seconds:8.3f} s"),
            ("anchor: pandas groupby + quantiles (samples in memory)", f"{grouping.seconds:8.3f} s"),
            ("anchor: pandas incl. reading the samples", f"{load.seconds + grouping.seconds:8.3f} s"),
            ("ratio SQLite / hour_of_day", f"{sql.seconds / ours:8.1f}"),
            ("ratio pandas incl. reading / hour_of_day", f"{(load.seconds + grouping.seconds) / ours:8.1f}"),
            ("ratio SQLite / hour_of_day Kolkata", f"{sql.seconds / kolkata_s:8.1f}"),
            (
                "ratio pandas incl. reading / hour_of_day Kolkata",
                f"{(load.seconds + grouping.seconds) / kolkata_s:8.1f}",
            ),
            ("peak RSS after the rollup analyses", f"{rss_rollups:8.0f} MiB"),
            ("peak RSS after the raw-sample answer", f"{rss_raw:8.0f} MiB"),
            ("peak RSS after the anchors (all samples in memory)", f"{peak_rss_mib():8.0f} MiB"),
        ],
    )
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
