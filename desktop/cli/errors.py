"""How the `linkvet` command ends when something is refused: one table from exception class to exit code and
to the line printed on stderr, applied once, in the entry point (`desktop.cli.main`). The README's exit-code
table is this table (`tests/cli/test_exit_codes.py` holds them together).

An exception is matched by its class hierarchy: the most specific class in the table wins, so a
`SchemaVersionError` is reported as a `StoreError` unless the table names it. Exceptions the table does not
name are bugs and keep their traceback. Commands raise; they do not catch to choose an exit code. What a
command knows about the moment (e.g. "the results above were measured but not stored") it adds with
`context()`, and the message is printed after it.

The table names classes by module and name, and only looks at modules already imported, so mapping an
error never imports a module (an exception of a class can only exist once its module is loaded).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TextIO

from desktop.i18n import N_, _

EXIT_OK = 0
EXIT_SOME_FAILED = 1
EXIT_USAGE = 2
EXIT_ENVIRONMENT = 3
EXIT_CONTRADICTED = 4  # `linkvet accept`: a claim the server contradicts (a finding, not a failure)
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """A refusal the command words itself (one line on stderr, no traceback)."""


class UsageError(CliError):
    """A bad argument, or an input the command itself checks (a missing file, an unknown provider)."""


class EnvironmentRefused(CliError):
    """The machine refused: a file that cannot be written, a round measured but not stored."""


@dataclass(frozen=True)
class ExitRule:
    """Exceptions of `module.name` (and its subclasses) exit with `code`, printing `message` on stderr as
    `linkvet: <message>`, where `{exc}` is the exception's text; no message: nothing is printed."""

    module: str
    name: str
    code: int
    message: str | None = "{exc}"

    def resolve(self) -> type[BaseException] | None:
        """The class, if its module is loaded."""
        module = sys.modules.get(self.module)
        found = getattr(module, self.name, None) if module is not None else None
        return found if isinstance(found, type) and issubclass(found, BaseException) else None


EXIT_RULES: tuple[ExitRule, ...] = (
    # 2: usage error or invalid input (the message names the file, line and field)
    ExitRule("desktop.cli.errors", "UsageError", EXIT_USAGE),
    ExitRule("desktop.usecases.errors", "InputError", EXIT_USAGE),
    ExitRule("probes.errors", "TargetError", EXIT_USAGE),
    ExitRule("probes.errors", "PlanError", EXIT_USAGE),
    ExitRule("probes.errors", "AcceptError", EXIT_USAGE),
    ExitRule("probes.errors", "PeakWindowError", EXIT_USAGE),
    ExitRule("probes.errors", "ScopeError", EXIT_USAGE),
    ExitRule("probes.errors", "TimeZoneError", EXIT_USAGE),
    ExitRule("probes.errors", "RouteError", EXIT_USAGE, N_("network table: {exc}")),
    ExitRule("catalogs.errors", "CatalogError", EXIT_USAGE),
    # 3: the environment refused (the store, a file that cannot be written, no display)
    ExitRule("desktop.cli.errors", "EnvironmentRefused", EXIT_ENVIRONMENT),
    ExitRule("desktop.usecases.errors", "WriteError", EXIT_ENVIRONMENT),
    ExitRule("desktop.launch", "WindowUnavailable", EXIT_ENVIRONMENT),
    ExitRule("probes.errors", "StoreError", EXIT_ENVIRONMENT),
    ExitRule("probes.errors", "ProbesError", EXIT_ENVIRONMENT),
    # 130: interrupted; 0: the reader of our output went away (`linkvet … | head`), said nothing
    ExitRule("builtins", "KeyboardInterrupt", EXIT_INTERRUPTED, "interrupted"),
    ExitRule("builtins", "BrokenPipeError", EXIT_OK, None),
)


def rule_for(exc: BaseException) -> ExitRule | None:
    """The table's rule for `exc`: the one naming the most specific of its classes; None if none does."""
    rules = {cls: rule for rule in EXIT_RULES if (cls := rule.resolve()) is not None}
    for cls in type(exc).__mro__:
        if cls in rules:
            return rules[cls]
    return None


@contextlib.contextmanager
def context(what: str) -> Iterator[None]:
    """Say what was going on when a refusal passes through (printed before its message)."""
    try:
        yield
    except Exception as exc:
        exc.add_note(what)
        raise


def describe(exc: BaseException, rule: ExitRule) -> str | None:
    """The line `rule` prints for `exc`, after the contexts it went through (outermost first)."""
    if rule.message is None:
        return None
    notes = [str(n) for n in reversed(getattr(exc, "__notes__", ()))]
    return ": ".join([*notes, _(rule.message).format(exc=exc)])


class _Head(Exception):
    """Stands for a multi-line exception's first line when its rule words it (its notes kept)."""

    def __init__(self, exc: BaseException, text: str) -> None:
        super().__init__(text)
        self.__notes__ = list(getattr(exc, "__notes__", ()))


def run_mapped(command: Callable[[], int], stderr: TextIO | None = None) -> int:
    """Run `command` and return its exit code, or the table's code for what it raised (after printing the
    table's line). An exception the table does not name propagates with its traceback."""
    try:
        return int(command())
    except BaseException as exc:
        rule = rule_for(exc)
        if rule is None:
            raise
        line = describe(exc, rule)
        if line is not None:
            from desktop.cli._safe_text import printable, shortened

            # A message of several lines by design (`lines`: each problem of an import) is printed line by
            # line, each escaped on its own; any other is one line, its line breaks shown as escapes.
            lines = getattr(exc, "lines", None)
            if isinstance(lines, list) and lines and str(exc) == "\n".join(lines):
                head = describe(_Head(exc, str(lines[0])), rule) or str(lines[0])
                out = [head, *(str(more) for more in lines[1:])]
            else:
                out = [line]
            first, *rest = (printable(shortened(text)) for text in out)
            print(f"linkvet: {first}", file=stderr or sys.stderr)
            for more in rest:
                print(more, file=stderr or sys.stderr)
        if isinstance(exc, BrokenPipeError):
            # Keep Python from complaining about the closed pipe when it flushes stdout at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return rule.code
