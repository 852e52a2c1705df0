"""The layering rules: the core imports no Qt, `probes` and `catalogs` do not import each other,
and the headless command does not pull Qt in."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

CHECK = """
import importlib, pkgutil, sys
pkg = importlib.import_module({package!r})
for mod in pkgutil.walk_packages(pkg.__path__, {package!r} + "."):
    if mod.name.endswith(".__main__"):
        continue
    importlib.import_module(mod.name)
bad = sorted(m for m in sys.modules if m.split(".")[0] in {forbidden!r})
print(",".join(bad))
"""


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("probes", ("PySide6", "pyqtgraph", "catalogs", "desktop")),
        ("catalogs", ("PySide6", "pyqtgraph", "probes", "desktop")),
        ("desktop.cli", ("PySide6", "pyqtgraph")),
    ],
)
def test_package_imports_stay_in_their_layer(package: str, forbidden: tuple[str, ...]) -> None:
    code = CHECK.format(package=package, forbidden=forbidden)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"{package} imported {out}"
