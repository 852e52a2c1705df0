"""`linkvet gui`: open the desktop application (and `linkvet` alone, where a display is present).

Qt is imported only inside `start`, so registering this sub-command keeps the headless CLI free of Qt.
"""

from __future__ import annotations

import argparse

from desktop.cli.errors import run_mapped
from desktop.launch import open_window


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "gui",
        help="open the desktop application",
        description="Open the desktop application: targets, live probes, charts, catalogs and the scorecard.",
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
    """The `linkvet-gui` entry point (a gui-script: no console window on Windows)."""
    return run_mapped(start)
