"""Reading a file someone handed us without trusting it: the file itself, its bytes, and the shape of its
TOML or JSON before a parser sees it. Nothing here knows which file it is reading; the caller names it.

Both `probes` and `catalogs` read through it; each turns `InputRefused` into its own error in one place
(`probes.files.inputfile`, `catalogs._toml`).

    read_bytes(path, limit)       a regular file's bytes, at most `limit`; a FIFO, a device, a socket or a
                                  folder is refused at once (opened without blocking, checked with fstat)
    not_regular_reason(mode)      what is wrong with a file of that `st_mode`, in words
    decode(data)                  UTF-8 text; a leading byte-order mark is dropped
    check_structure(text, syntax) before TOML or JSON is parsed: nesting at most MAX_DEPTH deep (dotted
                                  keys and table headers count), no number of more than MAX_DIGITS digits,
                                  no NaN or infinity — each refusal with its line and column
    loads_json(text)              JSON after `check_structure`, with JSON's own errors as `InputRefused`

Why before parsing: tomllib recurses once per nested array and needs memory quadratic in the parts of a
dotted key (100,000 parts exhaust it), json recurses too, and Python refuses to read an integer of more
than 4,300 digits; a parser should never meet such text.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any, Literal

from probes.i18n import _

MAX_INPUT_BYTES = 32 * 1024 * 1024  # no plan, catalog, profile or list of ours comes near this
MAX_DEPTH = 32  # the deepest file of ours nests 5 levels
MAX_DIGITS = 100  # digits in one number: far beyond any figure, far below Python's 4,300-digit limit

Kind = Literal["missing", "not_regular", "unreadable", "too_large", "not_text", "structure", "syntax"]


class InputRefused(Exception):
    """Why a file's content is not read, in words (no file name: the caller adds it); `line` and `column`
    (1-based) when known; `kind` for callers that word some cases themselves."""

    def __init__(self, kind: Kind, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column


def not_regular_reason(mode: int) -> str:
    """Why a file of this `st_mode` (not a regular file) is not read."""
    if stat.S_ISDIR(mode):
        return _("is a folder, not a file")
    if stat.S_ISFIFO(mode):
        return _("is a named pipe (FIFO), not a regular file: linkvet reads only regular files")
    if stat.S_ISSOCK(mode):
        return _("is a socket, not a regular file: linkvet reads only regular files")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return _("is a device, not a regular file: linkvet reads only regular files")
    return _("is not a regular file: linkvet reads only regular files")


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):g}"


def read_bytes(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them. The file is opened without
    blocking (a FIFO without a writer opens at once) and checked before a byte is read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputRefused("missing", _("no such file")) from None
    except IsADirectoryError:
        raise InputRefused("not_regular", _("is a folder, not a file")) from None
    except OSError as exc:
        # a Unix socket cannot be opened at all (ENXIO); say what it is, not the errno's words
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise InputRefused("not_regular", not_regular_reason(mode)) from None
        reason = exc.strerror or str(exc)
        raise InputRefused("unreadable", _("cannot read the file: {reason}").format(reason=reason)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputRefused("not_regular", not_regular_reason(mode))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1024 * 1024, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise InputRefused("unreadable", _("cannot read the file: {reason}").format(reason=reason)) from None
    finally:
        os.close(fd)
    if size > limit:
        raise InputRefused(
            "too_large", _("larger than {limit} MiB: not a file linkvet reads").format(limit=_mib(limit))
        )
    return b"".join(chunks)


def decode(data: bytes) -> str:
    """UTF-8 text without a leading byte-order mark (Windows editors write one)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputRefused("not_text", _("UTF-16 text, not UTF-8: save the file as UTF-8"), line=1)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputRefused(
            "not_text",
            _("not UTF-8 text ({reason} at byte {byte})").format(reason=exc.reason, byte=exc.start),
            line=data[: exc.start].count(b"\n") + 1,
        ) from None


