"""Issue 12: the Link quality sheet lists the (region, vantage point) pairs that have data, counted right, and
each row's route check comes from the traces of its own vantage point.

A real store: `linkvet schedule --once` from two plans with different vantage points, probing a loopback
TCP listener; Shanghai measures regions east and west and traces west, Beijing measures west only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import pandas as pd

from desktop.usecases.links import stored_link_summaries
from probes.store import Store

Run = Callable[..., CompletedProcess[str]]


def plan(vantage: str, port: int, *, east: bool, trace_west: bool) -> str:
    text = f"""
version = 1
vantage = "{vantage}"
[schedule]
every = "5m"
[defaults]
count = 3
interval = 0.01
timeout = 1.0
[defaults.trace]
count = 1
protocol = "udp"
max_hops = 3
timeout = 0.5
"""
    if east:
        text += f"""
[[targets]]
name = "east"
host = "127.0.0.1"
port = {port}
methods = ["tcp"]
provider = "acme"
region = "east"
line_type = "cn2-gia"
"""
    methods = '["tcp", "trace"]' if trace_west else '["tcp"]'
    return (
        text
        + f"""
[[targets]]
name = "west"
host = "127.0.0.2"
port = {port}
methods = {methods}
provider = "acme"
region = "west"
line_type = "cn2-gia"
"""
    )


def test_only_measured_pairs_each_with_its_own_route_check(
    run_linkvet: Run, tmp_path: Path, tcp_listener: int
) -> None:
    db = tmp_path / "two-offices.sqlite3"
    plans = {
        "shanghai-office": plan("shanghai-office", tcp_listener, east=True, trace_west=True),
        "beijing-office": plan("beijing-office", tcp_listener, east=False, trace_west=False),
    }
    for vantage, text in plans.items():
        (tmp_path / f"{vantage}.toml").write_text(text, encoding="utf-8")
        done = run_linkvet("schedule", "--plan", str(tmp_path / f"{vantage}.toml"), "--once", "--db", str(db))
        assert "stored round" in done.stderr + done.stdout, done.stderr
    with Store(db, readonly=True) as store:
        assert sorted({r.vantage for r in store.rounds()}) == ["beijing-office", "shanghai-office"]
        (trace,) = store.traces()
        assert trace.vantage == "shanghai-office" and trace.region == "west"

    out = tmp_path / "o.xlsx"
    done = run_linkvet("export", "--db", str(db), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "(2 regions measured)" in done.stdout  # east and west, not pairs and not every region × vantage

    sheet = pd.read_excel(out, sheet_name="Link quality")
    rows = {(r["Region"], r["Vantage point"]): r for r in sheet.to_dict("records")}
    assert sorted(rows) == [
        ("east", "shanghai-office"),
        ("west", "beijing-office"),
        ("west", "shanghai-office"),
    ]
    for row in rows.values():
        assert row["Peak samples"] + row["Off-peak samples"] == 3  # every row has its own data
    assert rows[("west", "shanghai-office")]["Route: traces"] == 1
    assert pd.isna(rows[("west", "beijing-office")]["Route: traces"])  # Beijing never traced west
    assert pd.isna(rows[("east", "shanghai-office")]["Route: traces"])

    hours = pd.read_excel(out, sheet_name="Hour-of-day")
    blocks = hours.groupby(["Region", "Vantage point"]).size().to_dict()
    assert blocks == {(region, vantage): 24 for region, vantage in rows}

    # `linkvet score` reads the same pairs: Beijing's line to west carries no route check of Shanghai's.
    summaries = {(s.region, s.vantage): s for s in stored_link_summaries(db)}
    assert sorted(summaries) == sorted(rows)
    assert summaries[("west", "beijing-office")].route is None
    west = summaries[("west", "shanghai-office")].route
    assert west is not None and west.traces == 1
