"""Latency under load in the workbook: the Link quality and Hour-of-day sheets carry the responsiveness
tests' figures as the analysis gives them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from desktop.export import ExportRequest, build_workbook, write_xlsx
from probes.store import Store
from tests.analysis.synthetic_loads import write_loads


def test_the_sheets_carry_the_added_delay_under_load(tmp_path: Path) -> None:
    db = write_loads(tmp_path / "loads.sqlite3")
    with Store(db, readonly=True) as store:
        workbook = build_workbook(store, ExportRequest(store_path=db))
    write_xlsx(workbook, tmp_path / "out.xlsx")
    quality = pd.read_excel(tmp_path / "out.xlsx", sheet_name="Link quality").iloc[0]
    assert quality["Peak delay added under load (ms)"] == pytest.approx(261.0)
    assert quality["Off-peak delay added under load (ms)"] == pytest.approx(31.0)
    assert quality["Peak load tests"] == 3 and quality["Peak RPM under load"] == pytest.approx(199.3, abs=0.1)
    assert "under load +31 ms → +261 ms (grade B → D)" in quality["Verdict"]
    hours = pd.read_excel(tmp_path / "out.xlsx", sheet_name="Hour-of-day").set_index("Hour (Asia/Shanghai)")
    assert hours.loc[21, "Delay added under load (ms)"] == pytest.approx(261.0)
    assert hours.loc[11, "Load tests"] == 3 and pd.isna(hours.loc[12, "Delay added under load (ms)"])
