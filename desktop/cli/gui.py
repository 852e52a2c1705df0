"""`linkvet gui`: open the desktop application (and `linkvet` alone, where a display is present).

`main` is also the `linkvet-gui` launcher, declared in pyproject's `[project.gui-scripts]` (pip installs it
as a windowed program: on Windows it runs without a console window) and frozen by the installers' recipe in
`packaging/pyinstaller/`. A windowed launcher has no terminal, so its errors (no display, PySide6 missing)
reach only stderr: where there is none, run `linkvet gui` in a terminal to read them.

Qt is imported only inside `start`, so registering this sub-command keeps the headless CLI free of Qt.
"""

from __future__ import annotations

import argparse
import os
import sys

from desktop.cli._common import EXIT_ENVIRONMENT, CliError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "gui",
        help="open the desktop application",
        description="Open the desktop application: targets, live probes, charts, catalogs and the scorecard.",
    )
    # For the startup benchmark: quit as soon as the window's first frame is up.
    p.add_argument("--quit-after-startup", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(run=run)


def display_present(*, explicit_platform: bool = False) -> bool:
    """Whether a window can be shown here: Windows and macOS always, elsewhere an X11 or Wayland display.

    With `explicit_platform`, a Qt platform chosen in QT_QPA_PLATFORM (e.g. offscreen) counts too; `linkvet`
    alone does not count it, so a headless session never opens an invisible window by accident.
    """
    if sys.platform in ("win32", "darwin"):
        return True
    names = ["DISPLAY", "WAYLAND_DISPLAY"] + (["QT_QPA_PLATFORM"] if explicit_platform else [])
    return any(os.environ.get(name) for name in names)


def run(args: argparse.Namespace) -> int:
    return start(quit_after_startup=args.quit_after_startup)


def start(*, quit_after_startup: bool = False) -> int:
    if not display_present(explicit_platform=True):
        raise CliError(
            "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); "
            "run it in a desktop session, or use the headless commands (linkvet --help)",
            EXIT_ENVIRONMENT,
        )
    try:
        from desktop.app.main import run as run_app
    except ImportError as exc:
        raise CliError(
            f"the desktop application needs PySide6 and pyqtgraph: pip install 'linkvet[gui]' ({exc})",
            EXIT_ENVIRONMENT,
        ) from exc
    return run_app([sys.argv[0] if sys.argv else "linkvet"], quit_after_shown=quit_after_startup)


def main() -> int:
    """The `linkvet-gui` launcher (pyproject `[project.gui-scripts]`): open the window, or say why not."""
    try:
        return start()
    except CliError as exc:
        print(f"linkvet: {exc}", file=sys.stderr)
        return exc.exit_code
