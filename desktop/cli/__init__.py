"""The `linkvet` command: a thin face that parses arguments, calls the shared use-cases
(`desktop.usecases`) and the core, and prints. Imports no Qt and never the desktop app (`linkvet gui` asks
`desktop.launch` to open the window).

    desktop/cli/__init__.py   the entry point: the sub-command registry, `main`, the headless main job
    desktop/cli/errors.py     the exit codes and the one table from exception to exit code and message
    desktop/cli/<command>.py  one module per sub-command (probe, schedule, history, trace, catalog,
                              questionnaire, size, score, export, accept, gui), each exposing `add_parser(subparsers)`, which registers
                              it and sets `run=` (parsed arguments → exit code)
    desktop/cli/_common.py    options every sub-command shares, flags held to `probes.limits`; `_format.py`
                              tables and the progress line; `_safe_text.py` untrusted text escaped for the
                              terminal and the log; `_logfile.py` the schedule's log; `_links.py` the
                              measurement options of score and export

Exit codes (the README's table is `desktop.cli.errors.EXIT_RULES`): 0 done, every target measured; 1 some
target could not be measured at all (its error is in the output); 2 usage error or invalid input (the
message names the file, line and field); 3 the environment refused (the store, an unwritable file, no
display); 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED, run_mapped

# Sub-command modules, in the order `linkvet --help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "probe",
    "schedule",
    "history",
    "trace",
    "catalog",
    "questionnaire",
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
    from desktop.i18n import _
    from probes.plan import EXAMPLE_PLAN

    intro = _(
        "linkvet: no display here, so instead of the desktop application: one measuring round of the example "
        "plan ({plan}), then the bundled catalogs ranked for the example needs profile ({needs}). "
        "`linkvet --help` lists every command."
    )
    print(intro.format(plan=EXAMPLE_PLAN.name, needs=EXAMPLE_NEEDS.name) + "\n", flush=True)
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
        from desktop.launch import display_present

        # `linkvet` alone opens the desktop application where a window can be shown, and runs the
        # headless main job where none can.
        if not display_present():
            return headless_main_job()
        args.run, args.quit_after_startup = gui.run, False
    return run_mapped(lambda: args.run(args))


if __name__ == "__main__":
    sys.exit(main())
