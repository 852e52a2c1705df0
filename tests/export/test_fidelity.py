"""The xlsx file holds exactly the workbook built in memory: every cell of every sheet read back (openpyxl)
equals its model value as the writer promises to write it (numbers as numbers, NaN as an empty cell, text
neutralised against formula injection and cut at Excel's limit), in its column's number format (or the
row's own), and nothing else is in the file. Also for hand-written awkward values (hostile text, NaN,
numpy scalars, booleans, text over Excel's limit) in a sheet of every column kind."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest

from desktop.export import Workbook, write_xlsx
from desktop.export.model import FORMATS, Column, Sheet, clean
from desktop.export.safety import neutralise
from desktop.export.xlsx import MAX_CELL_TEXT, _number_format
from tests.export.xlsx_dump import differences, dump


def expected(value: Any) -> Any:
    value = clean(value)
    if isinstance(value, str):
        text = neutralise(value)
        return text[: MAX_CELL_TEXT - 1] + "…" if len(text) > MAX_CELL_TEXT else text
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def expected_format(column: Column, row: dict[str, Any]) -> str:
    own = row.get(FORMATS) or {}
    if column.key in own:
        return str(own[column.key])
    return "General" if column.kind in ("text", "bool") else _number_format(column)


def assert_file_holds(workbook: Workbook, path: Path) -> None:
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == [s.name for s in workbook.sheets]
    for sheet in workbook.sheets:
        ws = book[sheet.name]
        columns = list(sheet.columns)
        assert ws.max_column == max(len(columns), 1)
        assert ws.max_row == len(sheet.rows) + 1
        for c, column in enumerate(columns, start=1):
            assert ws.cell(1, c).value == neutralise(column.header_for("xlsx"))
        for r, row in enumerate(sheet.rows, start=2):
            for c, column in enumerate(columns, start=1):
                cell = ws.cell(r, c)
                want = expected(row.get(column.key))
                where = f"{sheet.name}!{cell.coordinate}"
                if isinstance(want, float):
                    assert cell.value == pytest.approx(want, rel=1e-15, abs=0), where
                else:
                    assert cell.value == want, where
                    assert type(cell.value) is type(want), where
                if want is not None:
                    assert cell.number_format == expected_format(column, dict(row)), where


def test_the_procurement_export_holds_the_model_exactly(
    procurement_export: tuple[Workbook, Path, Path, Path],
) -> None:
    workbook, xlsx, _csv, _folder = procurement_export
    assert_file_holds(workbook, xlsx)


def test_the_measurement_export_holds_the_model_exactly(exported: tuple[Workbook, Path, Path]) -> None:
    workbook, xlsx, _csv = exported
    assert_file_holds(workbook, xlsx)


def test_awkward_values_are_written_as_the_model_says(tmp_path: Path) -> None:
    # Hand-written edge cases: every branch of the cell writer.
    columns = [
        Column("text", "Text"),
        Column("n", "N", "int"),
        Column("x", "X", "float", decimals=2),
        Column("ms", "RTT", "ms"),
        Column("share", "Loss", "percent"),
        Column("flag", "Flag", "bool"),
        Column("when", "When", "datetime"),
        Column("any", "Value", "auto"),
    ]
    rows: list[dict[str, Any]] = [
        {"text": "=1+1", "n": 3, "x": -2.5, "ms": float("nan"), "share": 0.25, "flag": True},
        {"text": "-minus", "n": np.int64(7), "x": np.float64(1.25), "ms": math.inf, "flag": False},
        {
            "text": "@at",
            "x": np.float32(0.5),
            "ms": -math.inf,
            "when": datetime(2026, 11, 30, 9, 15, tzinfo=UTC),
        },
        {"text": "x" * (MAX_CELL_TEXT + 10), "any": "+plus", FORMATS: {"any": "0.000"}},
        {"text": "'" + "y" * (MAX_CELL_TEXT - 1), "n": True, "any": 12},
        {"text": "\tTab", "x": 0.0, "any": None, "when": datetime(2026, 1, 2, 3, 4)},
        {"text": "plain", "n": -5, "x": 1e300, "ms": 0.043},
    ]
    workbook = Workbook([Sheet("Edge cases", columns, rows)])
    write_xlsx(workbook, tmp_path / "edge.xlsx")
    assert_file_holds(workbook, tmp_path / "edge.xlsx")


def test_two_writes_of_one_workbook_are_identical(
    procurement_export: tuple[Workbook, Path, Path, Path], tmp_path: Path
) -> None:
    workbook, xlsx, _csv, _folder = procurement_export
    write_xlsx(workbook, tmp_path / "again.xlsx")
    assert differences(dump(xlsx), dump(tmp_path / "again.xlsx")) == []
