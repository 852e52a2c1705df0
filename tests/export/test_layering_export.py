"""The export and the link-summary composition are Qt-free (headless commands import them)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT


def test_export_imports_no_qt() -> None:
    code = (
        "import sys, desktop.export, desktop.usecases.links, desktop.cli.export, desktop.cli._links\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_analysis_imports_neither_qt_nor_catalogs() -> None:
    code = (
        "import sys, probes.analysis\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'catalogs', 'desktop'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
