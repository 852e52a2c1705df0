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
import os
import sys
from collections.abc import Sequence

from desktop.cli._common import EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_OK, EXIT_SOME_FAILED, CliError
from probes.errors import ProbesError

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
    "accept",
    "gui",
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with `only`, just that sub-command's module is imported (a command's imports
    should not slow the others down)."""
    from probes import __version__

    parser = argparse.ArgumentParser(
        prog="linkvet",
        description="Measure the line from your office to GPU-hosting regions and score providers on it.",
    )
    parser.add_argument("--version", action="version", version=f"linkvet {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES if only is None else (only,):
        importlib.import_module(f"desktop.cli.{name}").add_parser(subparsers)
    return parser


def headless_main_job() -> int:
    """What `linkvet` alone does without a display: one measuring round of the bundled example plan into the
    default store, then the bundled catalogs ranked for the example needs profile with what is measured."""
    from catalogs.needs import EXAMPLE_NEEDS
    from probes.plan import EXAMPLE_PLAN

    print(
        "linkvet: no display here, so instead of the desktop application: one measuring round of the example "
        f"plan ({EXAMPLE_PLAN.name}), then the bundled catalogs ranked for the example needs profile "
        f"({EXAMPLE_NEEDS.name}). `linkvet --help` lists every command.\n",
        flush=True,
    )
    measured = main(["schedule", "--plan", str(EXAMPLE_PLAN), "--once", "--quiet"])
    if measured not in (EXIT_OK, EXIT_SOME_FAILED):
        return measured
    print(flush=True)
    return main(["score", "--needs", str(EXAMPLE_NEEDS), "--top", "3"])


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = arguments[0].replace("-", "_") if arguments else None
    parser = build_parser(command if command in COMMAND_MODULES else None)
    args = parser.parse_args(arguments)
    if not getattr(args, "run", None):
        if arguments:
            parser.print_help()
            return EXIT_OK
        from desktop.cli import gui

        # `linkvet` alone opens the desktop application where a window can be shown, and runs the
        # headless main job where none can.
        if not gui.display_present():
            return headless_main_job()
        args.run, args.quit_after_startup = gui.run, False
    try:
        return int(args.run(args))
    except CliError as exc:
        print(f"linkvet: {exc}", file=sys.stderr)
        return exc.exit_code
    except ProbesError as exc:  # the store or the environment refused: one line, not a traceback
        print(f"linkvet: {exc}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except KeyboardInterrupt:
        print("linkvet: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`linkvet … | head`): stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
