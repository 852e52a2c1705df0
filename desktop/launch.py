"""Opening the desktop application's window from outside it: `linkvet gui`, `linkvet` alone where a display
is present, `linkvet-gui` and `python -m desktop.app`, each with the same settings as every command
(`--db`, else `LINKVET_DB`; `--lang`), and `linkvet gui --screenshot DIR` (every screen as a PNG, offscreen).

The one seam between the faces: the CLI (`desktop.cli`) never imports the app (`desktop.app`) and the app
never imports the CLI; the CLI asks this module to open the window, and this module imports the app only
when it does (and the CLI's error table to report why it cannot). No Qt at import. Before Qt is loaded, a
Linux without the libraries Qt's window plugin needs is told which (`desktop.qt_platform`) instead of Qt
aborting the program.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from probes.store_location import StoreLocation


class WindowUnavailable(Exception):
    """No window can be opened here (no display, or the GUI's libraries are not installed)."""


class QtCannotStart(WindowUnavailable):
    """Qt's window plugin cannot load on this system (libraries missing): `linkvet` alone measures headless."""


@dataclass(frozen=True, slots=True)
class WindowOptions:
    """How the window is opened: its store (`--db`; None: LINKVET_DB, else the window's own), its language
    (`--lang`; None: the one chosen in the window), and, to write screenshots instead, where and how large."""

    db: StoreLocation | None = None
    language: str | None = None
    screenshot: Path | None = None
    size: tuple[int, int] | None = None
    quit_after_startup: bool = False


def display_present(*, explicit_platform: bool = False) -> bool:
    """Whether a window can be shown here: Windows and macOS always, elsewhere an X11 or Wayland display.

    With `explicit_platform`, a Qt platform chosen in QT_QPA_PLATFORM (e.g. offscreen) counts too; `linkvet`
    alone does not count it, so a headless session never opens an invisible window by accident.
    """
    if sys.platform in ("win32", "darwin"):
        return True
    names = ["DISPLAY", "WAYLAND_DISPLAY"] + (["QT_QPA_PLATFORM"] if explicit_platform else [])
    return any(os.environ.get(name) for name in names)


def open_window(options: WindowOptions | None = None) -> int:
    """Run the desktop application until its window closes (or write its screenshots); the exit code.
    `WindowUnavailable` when no window can be shown here (`QtCannotStart` when Qt's plugin cannot load)."""
    options = options or WindowOptions()
    if options.screenshot is not None:
        _offscreen(options.size or (1280, 800))
    if not display_present(explicit_platform=True):
        raise WindowUnavailable(
            "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); "
            "run it in a desktop session, or use the headless commands (linkvet --help)"
        )
    from desktop.qt_platform import missing_libraries

    missing = missing_libraries()
    if missing is not None:
        raise QtCannotStart(missing.message())
    try:
        from desktop.app.main import application
        from desktop.app.main import run as run_app
    except ImportError as exc:
        raise WindowUnavailable(
            f"the desktop application needs PySide6 and pyqtgraph: pip install 'linkvet[gui]' ({exc})"
        ) from exc
    argv = [sys.argv[0] if sys.argv else "linkvet"]
    if options.screenshot is not None:
        from desktop.app.screenshots import write_screenshots

        return write_screenshots(application(argv), options)
    return run_app(argv, options)


def _offscreen(size: tuple[int, int]) -> None:
    """Qt's offscreen platform (no display server), its screen as large as the pictures (dialogs size
    themselves to the screen they are on)."""
    import json
    import tempfile

    if os.environ.get("QT_QPA_PLATFORM", "offscreen") != "offscreen":
        return  # the caller chose a platform
    screen = {"name": "linkvet", "x": 0, "y": 0, "width": size[0], "height": size[1], "logicalDpi": 96}
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="linkvet-screen-", delete=False) as config:
        json.dump({"screens": [screen]}, config)
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config.name}"


def window_size(text: str) -> tuple[int, int]:
    """`--size WxH` (e.g. 1366x768), each side 320 to 8192 pixels."""
    from desktop.i18n import _

    width, _x, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text}: expected WIDTHxHEIGHT in pixels, e.g. 1366x768").format(text=text[:40])
        ) from None
    if not all(320 <= side <= 8192 for side in size):
        raise argparse.ArgumentTypeError(
            _("{text}: each side between 320 and 8192 pixels").format(text=text[:40])
        )
    return size


def add_window_options(parser: argparse.ArgumentParser) -> None:
    """The options the window takes, for `linkvet gui` and `linkvet-gui` alike (`--lang` is every
    command's)."""
    from desktop.i18n import _

    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="DIR",
        help=_(
            "write a PNG of every screen into DIR and exit (no display needed; with the example evaluation "
            "when the store has none)"
        ),
    )
    parser.add_argument(
        "--size",
        type=window_size,
        metavar="WxH",
        help=_("with --screenshot: the window's size (default 1280x800)"),
    )


def options_from(args: argparse.Namespace) -> WindowOptions:
    return WindowOptions(
        db=getattr(args, "db", None),
        language=getattr(args, "lang", None),
        screenshot=getattr(args, "screenshot", None),
        size=getattr(args, "size", None),
        quit_after_startup=bool(getattr(args, "quit_after_startup", False)),
    )


def main() -> int:
    """`python -m desktop.app`: the window, or the CLI's one line on stderr and its exit code (3) when none
    can be shown."""
    from desktop.cli.errors import run_mapped

    return run_mapped(open_window)
