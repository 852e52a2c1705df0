"""The app words every error through one function (`desktop.app.errors.error_text`): linkvet's own errors and
the system's are shown as they say it, never behind a class name; a fault in linkvet is named by its type."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Slot

from desktop.app.errors import error_text
from desktop.app.workers import Workers
from tests.conftest import REPO_ROOT


class Failures(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    @Slot(str)
    def failed(self, message: str) -> None:
        self.messages.append(message)


def test_linkvets_own_errors_are_shown_as_they_say_it() -> None:
    from catalogs.errors import NeedsProfileError, SchemaError
    from desktop.usecases.errors import ProbeListError
    from probes.errors import NetworkTableError, PlanError, SchemaVersionError
    from probes.peak import PeakWindowError

    for exc, text in [
        (SchemaError("not a number", path="a.toml", line=3, field="price"), "a.toml:3: price: not a number"),
        (NeedsProfileError("too small", path="n.toml"), "n.toml: too small"),
        (PlanError("p.toml", "unknown field", line=4), "p.toml:4: unknown field"),
        (
            SchemaVersionError("s.sqlite3: written by a newer linkvet"),
            "s.sqlite3: written by a newer linkvet",
        ),
        (PeakWindowError("'25:00-26:00': not a time"), "'25:00-26:00': not a time"),
        (NetworkTableError("n.toml", "prefix #1: bad cidr"), "n.toml: prefix #1: bad cidr"),
        (ProbeListError("l.json: not valid JSON"), "l.json: not valid JSON"),
        (
            FileNotFoundError(2, "No such file or directory", "x.csv"),
            "[Errno 2] No such file or directory: 'x.csv'",
        ),
    ]:
        assert error_text(exc) == text


def test_a_fault_in_linkvet_is_named_by_its_type() -> None:
    assert error_text(IndexError("list index out of range")) == "IndexError: list index out of range"
    assert error_text(KeyError("region")) == "KeyError: 'region'"


def test_a_worker_reports_a_catalog_error_without_its_class_name(qapp, qtbot) -> None:
    from catalogs.errors import SchemaError

    def refuse() -> None:
        raise SchemaError("gpus_per_node: must be at least 1", path=Path("acme.toml"), line=7)

    workers, failures = Workers(), Failures()
    workers.submit(refuse, on_error=failures.failed)
    qtbot.waitUntil(lambda: bool(failures.messages), timeout=5_000)
    assert failures.messages == ["acme.toml:7: gpus_per_node: must be at least 1"]


def test_no_screen_words_an_exception_by_its_class_name() -> None:
    """Only `error_text` may name an exception's type (for faults, not for linkvet's own errors)."""
    found = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path in sorted((REPO_ROOT / "desktop" / "app").rglob("*.py"))
        if path.name != "errors.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "type(exc).__name__" in line or "Error: {" in line
    ]
    assert found == []
