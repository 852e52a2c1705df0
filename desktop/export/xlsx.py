"""Render a `Workbook` as an .xlsx file (XlsxWriter): frozen header row, filters, number formats with units,
column widths, colour scales, header notes and native line charts.

Widths and wrapped heights count display columns (`wcwidth`), not characters: a Chinese character takes two
columns of a spreadsheet's width unit, as in a terminal, so Chinese headers and reasons are not cut.

Strings are always written as strings (never parsed as formulas, URLs or numbers) and neutralised (see
`desktop.export.safety`); numbers as numbers.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from math import isfinite
from pathlib import Path
from typing import Any

import xlsxwriter
import xlsxwriter.exceptions
from wcwidth import wcwidth
from xlsxwriter.format import Format
from xlsxwriter.utility import xl_range_formula
from xlsxwriter.worksheet import Worksheet

from desktop.export.model import FORMATS, MILLISECONDS, Column, Sheet, Workbook, clean
from desktop.export.safety import FORMULA_STARTS, neutralise
from desktop.i18n import _

MAX_CELL_TEXT = 32_767  # Excel's limit on one cell's text
# XlsxWriter reads a chart name that looks like "Sheet!A1" as a reference to a cell (xlsxwriter/chart.py).
_LOOKS_LIKE_REFERENCE = re.compile(r"!(?=\$?[A-Za-z]+\$?\d)")
_QUOTED = re.compile(r'"([^"]*)"')  # literal text in a number format
_HEADER_COLOUR = "#DCE6F1"
_GREEN, _YELLOW, _RED = "#63BE7B", "#FFEB84", "#F8696B"


def write_xlsx(workbook: Workbook, path: Path) -> None:
    """Write the workbook to `path` (replacing it, creating its folder): first to `PATH.partial`, then
    renamed, so a reader never sees half a workbook."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    book = xlsxwriter.Workbook(
        str(partial),
        {
            "strings_to_formulas": False,
            "strings_to_urls": False,
            "strings_to_numbers": False,
            # Not XlsxWriter's constant-memory mode: the workbook's rows are in memory already (the model),
            # and holding the cells too (+60 MiB for 755,817 cells, below the analysis' peak) lets repeated
            # text go to the shared-string table once instead of being escaped inline in every cell,
            # which writes a large workbook a fifth faster and smaller.
            "constant_memory": False,
        },
    )
    formats = _Formats(book)
    for sheet in workbook.sheets:
        _write_sheet(book, formats, sheet)
    close_xlsx(book, partial)
    partial.replace(path)


def close_xlsx(book: xlsxwriter.Workbook, partial: Path) -> None:
    """Close (write) an XlsxWriter workbook; what the system refused (no permission, no space) as the
    `OSError` it is — XlsxWriter wraps it in its own exception — with no partial file left behind."""
    try:
        book.close()
    except xlsxwriter.exceptions.FileCreateError as exc:
        partial.unlink(missing_ok=True)
        cause = exc.args[0] if exc.args and isinstance(exc.args[0], OSError) else None
        raise (cause or OSError(str(exc))) from None
    except OSError:
        partial.unlink(missing_ok=True)
        raise


class _Formats:
    def __init__(self, book: xlsxwriter.Workbook) -> None:
        self.book = book
        self.header = book.add_format(
            {"bold": True, "bg_color": _HEADER_COLOUR, "bottom": 1, "text_wrap": True, "valign": "top"}
        )
        self.text = book.add_format({"valign": "top"})
        self.wrapped = book.add_format({"valign": "top", "text_wrap": True})
        self.lead = book.add_format({"bold": True, "font_size": 13})
        self._cache: dict[str, Format] = {}

    def for_column(self, column: Column) -> Format:
        return self.pattern(_number_format(column))

    def pattern(self, pattern: str) -> Format:
        if pattern not in self._cache:
            self._cache[pattern] = self.book.add_format({"num_format": pattern, "valign": "top"})
        return self._cache[pattern]


