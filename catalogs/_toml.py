"""Reading the catalogs' data files (provider catalogs, the GPU reference, the checklist, needs profiles,
and the SkyPilot CSV's text): the one place where file, TOML and validation problems become our errors,
with file, line, field and what was expected. Every `catalogs` module that reads a file reads it here.

    read_text(path)            a regular file's text (`catalogs._textinput`: FIFOs, devices and folders refused
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

from catalogs._textinput import MAX_INPUT_BYTES, InputRefused, check_structure, decode, read_bytes
from catalogs._toml_lines import LineFinder
from catalogs.errors import CatalogFileError, SchemaError, TomlSyntaxError
from catalogs.i18n import _

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
            raise syntax_error(refused.message, path=path, expected=f"a UTF-8 {kind} file") from None
        raise read_error(refused.message, path=path) from None


def _error_position(exc: ValueError) -> tuple[str, int | None]:
    """tomllib's message without its "(at line N, column M)" tail, and N."""
    text = str(exc)
    match = re.search(r"\s*\(at line (\d+), column \d+\)\s*$", text)
    if match:
        return text[: match.start()], int(match.group(1))
    if text.endswith("(at end of document)"):
        return text.removesuffix("(at end of document)").strip() + " at the end of the file", None
    return text, None


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
        raise syntax_error(message, path=path, line=refused.line, expected="TOML syntax") from None
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message, line = _error_position(exc)
        raise syntax_error(
            f"not valid TOML: {message}", path=path, line=line, expected="TOML syntax"
        ) from exc
    # the two parsers disagree (rtoml reads integers as 64 bits, tomllib any size): report rtoml's words
    raise syntax_error(f"not valid TOML: {refusal}", path=path, expected="TOML syntax") from refusal


class LazyLines:
    """A `LineFinder` built on first use: valid files (the common case) never pay for the line index."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._finder: LineFinder | None = None

    def __call__(self, loc: tuple[str | int, ...]) -> int | None:
        if self._finder is None:
            self._finder = LineFinder(self._text)
        return self._finder(loc)


_EXPECTED_BY_TYPE = {
    "missing": "this field to be present",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "text in quotes",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list [ … ]",
    "tuple_type": "a list [ … ]",
    "model_type": "a table",
    "dict_type": "a table",
    "string_pattern_mismatch": "text matching {pattern}",
    "string_too_short": "non-empty text",
    "greater_than": "a number greater than {gt}",
    "greater_than_equal": "a number of at least {ge}",
    "less_than_equal": "a number of at most {le}",
    "less_than": "a number less than {lt}",
    "literal_error": "one of {expected}",
}


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


def _field_name(loc: tuple[str | int, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _owner_label(raw: Any, loc: tuple[str | int, ...]) -> str:
    """' in offering "p5.48xlarge"' for a loc inside the 4th offering, when the raw data has its id."""
    if len(loc) >= 2 and loc[0] in ("offerings", "regions") and isinstance(loc[1], int):
        try:
            item = raw[loc[0]][loc[1]]
        except (KeyError, IndexError, TypeError):
            return ""
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            kind = "offering" if loc[0] == "offerings" else "region"
            return f" (in {kind} {item['id']!r})"
    return ""


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
        elif kind == "extra_forbidden":
            model = _model_at(loc, root)
            known = sorted(model.model_fields) if model else []
            close = difflib.get_close_matches(str(loc[-1]), known, n=1)
            message = f"unknown field {loc[-1]!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
            expected = "one of " + ", ".join(k for k in known if k != "facts") if known else None
        else:
            message = error["msg"]
            template = _EXPECTED_BY_TYPE.get(kind)
            try:
                expected = template.format(**ctx) if template else None
            except (KeyError, IndexError):
                expected = template
        if (
            kind not in ("missing", "extra_forbidden")
            and "input" in error
            and not isinstance(error["input"], dict | list)
        ):
            message += f", got {error['input']!r}"
        errors.append(
            error_class(
                message + _owner_label(raw, loc),
                path=path,
                line=lines(loc),
                field=_field_name(loc),
                expected=expected,
            )
        )
    return errors
