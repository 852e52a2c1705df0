"""The `linkvet` command: a thin face that parses arguments, calls the shared use-cases
(`desktop.usecases`) and the core, and prints. Imports no Qt and never the desktop app (`linkvet gui` asks
`desktop.launch` to open the window).

    desktop/cli/__init__.py   the entry point: the sub-command registry, `main`, the headless main job
    desktop/cli/errors.py     the exit codes and the one table from exception to exit code and message
    desktop/cli/<command>.py  one module per sub-command (probe, schedule, agent, history, trace, catalog,
                              questionnaire, size, score, vantages, merge, export, report, accept, gui), each
                              exposing `add_parser(subparsers)`, which registers it and sets `run=`
                              (parsed arguments → exit code)
    desktop/cli/_common.py    options every sub-command shares, flags held to `probes.limits`; `_format.py`
                              tables and the progress line; `_safe_text.py` untrusted text escaped for the
                              terminal and the log; `_logfile.py` the schedule's log; `_links.py` the
                              measurement options of score and export

The language: linkvet speaks the language gettext finds in LANGUAGE, LC_ALL, LC_MESSAGES or LANG (English
where it has no catalog), unless `--lang en|zh_CN` says otherwise. `--lang` is one option of `linkvet` and of
every sub-command, so it may stand before or after the sub-command (`linkvet --lang zh_CN trace HOST`,
`linkvet export --lang zh_CN --out x.xlsx`); it is read before the parser is built, so the help texts and
argparse's own words (`_argparse_words.py`) are in that language too, and it applies to every message of
the run and to the files written in the run's language (`desktop.i18n.current_language()`).

Exit codes (the README's table is `desktop.cli.errors.EXIT_RULES`): 0 done, every target measured; 1 some
target could not be measured at all (its error is in the output); 2 usage error or invalid input (the
message names the file, line and field); 3 the environment refused (the store, an unwritable file, no
display); 130 interrupted.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence

from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED, run_mapped

# Sub-command modules, in the order `linkvet --help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "eval",
    "probe",
    "schedule",
    "agent",
    "history",
    "trace",
    "catalog",
    "questionnaire",
    "size",
    "score",
    "vantages",
    "merge",
    "export",
    "report",
    "accept",
    "gui",
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with `only`, just that sub-command's module is imported (a command's imports
    should not slow the others down). Its texts are in the current language: build it after choosing one."""
    from desktop.cli._argparse_words import HelpFormatter, Parser, install
    from desktop.i18n import _
    from probes import __version__

    install()
    parser = Parser(
        prog="linkvet",
        formatter_class=HelpFormatter,
        description=_("Measure the line from your office to GPU-hosting regions and score providers on it."),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"linkvet {__version__}",
        help=_("print linkvet's version and exit"),
    )
    _add_language_option(parser, default=None)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES if only is None else (only,):
        importlib.import_module(f"desktop.cli.{name}").add_parser(subparsers)
    _add_language_everywhere(parser)
    return parser


def _add_language_option(parser: argparse.ArgumentParser, default: object) -> None:
    from desktop.i18n import LANGUAGES, _

    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=default,
        help=_(
            "the language of linkvet's messages and of the files it writes (default: from LANGUAGE, "
            "LC_ALL, LC_MESSAGES or LANG; English where there is no translation)"
        ),
    )