def _number_format(column: Column) -> str:
    shown = column.shown_decimals
    decimals = "0" if shown <= 0 else "0." + "0" * shown
    match column.kind:
        case "percent":
            return decimals + "%"
        case "ms":
            return f'{decimals}" {_(MILLISECONDS)}"'
        case "mbps":
            return f'#,##{decimals}" Mbit/s"'
        case "money":
            unit = column.unit or ""
            return f'#,##{decimals}" {unit}"' if unit else f"#,##{decimals}"
        case "int":
            return "#,##0"
        case "datetime":
            return 'yyyy-mm-dd hh:mm" UTC"'
        case "float" | "score":
            return f"#,##{decimals}"
        case "auto":
            return "General"
        case _:
            return "@"


def _write_sheet(book: xlsxwriter.Workbook, formats: _Formats, sheet: Sheet) -> None:
    ws: Worksheet = book.add_worksheet(sheet.shown_name)
    top = _write_lead(ws, formats, sheet)  # the header's row: under the lead lines and a blank row
    columns = list(sheet.columns)
    column_formats = [
        (formats.wrapped if c.wrap else formats.text) if c.kind in ("text", "bool") else formats.for_column(c)
        for c in columns
    ]
    widths = [_width(c, sheet) for c in columns]
    for i in range(len(columns)):
        ws.set_column(i, i, widths[i], column_formats[i])
    ws.set_row(top, _header_height(columns, widths))
    for i, column in enumerate(columns):
        ws.write_string(top, i, neutralise(column.header_for("xlsx")), formats.header)
        if column.note:
            ws.write_comment(top, i, column.note, {"x_scale": 2, "y_scale": 1.5})
    wrapped = [(column.key, widths[i]) for i, column in enumerate(columns) if column.wrap]
    cells = list(enumerate(zip(columns, column_formats, strict=True)))
    write_number, write_string = _cell_writers(ws)
    for r, row in enumerate(sheet.rows, start=top + 1):
        if wrapped:
            # Rows are streamed, so no application re-measures them: give wrapped text its height here.
            # A few characters of slack: applications measure proportional fonts a little differently.
            lines = max(_lines(str(row.get(key) or ""), width * 0.85 - 2) for key, width in wrapped)
            if lines > 1:
                ws.set_row(r, 15.0 * min(lines, 8))
        own = row.get(FORMATS)
        for i, (column, column_format) in cells:
            value = row.get(column.key)
            if value is None:
                continue  # an empty cell: no data
            fmt = formats.pattern(own[column.key]) if own and column.key in own else column_format
            # The common cases first, exactly as `_write_cell` writes them (one call per cell adds up
            # over a workbook of 10,000 offerings); anything else takes the general path.
            kind = type(value)
            if kind is float:
                if isfinite(value):  # NaN and infinities are no data (`clean`)
                    write_number(r, i, value, fmt)
            elif kind is int:
                write_number(r, i, value, fmt)
            elif kind is str and len(value) < MAX_CELL_TEXT:
                write_string(r, i, "'" + value if value.startswith(FORMULA_STARTS) else value, fmt)
            else:
                _write_cell(ws, r, i, clean(value), column, fmt)
    last_row = len(sheet.rows)
    # Printing (and PDF): landscape, one page wide, the header on every page.
    ws.set_landscape()
    ws.set_paper(9)  # A4
    ws.fit_to_pages(1, 0)
    ws.repeat_rows(top)
    if columns:
        ws.freeze_panes(top + 1, sheet.freeze_columns)
        ws.autofilter(top, 0, top + max(last_row, 1), len(columns) - 1)
    if last_row:
        for i, column in enumerate(columns):
            if column.colour_scale is not None:
                low, high = (_RED, _GREEN) if column.colour_scale == "high-good" else (_GREEN, _RED)
                ws.conditional_format(
                    top + 1,
                    i,
                    top + last_row,
                    i,
                    {"type": "3_color_scale", "min_color": low, "mid_color": _YELLOW, "max_color": high},
                )
    _add_charts(book, ws, sheet, len(columns), top)


