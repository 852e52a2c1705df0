"""What a reader of the exported files sees: columns wide enough for their text, headers that are not cut,
and sub-millisecond lines shown as measured (not "0.0 ms"), in the xlsx read back (openpyxl, LibreOffice)
and in the csv files."""

from __future__ import annotations

import csv
import textwrap
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from openpyxl.worksheet.worksheet import Worksheet

from catalogs.loader import load_catalogs
from catalogs.needs import load_needs
from desktop.export import ExportRequest, MeasureOptions, Workbook, build_workbook, write_csv, write_xlsx
from probes.store import Store
from tests.analysis.synthetic import Series, StepModel, utc_us, write_series
from tests.analysis.week import LA, SJC
from tests.export.catalog_fixtures import write_catalogs, write_needs
from tests.export.conftest import EXPORTED_AT
from tests.export.libreoffice import convert

LONG_ZONE = "America/Argentina/Buenos_Aires"
LINE_HEIGHT = 15.0  # points per line of 11-point text
# An offering whose catalog states almost nothing: every gate is left unchecked.
SPARSE_CATALOG = """\
format_version = 1
[provider]
id = "sparse"
name = "Says little"
source = "test fixture"
as_of = "2026-11"

[[regions]]
id = "somewhere"
source = "test fixture"
as_of = "2026-11"

[[offerings]]
id = "unstated"
regions = ["somewhere"]
source = "test fixture"
as_of = "2026-11"
"""


@pytest.fixture(scope="module")
def sub_ms_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workbook, Path, Path]:
    """Two days of a loopback-like line (0.043 ms off-peak, 0.071 ms at peak, 4 µs noise) beside a 150 ms
    one, ranked for a job too big and a budget too small for the catalogs: (workbook, xlsx, csv folder)."""
    out = tmp_path_factory.mktemp("layout")
    catalogs = write_catalogs(out / "catalogs")
    (catalogs / "sparse.toml").write_text(SPARSE_CATALOG, encoding="utf-8")
    needs = write_needs(out)
    text = needs.read_text(encoding="utf-8")
    needs.write_text(
        text.replace("gpus_wanted = 32", "gpus_wanted = 128").replace(
            "gpu_hour_max = 12.0", "gpu_hour_max = 1.0"
        ),
        encoding="utf-8",
    )
    with Store(out / "store.sqlite3") as store:
        lines = [
            Series(LA, StepModel(0.043, 0.071, noise_sd_ms=0.004)),
            Series(SJC, StepModel(150.0, 180.0)),
        ]
        write_series(store, lines, utc_us(2026, 11, 2), 48)
        request = ExportRequest(
            measure=MeasureOptions(tz=LONG_ZONE),
            store_path=store.path,
            needs=load_needs(needs),
            needs_path=needs,
            catalogs=load_catalogs(catalogs),
        )
        workbook = build_workbook(store, request, exported_at=EXPORTED_AT)
    write_xlsx(workbook, out / "comparison.xlsx")
    write_csv(workbook, out / "csv")
    return workbook, out / "comparison.xlsx", out / "csv"


def column_widths(ws: Worksheet) -> dict[int, float]:
    """Column number → width in characters. XlsxWriter writes neighbouring columns of the same width as one
    <col min= max=> range, which openpyxl keeps under the first column's letter only."""
    widths: dict[int, float] = {}
    for dimension in ws.column_dimensions.values():
        if dimension.min is not None and dimension.max is not None:
            for n in range(dimension.min, dimension.max + 1):
                widths[n] = dimension.width
    return widths


def wrapped_lines(text: str, width: float) -> int:
    """Lines `text` needs wrapped in a column `width` characters wide (words kept whole)."""
    return len(textwrap.wrap(text, width=int(width) - 1, break_long_words=False)) or 1


def assert_headers_fit(ws: Worksheet) -> None:
    """Every header word fits its column's width, headers wrap, and the header row is tall enough for
    the header needing the most lines."""
    widths = column_widths(ws)
    needed = 1
    for cell in ws[1]:
        width = widths[cell.column]
        longest = max(cell.value.split(), key=len)
        assert width >= len(longest) + 1, (ws.title, cell.value, width)
        assert cell.alignment.wrap_text, (ws.title, cell.value)
        needed = max(needed, wrapped_lines(cell.value, width))
    assert (ws.row_dimensions[1].height or LINE_HEIGHT) >= LINE_HEIGHT * needed, (ws.title, needed)


def test_headers_fit_in_every_sheet(
    exported: tuple[Workbook, Path, Path], sub_ms_export: tuple[Workbook, Path, Path]
) -> None:
    for _workbook, xlsx, _folder in (exported, sub_ms_export):
        book = openpyxl.load_workbook(xlsx)
        for ws in book:
            assert_headers_fit(ws)