# The tokens that matter for the shape of TOML; everything else is skipped a run at a time.
_TOML_TOKENS = re.compile(
    r'(?P<mlbasic>"""(?:[^\\]|\\[\s\S])*?"""(?:"{1,2}(?!"))?)'
    r"|(?P<mlliteral>'''[\s\S]*?'''(?:'{1,2}(?!'))?)"
    r'|(?P<basic>"(?:[^"\\\n]|\\.)*"?)'
    r"|(?P<literal>'[^'\n]*'?)"
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<newline>\n)"
    r"|(?P<punct>[\[\]{},=.])"
    r"|(?P<digits>[0-9][0-9_]*)"
    r"|(?P<word>[A-Za-z][A-Za-z0-9_-]*)"
    r"|(?P<other>[^\"'#\n\[\]{},=.0-9A-Za-z]+)"
)
_JSON_TOKENS = re.compile(
    r'(?P<string>"(?:[^"\\\n]|\\.)*"?)'
    r"|(?P<newline>\n)"
    r"|(?P<open>[\[{])"
    r"|(?P<close>[\]}])"
    r"|(?P<number>-?[0-9][0-9]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?)"
    r"|(?P<word>[A-Za-z][A-Za-z0-9]*)"
    r'|(?P<other>[^"\n\[\]{}0-9A-Za-z-]+|-)'
)
_NON_FINITE = {"inf", "nan", "Infinity", "NaN"}


class _Position:
    """Line and column of a match, counted as the scan goes."""

    def __init__(self) -> None:
        self.line = 1
        self.line_start = 0

    def advance(self, match: re.Match[str]) -> None:
        text = match.group()
        newlines = text.count("\n")
        if newlines:
            self.line += newlines
            self.line_start = match.start() + text.rindex("\n") + 1

    def refuse(self, match: re.Match[str], message: str) -> InputRefused:
        return InputRefused("structure", message, self.line, match.start() - self.line_start + 1)


def _too_deep(position: _Position, match: re.Match[str], limit: int) -> InputRefused:
    return position.refuse(
        match, _("nested more than {limit} levels deep (tables, arrays and dotted keys)").format(limit=limit)
    )


def _long_number(position: _Position, match: re.Match[str]) -> InputRefused:
    return position.refuse(match, _("a number of more than {digits} digits").format(digits=MAX_DIGITS))


def _not_finite(position: _Position, match: re.Match[str]) -> InputRefused:
    return position.refuse(
        match,
        _("{value} is not a number linkvet accepts (NaN and infinities are refused)").format(
            value=match.group()
        ),
    )


