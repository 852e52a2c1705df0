"""Find the line of a key in TOML text, so that an error can say where to look (the index behind
`catalogs._toml.LineFinder`; every other module goes through `catalogs._toml`).

`tomllib` returns plain dicts without positions, so this module scans the text once and records, for every
key path it can recognise (tables, arrays of tables, dotted keys, inline tables, arrays of inline tables
written one element per line), the line where it first appears. It is best effort: `LineFinder` falls back
to the nearest enclosing key it found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

PathPart = str | int
_BARE_KEY = r"[A-Za-z0-9_-]+"
_KEY = rf'(?:{_BARE_KEY}|"[^"]*"|\'[^\']*\')'
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?")
_ASSIGN = re.compile(rf"^\s*({_DOTTED})\s*=\s*(.*)$")
_INLINE_KEY = re.compile(rf"({_KEY})\s*=")


def _split_dotted(dotted: str) -> list[str]:
    parts = re.findall(_KEY, dotted)
    return [p[1:-1] if p[:1] in "\"'" else p for p in parts]


def _strip_strings(value: str) -> str:
    """Blank out string contents so that braces or `=` inside strings are not mistaken for structure."""
    return re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', '""', value)


class _Index:
    def __init__(self, text: str) -> None:
        self.lines: dict[tuple[PathPart, ...], int] = {}
        self._arrays: dict[tuple[PathPart, ...], int] = {}
        self._scan(text.splitlines())

    def _record(self, path: tuple[PathPart, ...], line: int) -> None:
        self.lines.setdefault(path, line)

    def _resolve(self, parts: list[str]) -> tuple[PathPart, ...]:
        prefix: tuple[PathPart, ...] = ()
        for part in parts:
            prefix = (*prefix, part)
            if prefix in self._arrays:
                prefix = (*prefix, self._arrays[prefix])
        return prefix

    def _record_inline(self, base: tuple[PathPart, ...], value: str, line: int) -> None:
        for match in _INLINE_KEY.finditer(_strip_strings(value)):
            self._record((*base, *_split_dotted(match.group(1))), line)

    def _scan(self, lines: list[str]) -> None:
        table: tuple[PathPart, ...] = ()
        in_multiline_string = False
        array_key: tuple[PathPart, ...] | None = None  # inside a multi-line array value
        array_index = 0
        depth = 0
        for number, raw in enumerate(lines, start=1):
            text = raw.split("#", 1)[0] if '"' not in raw and "'" not in raw else raw
            if in_multiline_string:
                if '"""' in raw or "'''" in raw:
                    in_multiline_string = False
                continue
            if array_key is not None:
                plain = _strip_strings(text)
                if plain.lstrip().startswith("{"):
                    element = (*array_key, array_index)
                    self._record(element, number)
                    self._record_inline(element, text, number)
                elif plain.strip() and not plain.strip().startswith(("]", "#")):
                    self._record((*array_key, array_index), number)
                array_index += plain.count(",") if not plain.lstrip().startswith("{") else 1
                depth += plain.count("[") - plain.count("]")
                if depth <= 0:
                    array_key = None
                continue
            header = _HEADER.match(text)
            if header:
                parts = _split_dotted(header.group(2))
                if header.group(1) == "[[":
                    parent = self._resolve(parts[:-1])
                    key = (*parent, parts[-1])
                    self._arrays[key] = self._arrays.get(key, -1) + 1
                    self._record(key, number)
                    # a new element starts: forget the array counters nested under the previous element
                    for nested in [k for k in self._arrays if len(k) > len(key) and k[: len(key)] == key]:
                        del self._arrays[nested]
                    table = (*key, self._arrays[key])
                else:
                    table = self._resolve(parts)
                self._record(table, number)
                continue
            assign = _ASSIGN.match(text)
            if not assign:
                continue
            path = (*table, *_split_dotted(assign.group(1)))
            self._record(path, number)
            value = assign.group(2)
            if value.startswith(('"""', "'''")) and value.count(value[:3]) == 1:
                in_multiline_string = True
                continue
            plain = _strip_strings(value)
            if plain.startswith("{"):
                self._record_inline(path, value, number)
            elif plain.startswith("["):
                opened = plain.count("[") - plain.count("]")
                if opened > 0:
                    array_key, array_index, depth = path, 0, opened
                else:
                    # one-line array: elements are on this line
                    for i, element in enumerate(re.findall(r"\{[^{}]*\}", plain)):
                        self._record((*path, i), number)
                        self._record_inline((*path, i), element, number)


class LineFinder:
    """The 1-based line where a key path (as in a pydantic error's `loc`) is written, or its nearest
    parent's; the text is scanned once, for any number of paths."""

    def __init__(self, text: str) -> None:
        self._lines = _Index(text).lines

    def __call__(self, loc: Sequence[PathPart]) -> int | None:
        path = tuple(loc)
        while path:
            if path in self._lines:
                return self._lines[path]
            path = path[:-1]
        return None
