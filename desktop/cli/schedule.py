"""`linkvet schedule`: run a plan's rounds as a daemon (or one round with --once)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli._common import add_db_option, flag
from desktop.cli._format import ProgressLine, result_rows, table
from desktop.cli._logfile import LogFile, setup_logging
from desktop.cli._safe_text import printable
from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED, EnvironmentRefused
from probes import limits
from probes.limits import format_duration

if TYPE_CHECKING:  # for annotations; `run` imports the scheduler when a plan runs
    from probes.plan import Plan
    from probes.scheduler import Scheduler


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "schedule",
        help="measure a plan's targets on a schedule, denser at peak hours",
        description="Run the rounds of a plan file until stopped (SIGTERM/SIGINT), storing each finished round.",
    )
    p.add_argument("--plan", type=Path, required=True, help="the plan file (TOML)")
    p.add_argument("--once", action="store_true", help="run one round now and exit")
    p.add_argument("--check", action="store_true", help="validate the plan, show the next rounds, and exit")
    p.add_argument(
        "--grace",
        type=flag(limits.GRACE),
        default=10.0,
        metavar="S",
        help="on stop, seconds to let the round in flight finish before dropping it (default 10)",
    )
    p.add_argument("--log-file", type=Path, help="log file (default: linkvet.log in the user data directory)")
    p.add_argument("-q", "--quiet", action="store_true", help="log warnings and errors only")
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from probes.paths import log_path
    from probes.plan import load_plan
    from probes.store import Store

    plan = load_plan(args.plan)
    if args.check:
        return _check(plan)
    log_file = setup_logging(args.log_file or log_path(), args.quiet)
    store = Store(args.db)
    try:
        from probes.scheduler import Scheduler

        if args.once:
            progress = ProgressLine()
            scheduler = Scheduler(plan, store, progress=progress)
            try:
                report = asyncio.run(scheduler.run_once())
            finally:
                progress.finish()
            logging.getLogger("linkvet.schedule").info(report.describe())
            if not report.results:
                print("nothing was due: every target of the plan was measured recently enough (its `every`)")
                log_file.check()
                return EXIT_OK
            headers, rows = result_rows(list(report.results))
            table(headers, rows, sys.stdout)
            if report.store_error is not None:
                raise EnvironmentRefused(f"the round above was measured but not stored: {report.store_error}")
            print(f"stored round {report.round_id} in {store.path}")
            log_file.check()
            return EXIT_OK if report.failed == 0 else EXIT_SOME_FAILED
        return asyncio.run(_daemon(Scheduler(plan, store), args.grace, log_file))
    finally:
        store.close()


async def _daemon(scheduler: Scheduler, grace_s: float, log_file: LogFile) -> int:
    log = logging.getLogger("linkvet.schedule")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    requests = 0

    def request_stop(signum: int) -> None:
        nonlocal requests
        requests += 1
        log.info("received %s, stopping", signal.Signals(signum).name)
        stop.set()
        if requests > 1:
            raise KeyboardInterrupt  # a second signal: stop now

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, request_stop, signum)
    plan = scheduler.plan
    log.info(
        "linkvet schedule: plan %s (%d targets), every %s, %s inside %s; store %s",
        plan.path,
        len(plan.targets),
        format_duration(plan.every_s),
        format_duration(plan.peak_every_s),
        ", ".join(str(w) for w in plan.peak_windows),
        scheduler.store.path,
    )
    log_file.check()  # a log that cannot be written (/dev/full) is refused before the first round
    stored = await scheduler.run_until(stop, grace_s=grace_s)
    log.info("stopped after %d stored rounds", stored)
    log_file.check()
    return EXIT_OK


def _check(plan: Plan) -> int:
    import time

    from probes.scheduler import cadence_at, next_slot

    print(
        printable(
            f"plan {plan.name} ({plan.path}): {len(plan.targets)} targets, vantage {plan.vantage or '-'}"
        )
    )
    print(
        f"every {format_duration(plan.every_s)}, every {format_duration(plan.peak_every_s)} inside "
        + ", ".join(str(w) for w in plan.peak_windows)
    )
    for planned in plan.targets:
        t = planned.target
        every = f"  (at most every {format_duration(planned.every_s)})" if planned.every_s else ""
        labels = " ".join(
            f"{k}={v}"
            for k, v in (("provider", t.provider), ("region", t.region), ("line_type", t.line_type))
            if v
        )
        print(f"  {t.method:<8} {printable(t.name):<40} {printable(labels)}{every}")
    moment = time.time()
    print("next rounds (UTC):")
    for _ in range(5):
        moment = next_slot(plan, moment)
        print(
            f"  {datetime.fromtimestamp(moment, tz=UTC):%Y-%m-%d %H:%M:%S}  (cadence {format_duration(cadence_at(plan, moment))})"
        )
    return EXIT_OK