def _add_language_everywhere(parser: argparse.ArgumentParser) -> None:
    """`--lang` on every sub-command and verb too, so it may follow them; given nowhere, the top-level
    default (None) stays, since a sub-command's is SUPPRESS. Each lays out its help as the top level does
    (full-width colons after Chinese headings)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):  # aliases share their parser
                if "--lang" not in sub._option_string_actions:  # a command may define its own
                    _add_language_option(sub, default=argparse.SUPPRESS)
                if sub.formatter_class is argparse.HelpFormatter:  # a command may choose its own layout
                    sub.formatter_class = parser.formatter_class
                _add_language_everywhere(sub)


def language_on_command_line(arguments: Sequence[str]) -> str | None:
    """The `--lang` of a command line (`--lang X` or `--lang=X`, anywhere before a `--`), read before
    the parser is built so that its help is in that language; None when not given or not one of
    `desktop.i18n.LANGUAGES` (the parser then says what it expected)."""
    from desktop.i18n import LANGUAGES

    chosen = None
    for index, argument in enumerate(arguments):
        if argument == "--":
            break
        if argument == "--lang" and index + 1 < len(arguments):
            chosen = arguments[index + 1]
        elif argument.startswith("--lang="):
            chosen = argument.partition("=")[2]
    return chosen if chosen in LANGUAGES else None


def _window_or_headless(args: argparse.Namespace) -> int:
    """`linkvet` alone with a display: the window; where Qt's window plugin cannot load (a thin Linux), say
    which libraries it lacks and run the headless main job instead."""
    from desktop.cli import gui
    from desktop.i18n import _
    from desktop.launch import QtCannotStart

    try:
        return gui.run(args)
    except QtCannotStart as exc:
        print(f"linkvet: {exc}", file=sys.stderr)
        print(_("linkvet: running the headless main job instead of the window.") + "\n", flush=True)
        return headless_main_job()


def headless_main_job() -> int:
    """What `linkvet` alone does without a display: the bundled example evaluation (three candidates at
    loopback test addresses) put into the default store, measured once, its evidence table and ranking shown,
    and the next step for the user's own vendors."""
    from catalogs.evaluation.model import EXAMPLE_EVALUATION
    from desktop.i18n import _
    from desktop.usecases.evaluation import ensure_example

    print(
        _(
            "linkvet: no display here, so instead of the desktop application: the example evaluation "
            "({file}: three candidates for the example 70B fine-tune, measured at loopback test addresses) "
            "measured once, then what is known and missing for each, and their ranking. `linkvet --help` "
            "lists every command."
        ).format(file=EXAMPLE_EVALUATION.name)
        + "\n",
        flush=True,
    )
    name = ensure_example(None)
    measured = main(["schedule", "--eval", name, "--once", "--quiet"])
    if measured not in (EXIT_OK, EXIT_SOME_FAILED):
        return measured
    for step in (["eval", "show", name], ["score", "--eval", name, "--top", "3"]):
        print(flush=True)
        done = main(step)
        if done != EXIT_OK:
            return done
    print(
        "\n"
        + _(
            "Next, your own vendors: linkvet eval new NAME --needs FILE --office shanghai:ct, then "
            "linkvet eval add NAME --provider ID --region ID --test-ip ADDRESS for each candidate, then "
            "linkvet schedule --eval NAME --vantage shanghai on an always-on machine in that office."
        ),
        flush=True,
    )
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    from desktop import i18n

    arguments = list(sys.argv[1:] if argv is None else argv)
    before = i18n.chosen()
    try:  # the run's language, then the one before (the headless job runs commands inside a command)
        if (given := language_on_command_line(arguments)) is not None:
            i18n.set_language(given)
        return _main(arguments)
    finally:
        if i18n.chosen() != before:
            i18n.set_language(before)


def _main(arguments: list[str]) -> int:
    rest = _without_language(arguments)
    command = rest[0].replace("-", "_") if rest else None
    parser = build_parser(command if command in COMMAND_MODULES else None)
    args = parser.parse_args(arguments)
    if args.lang is not None:  # as parsed (an abbreviation such as --lan counts too)
        from desktop.i18n import set_language

        set_language(args.lang)
    if not getattr(args, "run", None):
        if arguments:
            parser.print_help()
            return EXIT_OK
        from desktop.launch import display_present

        # `linkvet` alone opens the desktop application where a window can be shown, and runs the
        # headless main job where none can (no display, or Qt's window plugin lacks system libraries).
        if not display_present():
            return run_mapped(headless_main_job)
        args.run, args.quit_after_startup = _window_or_headless, False
    # What the imports and the parser made lives as long as the run: the cyclic collector need not walk it
    # again on every collection (a probe of 1,000 targets allocates while it measures; CPython's gc.freeze).
    gc.freeze()
    return run_mapped(lambda: args.run(args))


def _without_language(arguments: list[str]) -> list[str]:
    """The command line without a leading `--lang X`, so that the sub-command is found after it."""
    rest = list(arguments)
    while rest and (rest[0] == "--lang" or rest[0].startswith("--lang=")):
        del rest[: 2 if rest[0] == "--lang" else 1]
    return rest


if __name__ == "__main__":
    sys.exit(main())
