"""Options every sub-command shares (the store, the vantage point), argparse types holding numbers and times
to `probes.limits` (the limits plans use too), and the note a reader prints when nothing is measured yet."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop.i18n import _
from probes import limits
from probes.limits import Limit, parse_time


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=Path,
        metavar="PATH",
        help=_("SQLite result store (default: linkvet.sqlite3 in the user data directory)"),
    )


def add_vantage_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--vantage",
        metavar="NAME",
        help=_(
            "where these measurements are taken from (e.g. shanghai-office), stored with the round; "
            "scoring can then use only the line as seen from the team's office"
        ),
    )


def reader_store(path: Path | None) -> Path:
    """The store a command that only reads measurements (score, export) reads: `--db`, else the default one.
    When there is none there yet, it says so on stderr: nothing measured is a note for a reader, not an
    error."""
    from probes.paths import default_db_path

    where = path if path is not None else default_db_path()
    if not where.exists():
        note = _(
            "note: no result store at {path} yet: nothing measured, so line quality is 'not measured' "
            "everywhere (run `linkvet probe` or `linkvet schedule` to measure)"
        )
        print("linkvet: " + note.format(path=where), file=sys.stderr)
    return where


def flag(limit: Limit) -> Callable[[str], Any]:
    """An argparse `type=` holding a flag to `limit`, the same limit its field in a plan has
    (`probes.limits`): NaN, infinities and numbers out of range are usage errors saying what was expected."""

    def parse(text: str) -> Any:
        try:
            return limit.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def time_flag(text: str) -> datetime:
    """An argparse `type=` for `--since`/`--until`: ISO text or an age (`probes.limits.parse_time`)."""
    try:
        return parse_time(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


port_number = flag(limits.PORT)
