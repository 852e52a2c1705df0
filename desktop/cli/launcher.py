"""The `linkvet-gui` launcher (pyproject `[project.gui-scripts]`, and the installers' recipe in
`packaging/pyinstaller/`): `linkvet gui` with the arguments it was given — open the window, or say why not."""

from __future__ import annotations

import sys


def main() -> int:
    from desktop.cli import main as cli_main

    return cli_main(["gui", *sys.argv[1:]])
