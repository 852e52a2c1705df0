"""A busy machine on demand: CPU-bound processes beside the probing tools (`with BusyCpus(2): ...`).

Each burner is a plain Python loop at normal priority, started in the root namespace with no network at all
and PR_SET_PDEATHSIG (it dies with the process that started it), and stopped by its PID. The lab's emulator
runs at real-time priority (SCHED_FIFO), so only the tools under test compete with the burners.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from types import TracebackType

_BURN = "while True: pass"


class BusyCpus:
    """`count` CPU-bound processes for the duration of a `with` block."""

    def __init__(self, count: int = 2) -> None:
        self.count = count
        self._procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> BusyCpus:
        for _ in range(self.count):
            self._procs.append(
                subprocess.Popen(
                    ["setpriv", "--pdeathsig", "KILL", "--", sys.executable, "-c", _BURN],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        time.sleep(0.5)  # let them reach full speed (and the scheduler notice them) before measuring
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for proc in self._procs:
            proc.kill()
        for proc in self._procs:
            proc.wait(timeout=10)
        self._procs.clear()

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self._procs]

    def cpu_seconds(self) -> float:
        """CPU time the burners have used so far (their share of the machine while the tools ran)."""
        total = 0.0
        ticks = os.sysconf("SC_CLK_TCK")
        for pid in self.pids:
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / ticks
        return total
