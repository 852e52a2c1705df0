"""`linkvet gui`: open the desktop application (and `linkvet` alone, where a display is present), with the
settings every command takes: `--db` (default `LINKVET_DB`, else the window's own store) and `--lang`.
`--screenshot DIR [--size WxH]` writes a PNG of every screen instead, offscreen, and exits.

`desktop.cli.launcher.main` is the `linkvet-gui` launcher, declared in pyproject's `[project.gui-scripts]`
(pip installs it as a windowed program: on Windows it runs without a console window) and frozen by the
installers' recipe in `packaging/pyinstaller/`; it takes the same options. A windowed launcher has no terminal, so its errors (no
display, PySide6 missing) reach only stderr: where there is none, run `linkvet gui` in a terminal to read them.

Qt is imported only when the window opens (`desktop.launch`), so registering this sub-command keeps the
headless CLI free of Qt.
"""

from __future__ import annotations

import argparse

from desktop.cli._common import add_db_option
from desktop.i18n import _
from desktop.launch import add_window_options, open_window, options_from


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "gui",
        help=_("open the desktop application"),
        description=_(
            "Open the desktop application: the evaluation's home (what is known and missing for each "
            "candidate), targets, live probes, charts, routes, catalogs, the scorecard and the export."
        ),
    )
    add_db_option(p)
    add_window_options(p)
    # For the startup benchmark: quit as soon as the window's first frame is up.
    p.add_argument("--quit-after-startup", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Open the window (`desktop.launch.open_window`, which imports the app and Qt only now)."""
    return open_window(options_from(args))
