"""What a frozen linkvet program does when the desktop app starts it as its probing child.

The GUI runs probes and the scheduler in a child process started as `[sys.executable, "-m",
"desktop.app.job_process"]` (`desktop.app.workers.JobProcess`), and an evaluation's background agent as
`[sys.executable, "-m", "desktop.cli", "schedule", …]` (`desktop.usecases.agent_process`). In a PyInstaller build `sys.executable` is the
frozen program itself, which has no `-m`; so both frozen entry scripts call `run_child_if_asked()` first, and
run that one module's `main()` when asked with exactly that command line. Only the modules named here: a
frozen linkvet is not a general Python interpreter.
"""

from __future__ import annotations

import importlib
import sys

CHILD_MODULES: tuple[str, ...] = ("desktop.app.job_process",)
# The background agent the window starts (`desktop.usecases.agent_process`): `-m desktop.cli schedule …`.
CLI_MODULE = "desktop.cli"


def run_child_if_asked(argv: list[str] | None = None) -> None:
    """Exit with the child module's status if the command line is `-m <child module>` (or `-m desktop.cli
    COMMAND…`: the linkvet command, as the window's background agent runs it); else return."""
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) == 2 and arguments[0] == "-m" and arguments[1] in CHILD_MODULES:
        sys.exit(importlib.import_module(arguments[1]).main())
    if len(arguments) > 2 and arguments[0] == "-m" and arguments[1] == CLI_MODULE:
        sys.exit(importlib.import_module(CLI_MODULE).main(arguments[2:]))
