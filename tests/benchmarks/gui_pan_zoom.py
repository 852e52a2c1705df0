"""Benchmark: frame times of the Charts screen's timeline while panning and zooming through 1,000,000 samples.

    python -m tests.benchmarks.gui_pan_zoom [--samples 1000000] [--platform offscreen|xcb]

The timeline widget the Charts screen uses (smoke boxes, median line, raw trace with NaN gaps for the lost
attempts, loss bars, overview) is given a million attempts, one per second (11.6 days, 2 % lost, with
outages), then driven through 40 pan steps and 40 zoom steps (from the whole range down to ten minutes and
back); each step is one `setXRange` plus a synchronous repaint, timed. The anchor is the same sequence on
10,000 samples in the same run: the ratio shows what the size costs once clipping and peak downsampling
have done their work. Fluid means a median frame well under 33 ms (30 frames a second).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def frames(n: int, app, seed: int = 1) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    import numpy as np

    from desktop.app import chart_data
    from desktop.app.widgets.timeline_plot import TimelinePlot

    rng = np.random.default_rng(seed)
    ts_us = 1_750_000_000_000_000 + np.arange(n, dtype=np.int64) * 1_000_000
    rtt = 150 + rng.gamma(2, 3, n)
    rtt[rng.random(n) < 0.02] = np.nan
    for start in range(0, n, max(n // 10, 1)):
        rtt[start : start + n // 200] = np.nan
    plot = TimelinePlot()
    plot.resize(1200, 700)
    plot.show()
    started = time.perf_counter()
    plot.set_timeline(chart_data.timeline(ts_us, rtt))
    app.processEvents()
    plot.viewport().repaint()
    first = (time.perf_counter() - started) * 1000
    t0, t1 = ts_us[0] / 1e6, ts_us[-1] / 1e6
    span = t1 - t0
    out: dict[str, list[float]] = {"first draw": [first], "pan": [], "zoom": []}

    def step(kind: str, low: float, high: float) -> None:
        began = time.perf_counter()
        plot.main.setXRange(low, high, padding=0)  # what a drag or a wheel step does
        plot.viewport().repaint()  # the frame, drawn now
        out[kind].append((time.perf_counter() - began) * 1000)
        app.processEvents()

    width = span / 20
    for i in range(40):  # pan a window of 1/20 of the range across it
        low = t0 + (span - width) * i / 39
        step("pan", low, low + width)
    centre = t0 + span / 2
    widths = np.geomspace(span, 600, 20)
    for w in [*widths, *widths[::-1]]:  # zoom in to ten minutes and back out
        step("zoom", centre - w / 2, centre + w / 2)
    plot.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--anchor-samples", type=int, default=10_000)
    parser.add_argument("--platform", default="offscreen")
    args = parser.parse_args()
    os.environ["QT_QPA_PLATFORM"] = args.platform
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    sys.path.insert(0, str(REPO_ROOT))
    from PySide6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    big = frames(args.samples, app)
    small = frames(args.anchor_samples, app)
    print(f"timeline frame times, platform {args.platform} (ms)")
    print(
        f"{'':22}{'samples':>10}{'first draw':>12}{'pan median':>12}{'pan max':>9}{'zoom median':>13}{'zoom max':>10}"
    )
    for name, n, figures in (
        ("linkvet timeline", args.samples, big),
        ("anchor (same, small)", args.anchor_samples, small),
    ):
        print(
            f"{name:22}{n:>10,}{figures['first draw'][0]:12.0f}{statistics.median(figures['pan']):12.1f}"
            f"{max(figures['pan']):9.1f}{statistics.median(figures['zoom']):13.1f}{max(figures['zoom']):10.1f}"
        )
    ratio_pan = statistics.median(big["pan"]) / statistics.median(small["pan"])
    ratio_zoom = statistics.median(big["zoom"]) / statistics.median(small["zoom"])
    print(
        f"ratio {args.samples:,} / {args.anchor_samples:,} samples: pan {ratio_pan:.2f}x, zoom {ratio_zoom:.2f}x"
    )
    fluid = max(statistics.median(big["pan"]), statistics.median(big["zoom"])) < 33
    print(f"fluid (median frame < 33 ms): {'yes' if fluid else 'NO'}")
    return 0 if fluid else 1


if __name__ == "__main__":
    sys.exit(main())
