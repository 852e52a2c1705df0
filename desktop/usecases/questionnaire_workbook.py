"""The questionnaire as an xlsx workbook: written with XlsxWriter (drop-down lists and number ranges as Excel
data validation, every cell but the answers and the evidence locked, the key column hidden), read back with
openpyxl (answers as the vendor typed them; a formula is reported, never evaluated).

Every question sheet has the same columns (A to I): `key` (hidden), question, why it matters, unit, allowed
values, what linkvet knows now, its source, the answer, the evidence. The `About` sheet names the format
(`linkvet-questionnaire`, version 1), the provider, the language and the offerings and regions it asks
about; the `Lists` sheet (hidden) holds the longer drop-down lists. Reading is bounded before anything is
decompressed (`_check_archive`: parts, each part's and the total uncompressed size, the compression ratio)
and while reading (sheets, rows); a damaged part is an `InputError` naming the file and the sheet. Sheet names and texts are in the questionnaire's language; keys and allowed values
never are.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import xlsxwriter
from xlsxwriter.worksheet import Worksheet

from desktop.export.safety import neutralise
from desktop.export.xlsx import close_xlsx
from desktop.i18n import _
from desktop.usecases.errors import InputError, WriteError

FORMAT = "linkvet-questionnaire"
FORMAT_VERSION = 1
KEY, QUESTION, WHY, UNIT, ALLOWED, KNOWN, SOURCE, ANSWER, EVIDENCE = range(9)
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_ANSWER_CHARS = 4000
_INLINE_LIST_CHARS = 250  # Excel keeps an inline drop-down list under 255 characters


@dataclass(frozen=True, slots=True)
class Validation:
    """The Excel data validation of an answer cell: a drop-down list, or a number range."""

    kind: str  # "list", "decimal", "integer", "date"
    values: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a question sheet: a question (with its key), or a heading / note (no key)."""

    key: str | None
    cells: tuple[str, ...]  # question, why, unit, allowed, known now, source
    validation: Validation | None = None
    heading: bool = False


@dataclass
class SheetModel:
    name: str
    title: str
    rows: list[Row] = field(default_factory=list)


@dataclass
class QuestionnaireModel:
    provider: str
    provider_name: str
    language: str
    sheets: list[SheetModel]
    about: list[tuple[str, Any]]


