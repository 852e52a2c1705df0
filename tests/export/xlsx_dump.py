"""Everything a reader sees in an .xlsx file, as plain data (openpyxl reads it back): every cell's value,
number format, font weight, fill, alignment and comment; every sheet's column widths and formats, row
heights, frozen panes, filter, print settings, colour scales and charts (with their series' references). Formats
are compared by what they are (number format, bold, fill, wrapping), not by their index in the file's style
table, which differs with the order the writer registered them.

    python -m tests.export.xlsx_dump A.xlsx B.xlsx [--ignore "Method!B4"]...

compares two workbooks and prints what differs (exit 1), e.g. an export before and after a change that must
not change what the file holds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import openpyxl


def _colour(fill: Any) -> str | None:
    colour = getattr(fill, "fgColor", None)
    return None if colour is None or fill.fill_type is None else str(colour.rgb)


def dump(path: Path) -> dict[str, Any]:
    book = openpyxl.load_workbook(path)
    out: dict[str, Any] = {"sheets": book.sheetnames}
    for ws in book.worksheets:
        cells = {}
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is None and cell.comment is None:
                    continue
                cells[cell.coordinate] = (
                    cell.value,
                    cell.number_format,
                    bool(cell.font.b),
                    _colour(cell.fill),
                    bool(cell.alignment.wrap_text),
                    cell.alignment.vertical,
                    None if cell.comment is None else cell.comment.text,
                )
        sheet: dict[str, Any] = {
            "cells": cells,
            "columns": {
                key: (
                    dim.width,
                    dim.min,
                    dim.max,
                    dim.number_format,
                    bool(dim.font.b),
                    _colour(dim.fill),
                    bool(dim.alignment.wrap_text),
                    dim.alignment.vertical,
                )
                for key, dim in ws.column_dimensions.items()
            },
            "rows": {key: dim.height for key, dim in ws.row_dimensions.items() if dim.height is not None},
            "freeze": ws.freeze_panes,
            "filter": ws.auto_filter.ref,
            "print": (
                ws.page_setup.orientation,
                ws.page_setup.paperSize,
                ws.page_setup.fitToWidth,
                ws.page_setup.fitToHeight,
                str(ws.print_title_rows),
            ),
            "colour_scales": sorted(
                (
                    str(rng.sqref),
                    [
                        (rule.type, [str(c.rgb) for c in rule.colorScale.color] if rule.colorScale else None)
                        for rule in rules
                    ],
                )
                for rng, rules in ws.conditional_formatting._cf_rules.items()
            ),
            "charts": [
                [
                    (
                        series.tx.strRef.f if series.tx and series.tx.strRef else None,
                        series.cat.numRef.f if series.cat and series.cat.numRef else None,
                        series.val.numRef.f if series.val and series.val.numRef else None,
                    )
                    for series in chart.series
                ]
                for chart in ws._charts
            ],
        }
        out[ws.title] = sheet
    return out


def differences(a: dict[str, Any], b: dict[str, Any], ignore: frozenset[str] = frozenset()) -> list[str]:
    """What differs between two dumps, one line each (cells named `Sheet!A1`; those in `ignore` skipped)."""
    found: list[str] = []
    if a["sheets"] != b["sheets"]:
        found.append(f"sheets: {a['sheets']} != {b['sheets']}")
    for name in a["sheets"]:
        if name not in b:
            continue
        left, right = a[name], b[name]
        for key in sorted(set(left["cells"]) | set(right["cells"])):
            if f"{name}!{key}" in ignore:
                continue
            if left["cells"].get(key) != right["cells"].get(key):
                found.append(f"{name}!{key}: {left['cells'].get(key)!r} != {right['cells'].get(key)!r}")
        for part in ("columns", "rows", "freeze", "filter", "print", "colour_scales", "charts"):
            if left[part] != right[part]:
                found.append(f"{name} {part}: {left[part]!r} != {right[part]!r}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--ignore", action="append", default=[], help="a cell to skip, e.g. 'Method!B4'")
    args = parser.parse_args(argv)
    found = differences(dump(args.a), dump(args.b), frozenset(args.ignore))
    for line in found[:200]:
        print(line)
    print(f"{len(found)} differences" if found else "identical")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
