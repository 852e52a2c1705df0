"""Reading the files `probes` is handed (plans, network tables, target lists, acceptance inputs, JSON lists):
every input is opened here, and every way that can fail is put into words once. Each reader passes
`error(message, line)`, which builds its own exception naming the file (`PlanError`, `NetworkTableError`,
…), and raises what it returns.

    read_text(path, error)      a regular file's UTF-8 text, at most MAX_INPUT_BYTES (a FIFO, a device, a
                                socket or a folder is refused at once, never read)
    parse_toml(text, error)     the TOML table; nesting, over-long numbers, NaN and infinities refused first
    parse_json(text, error)     the same for JSON
    check_regular(path, error)  for a path another library opens (the SQLite store): not a FIFO or device

The checks themselves are `probes.files.textinput` (which `catalogs` reads through too).
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from probes.files.textinput import (
    MAX_INPUT_BYTES,
    InputRefused,
    check_structure,
    decode,
    loads_json,
    not_regular_reason,
    read_bytes,
)
from probes.i18n import _

__all__ = [
    "MAX_INPUT_BYTES",
    "ErrorFactory",
    "check_regular",
    "explain",
    "field_name",
    "locate",
    "not_regular_reason",
    "parse_json",
    "parse_toml",
    "read_text",
]

ErrorFactory = Callable[[str, int | None], Exception]  # (what is wrong, the 1-based line or None)

_POSITION = re.compile(r" ?\(at line (\d+), column (\d+)\)")


def _raise(refused: InputRefused, error: ErrorFactory) -> Exception:
    message = refused.message
    if refused.column is not None:
        message = _("{problem} (at column {column})").format(problem=message, column=refused.column)
    return error(message, refused.line)


def read_text(path: Path, error: ErrorFactory, *, limit: int = MAX_INPUT_BYTES) -> str:
    """The text of the regular file at `path` (a leading byte-order mark dropped). Fails with "no such
    file", "is a named pipe (FIFO), not a regular file …", "cannot read the file: …", "larger than … MiB"
    or "not UTF-8 text (…)"."""
    try:
        return decode(read_bytes(path, limit))
    except InputRefused as refused:
        raise _raise(refused, error) from None


def parse_toml(text: str, error: ErrorFactory, *, syntax: str = "TOML syntax error") -> dict[str, Any]:
    """The TOML table of `text`. Fails with "{syntax}: {the parser's words}" and the line they are about, or
    with what `check_structure` refuses (too deep, a number too long, NaN or an infinity)."""
    try:
        check_structure(text, "toml")
    except InputRefused as refused:
        raise _raise(refused, error) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _POSITION.search(message)
        line = int(match.group(1)) if match else None
        raise error(f"{syntax}: {_POSITION.sub('', message)}", line) from None


def parse_json(text: str, error: ErrorFactory) -> Any:
    """The JSON value of `text`: invalid JSON, nesting deeper than MAX_DEPTH, a number too long, NaN or an
    infinity fail with the line."""
    try:
        return loads_json(text)
    except InputRefused as refused:
        raise _raise(refused, error) from None


def check_regular(path: Path, error: ErrorFactory) -> None:
    """Refuse a path that exists and is not a regular file (a FIFO or a device would block or never end
    when another library opens it); a path that does not exist yet passes."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise error(_("cannot read the file: {reason}").format(reason=exc.strerror or exc), None) from None
    if not stat.S_ISREG(mode):
        raise error(not_regular_reason(mode), None)


# -- pydantic's errors in our words, and where a field is written (the models' base: `probes.files.filemodel`) ----


def explain(error: Any) -> str:
    """One of pydantic's errors (an item of `ValidationError.errors()`) in our words."""
    kind = error["type"]
    message = str(error["msg"])
    if kind == "extra_forbidden":
        return _("unknown field (check its spelling; the manual gives the file's format)")
    if kind == "missing":
        return _("missing (this field is required)")
    if kind == "enum":
        expected = error.get("ctx", {}).get("expected", "")
        return _("got {value!r}, expected one of {expected}").format(
            value=error.get("input"), expected=expected
        )
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    given = error.get("input")
    if kind not in ("value_error",) and not isinstance(given, dict | list):
        return _("{problem} (got {value!r})").format(problem=message, value=given)
    return message


def field_name(loc: Sequence[str | int]) -> str:
    """A pydantic location as the file writes it: `targets[2].port`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*(\]\]?)\s*(#.*)?$")


def locate(text: str, loc: Sequence[str | int]) -> int | None:
    """The 1-based line in TOML `text` where the value at `loc` (e.g. ("targets", 2, "port")) is written,
    or the line of its table when the key itself is absent; None if it cannot be found."""
    lines = text.splitlines()
    table: tuple[str | int, ...] = ()
    array_counts: dict[str, int] = {}
    table_lines: dict[tuple[str | int, ...], int] = {}
    want = tuple(loc)
    best: int | None = None
    for number, line in enumerate(lines, start=1):
        header = _HEADER.match(line)
        if header and not line.lstrip().startswith("#") and "=" not in line.split("]")[0]:
            name = header.group(2).strip().strip('"')
            parts: list[str | int] = list(name.split("."))
            if header.group(1) == "[[":
                index = array_counts.get(name, -1) + 1
                array_counts[name] = index
                parts.append(index)
            table = tuple(parts)
            table_lines[table] = number
            if want[: len(table)] == table and (best is None or len(table) >= 1):
                best = number
            continue
        key_match = re.match(r"^\s*([A-Za-z0-9_\-\"\.]+)\s*=", line)
        if not key_match:
            continue
        key_parts: tuple[str | int, ...] = tuple(p.strip('"') for p in key_match.group(1).split("."))
        full = table + key_parts
        if full == want[: len(full)] and len(full) <= len(want):
            best = number
            if full == want:
                return number
    return best
