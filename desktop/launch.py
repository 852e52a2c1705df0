"""Opening the desktop application's window from outside it: `linkvet gui`, `linkvet` alone where a display
is present, `python -m desktop.app`.

The one seam between the faces: the CLI (`desktop.cli`) never imports the app (`desktop.app`) and the app
never imports the CLI; the CLI asks this module to open the window, and this module imports the app only
when it does (and the CLI's error table to report why it cannot). No Qt at import.
"""

from __future__ import annotations

import os
import sys


class WindowUnavailable(Exception):
    """No window can be opened here (no display, or the GUI's libraries are not installed)."""


def display_present(*, explicit_platform: bool = False) -> bool:
    """Whether a window can be shown here: Windows and macOS always, elsewhere an X11 or Wayland display.

    With `explicit_platform`, a Qt platform chosen in QT_QPA_PLATFORM (e.g. offscreen) counts too; `linkvet`
    alone does not count it, so a headless session never opens an invisible window by accident.
    """
    if sys.platform in ("win32", "darwin"):
        return True
    names = ["DISPLAY", "WAYLAND_DISPLAY"] + (["QT_QPA_PLATFORM"] if explicit_platform else [])
    return any(os.environ.get(name) for name in names)


def open_window(*, quit_after_startup: bool = False) -> int:
    """Run the desktop application until its window closes; the exit code. `WindowUnavailable` when no
    window can be shown here."""
    if not display_present(explicit_platform=True):
        raise WindowUnavailable(
            "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); "
            "run it in a desktop session, or use the headless commands (linkvet --help)"
        )
    try:
        from desktop.app.main import run as run_app
    except ImportError as exc:
        raise WindowUnavailable(
            f"the desktop application needs PySide6 and pyqtgraph: pip install 'linkvet[gui]' ({exc})"
        ) from exc
    return run_app([sys.argv[0] if sys.argv else "linkvet"], quit_after_shown=quit_after_startup)


def main() -> int:
    """`python -m desktop.app` (and the gui-script): the window, or the CLI's one line on stderr and its exit
    code (3) when none can be shown."""
    from desktop.cli.errors import run_mapped

    return run_mapped(open_window)
