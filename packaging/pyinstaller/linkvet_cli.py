"""Entry script of the frozen `linkvet` program (a console program: the CLI, `linkvet gui` included)."""

import sys

from frozen_child import run_child_if_asked

run_child_if_asked()

from desktop.cli import main  # noqa: E402 (after the child check: the child needs none of the CLI)

sys.exit(main())
