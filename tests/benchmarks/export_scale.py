"""Benchmark: `linkvet export` for 10,000 offerings (100 synthetic providers × 100) and 100 regions' hourly
statistics (a month, one run an hour per region): wall time, CPU time and peak memory of the command, for
xlsx and for csv; and, in this process, the workbook written by linkvet beside the same sheets written by
pandas' `DataFrame.to_excel` (the anchor).

    python -m tests.benchmarks.export_scale [--providers 100] [--offerings 100] [--regions 100] [--days 30]
                                            [--attempts 20] [--db PATH] [--runs 3]

`--db PATH` keeps the filled store and reuses it next time. Each command runs `--runs` times: the median
and the range are printed. The in-process steps run as `run_export` runs them (the cycle collector paused);
the pandas anchor runs as pandas does by default.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from catalogs.loader import load_catalogs
from catalogs.needs import load_needs
from desktop.export import ExportRequest, build_workbook, write_xlsx
from desktop.usecases.export import cyclic_gc_paused
from probes.results import ProbeResult
from probes.store import Store
from probes.target import Method, Target
from tests.benchmarks._synthetic import write_catalogs
from tests.benchmarks.filling import Plan, Timer, report, rounds
from tests.rounds import save_round

REPO_ROOT = Path(__file__).resolve().parents[2]
NEEDS = REPO_ROOT / "catalogs" / "needs" / "example-70b-full.toml"


def catalog_regions(n: int) -> list[Target]:
    """One ICMP target for each of n catalog regions (bench-PPP / region-R), as a plan would list them."""
    return [
        Target(
            method=Method.ICMP,
            host=f"127.0.{i // 250}.{i % 250 + 1}",
            provider=f"bench-{i // 10:03d}",
            region=f"region-{i % 10}",
            line_type="cn2-gia",
        )
        for i in range(n)
    ]


def relabel(results: list[ProbeResult], targets: list[Target]) -> list[ProbeResult]:
    return [
        ProbeResult(t, r.started_at_us, r.finished_at_us, r.samples)
        for r, t in zip(results, targets, strict=True)
    ]


def fill(path: Path, plan: Plan) -> float | None:
    if path.exists():
        with Store(path) as store:
            if store.counts()["samples"] == plan.samples:
                return None
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    targets = catalog_regions(plan.targets)
    with Store(path) as store, Timer() as t:
        for begin, results in rounds(plan):
            save_round(
                store,
                relabel(results, targets),
                started_us=begin,
                finished_us=begin + 1,
                source="bench",
                vantage="office",
            )
    return t.seconds


# Runs `linkvet ARGS` and reports its own peak RSS on stderr's last line.
_WRAPPER = """
import resource, runpy, sys
sys.argv = ["linkvet", *sys.argv[1:]]
code = 0
try:
    runpy.run_module("desktop.cli", run_name="__main__")
except SystemExit as exc:
    code = exc.code
print("PEAK_RSS_KIB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
sys.exit(code)
"""


def timed_linkvet(args: list[str]) -> tuple[float, float, float, subprocess.CompletedProcess[str]]:
    """Wall s, CPU s and peak RSS (MiB) of one `linkvet` command."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *args], capture_output=True, text=True, env=env, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss = next(
        (int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_RSS_KIB")), 0
    )
    return wall, cpu, rss / 1024, done


def _spread(values: list[float]) -> str:
    """The median and the range of several runs: `7.63 (7.41-8.02)`."""
    return f"{statistics.median(values):5.2f} ({min(values):.2f}-{max(values):.2f})"


def _naive(value: object) -> object:
    """Excel has no time zones: pandas wants naive (UTC) datetimes."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", type=int, default=100)
    parser.add_argument("--offerings", type=int, default=100)
    parser.add_argument("--regions", type=int, default=100)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--attempts", type=int, default=20)
    parser.add_argument("--db", type=Path)
    parser.add_argument("--runs", type=int, default=3, help="runs of each command (median and range)")
    args = parser.parse_args(argv)
    plan = Plan(args.regions, args.days, args.attempts, runs_per_hour=1, spacing_s=60.0)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = args.db or folder / "store.sqlite3"
        fill_seconds = fill(db, plan)
        write_catalogs(folder / "catalogs", args.providers, args.offerings)
        command = [
            "export",
            "--db",
            str(db),
            "--needs",
            str(NEEDS),
            "--catalogs",
            str(folder / "catalogs"),
        ]
        rows: list[tuple[str, str]] = [
            ("catalogs", f"{args.providers} providers × {args.offerings} offerings"),
            (
                "store",
                f"{plan.targets} regions × {plan.days} days hourly, {plan.samples:,} samples "
                f"({'reused' if fill_seconds is None else f'filled in {fill_seconds:.0f} s'})",
            ),
        ]
        problems = []
        for fmt, out in (("xlsx", folder / "out.xlsx"), ("csv", folder / "out-csv")):
            runs = []
            for _ in range(args.runs):
                runs.append(timed_linkvet([*command, "--out", str(out), "--format", fmt, "--force"]))
                if runs[-1][3].returncode != 0:
                    break
            done = runs[-1][3]
            if done.returncode != 0:
                problems.append(f"export {fmt} failed: {done.stderr.strip()}")
                continue
            size_mb = (
                out.stat().st_size if out.is_file() else sum(p.stat().st_size for p in out.iterdir())
            ) / 1e6
            rows.append(
                (
                    f"linkvet export --format {fmt}",
                    f"{_spread([r[0] for r in runs])} s wall {_spread([r[1] for r in runs])} s CPU "
                    f"{max(r[2] for r in runs):5.0f} MiB peak RSS  {size_mb:5.1f} MB written  "
                    f"({done.stdout.strip()})",
                )
            )
        # In this process: build once, then write the same sheets with linkvet and with pandas.
        with cyclic_gc_paused():
            catalogs = load_catalogs(folder / "catalogs")
            with Store(db, readonly=True) as store, Timer() as build:
                workbook = build_workbook(store, ExportRequest(needs=load_needs(NEEDS), catalogs=catalogs))
            with Timer() as ours:
                write_xlsx(workbook, folder / "ours.xlsx")
        frames = {
            s.name: pd.DataFrame([{c.header: _naive(r.get(c.key)) for c in s.columns} for r in s.rows])
            for s in workbook.sheets
        }
        with Timer() as anchor, pd.ExcelWriter(folder / "pandas.xlsx", engine="openpyxl") as writer:
            for name, frame in frames.items():
                frame.to_excel(writer, sheet_name=name, index=False)
        cells = sum(len(s.rows) * len(s.columns) for s in workbook.sheets)
        rows += [
            (
                "sheets / cells",
                f"{len(workbook.sheets)} / {cells:,} ({', '.join(f'{s.name} {len(s.rows):,}' for s in workbook.sheets)})",
            ),
            ("build the workbook (analysis + ranking)", f"{build.seconds:7.2f} s"),
            ("write it: linkvet (formats, filters, charts)", f"{ours.seconds:7.2f} s"),
            ("write it: pandas to_excel, openpyxl (anchor)", f"{anchor.seconds:7.2f} s"),
            ("ratio linkvet / pandas", f"{ours.seconds / anchor.seconds:7.2f}"),
        ]
    report("export at scale", rows)
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
