"""How the app words an error for a dialog or the status bar: one function, `error_text`, for every
exception a screen, a worker or the probing child reports (the CLI's counterpart is the exit-code table in
`desktop.cli.errors`). No Qt, so the probing child process uses it too.

linkvet's own errors (`probes`, `catalogs`, the use-cases) and the system's (a file that cannot be read or
written) already say what is wrong and where: their message is shown as it is, never prefixed with a class
name. Anything else is a fault in linkvet: it is named by its type, so that a report of it can be traced.
"""

from __future__ import annotations

import sys

# The errors whose message is written for people, by module: a class is only looked up once its module is
# loaded (an exception of it cannot exist before), so naming them here imports nothing.
WORDED_ERRORS: tuple[tuple[str, str], ...] = (
    ("probes.errors", "ProbesError"),
    ("catalogs.errors", "CatalogError"),
    ("desktop.usecases.errors", "UsecaseError"),
    ("desktop.launch", "WindowUnavailable"),
    ("builtins", "OSError"),  # a file that cannot be read or written: the message names it
    ("builtins", "ValueError"),  # the standard library's refusal of a value (a zone name, a number)
)


def is_worded(exc: BaseException) -> bool:
    """Whether `exc` is one of linkvet's own errors (or the system's), whose message is for people."""
    for module_name, name in WORDED_ERRORS:
        module = sys.modules.get(module_name)
        cls = getattr(module, name, None) if module is not None else None
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return False


def error_text(exc: BaseException) -> str:
    """The text a dialog or the status bar shows for `exc`."""
    if is_worded(exc):
        return str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {exc}"
