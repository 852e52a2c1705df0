"""The `linkvet` command: a thin layer that parses arguments and calls the core.

Imports no Qt. Each sub-command lives in its own module here, exposing `add_parser(subparsers)`, which
registers the sub-command and sets `run=` (a function taking the parsed arguments, returning an exit code).

Exit codes:
  0  every target was measured (an unreachable target or lost packets are results, not failures)
  1  at least one target could not be measured at all (its error is in the output)
  2  usage error or invalid input file (the message names the file, line and field)
  3  the environment refused (data directory not writable, database from a newer linkvet, missing tool)
  130 interrupted
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from desktop.cli._common import EXIT_INTERRUPTED, CliError

# Sub-command modules, in the order `linkvet --help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "probe",
    "schedule",
    "history",
    "trace",
    "catalog",
    "size",
    "score",
    "export",
)


def build_parser() -> argparse.ArgumentParser:
    from probes import __version__

    parser = argparse.ArgumentParser(
        prog="linkvet",
        description="Measure the line from your office to GPU-hosting regions and score providers on it.",
    )
    parser.add_argument("--version", action="version", version=f"linkvet {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"desktop.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    try:
        return int(args.run(args))
    except CliError as exc:
        print(f"linkvet: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("linkvet: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
