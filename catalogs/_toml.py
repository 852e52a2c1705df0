"""Reading the catalogs' data files (provider catalogs, the GPU reference, the checklist, needs profiles,
and the SkyPilot CSV's text): the one place where file, TOML and validation problems become our errors,
with file, line, field and what was expected. Every `catalogs` module that reads a file reads it here.

    read_text(path)            a regular file's text (`probes.files.textinput`: FIFOs, devices and folders refused
                               at once, size bounded); unreadable → `CatalogFileError`, not UTF-8 →
                               `TomlSyntaxError`
    parse(text, path)          TOML → plain data; invalid → `TomlSyntaxError` with the line
    validation_errors(…)       pydantic's `ValidationError` → one of ours per problem, each with its line
    LineFinder, LazyLines      where a key path is written (`catalogs._toml_lines`, the index behind them)

Each takes the error class to raise, so a needs profile's problems are `NeedsProfileError`s, the checklist's
`ChecklistError`s, and so on. TOML is parsed with rtoml (a compiled parser, ~7× faster than tomllib on large
catalogs); tomllib only words the error of an invalid file, so errors always say line and column the same
way.
"""

from __future__ import annotations

import difflib
import re
import tomllib
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rtoml
from pydantic import BaseModel, ValidationError

from catalogs._toml_lines import LineFinder
from catalogs.errors import CatalogFileError, SchemaError, TomlSyntaxError
from catalogs.i18n import _
from probes.files.inputfile import field_name
from probes.files.textinput import MAX_INPUT_BYTES, InputRefused, check_structure, decode, read_bytes

__all__ = ["LazyLines", "LineFinder", "Lines", "parse", "read_text", "validation_errors"]

Lines = Callable[[tuple[str | int, ...]], int | None]  # a key path → the line it is written on (or None)


def read_text(
    path: Path,
    syntax_error: type[CatalogFileError] = TomlSyntaxError,
    read_error: type[CatalogFileError] = CatalogFileError,
    *,
    kind: str = "TOML",
    limit: int = MAX_INPUT_BYTES,
) -> str:
    """The text of the regular file at `path` (a leading byte-order mark dropped), at most `limit` bytes.
    A file that cannot be read — missing, a folder, a FIFO or a device (refused at once, never read), too
    large — raises `read_error`; one that is not UTF-8 (so not TOML, nor the CSV the SkyPilot importer
    reads: `kind`) raises `syntax_error`."""
    try:
        return decode(read_bytes(path, limit))
    except InputRefused as refused:
        if refused.kind == "not_text":
            raise syntax_error(
                refused.message, path=path, expected=_("a UTF-8 {kind} file").format(kind=kind)
            ) from None
        raise read_error(refused.message, path=path) from None


# tomllib's reasons (Python 3.11-3.13), in our words; a reason not listed is shown as tomllib words it
_TOML_REASONS: tuple[tuple[re.Pattern[str], Callable[[], str]], ...] = tuple(
    (re.compile(pattern + "$"), words)
    for pattern, words in (
        (r"Cannot overwrite a value", lambda: _("a value is set twice")),
        (
            r"Escaped character is not a Unicode scalar value",
            lambda: _("an escape that is no Unicode character"),
        ),
        (r"Expected '=' after a key in a key/value pair", lambda: _("expected '=' after a key")),
        (
            r"Expected '\]' at the end of a table declaration",
            lambda: _("expected ']' closing the table name"),
        ),
        (
            r"Expected '\]\]' at the end of an array declaration",
            lambda: _("expected ']]' closing the array name"),
        ),
        (
            r"Expected newline or end of document after a statement",
            lambda: _("expected the line to end after the value"),
        ),
        (r"Invalid date or datetime", lambda: _("an invalid date or time")),
        (r"Invalid hex value", lambda: _("an invalid hexadecimal escape")),
        (r"Invalid initial character for a key part", lambda: _("a key starts with a character keys cannot")),
        (r"Invalid statement", lambda: _("a line that is neither a key = value nor a [table]")),
        (r"Invalid value", lambda: _("an invalid value")),
        (r"Unclosed array", lambda: _("a list [ … ] not closed")),
        (r"Unclosed inline table", lambda: _("an inline table {{ … }} not closed")),
        (r"Unescaped '\\' in a string", lambda: _("an unescaped '\\' in a string")),
        (r"Unterminated string", lambda: _("a string not closed by its quote")),
        (r"Cannot declare (?P<key>.+) twice", lambda: _("the table {key} is declared twice")),
        (r"Cannot mutate immutable namespace (?P<key>.+)", lambda: _("{key} cannot be extended here")),
        (r"Cannot redefine namespace (?P<key>.+)", lambda: _("{key} is defined twice")),
        (
            r"Duplicate inline table key (?P<key>.+)",
            lambda: _("the key {key} is set twice in an inline table"),
        ),
        (r"Found invalid character (?P<key>.+)", lambda: _("the character {key} is not allowed here")),
        (r"Illegal character (?P<key>.+)", lambda: _("the character {key} is not allowed here")),
    )
)