def _write_lead(ws: Worksheet, formats: _Formats, sheet: Sheet) -> int:
    """The sheet's lead lines above its table (the first bold and larger); the row of the table's header."""
    if not sheet.lead:
        return 0
    for r, line in enumerate(sheet.lead):
        ws.write_string(r, 0, neutralise(line), formats.lead if r == 0 else formats.text)
    return len(sheet.lead) + 1


def _cell_writers(ws: Worksheet) -> tuple[Any, Any]:
    """XlsxWriter's number and string writers for (row, column) indices: the public `write_number` and
    `write_string` first convert "A1"-style arguments, a cost per cell that adds up over a large workbook, so
    the methods they call are used where this XlsxWriter has them under their long-standing names."""
    number = getattr(ws, "_write_number", None)
    string = getattr(ws, "_write_string", None)
    if callable(number) and callable(string):
        return number, string
    return ws.write_number, ws.write_string


def _write_cell(ws: Worksheet, r: int, c: int, value: Any, column: Column, fmt: Format) -> None:
    if value is None:
        return  # an empty cell: no data
    if isinstance(value, bool):
        ws.write_boolean(r, c, value, fmt)
    elif isinstance(value, int | float):
        ws.write_number(r, c, value, fmt)
    elif isinstance(value, datetime):
        moment = value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
        ws.write_datetime(r, c, moment, fmt)
    else:
        text = neutralise(str(value))
        if len(text) > MAX_CELL_TEXT:
            text = text[: MAX_CELL_TEXT - 1] + "…"
        ws.write_string(r, c, text, fmt)


def _width(column: Column, sheet: Sheet) -> float:
    """The column's width in characters: its own, or fitted to the header and the data (text up to
    `column.max_width`, else 60), and never narrower than the header's longest word, which wrapping
    cannot break (a line may break after any Chinese character)."""
    header_word = max((display_width(w) for w in unbreakable(column.header_for("xlsx"))), default=0) + 2
    if column.width is not None:
        return float(max(column.width, header_word))
    sample = sheet.rows[:2000]
    if column.kind in ("text", "bool"):
        longest = max([6, *(display_width(str(r.get(column.key) or "")) for r in sample)])
        fitted = min(longest + 2, column.max_width or 60)
        return float(max(fitted, header_word))
    suffix = "".join(_QUOTED.findall(_number_format(column)))  # the unit the format appends: " ms"
    longest = max([0, *(_number_length(clean(r.get(column.key)), column) for r in sample)])
    return float(max(header_word, longest + display_width(suffix) + 2, 12))


_PIECE = re.compile(r"[^\s\u2e80-\ua4cf\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]+|\S")


def unbreakable(text: str) -> list[str]:
    """The pieces of `text` a wrapped line cannot break: words between spaces, and each Chinese (or other
    wide) character and full-width punctuation mark on its own, as spreadsheets break CJK text."""
    return _PIECE.findall(text)


def display_width(text: str) -> int:
    """How many columns `text` takes on screen: two for a wide (CJK) character, none for a combining one
    (a control character counts as one, as a spreadsheet shows it)."""
    if text.isascii():
        return len(text)
    return sum(max(wcwidth(c), 0) if c.isprintable() else 1 for c in text)


