"""Pieces every sub-command shares: exit codes, the error type that becomes a message, common options."""

from __future__ import annotations

import argparse
from pathlib import Path

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
