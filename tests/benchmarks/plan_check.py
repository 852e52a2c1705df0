"""Benchmark: `linkvet schedule --check` of a plan of many targets (issue 31 §4: 50,000 targets took 57 s on
the sweep's machine when the table was rich's, 3 s before), beside the anchor run in the same process:
`tomllib.loads` of the same plan text — reading the TOML at all, the floor any check of the plan pays.

linkvet's figure is the whole command in-process (reading and checking the plan, its addresses and
labels, the table of every target, the next rounds), its standard output to /dev/null.

    python -m tests.benchmarks.plan_check [--targets 50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
import tomllib
from pathlib import Path

from tests.cli.test_leftovers import plan_text


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--targets", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from desktop.cli import main as linkvet

    text = plan_text(args.targets)
    with tempfile.TemporaryDirectory() as folder:
        plan = Path(folder) / "plan.toml"
        plan.write_text(text)
        anchor, ours = [], []
        for _ in range(args.repeat):
            started = time.perf_counter()
            tomllib.loads(text)
            anchor.append(time.perf_counter() - started)
            started = time.perf_counter()
            with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
                code = linkvet(["schedule", "--plan", str(plan), "--check"])
            ours.append(time.perf_counter() - started)
            assert code == 0
    a, o = statistics.median(anchor), statistics.median(ours)
    print(
        f"{args.targets:,} targets: tomllib.loads {a:.2f} s, linkvet schedule --check {o:.2f} s, ratio {o / a:.1f}"
    )


if __name__ == "__main__":
    main()
