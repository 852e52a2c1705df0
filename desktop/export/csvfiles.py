"""Render a `Workbook` as a folder of CSV files, one per sheet (UTF-8 with a byte-order mark, so Excel reads
Chinese text correctly; comma separated; percentages as fractions 0..1, the unit in each header).

Strings are neutralised against formula injection (see `desktop.export.safety`); numbers are written
as numbers, unrounded.
"""

from __future__ import annotations

import csv
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from desktop.export.model import Sheet, Workbook, clean
from desktop.export.safety import neutralise


def csv_name(index: int, sheet: Sheet) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", sheet.name.lower()).strip("-")
    return f"{index:02d}-{slug}.csv"


def write_csv(workbook: Workbook, folder: Path) -> list[Path]:
    """Write one CSV per sheet into `folder` (created if needed); the files written, in sheet order."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for index, sheet in enumerate(workbook.sheets, start=1):
        path = folder / csv_name(index, sheet)
        with path.open("w", encoding="utf-8-sig", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([neutralise(c.header_for("csv")) for c in sheet.columns])
            for row in sheet.rows:
                writer.writerow([_text(clean(row.get(c.key))) for c in sheet.columns])
        written.append(path)
    return written


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        moment = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return neutralise(str(value))
