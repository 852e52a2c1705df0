"""Benchmark: how long `linkvet gui` takes to put its window on screen, cold and warm.

    python -m tests.benchmarks.gui_startup [--runs 5] [--platform offscreen|xcb] [--drop-caches]

Each run is a new process, `python -m desktop.cli gui --quit-after-startup`, timed from spawn until it exits
after the window's first paint, with a fresh settings and data folder:
- "cold": the kernel's page cache dropped first (`--drop-caches`, needs root), so every file is read from disk,
  as on the first start after a reboot;
- "no bytecode": additionally an empty bytecode cache (PYTHONPYCACHEPREFIX), so every module is compiled
  again: worse than any real start, since pip compiles the bytecode at install time;
- "warm": started again straight away.
The anchor is the smallest PySide6 program that shows a QMainWindow and quits after its first paint, run the
same way. Goal: under 2 s cold and warm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

ANCHOR = """
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QLabel
app = QApplication([])
class First(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, app.quit)
        return False
window = QMainWindow()
window.setCentralWidget(QLabel("hello"))
window.resize(1280, 800)
watcher = First()
window.installEventFilter(watcher)
window.show()
app.exec()
"""


def drop_caches() -> bool:
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    done = subprocess.run(command, cwd=env["HOME"], env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed


def environment(home: Path, platform: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        PYTHONPATH=str(REPO_ROOT),
        QT_QPA_PLATFORM=platform,
    )
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--platform", default="offscreen", help="Qt platform (xcb under xvfb-run)")
    parser.add_argument(
        "--drop-caches", action="store_true", help="drop the page cache before cold runs (root)"
    )
    args = parser.parse_args()
    app = [sys.executable, "-m", "desktop.cli", "gui", "--quit-after-startup"]
    anchor = [sys.executable, "-c", ANCHOR]
    kinds = ("cold", "no bytecode", "warm")
    rows: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for name, command in (("linkvet gui", app), ("anchor (bare QMainWindow)", anchor)):
            figures: dict[str, list[float]] = {kind: [] for kind in kinds}
            for run in range(args.runs):
                for kind in kinds:
                    home = base / f"{name[:7]}-{kind}-{run}"
                    home.mkdir()
                    env = environment(home, args.platform)
                    if kind == "no bytecode":
                        env["PYTHONPYCACHEPREFIX"] = str(base / f"pycache-{name[:7]}-{run}")
                    if kind != "warm" and args.drop_caches:
                        drop_caches()
                    figures[kind].append(timed(command, env))
            rows[name] = figures
    dropped = (
        "page cache dropped before cold runs"
        if args.drop_caches
        else "page cache NOT dropped (--drop-caches)"
    )
    print(f"startup to first paint, {args.runs} runs each, platform {args.platform}, {dropped}")
    print(f"{'':28}" + "".join(f"{kind + ' median':>20}{'max':>8}" for kind in kinds))
    for name, figures in rows.items():
        print(
            f"{name:28}"
            + "".join(f"{statistics.median(figures[k]):19.2f}s{max(figures[k]):7.2f}s" for k in kinds)
        )
    ours, anchor_rows = rows["linkvet gui"], rows["anchor (bare QMainWindow)"]
    print(
        "ratio linkvet/anchor (medians): "
        + ", ".join(
            f"{k} {statistics.median(ours[k]) / statistics.median(anchor_rows[k]):.2f}x" for k in kinds
        )
    )
    goal = max(max(ours["cold"]), max(ours["warm"])) < 2.0
    print(f"goal (< 2 s cold and warm): {'met' if goal else 'NOT met'}")
    return 0 if goal else 1


if __name__ == "__main__":
    sys.exit(main())