def test_hour_of_day_header_shows_the_whole_zone(
    exported: tuple[Workbook, Path, Path], sub_ms_export: tuple[Workbook, Path, Path]
) -> None:
    for (_workbook, xlsx, _folder), zone in ((exported, "Asia/Shanghai"), (sub_ms_export, LONG_ZONE)):
        ws = openpyxl.load_workbook(xlsx)["Hour-of-day"]
        headers = [c.value for c in ws[1]]
        column = headers.index(f"Hour ({zone})") + 1
        assert column_widths(ws)[column] >= len(f"({zone})") + 1
        assert ws.row_dimensions[1].height >= 2 * LINE_HEIGHT  # "Hour" and "(zone)" on two lines


def test_gates_column_fits_its_text(sub_ms_export: tuple[Workbook, Path, Path]) -> None:
    _workbook, xlsx, _folder = sub_ms_export
    ws = openpyxl.load_workbook(xlsx)["Ranking"]
    headers = [c.value for c in ws[1]]
    column = headers.index("Gates") + 1
    width = column_widths(ws)[column]
    cells = [ws.cell(r, column) for r in range(2, ws.max_row + 1)]
    texts = {c.value for c in cells}
    assert "fail: Enough GPUs, Within budget" in texts  # gates named by their titles, not their ids
    assert "pass (unchecked: GPU memory fits the job, Enough GPUs, Within budget)" in texts
    assert 40 <= width <= 42  # fitted to the text, capped at 40 characters (+ XlsxWriter's padding)
    for cell in cells:
        assert cell.alignment.wrap_text, cell.value
        if len(cell.value) < 40:
            assert width >= len(cell.value) + 1, cell.value  # on one line
        lines = wrapped_lines(cell.value, width)
        height = ws.row_dimensions[cell.row].height or LINE_HEIGHT
        assert height >= LINE_HEIGHT * lines, (cell.value, height)
    assert any(wrapped_lines(c.value, width) >= 2 for c in cells)  # the longest wraps


MS_SHEETS = {"Link quality": 2, "Hour-of-day": 2}  # sheet → rows of figures per region at least


def test_milliseconds_are_shown_to_the_microsecond(sub_ms_export: tuple[Workbook, Path, Path]) -> None:
    workbook, xlsx, _folder = sub_ms_export
    book = openpyxl.load_workbook(xlsx)
    for name in MS_SHEETS:
        ws = book[name]
        ms_columns = [c.column for c in ws[1] if c.value.endswith("(ms)")]
        assert len(ms_columns) >= 4
        for row in range(2, ws.max_row + 1):
            for column in ms_columns:
                cell = ws.cell(row, column)
                if cell.value is not None:  # an empty cell (not measured, e.g. no load tests) has no format
                    assert cell.number_format == '0.000" ms"'
    # The loopback-like line's figures are there, unrounded.
    la = [r for r in workbook.sheet("Hour-of-day").rows if r["region"] == "los-angeles"]
    assert len(la) == 24 and all(0.03 < r["rtt_median_ms"] < 0.08 for r in la)
    assert all(0.001 < r["jitter_ms"] < 0.01 for r in la)


def test_libreoffice_shows_sub_millisecond_figures(
    sub_ms_export: tuple[Workbook, Path, Path], tmp_path: Path
) -> None:
    """The cells as a spreadsheet shows them (LibreOffice's csv export of the shown text)."""
    workbook, xlsx, _folder = sub_ms_export
    as_shown = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1"
    done = convert(xlsx, as_shown, tmp_path, tmp_path / "profile")
    assert done.returncode == 0, done.stderr
    shown = pd.read_csv(tmp_path / "comparison-Hour-of-day.csv", dtype=str)
    ours = workbook.sheet("Hour-of-day").rows
    assert len(shown) == len(ours)
    checked = 0
    for (_, row), mine in zip(shown.iterrows(), ours, strict=True):
        for key, header in (("rtt_median_ms", "Median RTT (ms)"), ("jitter_ms", "Jitter (ms)")):
            assert row[header] == f"{mine[key]:.3f} ms", (header, row[header], mine[key])
            if mine["region"] == "los-angeles":
                assert row[header] not in ("0.0 ms", "0.00 ms", "0.000 ms")
                checked += 1
    assert checked == 2 * 24


def test_csv_keeps_sub_millisecond_figures_unrounded(sub_ms_export: tuple[Workbook, Path, Path]) -> None:
    workbook, _xlsx, folder = sub_ms_export
    names = [s.name for s in workbook.sheets]
    path = folder / f"{names.index('Hour-of-day') + 1:02d}-hour-of-day.csv"
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    ours = workbook.sheet("Hour-of-day").rows
    assert len(rows) == len(ours)
    for row, mine in zip(rows, ours, strict=True):
        for key, header in (
            ("rtt_median_ms", "Median RTT (ms)"),
            ("rtt_p95_ms", "p95 RTT (ms)"),
            ("jitter_ms", "Jitter (ms)"),
        ):
            assert float(row[header]) == mine[key]  # every digit, as Python's repr writes it
            if mine["region"] == "los-angeles":
                assert 0 < float(row[header]) < 1, (header, row[header])
