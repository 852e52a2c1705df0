"""The offices side by side: `linkvet export`'s Vantage points sheet and `linkvet vantages`, from a real store
three offices measured (tests/analysis/test_vantages.py's `write_offices`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import openpyxl
import pandas as pd

from probes.store import Store
from tests.analysis.test_vantages import write_offices

Run = Callable[..., CompletedProcess[str]]
CJK = re.compile(r"[\u4e00-\u9fff]")


def _store(tmp_path: Path) -> Path:
    db = tmp_path / "offices.sqlite3"
    with Store(db) as store:
        write_offices(store)
    return db


def test_the_vantage_points_sheet_puts_the_offices_side_by_side(run_linkvet: Run, tmp_path: Path) -> None:
    db = _store(tmp_path)
    out = tmp_path / "o.xlsx"
    done = run_linkvet("export", "--db", str(db), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert openpyxl.load_workbook(out).sheetnames == [
        "Link quality",
        "Hour-of-day",
        "Vantage points",
        "Method",
    ]
    sheet = pd.read_excel(out, sheet_name="Vantage points")
    rows = {r["Vantage point"]: r for r in sheet.to_dict("records")}
    assert sorted(rows) == ["beijing", "shanghai", "shenzhen"]  # LA only: SJC is measured from one office
    assert set(sheet["Region"]) == {"los-angeles"}
    assert [v for v, r in rows.items() if r["Worst peak"] is True or r["Worst peak"] == "yes"] == ["beijing"]
    assert rows["shenzhen"]["Peak p95 above the best office (ms)"] == 0
    assert rows["beijing"]["Peak p95 above the best office (ms)"] > 40
    assert (rows["beijing"]["Route: traced class"], rows["shanghai"]["Route: traced class"]) == (
        "163",
        "cn2-gia",
    )
    assert all(r["Route class differs by office"] in (True, "yes") for r in rows.values())


def test_the_vantage_points_sheet_reads_in_chinese(run_linkvet: Run, tmp_path: Path) -> None:
    """In a Chinese workbook the sheet's name, headers and header notes are Chinese; its figures are the
    English sheet's."""
    db = _store(tmp_path)
    english, chinese = tmp_path / "en.xlsx", tmp_path / "zh.xlsx"
    assert run_linkvet("export", "--db", str(db), "--out", str(english)).returncode == 0
    done = run_linkvet("--lang", "zh_CN", "export", "--db", str(db), "--out", str(chinese))
    assert done.returncode == 0, done.stderr
    book = openpyxl.load_workbook(chinese)
    assert "测量点" in book.sheetnames and "Vantage points" not in book.sheetnames
    sheet = book["测量点"]
    headers = [cell.value for cell in sheet[1]]
    assert headers[:3] == ["服务商", "区域", "测量点"]
    assert "晚高峰 p95 高出最佳办公室（毫秒）" in headers and "各办公室测得的线路类别不同" in headers, headers
    notes = [cell.comment.text for cell in sheet[1] if cell.comment is not None]
    assert len(notes) == 4 and all(CJK.search(n) and "office" not in n for n in notes), notes
    ours = pd.read_excel(chinese, sheet_name="测量点").to_numpy().tolist()
    theirs = pd.read_excel(english, sheet_name="Vantage points").to_numpy().tolist()
    assert [row[:3] for row in ours] == [row[:3] for row in theirs]
    assert [row[4] for row in ours] == [row[4] for row in theirs]  # above the best office, ms


def test_linkvet_vantages_says_which_office_sees_the_worst_peak(run_linkvet: Run, tmp_path: Path) -> None:
    db = _store(tmp_path)
    done = run_linkvet("vantages", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "raksmart / los-angeles" in done.stdout and "lambda / us-west-1" not in done.stdout
    assert "worst peak: beijing, its p95" in done.stdout and "above shenzhen's" in done.stdout
    assert "the route class differs by office: beijing 163, shanghai cn2-gia, shenzhen cn2-gia" in done.stdout
    chinese = run_linkvet("--lang", "zh_CN", "vantages", "--db", str(db))
    assert chinese.returncode == 0, chinese.stderr
    assert "测量点" in chinese.stdout and "晚高峰 p95 毫秒" in chinese.stdout and "线路类别" in chinese.stdout
    assert "各办公室测得的线路类别不同" in chinese.stdout
    (line,) = run_linkvet("vantages", "--db", str(db), "--json").stdout.splitlines()
    data = json.loads(line)
    assert data["worst_peak"] == "beijing" and data["route_differs"] is True
    assert [v["vantage"] for v in data["vantages"]] == ["beijing", "shanghai", "shenzhen"]
    nothing = run_linkvet("vantages", "--db", str(db), "--since", "2027-01-01")
    assert (
        nothing.returncode == 0 and "no region was measured from two or more vantage points" in nothing.stdout
    )
