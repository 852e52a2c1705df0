"""Untrusted text on its way to a terminal or a log: names, hosts and notes come from plan files, catalogs,
target lists and remote hosts, and a control character in them must not act (`ESC[2J` clears the screen),
nor a newline forge a line of its own (a target named "x\\n2026-12-01T00:00:00+0000 INFO round 999 …").

    shortened(text)            every run of over 200 characters without a space cut (a message repeats
                               at most that much of a value it refuses)
    printable(text)            every control character (C0, DEL, C1), line and paragraph separator and
                               bidirectional override written as a visible escape (`\\x1b`, `\\n`, `\\u202e`);
                               with keep_newlines=True, "\\n" stays (for a block of several lines)
    PrintableStream(out)       a stream that writes through printable(…, keep_newlines=True)
    OneLineFormatter           a logging.Formatter whose every record is one line: the whole formatted
                               record (message, arguments, traceback) goes through `printable`

Every table and printer of the CLI (`desktop.cli._format`, the progress line, the error line) writes
untrusted text through `printable`; it has no other dependency so that any later renderer can reuse it.
"""

from __future__ import annotations

import logging
import re
from typing import TextIO

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_BUT_NEWLINE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: object, *, keep_newlines: bool = False) -> str:
    """`str(text)` with nothing in it a terminal would act on (see the module's docstring)."""
    pattern = _UNSAFE_BUT_NEWLINE if keep_newlines else _UNSAFE
    return pattern.sub(_escape, str(text))


ECHO_LIMIT = 200  # characters of one value a message repeats back
_LONG_RUN = re.compile(rf"\S{{{ECHO_LIMIT + 1},}}")


def shortened(text: str, limit: int = ECHO_LIMIT) -> str:
    """`text` with every run of more than `limit` characters without a space (a host, a URL, a value
    someone pasted) cut to its first `limit`, with "…" and how much was left out: a message echoes what it
    refuses, never megabytes of it."""
    return _LONG_RUN.sub(lambda m: f"{m.group()[:limit]}… (+{len(m.group()) - limit:,})", text)


class OneLineFormatter(logging.Formatter):
    """One record, one line, whatever its message, arguments or traceback hold."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


class PrintableStream:
    """A text stream for a printer that writes blocks of several lines with untrusted text in them (a
    trace, the acceptance summary, the ranking's explanations): what is written goes through
    `printable(…, keep_newlines=True)` on its way to `out`."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        return self.out.write(printable(text, keep_newlines=True))

    def flush(self) -> None:
        self.out.flush()

    def isatty(self) -> bool:
        return self.out.isatty()
