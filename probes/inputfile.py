"""Reading the files `probes` is handed (plans, network tables, target lists, acceptance inputs, JSON lists):
every input is opened here, and every way that can fail is put into words once. Each reader passes
`error(message, line)`, which builds its own exception naming the file (`PlanError`, `NetworkTableError`,
…), and raises what it returns.

    read_text(path, error)      a regular file's UTF-8 text, at most MAX_INPUT_BYTES (a FIFO, a device, a
                                socket or a folder is refused at once, never read)
    parse_toml(text, error)     the TOML table; nesting, over-long numbers, NaN and infinities refused first
    parse_json(text, error)     the same for JSON
    check_regular(path, error)  for a path another library opens (the SQLite store): not a FIFO or device

The checks themselves are `probes._textinput` (shared, byte for byte, with `catalogs._textinput`).
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from probes._textinput import (
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