def _number_length(value: Any, column: Column) -> int:
    """About how many characters a number takes shown in its column's format (without the unit)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    decimals = 0 if column.kind == "int" else max(column.shown_decimals, 0)
    if column.kind == "percent":
        return len(f"{value * 100:.{decimals}f}%")
    return len(f"{value:,.{decimals}f}")


def _lines(text: str, width: float) -> int:
    """How many lines `text` takes wrapped at `width` display columns: words kept whole (a Chinese character
    is a word of its own, with no space before it), except a word longer than a line, which spreadsheets
    break across lines."""
    room = max(int(width - 1), 1)
    if text.isascii():  # the common case, a fifth of the time: words between spaces, one column a character
        return _ascii_lines(text, room)
    count, used, end = 0, 0, 0  # lines started, columns taken on the last one, where the last piece ended
    for match in _PIECE.finditer(text):
        word = match.group()
        size = display_width(word)
        gap = 1 if match.start() > end else 0  # the spaces before it (one, where the line goes on)
        end = match.end()
        if used and used + gap + size <= room:
            used += gap + size
            continue
        full, rest = divmod(size, room)
        count += full + (1 if rest else 0)
        used = rest or room
    return max(count, 1)


def _ascii_lines(text: str, room: int) -> int:
    """`_lines` of ASCII text (words between spaces) in `room` columns."""
    count, used = 0, 0
    for word in text.split():
        size = len(word)
        if used and used + 1 + size <= room:
            used += 1 + size
            continue
        full, rest = divmod(size, room)
        count += full + (1 if rest else 0)
        used = rest or room
    return max(count, 1)


def _header_height(columns: list[Column], widths: list[float]) -> float:
    """Enough height for the longest header wrapped at its column's width (at most six lines: a checklist
    criterion's title with its weight in a narrow score column takes that many)."""
    lines = max((_lines(c.header_for("xlsx"), w) for c, w in zip(columns, widths, strict=True)), default=1)
    return 15.0 * min(lines, 6)


def _add_charts(book: xlsxwriter.Workbook, ws: Worksheet, sheet: Sheet, n_columns: int, top: int = 0) -> None:
    keys = [c.key for c in sheet.columns]
    headers = {c.key: c.header_for("xlsx") for c in sheet.columns}
    first = top + 1  # the first data row
    for n, spec in enumerate(sheet.charts):
        chart = book.add_chart({"type": spec.kind})
        x = keys.index(spec.x_column)
        for key in spec.y_columns:
            y = keys.index(key)
            series: dict[str, Any] = {
                "name": chart_text(headers[key]),
                "categories": [sheet.shown_name, first + spec.first_row, x, first + spec.last_row, x],
                "values": [sheet.shown_name, first + spec.first_row, y, first + spec.last_row, y],
            }
            if spec.kind == "line":
                series["marker"] = {"type": "circle", "size": 4}
            if key in spec.errors:
                rows = (first + spec.first_row, first + spec.last_row)
                minus, plus = (keys.index(k) for k in spec.errors[key])
                bars = {
                    "type": "custom",
                    "minus_values": xl_range_formula(sheet.shown_name, rows[0], minus, rows[1], minus),
                    "plus_values": xl_range_formula(sheet.shown_name, rows[0], plus, rows[1], plus),
                    "end_style": 1,
                }
                series["x_error_bars" if spec.kind == "bar" else "y_error_bars"] = bars
            chart.add_series(series)
        chart.set_title({"name": chart_text(spec.title), "name_font": {"size": 11}})
        chart.set_x_axis({"name": chart_text(spec.x_title)})
        chart.set_y_axis({"name": chart_text(spec.y_title), "major_gridlines": {"visible": True}})
        if spec.kind == "bar":
            chart.set_y_axis({"name": chart_text(spec.y_title), "reverse": True})
            chart.set_x_axis(
                {"name": chart_text(spec.x_title), "min": 0, "max": 1, "major_gridlines": {"visible": True}}
            )
        chart.set_legend({"position": "bottom"})
        chart.set_size({"width": spec.size[0], "height": spec.size[1]})
        row, column = spec.anchor if spec.anchor is not None else (top + 1 + n * 14, n_columns + 1)
        ws.insert_chart(row, column, chart)


def chart_text(text: str) -> str:
    """Text for a chart title or series name: neutralised, and never mistaken for a cell reference."""
    return _LOOKS_LIKE_REFERENCE.sub("! ", neutralise(text))
