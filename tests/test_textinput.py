"""The shared reading checks (`probes/files/textinput.py`, which `catalogs` reads through too): a FIFO, a folder, a socket or a device is refused at once, never read; a file's size is bounded; a
BOM is dropped; and the structure check measures the nesting TOML and JSON really have, refusing what no
parser should meet (issue 12)."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import given
from hypothesis import strategies as st

from probes.files.textinput import MAX_DEPTH, InputRefused, check_structure, decode, loads_json, read_bytes
from tests.fuzz.strategies import FUZZ


def _refusal(path: Path) -> InputRefused:
    with pytest.raises(InputRefused) as caught:
        read_bytes(path)
    return caught.value


def test_special_files_are_refused_at_once_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "plan.toml"
    os.mkfifo(fifo)
    started = time.monotonic()
    assert _refusal(fifo).message.startswith("is a named pipe (FIFO)")
    assert time.monotonic() - started < 5  # opened without blocking
    assert _refusal(tmp_path).message == "is a folder, not a file"
    assert _refusal(Path("/dev/zero")).message.startswith("is a device")
    assert _refusal(tmp_path / "absent").kind == "missing"
    sock = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(sock))
        assert _refusal(sock).message.startswith("is a socket")
    finally:
        server.close()


def test_a_fifo_with_a_writer_is_refused_too(tmp_path: Path) -> None:
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.open("wb").close(), daemon=True)
    writer.start()
    assert _refusal(fifo).kind == "not_regular"
    writer.join(timeout=5)


def test_size_is_bounded_and_a_bom_dropped(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2049)
    with pytest.raises(InputRefused, match="larger than"):
        read_bytes(big, limit=2048)
    assert len(read_bytes(big, limit=4096)) == 2049
    assert decode("\ufeffversion = 1\n".encode()) == "version = 1\n"
    with pytest.raises(InputRefused, match="UTF-16"):
        decode("version = 1".encode("utf-16"))
    with pytest.raises(InputRefused) as bad:
        decode(b"a\nb\n\xff")
    assert bad.value.line == 3


def _depth(value: Any) -> int:
    """Levels of containers, a top-level table counting as none (as `check_structure` counts)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


KEY = st.text(alphabet="ab.\" '=[]#", min_size=1, max_size=4)
LEAF = st.one_of(st.integers(-1000, 1000), st.text(alphabet="a.\"'#[]{}=,\\\n", max_size=6), st.booleans())
TREE = st.recursive(
    LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEY, inner, max_size=3), max_leaves=20
)


@FUZZ
@given(st.dictionaries(KEY, TREE, min_size=1, max_size=4))
def test_the_toml_depth_is_the_depth_of_the_table(data: dict[str, Any]) -> None:
    text = tomli_w.dumps(data)
    depth = _depth(data) - 1  # the document's own table is not a level
    if depth <= MAX_DEPTH:
        check_structure(text, "toml")
    assert tomllib.loads(text) == data
    # the same data nested MAX_DEPTH levels deeper goes over the limit wherever it is written
    deep: Any = data
    for _ in range(MAX_DEPTH):
        deep = {"t": deep}
    with pytest.raises(InputRefused, match="nested more than"):
        check_structure(tomli_w.dumps(deep), "toml")


@FUZZ
@given(TREE)
def test_the_json_depth_is_the_depth_of_the_value(data: Any) -> None:
    text = json.dumps(data)
    if _depth(data) <= MAX_DEPTH:
        assert loads_json(text) == data
    deep: Any = data
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(InputRefused, match="nested more than"):
        loads_json(json.dumps(deep))


@FUZZ
@given(st.text(max_size=400), st.sampled_from(["toml", "json"]))
def test_any_text_is_checked_or_refused_with_a_place(text: str, syntax: str) -> None:
    try:
        check_structure(text, syntax)  # type: ignore[arg-type]
    except InputRefused as exc:
        assert exc.line is not None and exc.column is not None and exc.line >= 1


@pytest.mark.parametrize(
    ("text", "syntax", "words", "line"),
    [
        ("a = " + "[" * 100_000 + "]" * 100_000, "toml", "nested more than 32 levels", 1),
        ("x = 1\n" + "a" + ".a" * 100_000 + " = 1", "toml", "nested more than 32 levels", 2),
        ("[" + "a." * 100_000 + "a]", "toml", "nested more than 32 levels", 1),
        ('s = """\n[[[\n"""\nn = ' + "1" * 5000, "toml", "more than 100 digits", 4),
        ("every = inf", "toml", "inf is not a number", 1),
        ("every = -nan", "toml", "nan is not a number", 1),
        ("[" * 100_000 + "]" * 100_000, "json", "nested more than 32 levels", 1),
        ('{"a":\n' + "1" * 5000 + "}", "json", "more than 100 digits", 2),
        ("[1, NaN]", "json", "NaN is not a number", 1),
        ("[1e999]", "json", "1e999 is not a number", 1),
    ],
)
def test_what_no_parser_should_meet_is_refused_with_its_line(
    text: str, syntax: str, words: str, line: int
) -> None:
    started = time.monotonic()
    with pytest.raises(InputRefused, match=words) as caught:
        check_structure(text, syntax)  # type: ignore[arg-type]
    assert caught.value.line == line
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    "text",
    ['inf = 1\nnan = "nan"\n', 'a = { nan = 1, b = "inf" }\n', "a = 1.5e3\nb = 1979-05-27T07:32:00Z\n"],
)
def test_keys_and_strings_named_like_non_numbers_pass(text: str) -> None:
    check_structure(text, "toml")
