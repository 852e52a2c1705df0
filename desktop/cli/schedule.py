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

from desktop.cli._common import add_db_option, flag, path_given
from desktop.cli._format import ProgressLine, result_rows, table
from desktop.cli._logfile import LogFile, setup_logging
from desktop.cli._safe_text import printable
from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED, EnvironmentRefused, UsageError, context
from desktop.i18n import _, ngettext
from desktop.usecases.agent import Agent, MetricsAddressRefused, agent_status, next_rounds
from probes import limits
from probes.limits import format_duration

if TYPE_CHECKING:  # for annotations; `run` imports the scheduler when a plan runs
    from probes.addresses import ListenAddress
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
    p.add_argument("--once", action="store_true", help=_("run one round now and exit"))
    p.add_argument(
        "--check", action="store_true", help=_("validate the plan, show the next rounds, and exit")
    )
    p.add_argument(
        "--status",
        action="store_true",
        help=_(
            "show this plan's agent: the store (reachable or not), who holds the plan's lock, the last stored "
            "round, and the rounds waiting in the spool; exit 3 when the store cannot be reached"
        ),
    )
    p.add_argument(
        "--grace",
        type=flag(limits.GRACE),
        default=10.0,
        metavar="S",
        help=_("on stop, seconds to let the round in flight finish before dropping it (default 10)"),
    )
    p.add_argument(
        "--metrics-listen",
        type=_listen_address,
        metavar="HOST:PORT",
        help=_(
            "serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9108; loopback only "
            "unless --metrics-public)"
        ),
    )
    p.add_argument(
        "--metrics-public",
        action="store_true",
        help=_("allow --metrics-listen on an address other hosts can reach (e.g. 0.0.0.0:9108)"),
    )
    p.add_argument(
        "--log-file", type=path_given, help=_("log file (default: linkvet.log in the user data directory)")
    )
    p.add_argument("-q", "--quiet", action="store_true", help=_("log warnings and errors only"))
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from probes.paths import log_path
    from probes.schedule.plan import load_plan

    if args.plan is not None and args.vantage is not None:
        raise UsageError(_("--vantage goes with --eval (a plan file names its own vantage point)"))
    plan = load_plan(args.plan) if args.plan is not None else _evaluation_plan(args)
    if args.check:
        return _check(plan)
    if args.status:
        return _status(plan, args.db)
    _check_metrics_address(args)
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
            return _once(agent, log_file)
        return asyncio.run(_daemon(agent, args.grace, log_file))
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


def _once(agent: Agent, log_file: LogFile) -> int:
    progress = agent.scheduler.progress
    try:
        report = asyncio.run(agent.run_once())
    finally:
        if isinstance(progress, ProgressLine):
            progress.finish()
    logging.getLogger("linkvet.schedule").info(report.describe())
    if not report.results:
        print(_("nothing was due: every target of the plan was measured recently enough (its `every`)"))
        log_file.check()
        return EXIT_OK
    headers, rows = result_rows(list(report.results))
    table(headers, rows, sys.stdout)
    problem = agent.report_problem(report)
    if problem is not None:
        with context(_("the round above was measured but not stored")):
            raise problem
    print(_("stored round {round} in {store}").format(round=report.round_id, store=agent.store.path))
    log_file.check()
    return EXIT_OK if report.failed == 0 else EXIT_SOME_FAILED


async def _daemon(agent: Agent, grace_s: float, log_file: LogFile, intro: str | None = None) -> int:
    """Rounds until SIGTERM/SIGINT; `intro`: the first log line (default: the plan's)."""
    log = logging.getLogger("linkvet.schedule")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    requests = 0

    def request_stop(signum: int) -> None:
        nonlocal requests
        requests += 1
        log.info(_("received {signal}, stopping").format(signal=signal.Signals(signum).name))
        stop.set()
        if requests > 1:
            raise KeyboardInterrupt  # a second signal: stop now

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, request_stop, signum)
    plan = agent.plan
    log.info(
        intro
        or ngettext(
            "linkvet schedule: plan {plan} ({count} target), every {every}, {peak_every} inside {windows}; "
            "store {store}",
            "linkvet schedule: plan {plan} ({count} targets), every {every}, {peak_every} inside {windows}; "
            "store {store}",
            len(plan.targets),
        ).format(
            plan=plan.path,
            count=len(plan.targets),
            every=format_duration(plan.every_s),
            peak_every=format_duration(plan.peak_every_s),
            windows=_(", ").join(str(w) for w in plan.peak_windows),
            store=agent.store.path,
        )
    )
    log_file.check()  # a log that cannot be written (/dev/full) is refused before the first round
    stored = await agent.run_until(stop, grace_s=grace_s)
    agent.scheduler.close()  # the writer hands over what it holds before the rounds are counted
    log.info(
        ngettext("stopped after {count} stored round", "stopped after {count} stored rounds", stored).format(
            count=stored
        )
    )
    log_file.check()
    problem = agent.unstored_problem()
    if problem is not None:
        log.error(str(problem))
        raise problem
    if agent.lock_lost:
        raise EnvironmentRefused(
            _("stopped: another scheduler took over this plan's lock in the store {store}").format(
                store=agent.store.path
            )
        )
    return EXIT_OK