def _toml_reason(text: str) -> str:
    """tomllib's reason in our words (as it is, when not known)."""
    for pattern, words in _TOML_REASONS:
        match = pattern.match(text)
        if match:
            return words().format(**match.groupdict())
    return text


def _error_position(exc: ValueError) -> tuple[str, int | None]:
    """tomllib's error as our message, and the line it names."""
    text = str(exc)
    match = re.search(r"\s*\(at line (\d+), column \d+\)\s*$", text)
    if match:
        reason = _toml_reason(text[: match.start()])
        return _("not valid TOML: {reason}").format(reason=reason), int(match.group(1))
    if text.endswith("(at end of document)"):
        reason = _toml_reason(text.removesuffix("(at end of document)").strip())
        return _("not valid TOML: {reason}, at the end of the file").format(reason=reason), None
    return _("not valid TOML: {reason}").format(reason=_toml_reason(text)), None


def parse(
    text: str, path: Path | None = None, syntax_error: type[CatalogFileError] = TomlSyntaxError
) -> dict[str, Any]:
    """TOML text as plain data; invalid TOML raises `syntax_error` naming the line. rtoml parses; where it
    refuses, `check_structure` (nesting, over-long numbers, NaN) and then tomllib word why, so that tomllib
    never meets text it could not survive."""
    try:
        return dict(rtoml.loads(text))
    except rtoml.TomlParsingError as exc:
        refusal = exc
    try:
        check_structure(text, "toml")
    except InputRefused as refused:
        message = refused.message
        if refused.column is not None:
            message = _("{problem} (at column {column})").format(problem=message, column=refused.column)
        raise syntax_error(message, path=path, line=refused.line, expected=_("TOML syntax")) from None
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message, line = _error_position(exc)
        raise syntax_error(message, path=path, line=line, expected=_("TOML syntax")) from exc
    # the two parsers disagree (rtoml reads integers as 64 bits, tomllib any size): report rtoml's words
    raise syntax_error(
        _("not valid TOML: {reason}").format(reason=refusal), path=path, expected=_("TOML syntax")
    ) from refusal


class LazyLines:
    """A `LineFinder` built on first use: valid files (the common case) never pay for the line index."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._finder: LineFinder | None = None

    def __call__(self, loc: tuple[str | int, ...]) -> int | None:
        if self._finder is None:
            self._finder = LineFinder(self._text)
        return self._finder(loc)


# Units a field's name carries (`gpu_memory_gb`), for what a number field expects.
_UNIT_SUFFIXES = (
    ("_gbytes_s", "GB/s"),
    ("_gbit_s", "Gbit/s"),
    ("_gib", "GiB"),
    ("_gb", "GB"),
    ("_tb", "TB"),
    ("_percent", "%"),
    ("_mbps", "Mbit/s"),
    ("_ms", "ms"),
)
_QUOTED_LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'")


def _unit(loc: tuple[str | int, ...]) -> str | None:
    """The unit a number field's name says (`delivery_days` → days), if any."""
    name = next((part for part in reversed(loc) if isinstance(part, str)), "")
    if name.endswith("_days"):
        return _("days")
    return next((unit for suffix, unit in _UNIT_SUFFIXES if name.endswith(suffix)), None)


def _bound(kind: str, ctx: dict[str, Any], unit: str | None) -> str:
    """What a number field with a bound expects, in words."""
    if unit is None:
        templates = {
            "greater_than": _("a number greater than {bound}"),
            "greater_than_equal": _("a number of at least {bound}"),
            "less_than": _("a number less than {bound}"),
            "less_than_equal": _("a number of at most {bound}"),
        }
    else:
        templates = {
            "greater_than": _("a number of {unit} greater than {bound}"),
            "greater_than_equal": _("a number of {unit}, at least {bound}"),
            "less_than": _("a number of {unit} less than {bound}"),
            "less_than_equal": _("a number of {unit}, at most {bound}"),
        }
    bound = next(ctx[key] for key in ("gt", "ge", "lt", "le") if key in ctx)
    return templates[kind].format(bound=bound, unit=unit)


# pydantic's string patterns that have a name people know
_PATTERNS = {
    r"^[a-z0-9][a-z0-9._-]*$": lambda: _(
        "an id of lower-case letters, digits, '.', '_' and '-', starting with a letter or a digit"
    ),
    r"^[A-Z]{3}$": lambda: _("a three-letter currency code such as USD"),
    r"^[A-Z]{2}$": lambda: _("a two-letter country code such as US"),
    r"^https?://[^\s/]+": lambda: _("an http:// or https:// address"),
    r"^[a-z][a-z0-9_]*$": lambda: _("an id of lower-case letters, digits and '_', starting with a letter"),
}


