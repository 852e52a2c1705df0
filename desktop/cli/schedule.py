"""`linkvet schedule`: run a plan's rounds as a daemon (or one round with --once)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli._format import ProgressLine
from desktop.cli._logfile import setup_logging
from desktop.cli._service import add_service_options, check_metrics_address, check_plan, daemon, run_once
from desktop.cli.errors import EXIT_OK, EnvironmentRefused, UsageError
from desktop.i18n import _, ngettext
from desktop.usecases.agent import Agent, MetricsAddressRefused, agent_status

if TYPE_CHECKING:  # for annotations; `run` imports the scheduler when a plan runs
    from probes.schedule.plan import Plan
    from probes.store_location import StoreLocation


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "schedule",
        help=_("measure a plan's targets on a schedule, denser at peak hours"),
        description=_(
            "Run the rounds of a plan file until stopped (SIGTERM/SIGINT), storing each finished round."
        ),
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--plan", type=Path, help=_("the plan file (TOML)"))
    source.add_argument(
        "--eval",
        metavar="NAME",
        help=_(
            "measure an evaluation's candidates (in the store) as its plan says for the office --vantage names "
            "(`linkvet eval plan` shows it)"
        ),
    )
    p.add_argument(
        "--vantage",
        metavar="OFFICE",
        help=_("with --eval: the office this machine measures from (one of the evaluation's offices)"),
    )
    add_service_options(
        p,
        once=_("run one round now and exit"),
        check=_("validate the plan, show the next rounds, and exit"),
        status=_(
            "show this plan's agent: the store (reachable or not), who holds the plan's lock, the last stored "
            "round, and the rounds waiting in the spool; exit 3 when the store cannot be reached"
        ),
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from probes.paths import log_path
    from probes.schedule.plan import load_plan

    if args.plan is not None and args.vantage is not None:
        raise UsageError(_("--vantage goes with --eval (a plan file names its own vantage point)"))
    plan = load_plan(args.plan) if args.plan is not None else _evaluation_plan(args)
    if args.check:
        return check_plan(plan)
    if args.status:
        return _status(plan, args.db)
    check_metrics_address(args)
    log_file = setup_logging(args.log_file or log_path(), args.quiet)
    # Secrets, the store (a store that cannot be used is said here, before anything is measured), the
    # metrics server and the alert worker: the one agent the window's scheduler runs too.
    try:
        agent = Agent.prepare(
            plan,
            args.db,
            metrics=None if args.once else args.metrics_listen,
            progress=ProgressLine() if args.once else None,
        )
    except MetricsAddressRefused as exc:
        raise EnvironmentRefused(str(exc)) from exc
    try:
        if args.once:
            return run_once(agent, log_file)
        return asyncio.run(daemon(agent, args.grace, log_file))
    finally:
        agent.close()


def _evaluation_plan(args: argparse.Namespace) -> Plan:
    """The plan an evaluation's office runs (`desktop.usecases.evaluation_plan`), from the store's evaluation
    and the catalogs (bundled and the user's)."""
    from desktop.cli.catalog import load_or_warn
    from desktop.usecases.evaluation import load_evaluation
    from desktop.usecases.evaluation_plan import evaluation_plan

    evaluation = load_evaluation(args.db, args.eval)
    if args.vantage is not None and evaluation.office(args.vantage) is None:
        raise UsageError(
            _(
                "{name} has no office {office!r} (it has: {known}); `linkvet eval show {name}` lists them"
            ).format(
                name=evaluation.name,
                office=args.vantage,
                known=", ".join(o.name for o in evaluation.offices) or "-",
            )
        )
    if args.vantage is None and evaluation.offices:
        raise UsageError(
            _("--vantage: name the office this machine measures from ({known})").format(
                known=", ".join(o.name for o in evaluation.offices)
            )
        )
    return evaluation_plan(evaluation, load_or_warn(None, db=args.db), args.vantage)


def _status(plan: Plan, db: StoreLocation | None) -> int:
    """What an operator asks of an agent: is its store there, who holds the plan's lock, when did the last
    round arrive, and how many rounds wait in its spool."""
    from probes.store_location import location_or_default
    from probes.timestamps import iso_utc

    print(
        _("plan {plan} (vantage {vantage}), store {store}").format(
            plan=plan.name, vantage=plan.vantage or "-", store=location_or_default(db)
        )
    )
    status = agent_status(plan, db)
    if status.spooled_rounds:
        print(
            ngettext(
                "spool: {count} round waiting ({samples} samples), spooled {oldest} ({spool})",
                "spool: {count} rounds waiting ({samples} samples), the oldest spooled {oldest} ({spool})",
                status.spooled_rounds,
            ).format(
                count=status.spooled_rounds,
                samples=status.spooled_samples,
                oldest=iso_utc(status.oldest_spooled_us or 0),
                spool=status.spool,
            )
        )
    else:
        print(_("spool: nothing waiting ({spool})").format(spool=status.spool))
    if not status.store_exists:
        print(_("store: none yet at {store} (the first stored round creates it)").format(store=status.store))
        return EXIT_OK
    if status.unreachable is not None:
        print(_("store: not reachable: {reason}").format(reason=status.unreachable))
        raise status.unreachable
    print(_("store: reachable, schema {version}").format(version=status.schema_version))
    if status.lock is None:
        print(_("lock: free (no scheduler of this plan and vantage point runs against this store)"))
    elif not status.lock_alive:
        print(_("lock: left by {holder}, who is gone").format(holder=status.lock))
    else:
        print(_("lock: held by {holder}").format(holder=status.lock))
    if status.last_round is not None:
        round_id, finished_us = status.last_round
        print(
            _("last stored round: {round}, finished {finished}").format(
                round=round_id, finished=iso_utc(finished_us)
            )
        )
    else:
        print(_("last stored round: none of this plan and vantage point yet"))
    return EXIT_OK
