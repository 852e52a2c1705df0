"""Pieces every sub-command shares: exit codes, the error type that becomes a message, common options."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # the store (numpy, pandas) loads when a command opens it, not with every command
    from probes.store import Store

N = TypeVar("N", int, float)

EXIT_OK = 0
EXIT_SOME_FAILED = 1
EXIT_USAGE = 2
EXIT_ENVIRONMENT = 3
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """A failure to report as one line on stderr (no traceback) with a documented exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


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


def open_store(path: Path | None, *, readonly: bool = False) -> Store:
    """The result store at `path` (default: the user data directory), or a CliError saying why not."""
    from probes.errors import StoreError
    from probes.store import Store

    try:
        return Store(path, readonly=readonly)
    except StoreError as exc:
        raise CliError(str(exc), EXIT_ENVIRONMENT) from exc


def missing_store(path: Path | None) -> Path | None:
    """For commands that only read measurements (score, export): the store's path when no store exists there
    yet, after saying on stderr that nothing has been measured; None when there is a store to open."""
    from probes.paths import default_db_path

    where = path if path is not None else default_db_path()
    if where.exists():
        return None
    print(
        f"linkvet: note: no result store at {where} yet: nothing measured, so line quality is 'not measured' "
        "everywhere (run `linkvet probe` or `linkvet schedule` to measure)",
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
