"""`linkvet gui`: open the desktop application (and `linkvet` alone, where a display is present).

`main` is also the `linkvet-gui` launcher, declared in pyproject's `[project.gui-scripts]` (pip installs it
as a windowed program: on Windows it runs without a console window) and frozen by the installers' recipe in
`packaging/pyinstaller/`. A windowed launcher has no terminal, so its errors (no display, PySide6 missing)
reach only stderr: where there is none, run `linkvet gui` in a terminal to read them.

Qt is imported only inside `start`, so registering this sub-command keeps the headless CLI free of Qt.
"""

from __future__ import annotations

import argparse

from desktop.cli.errors import run_mapped
from desktop.i18n import _
from desktop.launch import open_window


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "gui",
        help=_("open the desktop application"),
        description=_(
            "Open the desktop application: targets, live probes, charts, catalogs and the scorecard."
        ),
    )
    # For the startup benchmark: quit as soon as the window's first frame is up.
    p.add_argument("--quit-after-startup", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return start(quit_after_startup=args.quit_after_startup)


def start(*, quit_after_startup: bool = False) -> int:
    """Open the window (`desktop.launch.open_window`, which imports the app and Qt only now)."""
    return open_window(quit_after_startup=quit_after_startup)


def main() -> int:
    """The `linkvet-gui` launcher (pyproject `[project.gui-scripts]`): open the window, or say why not."""
    return run_mapped(start)
