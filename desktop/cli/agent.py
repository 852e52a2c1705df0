"""`linkvet agent`: an office's agent with no plan file. It measures every evaluation in the store that names
its office (`desktop.usecases.office_agent`), follows their changes at the next round, says its health in the
store, spools and forwards as `linkvet schedule` does (the same `Agent`, the same daemon)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from desktop.cli._format import ProgressLine, table
from desktop.cli._logfile import setup_logging
from desktop.cli._safe_text import printable
from desktop.cli._service import add_service_options, check_metrics_address, check_plan, daemon, run_once
from desktop.cli.errors import EXIT_OK, EnvironmentRefused
from desktop.i18n import _, ngettext, vantage_name
from desktop.usecases.agent import Agent, MetricsAddressRefused, agent_status

if TYPE_CHECKING:
    from probes.store_location import StoreLocation

CARRIERS = ("ct", "cu", "cm")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "agent",
        help=_("measure every evaluation of the store that names this office, following their changes"),
        description=_(
            "An office's agent: it needs only the store and its office's name. It measures every evaluation "
            "in the store that names the office (without --vantage: those that name none, from this machine), "
            "each as its plan says (`linkvet eval plan`), picks up a candidate added or removed and a window "
            "changed at its next round, and says its health in the store (`linkvet eval show` lists it). "
            "Rounds the store cannot take wait in the spool, as with `linkvet schedule`."
        ),
    )
    p.add_argument(
        "--vantage",
        metavar="OFFICE",
        type=_office,
        help=_("the office this machine measures from (default: $LINKVET_OFFICE; none: this machine)"),
    )
    p.add_argument(
        "--carrier",
        type=_carrier,
        metavar="CT|CU|CM",
        help=_(
            "the carrier this office's line is on (China Telecom, Unicom, Mobile): said with the agent's "
            "health; a different one in an evaluation is warned about"
        ),
    )
    add_service_options(
        p,
        once=_("measure one round now and exit"),
        check=_("show what would be measured and the next rounds, and exit"),
        status=_(
            "show this office's agent: the store, who holds its lock, the last stored round, the rounds "
            "waiting in the spool and its health per evaluation; exit 3 when the store cannot be reached"
        ),
    )
    p.set_defaults(run=run)


def _office(text: str) -> str:
    from catalogs.errors import EvaluationError
    from catalogs.evaluation.model import check_name

    try:
        return check_name(text, _("office"))
    except EvaluationError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def _carrier(text: str) -> str:
    if text.lower() not in CARRIERS:
        raise argparse.ArgumentTypeError(
            _("{carrier!r}: expected ct, cu or cm (China Telecom, Unicom, Mobile)").format(carrier=text[:40])
        )
    return text.lower()


def run(args: argparse.Namespace) -> int:
    from desktop.usecases.identity import default_office
    from probes.paths import log_path

    vantage: str | None = args.vantage if args.vantage is not None else _office_from_env(default_office())
    if args.check:
        return _check_agent(args.db, vantage)
    if args.status:
        return _status(args.db, vantage)
    check_metrics_address(args)
    log_file = setup_logging(args.log_file or log_path(), args.quiet)
    try:
        agent = Agent.follow(
            args.db,
            vantage,
            carrier=args.carrier,
            metrics=None if args.once else args.metrics_listen,
            progress=ProgressLine() if args.once else None,
        )
    except MetricsAddressRefused as exc:
        raise EnvironmentRefused(str(exc)) from exc
    try:
        if args.once:
            return run_once(agent, log_file)
        intro = _(
            "linkvet agent: office {office}, store {store}; following the evaluations that name it"
        ).format(office=vantage_name(vantage) if vantage else _("this machine"), store=agent.store.path)
        return asyncio.run(daemon(agent, args.grace, log_file, intro))
    finally:
        agent.close()


def _office_from_env(office: str | None) -> str | None:
    from desktop.cli.errors import UsageError

    if office is None:
        return None
    try:
        return _office(office)
    except argparse.ArgumentTypeError as exc:
        raise UsageError(_("LINKVET_OFFICE: {problem}").format(problem=exc)) from None


def _check_agent(db: StoreLocation | None, vantage: str | None) -> int:
    from desktop.usecases.office_agent import current_following

    following = current_following(db, vantage)
    office = vantage_name(vantage) if vantage else _("this machine")
    if not following.plans:
        print(_("office {office}: no evaluation in the store to measure").format(office=office))
        return EXIT_OK
    print(
        printable(
            ngettext(
                "office {office}: {count} evaluation ({names})",
                "office {office}: {count} evaluations ({names})",
                len(following.plans),
            ).format(office=office, count=len(following.plans), names=", ".join(sorted(following.plans)))
        )
    )
    return check_plan(following.merged)


def _status(db: StoreLocation | None, vantage: str | None) -> int:
    from desktop.usecases.office_agent import merged_plan
    from probes.store_location import location_or_default
    from probes.timestamps import iso_utc

    plan = merged_plan({}, vantage)
    status = agent_status(plan, db)
    office = vantage_name(vantage) if vantage else _("this machine")
    print(_("agent of office {office}, store {store}").format(office=office, store=location_or_default(db)))
    if status.spooled_rounds:
        print(
            ngettext(
                "spool: {count} round waiting ({spool})",
                "spool: {count} rounds waiting ({spool})",
                status.spooled_rounds,
            ).format(count=status.spooled_rounds, spool=status.spool)
        )
    else:
        print(_("spool: nothing waiting ({spool})").format(spool=status.spool))
    if not status.store_exists:
        print(_("store: none yet at {store} (the first stored round creates it)").format(store=status.store))
        return EXIT_OK
    if status.unreachable is not None:
        print(_("store: not reachable: {reason}").format(reason=status.unreachable))
        raise status.unreachable
    if status.lock is None:
        print(_("lock: free (no agent of this office runs against this store)"))
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
        print(_("last stored round: none of this office's agent yet"))
    _print_health(db, vantage)
    return EXIT_OK


def _print_health(db: StoreLocation | None, vantage: str | None) -> None:
    from probes.store import Store
    from probes.timestamps import iso_utc
    from probes.vantage import THIS_MACHINE

    with Store(db) as store:
        rows = store.agents(vantage=vantage or THIS_MACHINE)
    if not rows:
        print(_("health: this office's agent has not reported in this store yet"))
        return
    cells = [
        [
            printable(row.evaluation_or_plan),
            printable(row.host),
            str(row.pid or "-"),
            printable(row.version or "-"),
            iso_utc(row.last_round_us) if row.last_round_us else "-",
            str(row.spooled_rounds),
            iso_utc(row.updated_us),
        ]
        for row in rows
    ]
    headers = [_("EVALUATION"), _("HOST"), _("PID"), _("VERSION"), _("LAST ROUND"), _("SPOOLED"), _("SAID")]
    table(headers, cells, sys.stdout)
