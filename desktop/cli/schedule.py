"""`linkvet schedule`: run a plan's rounds as a daemon (or one round with --once)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import logging.handlers
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli._common import add_db_option, non_negative_float
from desktop.cli._format import ProgressLine, result_rows, table
from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED, EnvironmentRefused, context
from desktop.i18n import _

if TYPE_CHECKING:  # for annotations; `run` imports the scheduler when a plan runs
    from probes.plan import Plan
    from probes.scheduler import RoundReport, Scheduler


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
        type=non_negative_float,
        default=10.0,
        metavar="S",
        help="on stop, seconds to let the round in flight finish before dropping it (default 10)",
    )
    p.add_argument("--log-file", type=Path, help="log file (default: linkvet.log in the user data directory)")
    p.add_argument("-q", "--quiet", action="store_true", help="log warnings and errors only")
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from probes.plan import load_plan
    from probes.store import Store

    plan = load_plan(args.plan)
    if args.check:
        return _check(plan)
    _setup_logging(args.log_file, args.quiet)
    store = Store(args.db)  # a store that cannot be used is said here, before anything is measured
    try:
        from probes.scheduler import Scheduler

        if args.once:
            return _once(Scheduler(plan, store, progress=ProgressLine()))
        return asyncio.run(_daemon(Scheduler(plan, store), args.grace))
    finally:
        store.close()


def _once(scheduler: Scheduler) -> int:
    from probes.store.delivery import unstored_error

    async def one_round() -> RoundReport:
        await scheduler.take_lock()  # not beside a running scheduler of the same plan
        try:
            return await scheduler.run_once()
        finally:
            await scheduler.release_lock()

    try:
        try:
            report = asyncio.run(one_round())
        finally:
            if isinstance(scheduler.progress, ProgressLine):
                scheduler.progress.finish()
        logging.getLogger("linkvet.schedule").info(report.describe())
        if not report.results:
            print("nothing was due: every target of the plan was measured recently enough (its `every`)")
            return EXIT_OK
        headers, rows = result_rows(list(report.results))
        table(headers, rows, sys.stdout)
        if report.store_error is not None:
            with context(_("the round above was measured but not stored")):
                raise unstored_error(
                    scheduler.store,
                    scheduler.spool,
                    spooled=scheduler.writer.delivery.waiting(),
                    lost=scheduler.writer.lost,
                    reason=report.store_error,
                )
        print(f"stored round {report.round_id} in {scheduler.store.path}")
        return EXIT_OK if report.failed == 0 else EXIT_SOME_FAILED
    finally:
        scheduler.close()


async def _daemon(scheduler: Scheduler, grace_s: float) -> int:
    from probes.store.delivery import unstored_error

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
        _duration(plan.every_s),
        _duration(plan.peak_every_s),
        ", ".join(str(w) for w in plan.peak_windows),
        scheduler.store.path,
    )
    try:
        stored = await scheduler.run_until(stop, grace_s=grace_s)
    finally:
        scheduler.close()
    log.info("stopped after %d stored rounds", stored)
    unstored = scheduler.unstored
    if unstored:
        error = unstored_error(
            scheduler.store,
            scheduler.spool,
            spooled=unstored - scheduler.writer.lost,
            lost=scheduler.writer.lost,
            reason=None,
        )
        log.error(str(error))
        raise error
    if scheduler.lock_lost:
        raise EnvironmentRefused(
            _("stopped: another scheduler took over this plan's lock in the store {store}").format(
                store=scheduler.store.path
            )
        )
    return EXIT_OK


def _check(plan: Plan) -> int:
    import time

    from probes.scheduler import cadence_at, next_slot

    print(f"plan {plan.name} ({plan.path}): {len(plan.targets)} targets, vantage {plan.vantage or '-'}")
    print(
        f"every {_duration(plan.every_s)}, every {_duration(plan.peak_every_s)} inside "
        + ", ".join(str(w) for w in plan.peak_windows)
    )
    for planned in plan.targets:
        t = planned.target
        every = f"  (at most every {_duration(planned.every_s)})" if planned.every_s else ""
        labels = " ".join(
            f"{k}={v}"
            for k, v in (("provider", t.provider), ("region", t.region), ("line_type", t.line_type))
            if v
        )
        print(f"  {t.method:<8} {t.name:<40} {labels}{every}")
    moment = time.time()
    print("next rounds (UTC):")
    for _slot in range(5):
        moment = next_slot(plan, moment)
        print(
            f"  {datetime.fromtimestamp(moment, tz=UTC):%Y-%m-%d %H:%M:%S}  (cadence {_duration(cadence_at(plan, moment))})"
        )
    return EXIT_OK


def _duration(seconds: float) -> str:
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds % 60 == 0:
        return f"{seconds / 60:g}m"
    return f"{seconds:g}s"


def _setup_logging(log_file: Path | None, quiet: bool) -> None:
    from probes.paths import log_path

    root = logging.getLogger("linkvet")
    root.setLevel(logging.WARNING if quiet else logging.INFO)
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%Y-%m-%dT%H:%M:%S%z")
    formatter.converter = __import__("time").gmtime
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(formatter)
    root.addHandler(console)
    path = log_file or log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=5_000_000, backupCount=3, encoding="utf-8"
        )
    except OSError as exc:
        raise EnvironmentRefused(f"{path}: cannot write the log file: {exc.strerror or exc}") from exc
    handler.setFormatter(formatter)
    root.addHandler(handler)
