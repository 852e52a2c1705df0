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
from probes.store_location import StoreLocation, exists, location_or_default, parse_location


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=store_location,
        metavar="PATH|URL",
        help=_(
            "the result store: a SQLite file, or a PostgreSQL database (postgresql://user@host/db; the "
            "password from ~/.pgpass or PGPASSFILE, not the URL). Default: $LINKVET_DB, else linkvet.sqlite3 "
            "in the user data directory"
        ),
    )


def store_location(text: str) -> StoreLocation:
    """An argparse `type=` for `--db`: a path, or a postgresql:// URL (`probes.store_location`)."""
    try:
        return parse_location(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def path_given(text: str) -> Path:
    """An argparse `type=` for a file or folder to write (`--out`, `--record`, `--log-file`): a path, not an
    empty name (which would be read as the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(_("an empty name is not a file or folder"))
    if "\0" in text:
        raise argparse.ArgumentTypeError(_("a name with a NUL character is not a file or folder"))
    return Path(text)


def add_vantage_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--vantage",
        metavar="NAME",
        help=_(
            "where these measurements are taken from (e.g. shanghai-office), stored with the round; "
            "scoring can then use only the line as seen from the team's office"
        ),
    )


def reader_store(location: StoreLocation | None) -> StoreLocation:
    """The store a command that only reads measurements (score, export, vantages) reads: `--db`, else the
    default one (`LINKVET_DB`, else the file in the data directory). When there is no file there yet, it says
    so on stderr: nothing measured is a note for a reader, not an error (a server is asked when opened)."""
    where = location_or_default(location)
    if not exists(where):
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
