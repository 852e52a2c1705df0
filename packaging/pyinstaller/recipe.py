"""What the installers hold, in one place: read by `linkvet.spec` (PyInstaller), `packaging/build.py` (which
checks the result) and the packaging tests. Plain Python, no PyInstaller import.

Where things are:
    linkvet.spec       the PyInstaller recipe: one folder, two programs (PROGRAMS), a macOS .app
    linkvet_gui.py     entry script of `linkvet-gui` (the function pip's gui-script runs)
    linkvet_cli.py     entry script of `linkvet`
    frozen_child.py    a frozen program started as the GUI's probing child (`-m desktop.app.job_process`)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ICONS = ROOT / "packaging" / "icons"
PACKAGES: tuple[str, ...] = ("probes", "catalogs", "desktop")
# Maintainer tools inside the packages: not part of the program.
NOT_SHIPPED: tuple[str, ...] = ("catalogs.maintenance",)
# Never bundled even when the build environment has them (a second Qt binding makes PyInstaller refuse).
# Pillow is there to make the icons at build time; nothing linkvet runs needs it (openpyxl only for images).
EXCLUDES: tuple[str, ...] = ("tkinter", "PyQt5", "PyQt6", "PySide2", "matplotlib", "IPython", "pytest", "PIL")
# A reverse-DNS placeholder until the project has a domain of its own (macOS bundle id, launchd label).
BUNDLE_ID = "local.linkvet.desktop"
# Qt plugin folders the window needs: build.py checks the result has each one the installed PySide6 has
# (Linux wheels have no styles/: Fusion is built into QtWidgets; Windows and macOS wheels have their styles).
QT_PLUGIN_DIRS: tuple[str, ...] = ("platforms", "imageformats", "styles")


@dataclass(frozen=True)
class Program:
    name: str  # file name without .exe
    script: str  # entry script beside this file
    windowed: bool  # no console window on Windows and macOS


# The GUI first: on macOS the bundle's main executable is the first program collected.
PROGRAMS: tuple[Program, ...] = (
    Program("linkvet-gui", "linkvet_gui.py", windowed=True),
    Program("linkvet", "linkvet_cli.py", windowed=False),
)


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def version() -> str:
    return str(pyproject()["project"]["version"])


def data_globs() -> dict[str, list[str]]:
    """Per package, the globs (relative to the package folder) of the data files pip installs, from pyproject's
    `[tool.setuptools.package-data]`: a "*" pattern holds in every (namespace) package folder below, so it
    becomes `**/pattern`; a package's own patterns are taken as they are."""
    package_data: dict[str, list[str]] = pyproject()["tool"]["setuptools"]["package-data"]
    everywhere = [f"**/{pattern}" for pattern in package_data.get("*", [])]
    return {package: everywhere + list(package_data.get(package, [])) for package in PACKAGES}


def info_plist() -> dict[str, object]:
    """The macOS bundle's Info.plist keys beyond the ones PyInstaller writes itself (CFBundleExecutable,
    CFBundleIdentifier, CFBundlePackageType, CFBundleIconFile, …); the spec adds LSMinimumSystemVersion from
    the PySide6 wheel it bundles."""
    return {
        "CFBundleName": "linkvet",
        "CFBundleDisplayName": "linkvet",
        "CFBundleShortVersionString": version(),
        "CFBundleVersion": version(),
        "CFBundleDevelopmentRegion": "en",
        "CFBundleLocalizations": ["en", "zh_CN"],
        "LSApplicationCategoryType": "public.app-category.utilities",
        # COLLECT passes on its last program's console flag (the CLI's), which would make the bundle
        # background-only (no Dock icon, no menu bar): the bundle is the windowed GUI.
        "LSBackgroundOnly": False,
        "NSHighResolutionCapable": True,
        "NSRequiresAquaSystemAppearance": False,
        "NSHumanReadableCopyright": "linkvet contributors, MIT licence",
        # macOS 15 asks the user before an app talks to hosts on the local network.
        "NSLocalNetworkUsageDescription": "linkvet measures latency, loss and routes to the hosts you add.",
    }
