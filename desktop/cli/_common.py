"""Options every sub-command shares (the store, the vantage point, checked numbers) and the note a reader
prints when nothing is measured yet."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

N = TypeVar("N", int, float)


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=Path,
        metavar="PATH",
        help="SQLite result store (default: linkvet.sqlite3 in the user data directory)",
    )


def add_vantage_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--vantage",
        metavar="NAME",
        help="where these measurements are taken from (e.g. shanghai-office), stored with the round; "
        "scoring can then use only the line as seen from the team's office",
    )


def reader_store(path: Path | None) -> Path:
    """The store a command that only reads measurements (score, export) reads: `--db`, else the default one.
    When there is none there yet, it says so on stderr: nothing measured is a note for a reader, not an
    error."""
    from probes.paths import default_db_path

    where = path if path is not None else default_db_path()
    if not where.exists():
        print(
            f"linkvet: note: no result store at {where} yet: nothing measured, so line quality is 'not "
            "measured' everywhere (run `linkvet probe` or `linkvet schedule` to measure)",
            file=sys.stderr,
        )
    return where


def _number_type(
    convert: Callable[[str], N], accept: Callable[[N], bool], expected: str
) -> Callable[[str], N]:
    """An argparse `type=` that converts text and checks it, with a message saying what was expected."""

    def parse(text: str) -> N:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {expected}") from None
        if not accept(value) or not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not {expected}")
        return value

    return parse


positive_float = _number_type(float, lambda v: v > 0, "a positive number")
non_negative_float = _number_type(float, lambda v: v >= 0, "zero or a positive number")
positive_int = _number_type(int, lambda v: v >= 1, "a whole number of at least 1")
port_number = _number_type(int, lambda v: 1 <= v <= 65535, "a port number (1-65535)")
