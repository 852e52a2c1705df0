"""Drawing two million samples with NaN gaps. PySide6 6.12.0 with pyqtgraph 0.14 aborted the process here
("deallocating None"), which is why PySide6 is pinned to 6.11.3; the drawing runs in a child process so a
crash is a failed test, not a dead test run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import REPO_ROOT

SCRIPT = textwrap.dedent(
    """
    import os, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    import numpy as np
    from PySide6.QtWidgets import QApplication
    from desktop.app import chart_data
    from desktop.app.widgets.timeline_plot import TimelinePlot

    app = QApplication([])
    n = 2_000_000
    rng = np.random.default_rng(1)
    ts_us = 1_750_000_000_000_000 + np.arange(n, dtype=np.int64) * 1_000_000
    rtt = 150 + rng.gamma(2, 3, n)
    rtt[rng.random(n) < 0.02] = np.nan          # scattered losses
    for start in range(0, n, 200_000):            # and long outages
        rtt[start:start + 5_000] = np.nan
    plot = TimelinePlot()
    plot.resize(1200, 700)
    plot.show()
    plot.set_timeline(chart_data.timeline(ts_us, rtt))
    for _ in range(3):
        app.processEvents()
    image = plot.grab().toImage()
    # zoom into a gap and draw again: the raw trace switches from downsampled to every point
    t0 = ts_us[200_000] / 1e6
    plot.main.setXRange(t0 - 3600, t0 + 7200, padding=0)
    for _ in range(3):
        app.processEvents()
    zoomed = plot.grab().toImage()
    assert not image.isNull() and not zoomed.isNull()
    raw_x, raw_y = plot.raw.getData()
    assert raw_x is not None and len(raw_x) < n / 10   # clipped to the view and peak-downsampled
    print("drawn", n, len(raw_x))
    """
)


def test_two_million_samples_with_gaps_draw_without_crashing() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(REPO_ROOT),
            "HOME": str(REPO_ROOT),
            "PYQTGRAPH_QT_LIB": "PySide6",
        },
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-3000:]}"
    assert done.stdout.startswith("drawn 2000000")