def _listen_address(text: str) -> ListenAddress:
    from probes.addresses import parse_listen

    try:
        return parse_listen(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _check_metrics_address(args: argparse.Namespace) -> None:
    address: ListenAddress | None = args.metrics_listen
    if address is not None and not address.loopback and not args.metrics_public:
        raise UsageError(
            _(
                "--metrics-listen {address}: other hosts could read the metrics there; listen on a loopback "
                "address (127.0.0.1:9108) or add --metrics-public"
            ).format(address=address)
        )


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


def _check(plan: Plan) -> int:
    print(
        printable(
            _("plan {plan} ({file}): {count} targets, vantage {vantage}").format(
                plan=plan.name, file=plan.path, count=len(plan.targets), vantage=plan.vantage or "-"
            )
        )
    )
    print(
        _("every {every}, every {peak_every} inside {windows}").format(
            every=format_duration(plan.every_s),
            peak_every=format_duration(plan.peak_every_s),
            windows=", ".join(str(w) for w in plan.peak_windows),
        )
    )
    rows = []
    for planned in plan.targets:
        t = planned.target
        every = format_duration(planned.every_s) if planned.every_s else ""
        labels = " ".join(
            f"{k}={v}"
            for k, v in (("provider", t.provider), ("region", t.region), ("line_type", t.line_type))
            if v
        )
        rows.append([str(t.method), t.name, labels, every])
    table([_("METHOD"), _("TARGET"), _("LABELS"), _("AT MOST EVERY")], rows, sys.stdout)
    print(_("next rounds (UTC):"))
    for moment, cadence_s in next_rounds(plan):
        print(
            f"  {datetime.fromtimestamp(moment, tz=UTC):%Y-%m-%d %H:%M:%S}  "
            + _("(cadence {cadence})").format(cadence=format_duration(cadence_s))
        )
    if plan.alerting:
        _check_alerts(plan)
    return EXIT_OK


def _check_alerts(plan: Plan) -> None:
    """List the rules and notifiers; a notifier's unset environment variable is an error (exit 2)."""
    import os

    from probes.alerts.rules import describe_rule, mask_url, resolve_secrets

    alerting = plan.alerting
    assert alerting is not None
    names = {p.target.key: p.target.name for p in plan.targets}
    print(ngettext("{n} alert rule:", "{n} alert rules:", len(alerting.rules)).format(n=len(alerting.rules)))
    for rule in alerting.rules:
        targets = sorted({names[k] or k for k in rule.target_keys})
        print(
            "  "
            + _("{rule}: {condition}; targets {targets}; notify {notifiers}").format(
                rule=rule.name,
                condition=describe_rule(rule),
                targets=", ".join(targets),
                notifiers=", ".join(rule.notify),
            )
        )
    print(_("notifiers:"))
    for notifier in alerting.notifiers.values():
        variables = ", ".join(
            (_("{variable} (set)") if os.environ.get(v) else _("{variable} (NOT SET)")).format(variable=v)
            for v in notifier.env_names
        )
        line = _("{name}: {type}, at most {count} messages per {period}; environment: {variables}").format(
            name=notifier.name,
            type=notifier.type,
            count=notifier.max_messages,
            period=format_duration(notifier.per_s),
            variables=variables or "-",
        )
        address = notifier.url or (os.environ.get(notifier.url_env) if notifier.url_env else None)
        if address:  # its path and query, where bots keep their token, never shown
            line = _("{notifier}; address {address}").format(notifier=line, address=mask_url(address))
        elif notifier.smtp_host:
            line = _("{notifier}; address {address}").format(
                notifier=line, address=f"smtp://{notifier.smtp_host}:{notifier.smtp_port}"
            )
        print("  " + line)
    resolve_secrets(alerting)
