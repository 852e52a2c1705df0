"""The layering rules: the core imports no Qt, `probes` does not import `catalogs` (`catalogs` may use `probes`), the two faces
(the CLI `desktop.cli`, the app `desktop.app`) never import each other and share a Qt-free layer
(`desktop.usecases`, `desktop.export`) that imports neither face, and the headless command does not pull Qt
in. `desktop.launch` is the one seam that names the app (it opens the window for the CLI)."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

QT = ("PySide6", "pyqtgraph")

CHECK = """
import importlib, pkgutil, sys
pkg = importlib.import_module({package!r})
for mod in pkgutil.walk_packages(pkg.__path__, {package!r} + "."):
    if mod.name.endswith(".__main__"):
        continue
    importlib.import_module(mod.name)
forbidden = {forbidden!r}
bad = sorted(m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in forbidden))
print(",".join(bad))
"""

# package → what importing every one of its modules must not load, and what none of its modules may
# name in an import statement (at the top or inside a function: a lazy import is an import too)
# The jobs both faces run are use-cases (`desktop.usecases.measuring`, `desktop.usecases.agent`): neither face
# composes a run, a scheduler, the store's delivery and spool, alerts or metrics itself. Their types and
# errors stay importable (`probes.results`, `probes.schedule.report`, `probes.errors`, …).
JOBS = (
    "probes.runner",
    "probes.schedule.scheduler",
    "probes.store.delivery",
    "probes.store.writer",
    "probes.store.sqlite.spool",
    "probes.alerts.engine",
    "probes.schedule.metrics",
)
RULES: list[tuple[str, tuple[str, ...]]] = [
    ("probes", (*QT, "catalogs", "desktop")),
    ("catalogs", (*QT, "desktop")),
    ("desktop.usecases", (*QT, "desktop.app", "desktop.cli", "desktop.launch")),
    # the export is what a use-case calls: it never calls back into one
    ("desktop.export", (*QT, "desktop.app", "desktop.cli", "desktop.launch", "desktop.usecases")),
    # the report draws and words what a use-case gathered; its PDF is printed by `desktop.pdf` in a child
    ("desktop.report", (*QT, "desktop.app", "desktop.cli", "desktop.launch", "desktop.pdf")),
    # the PDF printer (Qt) is a child process of its own: it knows nothing of linkvet but its arguments
    (
        "desktop.pdf",
        ("desktop.app", "desktop.cli", "desktop.usecases", "desktop.export", "probes", "catalogs"),
    ),
    ("desktop.manual", (*QT, "probes", "catalogs", "desktop.app", "desktop.cli", "desktop.launch")),
    ("desktop.cli", (*QT, "desktop.app", *JOBS)),
    ("desktop.app", ("desktop.cli", *JOBS)),
]


@pytest.mark.parametrize(("package", "forbidden"), RULES)
def test_package_imports_stay_in_their_layer(package: str, forbidden: tuple[str, ...]) -> None:
    code = CHECK.format(package=package, forbidden=forbidden)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"{package} imported {out}"


def _imported_names(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) of every import statement in a module of `package`, wherever it is (inside a function
    too), relative imports resolved."""
    tree = ast.parse(source)
    names: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names += [(node.lineno, base)] + [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return names


@pytest.mark.parametrize(("package", "forbidden"), RULES)
def test_no_module_names_a_forbidden_package(package: str, forbidden: tuple[str, ...]) -> None:
    folder = REPO_ROOT.joinpath(*package.split("."))
    found = [
        f"{path.relative_to(REPO_ROOT)}:{line}: {name}"
        for path in sorted(folder.rglob("*.py"))
        for line, name in _imported_names(
            path.read_text(encoding="utf-8"), ".".join(path.relative_to(REPO_ROOT).parts[:-1])
        )
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    ]
    assert found == [], f"{package} names what it must not import:\n" + "\n".join(found)


def test_the_static_check_sees_lazy_and_relative_imports() -> None:
    source = "import os\n\ndef later():\n    from desktop.app.main import run\n    from ..app import main\n"
    names = _imported_names(source, "desktop.cli")
    assert (4, "desktop.app.main") in names and (5, "desktop.app.main") in names
