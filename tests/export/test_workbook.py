"""The written workbook read back (openpyxl, pandas) and checked against the store's raw samples."""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from desktop.export import WORKBOOK_FORMAT_VERSION, Workbook
from probes import __version__
from probes.histogram import RELATIVE_ERROR
from probes.peak import DEFAULT_PEAK_WINDOWS, mask_any
from probes.store import Store
from tests.analysis.reference import figures, labelled_samples

SHEETS = ["Link quality", "Hour-of-day", "Method"]


def test_sheets_layout_formats_and_charts(exported: tuple[Workbook, Path, Path]) -> None:
    _workbook, xlsx, _csv = exported
    book = openpyxl.load_workbook(xlsx)
    assert book.sheetnames == SHEETS
    quality = book["Link quality"]
    assert quality.freeze_panes == "C2"  # header row and provider/region stay in view
    assert quality.auto_filter.ref == f"A1:{quality.cell(1, quality.max_column).column_letter}3"
    headers = [c.value for c in quality[1]]
    assert "Peak loss (%)" in headers and "Peak p95 RTT (ms)" in headers
    loss = quality.cell(2, headers.index("Peak loss (%)") + 1)
    p95 = quality.cell(2, headers.index("Peak p95 RTT (ms)") + 1)
    assert loss.number_format == "0.00%" and p95.number_format == '0.000" ms"'
    assert quality.column_dimensions["A"].width >= 9
    ranges = {
        str(r.sqref): [rule.colorScale is not None for rule in r.rules]
        for r in quality.conditional_formatting
    }
    loss_column = quality.cell(1, headers.index("Peak loss (%)") + 1).column_letter
    assert ranges[f"{loss_column}2:{loss_column}3"] == [True]
    hours = book["Hour-of-day"]
    assert hours.freeze_panes == "C2" and hours.max_row == 1 + 2 * 24
    with zipfile.ZipFile(xlsx) as archive:
        charts = [n for n in archive.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == 2  # one hour-of-day chart per region


def test_link_quality_figures_match_the_raw_samples(
    exported: tuple[Workbook, Path, Path], export_store: Store
) -> None:
    _workbook, xlsx, _csv = exported
    sheet = pd.read_excel(xlsx, sheet_name="Link quality")
    reference = labelled_samples(export_store)
    peak = mask_any(DEFAULT_PEAK_WINDOWS, reference["ts_us"].to_numpy())
    assert sorted(sheet["Region"]) == ["los-angeles", "us-west-1"]
    for _, row in sheet.iterrows():
        mine = reference["region"] == row["Region"]
        for side, mask in (("Peak", peak), ("Off-peak", ~peak)):
            expected = figures(reference.loc[mine & mask])
            assert row[f"{side} samples"] == expected["sent"]
            assert row[f"{side} loss (%)"] == pytest.approx(expected["loss"], rel=1e-12)
            assert row[f"{side} jitter (ms)"] == pytest.approx(expected["jitter_ms"], rel=1e-9)
            assert row[f"{side} median RTT (ms)"] == pytest.approx(
                expected["rtt_median_ms"], rel=RELATIVE_ERROR
            )
            assert row[f"{side} p95 RTT (ms)"] == pytest.approx(expected["rtt_p95_ms"], rel=RELATIVE_ERROR)
        assert row["Period start (UTC)"] == pd.Timestamp("2026-11-02 00:00:00")
        assert row["Period end (UTC)"] == pd.Timestamp("2026-11-09 00:00:00")
    la = sheet.set_index("Region").loc["los-angeles"]
    assert la["Verdict"] == "p95 +86 ms at peak, loss 0.2% → 6.1%, throughput 80 → 30 Mbit/s"
    assert (la["Peak throughput (Mbit/s)"], la["Off-peak throughput (Mbit/s)"]) == (30.0, 80.0)
    assert la["Claimed line type"] == "cn2-gia"
    assert la["Peak hours breaching (%)"] == 1.0 and la["Off-peak hours breaching (%)"] == 0.0
    assert pd.isna(sheet.set_index("Region").loc["us-west-1", "Peak throughput (Mbit/s)"])  # not measured


def test_hour_of_day_figures_match_the_raw_samples(
    exported: tuple[Workbook, Path, Path], export_store: Store
) -> None:
    _workbook, xlsx, _csv = exported
    sheet = pd.read_excel(xlsx, sheet_name="Hour-of-day")
    reference = labelled_samples(export_store, "Asia/Shanghai")
    for _, row in sheet.iterrows():
        mine = reference.loc[
            (reference["region"] == row["Region"]) & (reference["hour"] == row["Hour (Asia/Shanghai)"])
        ]
        expected = figures(mine)
        assert row["Samples"] == expected["sent"]
        assert row["Loss (%)"] == pytest.approx(expected["loss"], rel=1e-12)
        assert row["p95 RTT (ms)"] == pytest.approx(expected["rtt_p95_ms"], rel=RELATIVE_ERROR)
        assert row["Days measured"] == 7


def test_method_sheet_records_how(exported: tuple[Workbook, Path, Path]) -> None:
    _workbook, xlsx, _csv = exported
    method = pd.read_excel(xlsx, sheet_name="Method").set_index("Item")["Value"]
    assert method["Workbook format version"] == str(WORKBOOK_FORMAT_VERSION)
    assert method["Tool"] == f"linkvet {__version__}"
    assert method["Exported at"] == "2026-11-30T09:15:00.000000Z"
    assert method["Peak windows"] == "20:00-23:00 Asia/Shanghai"
    assert method["Hour-of-day time zone"] == "Asia/Shanghai"
    assert method["Period start"] == "all stored data"
    assert "Definition: Jitter" in method.index


def test_csv_folder_has_the_same_figures(exported: tuple[Workbook, Path, Path]) -> None:
    _workbook, xlsx, folder = exported
    files = sorted(p.name for p in folder.iterdir())
    assert files == ["01-link-quality.csv", "02-hour-of-day.csv", "03-method.csv"]
    raw = (folder / "01-link-quality.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # a BOM, so Excel reads UTF-8
    from_csv = pd.read_csv(folder / "01-link-quality.csv", encoding="utf-8-sig")
    from_xlsx = pd.read_excel(xlsx, sheet_name="Link quality")
    assert list(from_csv.columns)[:8] == list(from_xlsx.columns)[:8]
    assert "Peak loss (fraction 0-1)" in from_csv.columns  # the unit in the header
    assert from_csv["Peak loss (fraction 0-1)"].tolist() == pytest.approx(from_xlsx["Peak loss (%)"].tolist())
    # Unrounded (XlsxWriter keeps 16 significant digits, csv all 17).
    assert from_csv["Peak p95 RTT (ms)"].tolist() == pytest.approx(
        from_xlsx["Peak p95 RTT (ms)"].tolist(), rel=1e-15
    )
    with (folder / "02-hour-of-day.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert len(rows) == 1 + 2 * 24


def test_route_columns_come_from_stored_traces(tmp_path: Path) -> None:
    from desktop.export import ExportRequest, build_workbook, write_xlsx
    from probes.target import Method, Target
    from tests.analysis.synthetic import Series, StepModel, save_traces, utc_us, write_series
    from tests.analysis.week import LA

    traced = Target(
        method=Method.TRACE, host="127.0.0.9", provider="raksmart", region="los-angeles", line_type="cn2-gia"
    )
    with Store(tmp_path / "s.sqlite3") as store:
        write_series(store, [Series(LA, StepModel(150.0, 220.0))], utc_us(2026, 11, 2), 24)
        save_traces(store, traced, [["10.0.0.1", "59.43.1.1", "59.43.9.9"]] * 3, utc_us(2026, 11, 2, 4))
        workbook = build_workbook(store, ExportRequest())
    write_xlsx(workbook, tmp_path / "w.xlsx")
    row = pd.read_excel(tmp_path / "w.xlsx", sheet_name="Link quality").iloc[0]
    assert row["Route: claimed line type"] == "cn2-gia"
    assert row["Route: traced class"] == "cn2-gia"
    assert bool(row["Route agrees with claim"]) is True
    assert (row["Route: traces"], row["Route: traces agreeing"]) == (3, 3)
    assert "59.43" in row["Route evidence"]


def test_an_empty_store_exports_empty_measurement_sheets(tmp_path: Path) -> None:
    from desktop.export import ExportRequest, build_workbook, write_csv, write_xlsx
    from tests.export.conftest import EXPORTED_AT

    with Store(tmp_path / "empty.sqlite3") as store:
        workbook = build_workbook(store, ExportRequest(), exported_at=EXPORTED_AT)
    assert [len(s.rows) for s in workbook.sheets[:2]] == [0, 0]
    write_xlsx(workbook, tmp_path / "e.xlsx")
    write_csv(workbook, tmp_path / "csv")
    book = openpyxl.load_workbook(tmp_path / "e.xlsx")
    assert book.sheetnames == SHEETS
    assert book["Link quality"].max_row == 1  # the header alone
