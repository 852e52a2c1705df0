"""The engine's exception tree: every public exception `probes` defines derives from `ProbesError`, lives in
`probes/errors.py` and is drawn, under its base class, in the tree at the top of that module."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import probes
from probes import errors


def _probes_exceptions() -> set[type[BaseException]]:
    found: set[type[BaseException]] = set()
    for info in pkgutil.walk_packages(probes.__path__, "probes."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__.startswith("probes")
                and not name.startswith("_")  # a module's private signal, caught where it is raised
                # the shared reading checks' signal, turned into the reader's own error by `probes.files.inputfile`
                and value.__module__ != "probes.files.textinput"
            ):
                found.add(value)
    return found


def _drawn() -> list[tuple[int, str]]:
    """(column, name) of each class drawn in the tree, top to bottom."""
    drawn = []
    for line in (errors.__doc__ or "").splitlines():
        words = line.replace("├──", " ").replace("└──", " ").replace("│", " ").split()
        if words and isinstance(getattr(errors, words[0], None), type):
            drawn.append((line.index(words[0]), words[0]))
    return drawn


def test_every_exception_is_a_probes_error_in_the_tree() -> None:
    found = _probes_exceptions()
    assert {errors.PeakWindowError, errors.ResolveFailed, errors.NetworkTableVersionError} <= found
    for exception in found:
        assert issubclass(exception, errors.ProbesError), f"{exception.__qualname__} is not a ProbesError"
        assert exception.__module__ == "probes.errors", (
            f"{exception.__name__} is defined outside probes/errors.py"
        )
    assert sorted(name for _, name in _drawn()) == sorted(e.__name__ for e in found)


def test_the_tree_draws_each_class_under_its_base() -> None:
    drawn = _drawn()
    assert drawn[0] == (4, "ProbesError")
    for position, (column, name) in enumerate(drawn[1:], start=1):
        parent = next(n for c, n in reversed(drawn[:position]) if c == column - 4)
        assert getattr(errors, name).__bases__[0] is getattr(errors, parent), (
            f"{name} is drawn under {parent}"
        )


def test_bad_values_stay_value_errors() -> None:
    # Callers that catch ValueError for a bad window, zone or scope keep working.
    for cls in (errors.PeakWindowError, errors.TimeZoneError, errors.ScopeError):
        assert issubclass(cls, ValueError) and issubclass(cls, errors.ProbesError)