def write_questionnaire(model: QuestionnaireModel, out: Path) -> int:
    """Write the workbook (to `out.partial`, then renamed); the number of questions written."""
    partial = out.with_name(out.name + ".partial")
    book = xlsxwriter.Workbook(
        str(partial), {"strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False}
    )
    locked_wrap = book.add_format({"text_wrap": True, "valign": "top"})
    header = book.add_format(
        {"bold": True, "bg_color": "#DCE6F1", "bottom": 1, "text_wrap": True, "valign": "top"}
    )
    heading = book.add_format({"bold": True, "font_size": 12, "bg_color": "#EDEDED", "valign": "top"})
    answer = book.add_format(
        {"locked": False, "bg_color": "#FFF9C4", "border": 1, "text_wrap": True, "valign": "top"}
    )
    lists: list[list[str]] = []  # the long drop-down lists, one column each on the hidden Lists sheet
    count = 0
    for sheet in model.sheets:
        ws = book.add_worksheet(sheet.name)
        _layout(ws)
        ws.write_string(0, QUESTION, sheet.title, heading)
        headers = (
            "key",
            _("Question"),
            _("Why it matters"),
            _("Unit"),
            _("Allowed values"),
            _("What linkvet knows now"),
            _("Its source"),
            _("Answer"),
            _("Evidence (spec sheet link, test IP, document name)"),
        )
        for column, text in enumerate(headers):
            ws.write_string(1, column, text, header)
        ws.freeze_panes(2, 2)
        for index, row in enumerate(sheet.rows, start=2):
            if row.key is None:
                ws.write_string(
                    index, QUESTION, neutralise(row.cells[0]), heading if row.heading else locked_wrap
                )
                continue
            count += 1
            ws.write_string(index, KEY, row.key)
            for column, text in enumerate(row.cells, start=QUESTION):
                ws.write_string(index, column, neutralise(text), locked_wrap)
            ws.write_blank(index, ANSWER, None, answer)
            ws.write_blank(index, EVIDENCE, None, answer)
            if row.validation is not None:
                _validate(ws, lists, index, row.validation)
        ws.protect("", {"format_columns": True, "format_rows": True, "select_locked_cells": True})
    about = book.add_worksheet(_("About"))
    about.set_column(0, 0, 22)
    about.set_column(1, 1, 70)
    for index, (name, value) in enumerate(model.about):
        about.write_string(index, 0, name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            about.write_number(index, 1, value)
        else:
            about.write_string(index, 1, neutralise(str(value)))
    about.protect("")
    hidden = book.add_worksheet("Lists")
    for column, values in enumerate(lists):
        for offset, value in enumerate(values):
            hidden.write_string(offset, column, value)
    hidden.hide()
    hidden.protect("")
    try:
        close_xlsx(book, partial)
        partial.replace(out)
    except OSError as exc:
        raise WriteError(
            _("{file}: cannot write: {reason}").format(file=out, reason=exc.strerror or exc)
        ) from exc
    return count


def _layout(ws: Worksheet) -> None:
    ws.set_column(KEY, KEY, 30, None, {"hidden": True})
    ws.set_column(QUESTION, QUESTION, 46)
    ws.set_column(WHY, WHY, 46)
    ws.set_column(UNIT, UNIT, 11)
    ws.set_column(ALLOWED, ALLOWED, 26)
    ws.set_column(KNOWN, KNOWN, 24)
    ws.set_column(SOURCE, SOURCE, 34)
    ws.set_column(ANSWER, ANSWER, 26)
    ws.set_column(EVIDENCE, EVIDENCE, 34)


def _validate(ws: Worksheet, lists: list[list[str]], row: int, validation: Validation) -> None:
    """Put the answer cell's data validation; long lists go to the hidden Lists sheet (one column each)."""
    message = {
        "error_title": _("Not an allowed answer"),
        "error_type": "stop",
    }
    if validation.kind == "list":
        values = list(validation.values)
        if len(",".join(values)) <= _INLINE_LIST_CHARS:
            source: Any = values
        else:
            if values not in lists:
                lists.append(values)
            column = xlsxwriter.utility.xl_col_to_name(lists.index(values))
            source = f"=Lists!${column}$1:${column}${len(values)}"
        ws.data_validation(
            row,
            ANSWER,
            row,
            ANSWER,
            {
                "validate": "list",
                "source": source,
                "error_message": _("Choose one of the values in the list."),
                **message,
            },
        )
    elif validation.kind in ("decimal", "integer"):
        low = validation.minimum if validation.minimum is not None else -1e15
        high = validation.maximum if validation.maximum is not None else 1e15
        text = _("A number from {low:g} to {high:g}.").format(low=low, high=high)
        ws.data_validation(
            row,
            ANSWER,
            row,
            ANSWER,
            {
                "validate": validation.kind,
                "criteria": "between",
                "minimum": low,
                "maximum": high,
                "error_message": text,
                **message,
            },
        )
    elif validation.kind == "date":
        ws.data_validation(
            row,
            ANSWER,
            row,
            ANSWER,
            {
                "validate": "date",
                "criteria": ">=",
                "value": dt.datetime(2000, 1, 1),
                "error_message": _("A date (YYYY-MM-DD)."),
                **message,
            },
        )


# -- reading answers back ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer cell as read: where it is, its key, what was typed (None: empty), the evidence, and whether
    the cell holds a formula (reported, never evaluated)."""

    sheet: str
    row: int  # 1-based, as a spreadsheet shows it
    key: str
    value: Any
    evidence: str | None
    formula: bool = False


@dataclass(frozen=True, slots=True)
class AnsweredWorkbook:
    about: dict[str, Any]
    answers: list[Answer]


# What a questionnaire workbook may hold, checked from the zip's directory before a byte is decompressed
# (Python's zipfile then never inflates a member past the size the directory gives it): an exported
# questionnaire is about 30 KB in ten members, its largest sheet well under 1 MB, and compresses about 5:1.
MAX_MEMBERS = 256
MAX_MEMBER_BYTES = 8 * 1024 * 1024  # one member, uncompressed
MAX_TOTAL_BYTES = 32 * 1024 * 1024  # every member together, uncompressed
MAX_RATIO = 100  # uncompressed ÷ compressed, for a member over RATIO_FROM bytes
RATIO_FROM = 1024 * 1024
MAX_ROWS = 20_000  # rows read from one sheet (a questionnaire has a few hundred)
MAX_SHEETS = 32


def check_workbook(path: Path) -> None:
    """What `read_answers` checks before it decompresses anything (size, then the zip's directory: a zip
    bomb), for a face that wants the refusal before it loads anything else; `InputError` as there."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(
            _("{file}: cannot read: {reason}").format(file=path, reason=exc.strerror or exc)
        ) from exc
    if size > MAX_FILE_BYTES:
        raise InputError(
            _("{file}: {size} bytes is more than a questionnaire holds (at most {limit})").format(
                file=path, size=size, limit=MAX_FILE_BYTES
            )
        )
    _check_archive(path)


def _check_archive(path: Path) -> None:
    """Refuse a workbook whose members would decompress past the bounds above (a zip bomb), before any is
    decompressed; `InputError` naming the file and the member."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise InputError(
            _("{file}: not an xlsx workbook ({reason})").format(file=path, reason=_reason(exc))
        ) from None
    if len(members) > MAX_MEMBERS:
        raise InputError(
            _("{file}: {count} parts in the archive, more than a questionnaire has (at most {most})").format(
                file=path, count=len(members), most=MAX_MEMBERS
            )
        )
    total = 0
    for member in members:
        name = member.filename[:80]
        if member.file_size > MAX_MEMBER_BYTES:
            raise InputError(
                _(
                    "{file}: {member} would unpack to {size} MB, more than a questionnaire holds (at most {most} MB)"
                ).format(
                    file=path,
                    member=name,
                    size=f"{member.file_size / 1e6:.0f}",
                    most=MAX_MEMBER_BYTES // 10**6,
                )
            )
        if member.file_size > RATIO_FROM and member.file_size > MAX_RATIO * max(member.compress_size, 1):
            raise InputError(
                _("{file}: {member} is compressed {ratio}:1, as a zip bomb is (at most {most}:1)").format(
                    file=path,
                    member=name,
                    ratio=f"{member.file_size / max(member.compress_size, 1):.0f}",
                    most=MAX_RATIO,
                )
            )
        total += member.file_size
    if total > MAX_TOTAL_BYTES:
        raise InputError(
            _(
                "{file}: would unpack to {size} MB, more than a questionnaire holds (at most {most} MB)"
            ).format(file=path, size=f"{total / 1e6:.0f}", most=MAX_TOTAL_BYTES // 10**6)
        )


def _reason(exc: BaseException) -> str:
    """A foreign library's failure, in our words (its own text can be long and is never shown whole)."""
    import zipfile
    import zlib

    if isinstance(exc, SyntaxError):  # xml.etree's ParseError, lxml's XMLSyntaxError
        line = getattr(exc, "lineno", None)
        return _("not well-formed XML at line {line}").format(line=line) if line else _("not well-formed XML")
    if isinstance(exc, zipfile.BadZipFile | zlib.error | EOFError):
        return _("its compressed data is damaged")
    if isinstance(exc, OSError):
        return exc.strerror or _("cannot be read")
    return _("its content is not what an xlsx part holds")


_DAMAGE = (KeyError, ValueError, TypeError, IndexError, AttributeError, EOFError, SyntaxError, OSError)


def read_answers(path: Path) -> AnsweredWorkbook:
    """The About sheet and every answer of a questionnaire workbook; `InputError` naming the file when it
    is not one (unreadable, too big, a zip bomb, damaged, not an xlsx, not a linkvet questionnaire, a newer
    version). Every read is bounded before it is decompressed (`_check_archive`) and while it is read
    (`MAX_ROWS`, `MAX_SHEETS`)."""
    import zipfile
    import zlib

    if path.exists() and not path.is_file():
        raise InputError(_("{file}: not a regular file").format(file=path))
    check_workbook(path)  # before openpyxl is even loaded: a bomb is refused at once
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        book = load_workbook(path, read_only=True, data_only=False)
    except (InvalidFileException, zipfile.BadZipFile, zlib.error, *_DAMAGE) as exc:
        raise InputError(
            _("{file}: not an xlsx workbook ({reason})").format(file=path, reason=_reason(exc))
        ) from None
    sheet = _("the workbook's structure")
    try:
        if len(book.sheetnames) > MAX_SHEETS:
            raise InputError(
                _("{file}: {count} sheets, more than a questionnaire has").format(
                    file=path, count=len(book.sheetnames)
                )
            )
        about = _about(book)
        if about.get("format") != FORMAT:
            raise InputError(
                _(
                    "{file}: not a linkvet questionnaire (its About sheet does not say format {format})"
                ).format(file=path, format=FORMAT)
            )
        version = about.get("format_version")
        if not isinstance(version, int | float) or int(version) > FORMAT_VERSION:
            raise InputError(
                _(
                    "{file}: questionnaire format_version {version} is not one this linkvet reads (up to {known})"
                ).format(file=path, version=str(version)[:40], known=FORMAT_VERSION)
            )
        answers = []
        for ws in book.worksheets:
            sheet = str(ws.title)[:80]
            answers.extend(_answers(ws, path))
    except (zipfile.BadZipFile, zlib.error, *_DAMAGE) as exc:
        raise InputError(
            _("{file}: the sheet {sheet} is damaged and cannot be read ({reason})").format(
                file=path, sheet=sheet, reason=_reason(exc)
            )
        ) from None
    finally:
        book.close()
    return AnsweredWorkbook(about, answers)


def _about(book: Any) -> dict[str, Any]:
    for ws in book.worksheets:
        rows = list(ws.iter_rows(min_row=1, max_row=20, max_col=2, values_only=True))
        if rows and rows[0] and rows[0][0] == "format":
            return {str(r[0])[:80]: r[1] for r in rows if r and r[0] is not None}
    return {}


def _answers(ws: Any, path: Path) -> list[Answer]:
    found: list[Answer] = []
    header_seen = False
    for number, row in enumerate(ws.iter_rows(min_row=1, max_col=EVIDENCE + 1), start=1):
        if number > MAX_ROWS:
            raise InputError(
                _(
                    "{file}: the sheet {sheet} has more than {most} rows, more than a questionnaire has"
                ).format(file=path, sheet=str(ws.title)[:80], most=MAX_ROWS)
            )
        cells = list(row) + [None] * (EVIDENCE + 1 - len(row))
        key_cell = cells[KEY]
        key = getattr(key_cell, "value", None)
        if key == "key":
            header_seen = True
            continue
        if not header_seen or not isinstance(key, str) or not key.strip():
            continue
        answer_cell, evidence_cell = cells[ANSWER], cells[EVIDENCE]
        value = getattr(answer_cell, "value", None)
        formula = getattr(answer_cell, "data_type", None) == "f" or (
            isinstance(value, str)
            and value.startswith("=")
            and getattr(answer_cell, "data_type", None) != "s"
        )
        evidence = getattr(evidence_cell, "value", None)
        if isinstance(value, str) and not value.strip():
            value = None
        found.append(
            Answer(
                ws.title,
                number,
                key.strip(),
                value,
                None if evidence is None or not str(evidence).strip() else str(evidence).strip(),
                formula,
            )
        )
    return found


def too_long(answer: Answer) -> bool:
    return isinstance(answer.value, str) and len(answer.value) > MAX_ANSWER_CHARS


def sheet_names() -> Sequence[str]:
    """The question sheets' names in the current language."""
    return (_("Provider"), _("Offerings"))
