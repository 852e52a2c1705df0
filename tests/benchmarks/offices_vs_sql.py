"""Benchmark: an evaluation's line evidence per office — 3 candidates measured from 2 offices for 30 days at a
1-minute cadence (`--samples` 10,000,000) — as `linkvet eval show` reads it: each office's peak and off-peak
link summaries of its own series, beside the bare SQL aggregation of the same rows (per series, peak or not:
attempts, replies, mean RTT) in the same run, on SQLite and on PostgreSQL. The goal: ≤ 1 s.

    python -m tests.benchmarks.offices_vs_sql [--samples 10000000] [--days 30] [--repeat 5] [--db PATH]
        [--url postgresql://…]

The SQLite store is filled through `Store.write_round`, one round a minute per office (its 3 candidates, one
run each, the office as the round's vantage point; Beijing's line 40 ms worse at peak than Shanghai's);
`--db PATH` keeps it for the next run. Its rows are then copied as they are into an empty PostgreSQL store
(`analysis_postgres_vs_sqlite.copy_into_postgres`; without `--url` a throwaway cluster, fsync on). Each step
runs `--repeat` times per backend, interleaved (which goes first alternates): printed are the best, the
median and the worst (spread = worst ÷ best), and per backend the ratio of our median to the SQL anchor's.
The answers must agree (attempts and replies per office and side equal to SQL's counts, on both backends).
No timed asserts.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from probes.analysis import MeasuredLink, Scope, link_summaries
from probes.errors import ErrorKind
from probes.peak import PeakWindow
from probes.results import ProbeResult, Sample
from probes.store import Store, measured_round
from probes.target import Method, Target
from tests.benchmarks.analysis_postgres_vs_sqlite import copy_into_postgres
from tests.benchmarks.filling import START_US, US, Timer, report

OFFICES = ("beijing", "shanghai")
CANDIDATES = (
    Target(
        Method.ICMP, host="127.0.1.1", name="vendor-a", provider="vendora", region="la", line_type="cn2-gia"
    ),
    Target(Method.ICMP, host="127.0.1.2", name="vendor-b", provider="vendorb", region="sj", line_type="bgp"),
    Target(
        Method.ICMP, host="127.0.1.3", name="vendor-c", provider="vendorc", region="tokyo", line_type="cn2-gt"
    ),
)
WINDOWS = (PeakWindow.parse("20:00-23:00 Asia/Shanghai"),)  # 12:00-15:00 UTC
MINUTE_US = 60 * US
# Peak or not, in SQL: the UTC minute of the day in 12:00-15:00 (Shanghai's 20:00-23:00, no DST).
PEAK_SQL = "((s.ts_us / 60000000) % 1440) BETWEEN 720 AND 899"


def attempts_per_run(samples: int, days: int) -> int:
    return max(1, math.ceil(samples / (len(OFFICES) * len(CANDIDATES) * days * 24 * 60)))


def rounds(days: int, attempts: int, seed: int = 1) -> Iterator[tuple[str, int, list[ProbeResult]]]:
    """(office, start µs, results) per minute and office: each candidate's run of `attempts` attempts spread
    over the minute, 150 ms (+20 per candidate), +60 ms (Beijing +100) and 3% loss at peak."""
    rng = np.random.default_rng(seed)
    offsets = (np.arange(attempts) * (55 * US // attempts)).astype(np.int64)
    for minute in range(days * 24 * 60):
        begin = START_US + minute * MINUTE_US
        peak = 12 <= (minute // 60) % 24 < 15
        for office in OFFICES:
            extra = (100.0 if office == "beijing" else 60.0) if peak else 0.0
            results = []
            for i, target in enumerate(CANDIDATES):
                rtt = (150.0 + 20 * i + extra + rng.normal(0, 2, attempts)).tolist()
                lost = (rng.random(attempts) < (0.03 if peak else 0.002)).tolist()
                ts = (begin + offsets).tolist()
                samples = tuple(
                    Sample(j, ts[j], None, ErrorKind.TIMEOUT) if lost[j] else Sample(j, ts[j], rtt[j])
                    for j in range(attempts)
                )
                results.append(ProbeResult(target, begin, begin + 56 * US, samples))
            yield office, begin, results


def filled_store(path: Path, days: int, attempts: int) -> float | None:
    """Make the SQLite store at `path` hold the offices' rounds (reused when it already does); the seconds
    the fill took, or None when reused."""
    expected = len(OFFICES) * len(CANDIDATES) * days * 24 * 60 * attempts
    if path.exists():
        with Store(path) as store:
            if store.counts()["samples"] == expected:
                return None
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    with Store(path) as store, Timer() as fill:
        store.backend.connection.execute("PRAGMA synchronous = OFF")  # type: ignore[attr-defined]  # the fill is not timed
        for office, begin, results in rounds(days, attempts):
            measured = measured_round(
                results,
                started_us=begin,
                finished_us=begin + 56 * US,
                source="schedule",
                plan="eval",
                vantage=office,
                slot_us=begin,
            )
            store.write_round(measured)
    return fill.seconds


def ours(store: Store, office: str, since_us: int, until_us: int) -> list[MeasuredLink]:
    """What `eval show` reads for one office: the link summaries of its own series."""
    scope = Scope(by="region", vantage=office, since_us=since_us, until_us=until_us)
    return link_summaries(store, scope, WINDOWS)


def with_intervals(store: Store, office: str, since_us: int, until_us: int) -> list[MeasuredLink]:
    scope = Scope(by="region", vantage=office, since_us=since_us, until_us=until_us)
    return link_summaries(store, scope, WINDOWS, intervals=True)


def anchor(store: Store, office: str, since_us: int, until_us: int) -> list[tuple[object, ...]]:
    """The bare SQL aggregation of the same rows: the office's series' samples on the line in the period, per
    series and side (peak or not): attempts, replies, mean RTT."""
    ids = ", ".join(str(s.id) for s in store.series(vantage=office))
    sql = (
        f"SELECT s.series_id, {PEAK_SQL} AS peak, count(*), count(s.rtt_ms), avg(s.rtt_ms) FROM samples s"
        f" WHERE s.series_id IN ({ids}) AND s.ts_us >= {since_us} AND s.ts_us < {until_us}"
        f" AND (s.error IS NULL OR s.error <> '{ErrorKind.SEND_FAILED}') GROUP BY 1, 2 ORDER BY 1, 2"
    )
    return [tuple(row) for row in store.backend.connection.execute(sql).fetchall()]  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", type=Path, help="keep the filled SQLite store here (and reuse it)")
    parser.add_argument("--url", help="an empty PostgreSQL database or schema to copy the rows into")
    args = parser.parse_args(argv)
    attempts = attempts_per_run(args.samples, args.days)
    server = None
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "offices.sqlite3"
        fill_s = filled_store(path, args.days, attempts)
        try:
            url = args.url
            if url is None:
                from tests.postgres_server import PostgresServer

                server = PostgresServer(fsync=True)
                server.start()
                url = server.url()
            copy_s = copy_into_postgres(path, url)
            return measure(path, url, args.days, attempts, fill_s, copy_s, args.repeat)
        finally:
            if server is not None:
                server.remove()


Step = Callable[[Store, str, int, int], object]


def measure(
    path: Path, url: str, days: int, attempts: int, fill_s: float | None, copy_s: float, repeat: int
) -> int:
    since_us, until_us = START_US, START_US + days * 24 * 60 * MINUTE_US
    steps: dict[str, Step] = {
        "SQL anchor: GROUP BY series, peak over the raw samples": anchor,
        "ours: link summaries, peak / off-peak": ours,
        "ours + bootstrap intervals (1000)": with_intervals,
    }
    times: dict[tuple[str, str], list[float]] = {}
    answers: dict[tuple[str, str, str], object] = {}
    with Store(path, readonly=True) as sqlite, Store(url, readonly=True) as postgres:
        stores = {"sqlite": sqlite, "postgres": postgres}
        for k in range(repeat):
            for name, step in steps.items():
                for backend in ("sqlite", "postgres") if k % 2 == 0 else ("postgres", "sqlite"):
                    started = time.perf_counter()
                    for office in OFFICES:  # both offices, as `eval show` shows them
                        answers[(name, backend, office)] = step(stores[backend], office, since_us, until_us)
                    times.setdefault((name, backend), []).append(time.perf_counter() - started)
        counts = (sqlite.counts(), postgres.counts())
    problems = [] if counts[0] == counts[1] else [f"the stores hold different rows: {counts}"]
    for backend in ("sqlite", "postgres"):
        for office in OFFICES:
            links = answers[("ours: link summaries, peak / off-peak", backend, office)]
            sql = answers[("SQL anchor: GROUP BY series, peak over the raw samples", backend, office)]
            assert isinstance(links, list) and isinstance(sql, list)
            mine = sorted(
                (side, s.sent, s.received)
                for link in links
                for side, s in ((1, link.peak), (0, link.offpeak))
            )
            theirs = sorted((int(peak), int(sent), int(received)) for _id, peak, sent, received, _mean in sql)
            if mine != theirs:
                problems.append(f"{backend}, {office}: the summaries count other rows than SQL")
            if len(links) != len(CANDIDATES):
                problems.append(f"{backend}, {office}: {len(links)} links, not {len(CANDIDATES)}")
    samples = len(OFFICES) * len(CANDIDATES) * days * 24 * 60 * attempts
    rows = [
        (
            "samples",
            f"{samples:,} ({len(CANDIDATES)} candidates × {len(OFFICES)} offices × {days} days × 1/min"
            f" × {attempts} attempts)",
        ),
        ("SQLite fill (write_round)", "reused" if fill_s is None else f"{fill_s:.1f} s"),
        ("copied into PostgreSQL (COPY)", f"{copy_s:.1f} s"),
    ]
    for name in steps:
        for backend in ("sqlite", "postgres"):
            t = times[(name, backend)]
            rows.append(
                (
                    f"{name} [{backend}]",
                    f"best {min(t):7.3f} s  median {statistics.median(t):7.3f} s  worst {max(t):7.3f} s"
                    f"  spread {max(t) / min(t):.2f}",
                )
            )
    anchor_name = "SQL anchor: GROUP BY series, peak over the raw samples"
    for name in list(steps)[1:]:
        for backend in ("sqlite", "postgres"):
            ratio = statistics.median(times[(name, backend)]) / statistics.median(
                times[(anchor_name, backend)]
            )
            best = min(times[(name, backend)]) / min(times[(anchor_name, backend)])
            rows.append((f"ratio {name} / SQL [{backend}]", f"median {ratio:.3f}  best {best:.3f}"))
    rows.append(("counts agree with SQL, both backends", "yes" if not problems else "; ".join(problems)))
    report(f"each office's line evidence over {samples:,} samples, both offices ({repeat} runs each)", rows)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