def _expected(kind: str, ctx: dict[str, Any], loc: tuple[str | int, ...]) -> str | None:
    """What a field expects, in our words, for pydantic's error `kind` and its context."""
    match kind:
        case "int_type" | "int_parsing" | "int_from_float":
            return _("a whole number")
        case "float_type" | "float_parsing":
            unit = _unit(loc)
            return _("a number of {unit}").format(unit=unit) if unit else _("a number")
        case "finite_number":
            return _("a finite number, not NaN or infinity")
        case "string_type":
            return _("text in quotes")
        case "bool_type" | "bool_parsing":
            return _("true or false")
        case "list_type" | "tuple_type":
            return _("a list [ … ]")
        case "model_type" | "dict_type" | "model_attributes_type":
            return _("a table")
        case "string_pattern_mismatch":
            named = _PATTERNS.get(str(ctx.get("pattern")))
            return named() if named else _("text matching {pattern}").format(pattern=ctx.get("pattern"))
        case "string_too_short":
            return _("non-empty text")
        case "string_too_long":
            return _("text of at most {n} characters").format(n=ctx.get("max_length"))
        case "too_long":
            return _("a list of at most {n} items").format(n=ctx.get("max_length"))
        case "greater_than" | "greater_than_equal" | "less_than" | "less_than_equal":
            return _bound(kind, ctx, _unit(loc))
        case "literal_error":
            values = _QUOTED_LITERAL.findall(str(ctx.get("expected", "")))
            return _("one of {values}").format(values=", ".join(repr(v) for v in values))
    return None


def _got(value: Any) -> str:
    """What the file gave, in words."""
    if isinstance(value, dict):
        return _("got a table")
    if isinstance(value, list | tuple):
        return _("got a list")
    return _("got {value!r}").format(value=value)


def _model_at(loc: tuple[str | int, ...], root: type[BaseModel]) -> type[BaseModel] | None:
    """The pydantic model class that holds the last key of `loc` (for "did you mean" hints)."""
    model: type[BaseModel] = root
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        info = model.model_fields.get(part)
        if info is None:
            return None
        found = None
        stack: list[Any] = [info.annotation]
        while stack:
            annotation = stack.pop()
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                found = annotation
                break
            origin = typing.get_origin(annotation)
            if origin is not None or isinstance(annotation, types.UnionType):
                stack.extend(typing.get_args(annotation))
        if found is None:
            return None
        model = found
    return model


def _in_owner(message: str, raw: Any, loc: tuple[str | int, ...]) -> str:
    """`message` saying which offering or region it is about, when `loc` is inside one whose raw data has
    its id (the 4th offering is "p5.48xlarge")."""
    if len(loc) >= 2 and loc[0] in ("offerings", "regions") and isinstance(loc[1], int):
        try:
            item = raw[loc[0]][loc[1]]
        except (KeyError, IndexError, TypeError):
            return message
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            if loc[0] == "offerings":
                return _("{problem} (in offering {id!r})").format(problem=message, id=item["id"])
            return _("{problem} (in region {id!r})").format(problem=message, id=item["id"])
    return message


def validation_errors(
    exc: ValidationError,
    path: Path | None,
    raw: Any,
    lines: Lines,
    root: type[BaseModel],
    error_class: type[CatalogFileError] = SchemaError,
) -> list[CatalogFileError]:
    """pydantic's errors as ours (`error_class`): one per problem, each with file, line, field and what was
    expected. `root` is the model validated (for "did you mean" hints), `raw` the data it was given."""
    errors: list[CatalogFileError] = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        ctx = error.get("ctx") or {}
        kind = error["type"]
        expected: str | None
        if kind == "implausible":
            message, expected = str(ctx["message"]), str(ctx["expected"])
        elif kind == "missing":
            message, expected = _("this field is required"), None
        elif kind == "extra_forbidden":
            model = _model_at(loc, root)
            known = sorted(model.model_fields) if model else []
            close = difflib.get_close_matches(str(loc[-1]), known, n=1)
            if close:
                message = _("unknown field {name!r} (did you mean {close!r}?)").format(
                    name=loc[-1], close=close[0]
                )
            else:
                message = _("unknown field {name!r}").format(name=loc[-1])
            fields = ", ".join(k for k in known if k != "facts")
            expected = _("one of {values}").format(values=fields) if known else None
        elif kind == "value_error":
            message, expected = str(ctx.get("error", error["msg"])), None
        else:
            expected = _expected(kind, ctx, loc)
            # a kind this table does not word keeps pydantic's words (in English)
            message = _got(error.get("input")) if expected is not None else error["msg"]
        errors.append(
            error_class(
                _in_owner(message, raw, loc),
                path=path,
                line=lines(loc),
                field=field_name(loc),
                expected=expected,
            )
        )
    return errors