class _TomlScan:
    """Where `_check_toml`'s scan stands: at the start of a line, in a [table] header, in a key or in a
    value, and how deep each is."""

    def __init__(self, limit: int) -> None:
        self.position = _Position()
        self.limit = limit
        # Each open array or inline table: ("[" or "{", the depth of what it holds).
        self.stack: list[tuple[str, int]] = []
        self.table_depth = 0  # the parts of the current [table] header
        self.statement_start = True  # at the start of a top-level line
        self.header: int | None = None  # inside a [table] header: its parts so far
        self.header_done = False  # after a header's closing bracket, until the end of the line
        self.key_parts: int | None = None  # inside a key: its parts so far
        self.key_base = 0  # the depth the key's parts add to
        self.value_depth = 0  # the depth of the value being read

    def newline(self, match: re.Match[str]) -> None:
        self.position.advance(match)
        if not self.stack:
            self.statement_start, self.header, self.header_done, self.key_parts = True, None, False, None

    def start_statement(self, token: str) -> bool:
        """The first token of a top-level line; True when it opens a [table] header."""
        self.statement_start = False
        if token == "[":
            self.header = 1
            self.table_depth = 0
            return True
        self.key_parts, self.key_base = 1, self.table_depth
        return False

    def header_token(self, token: str, match: re.Match[str]) -> None:
        assert self.header is not None
        if token == "[" and self.header == 1 and self.table_depth == 0:
            self.table_depth = 1  # [[array of tables]]: one level more
        elif token == ".":
            self.header += 1
            if self.header + self.table_depth > self.limit:
                raise _too_deep(self.position, match, self.limit)
        elif token == "]":
            self.table_depth += self.header
            self.header, self.header_done = None, True

    def key_token(self, token: str, match: re.Match[str]) -> None:
        assert self.key_parts is not None
        if token == ".":
            self.key_parts += 1
            if self.key_base + self.key_parts > self.limit:
                raise _too_deep(self.position, match, self.limit)
        elif token == "=":
            self.value_depth = self.key_base + self.key_parts
            self.key_parts = None
            if self.value_depth > self.limit:
                raise _too_deep(self.position, match, self.limit)

    def value_token(self, kind: str | None, token: str, match: re.Match[str]) -> None:
        stack = self.stack
        if token == "[":
            stack.append(("[", self.value_depth + 1))
            self.value_depth += 1
            if self.value_depth > self.limit:
                raise _too_deep(self.position, match, self.limit)
        elif token == "{":
            stack.append(("{", self.value_depth))
            self.key_parts, self.key_base = 1, self.value_depth
        elif token in ("]", "}"):
            if stack:
                stack.pop()
            self.value_depth = stack[-1][1] if stack else 0
        elif token == ",":
            if stack and stack[-1][0] == "{":
                self.key_parts, self.key_base = 1, stack[-1][1]
            elif stack:
                self.value_depth = stack[-1][1]
        elif kind == "digits" and len(token.replace("_", "")) > MAX_DIGITS:
            raise _long_number(self.position, match)
        elif kind == "word" and token in _NON_FINITE:
            raise _not_finite(self.position, match)


def _check_toml(text: str, limit: int) -> None:
    scan = _TomlScan(limit)
    for match in _TOML_TOKENS.finditer(text):
        kind = match.lastgroup
        token = match.group()
        if kind == "newline":
            scan.newline(match)
            continue
        if kind == "comment" or (kind == "other" and token.strip() == ""):
            continue
        if scan.header_done:
            scan.position.advance(match)
            continue
        if scan.statement_start and scan.start_statement(token):
            continue
        if scan.header is not None:
            scan.header_token(token, match)
        elif scan.key_parts is not None:
            scan.key_token(token, match)
        else:
            scan.value_token(kind, token, match)
        scan.position.advance(match)


def _check_json(text: str, limit: int) -> None:
    position = _Position()
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        kind = match.lastgroup
        if kind == "open":
            depth += 1
            if depth > limit:
                raise _too_deep(position, match, limit)
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "number":
            token = match.group()
            digits = sum(c.isdigit() for c in token.partition("e")[0].partition("E")[0])
            if digits > MAX_DIGITS:
                raise _long_number(position, match)
            try:
                finite = math.isfinite(float(token))
            except ValueError:
                finite = True  # not a number JSON accepts: the parser says so
            if not finite:
                raise _not_finite(position, match)
        elif kind == "word" and match.group() in _NON_FINITE:
            raise _not_finite(position, match)
        position.advance(match)


def check_structure(text: str, syntax: Literal["toml", "json"], limit: int = MAX_DEPTH) -> None:
    """Refuse (`InputRefused`, kind "structure") TOML or JSON text nested more than `limit` levels deep,
    holding a number of more than MAX_DIGITS digits, or a NaN or an infinity. Text that is not valid at all
    passes: the parser words that."""
    if syntax == "toml":
        _check_toml(text, limit)
    else:
        _check_json(text, limit)


def _refuse_constant(name: str) -> Any:
    raise InputRefused(
        "structure",
        _("{value} is not a number linkvet accepts (NaN and infinities are refused)").format(value=name),
    )


def loads_json(text: str) -> Any:
    """JSON text as plain data, checked by `check_structure` first; invalid JSON is `InputRefused` (kind
    "syntax") with JSON's words, line and column."""
    check_structure(text, "json")
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InputRefused(
            "syntax", _("not valid JSON: {reason}").format(reason=exc.msg), exc.lineno, exc.colno
        ) from None
