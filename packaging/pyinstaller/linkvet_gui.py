"""Entry script of the frozen `linkvet-gui` program (windowed on Windows and macOS: no console window), the
same function pip's `linkvet-gui` launcher runs (pyproject `[project.gui-scripts]`)."""

import sys

from frozen_child import run_child_if_asked

run_child_if_asked()

from desktop.cli.launcher import main  # noqa: E402 (after the child check)

sys.exit(main())
