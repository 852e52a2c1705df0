"""Analysis speed: a month of 100 regions' samples aggregated from the hourly rollups, beside the same
questions answered from the raw samples by SQLite's GROUP BY and by pandas (the anchors).

The store is filled through `Store.save_round`. CI runs a quick 500,000 samples over a week; the issue's
figure is 10,000,000 over a month:
    LINKVET_BENCH_SAMPLES=10000000 LINKVET_BENCH_DAYS=30 python -m pytest -s tests/benchmarks/test_analysis_speed.py
(LINKVET_BENCH_DB=PATH keeps the filled store there and reuses it on the next run.)
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd

from probes.analysis import Scope, breach_shares, compare_peak, hour_of_day, link_summaries
from probes.store import Store
from tests.benchmarks.filling import Plan, Timer, env_int, peak_rss_mib, report, rounds


def filled_store(path: Path, plan: Plan) -> tuple[Path, float | None]:
    """A store at `path` holding the plan's samples (reused when it already does); fill seconds or None."""
    if path.exists():
        with Store(path, readonly=True) as store:
            if store.counts()["samples"] == plan.samples:
                return path, None
        path.unlink()
    with Store(path) as store, Timer() as fill:
        for begin, results in rounds(plan):
            store.save_round(results, started_us=begin, finished_us=begin + 1, source="bench")
    return path, fill.seconds


def test_aggregating_a_month_beside_raw_sql_and_pandas(tmp_path: Path) -> None:
    plan = Plan.for_samples(
        env_int("LINKVET_BENCH_SAMPLES", 500_000),
        days=env_int("LINKVET_BENCH_DAYS", 7),
        runs_per_hour=1,
        spread=True,
    )
    path, fill_seconds = filled_store(
        Path(os.environ.get("LINKVET_BENCH_DB", tmp_path / "bench.sqlite3")), plan
    )
    timings: dict[str, float] = {}
    with Store(path, readonly=True) as store:
        with Timer() as t:
            profile = hour_of_day(store, Scope(by="region"), tz="Asia/Shanghai")
        timings["hour_of_day (rollups)"] = t.seconds
        with Timer() as t:
            comparisons = compare_peak(store, intervals=False)
        timings["compare_peak, no intervals"] = t.seconds
        with Timer() as t:
            summaries = link_summaries(store)
        timings["link_summaries"] = t.seconds
        with Timer() as t:
            compare_peak(store)
        timings["compare_peak + bootstrap (1000)"] = t.seconds
        with Timer() as t:
            breach_shares(store)
        timings["breach_shares"] = t.seconds
        with Timer() as t:
            kolkata = hour_of_day(store, Scope(by="region"), tz="Asia/Kolkata")
        timings["hour_of_day, Asia/Kolkata (raw)"] = t.seconds
        with Timer() as t:
            samples = store.samples_frame()
        load_seconds = t.seconds
    assert int(profile["sent"].sum()) == plan.samples == int(kolkata["sent"].sum())
    assert len(comparisons) == len(summaries) == plan.targets
    assert all(c.p95_diff_ms is not None and c.p95_diff_ms > 40 for c in comparisons)

    # Anchor 1: SQLite GROUP BY over the raw samples (counts, loss and mean; SQL has no percentiles).
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with Timer() as sql:
        rows = db.execute(
            "SELECT t.provider, t.region, ((s.ts_us / 3600000000) + 8) % 24 AS hour, count(*),"
            " count(s.rtt_ms), avg(s.rtt_ms) FROM samples s JOIN targets t ON t.id = s.target_id"
            " GROUP BY t.provider, t.region, hour"
        ).fetchall()
    db.close()
    assert sum(r[3] for r in rows) == plan.samples
    # Anchor 2: pandas over the raw samples (loaded above), with the percentiles.
    with Timer() as pandas_time:
        frame = samples.assign(hour=(samples["ts_us"] // 3_600_000_000 + 8) % 24)
        grouped = frame.groupby(["target_id", "hour"])["rtt_ms"]
        anchor = pd.concat(
            [grouped.size(), grouped.count(), grouped.median(), grouped.quantile(0.95)], axis=1
        )
    assert int(anchor.iloc[:, 0].sum()) == plan.samples
    ours = timings["hour_of_day (rollups)"]
    rows_out = [
        (
            "samples",
            f"{plan.samples:,} ({plan.targets} regions, {plan.days} days, {plan.targets * plan.days * 24:,} rollups)",
        ),
        ("fill through Store.save_round", "reused" if fill_seconds is None else f"{fill_seconds:.1f} s"),
        *[(name, f"{seconds:7.3f} s") for name, seconds in timings.items()],
        ("anchor: SQL GROUP BY (no percentiles)", f"{sql.seconds:7.3f} s"),
        ("anchor: pandas groupby + quantiles", f"{pandas_time.seconds:7.3f} s"),
        ("anchor: + loading the raw samples", f"{load_seconds + pandas_time.seconds:7.3f} s"),
        ("ratio SQL / hour_of_day", f"{sql.seconds / ours:7.1f}x"),
        (
            "ratio pandas (load + groupby) / hour_of_day",
            f"{(load_seconds + pandas_time.seconds) / ours:7.1f}x",
        ),
        ("peak RSS of this process", f"{peak_rss_mib():7.0f} MiB"),
    ]
    report("analysis over a month of samples", rows_out)
    assert np.isfinite(profile["rtt_p95_ms"]).any()
