"""The windowed launcher pip installs (`[project.gui-scripts]`): it names a real function, importing it pulls
no Qt in, and without a display it says why instead of failing."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import REPO_ROOT

PYPROJECT = REPO_ROOT / "pyproject.toml"


def gui_scripts() -> dict[str, str]:
    return dict(tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["gui-scripts"])


def test_pyproject_declares_the_linkvet_gui_launcher() -> None:
    scripts = gui_scripts()
    assert scripts == {"linkvet-gui": "desktop.cli.launcher:main"}
    module_name, _, attribute = scripts["linkvet-gui"].partition(":")
    assert callable(getattr(importlib.import_module(module_name), attribute))


def test_loading_the_launcher_imports_no_qt() -> None:
    entry = gui_scripts()["linkvet-gui"]
    code = (
        "import importlib, sys\n"
        f"module, _, name = {entry!r}.partition(':')\n"
        "getattr(importlib.import_module(module), name)\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="Windows and macOS always have a display")
def test_the_launcher_without_a_display_exits_3_and_says_why() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(REPO_ROOT)
    module_name, _, attribute = gui_scripts()["linkvet-gui"].partition(":")
    code = f"import sys\nfrom {module_name} import {attribute}\nsys.exit({attribute}())\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 3, out.stderr
    assert "no display to open a window on" in out.stderr and "Traceback" not in out.stderr
