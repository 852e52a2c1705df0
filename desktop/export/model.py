"""A comparison workbook in memory, independent of the file format: sheets of typed columns and rows.

The xlsx and csv writers render the same `Workbook`; every cell's value is a plain Python value (str,
int, float, bool, None) and its column says what it is (a percentage, milliseconds, money), which becomes a
number format in xlsx and a unit in the csv header.

Words are in the language current when the sheets are built (`desktop.i18n.language`): a sheet's `title`
and its columns' headers, notes and text cells; a sheet's `name` and its columns' `key`s are the same in
every language (the code and the csv file names use them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop.i18n import N_, _

# The exported workbook's own format version (in the Method sheet): bump it when a sheet's columns change
# meaning, so that a procurement template reading the file can tell.
WORKBOOK_FORMAT_VERSION = 1

Kind = Literal["text", "int", "float", "percent", "ms", "mbps", "money", "datetime", "bool", "score", "auto"]
ColourScale = Literal["high-good", "low-good"]

# Units shown in headers (csv has no number formats, so percentages there are fractions 0..1).
# Units are messages, shown through `_` ("ms" reads 毫秒 in Chinese; symbols such as Mbit/s, GB and UTC
# read the same in every language and are not messages).
MILLISECONDS = N_("ms")
UNITS: dict[str, tuple[str, str]] = {  # kind → (xlsx header unit, csv header unit)
    "percent": ("%", N_("fraction 0-1")),
    "ms": (MILLISECONDS, MILLISECONDS),
    "mbps": ("Mbit/s", "Mbit/s"),
    "datetime": ("UTC", "UTC"),
}

# Decimals shown when a column does not say. Milliseconds to the microsecond, as ping prints them: a loopback
# or same-city line measures a few hundredths of a millisecond, which one decimal shows as "0.0 ms" (the
# store's finest RTT bucket is 0.01 ms, and jitter comes from the raw samples).
DEFAULT_DECIMALS: dict[str, int] = {"ms": 3}


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    header: str
    kind: Kind = "text"
    decimals: int | None = None  # shown in xlsx; None = the kind's default (DEFAULT_DECIMALS, else 1)
    width: float | None = None  # characters; None = from the header and the data
    max_width: float | None = None  # characters: the most a width fitted to the data may take
    colour_scale: ColourScale | None = None
    unit: str | None = None  # overrides the kind's unit (e.g. a currency)
    note: str | None = None  # a header comment
    wrap: bool = False  # long text wraps within the column's width (the row grows) instead of spilling over

    @property
    def shown_decimals(self) -> int:
        return DEFAULT_DECIMALS.get(self.kind, 1) if self.decimals is None else self.decimals

    def header_for(self, file_format: Literal["xlsx", "csv"]) -> str:
        unit = self.unit
        if unit is None and self.kind in UNITS:
            unit = UNITS[self.kind][0 if file_format == "xlsx" else 1]
        return _("{header} ({unit})").format(header=self.header, unit=_(unit)) if unit else self.header


ChartKind = Literal["line", "bar", "column"]


@dataclass(frozen=True, slots=True)
class LineChart:
    """A native chart (a line by default; `bar`: horizontal bars, `column`: vertical bars) of some columns
    against another over a block of rows (e.g. one region's 24 hours). `errors`: per y column, the columns
    holding the amounts below and above each value (error bars from the sheet's cells, e.g. a score's bounds). `anchor`: the cell (row, column) where it
    is placed; None: beside the table, one under the other."""

    title: str
    x_column: str
    y_columns: tuple[str, ...]
    first_row: int  # data row index (0 = first row under the header), inclusive
    last_row: int
    y_title: str = ""
    x_title: str = ""
    kind: ChartKind = "line"
    errors: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # y column → (minus, plus) columns
    anchor: tuple[int, int] | None = None
    size: tuple[int, int] = (520, 260)


# A row may carry `{FORMATS: {column key: Excel number format}}` to format one cell differently from its
# column (e.g. a key/value table whose values are counts, sizes and text).
FORMATS = "__formats__"


@dataclass
class Sheet:
    name: str  # the same in every language: what the code finds the sheet by, and the csv file's name
    columns: Sequence[Column]
    rows: Sequence[Mapping[str, Any]]
    note: str | None = None  # one line shown above nothing: in the Method sheet's list of sheets
    charts: list[LineChart] = field(default_factory=list)
    freeze_columns: int = 0  # columns kept in view when scrolling right
    title: str | None = None  # the name shown (the xlsx sheet's name) in the language; None: `name`
    lead: Sequence[str] = ()  # lines written above the table in xlsx (the first one bold): a decision, a note

    @property
    def shown_name(self) -> str:
        return self.title or self.name

    def values(self, key: str) -> list[Any]:
        return [row.get(key) for row in self.rows]


@dataclass
class Workbook:
    sheets: list[Sheet]

    def sheet(self, name: str) -> Sheet:
        for sheet in self.sheets:
            if sheet.name == name:
                return sheet
        raise KeyError(name)


def clean(value: Any) -> Any:
    """A cell value as a plain Python value: NaN and numpy scalars become None and Python numbers."""
    if value is None:
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value
