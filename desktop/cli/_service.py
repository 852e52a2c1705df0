"""What `linkvet schedule` and `linkvet agent` share: the options of a service (one round, a check, the
status, the grace on stop, the metrics server, the log, the store), one round run and printed, the daemon
until a signal, and a plan's check."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from desktop.cli._common import add_db_option, flag, path_given
from desktop.cli._format import ProgressLine, result_rows, table
from desktop.cli._logfile import LogFile
from desktop.cli._safe_text import printable
from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED, EnvironmentRefused, UsageError, context
from desktop.i18n import _, ngettext
from desktop.usecases.agent import Agent, next_rounds
from probes import limits
from probes.limits import format_duration

if TYPE_CHECKING:
    from probes.addresses import ListenAddress
    from probes.schedule.plan import Plan


def add_service_options(parser: argparse.ArgumentParser, *, once: str, check: str, status: str) -> None:
    """--once, --check and --status (with the command's own help), then --grace, the metrics server, the log
    and the store."""
    parser.add_argument("--once", action="store_true", help=once)
    parser.add_argument("--check", action="store_true", help=check)
    parser.add_argument("--status", action="store_true", help=status)
    parser.add_argument(
        "--grace",
        type=flag(limits.GRACE),
        default=10.0,
        metavar="S",
        help=_("on stop, seconds to let the round in flight finish before dropping it (default 10)"),
    )
    parser.add_argument(
        "--metrics-listen",
        type=listen_address,
        metavar="HOST:PORT",
        help=_(
            "serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9108; loopback only "
            "unless --metrics-public)"
        ),
    )
    parser.add_argument(
        "--metrics-public",
        action="store_true",
        help=_("allow --metrics-listen on an address other hosts can reach (e.g. 0.0.0.0:9108)"),
    )
    parser.add_argument(
        "--log-file", type=path_given, help=_("log file (default: linkvet.log in the user data directory)")
    )
    parser.add_argument("-q", "--quiet", action="store_true", help=_("log warnings and errors only"))
    add_db_option(parser)


def run_once(agent: Agent, log_file: LogFile) -> int:
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


async def daemon(agent: Agent, grace_s: float, log_file: LogFile, intro: str | None = None) -> int:
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


def listen_address(text: str) -> ListenAddress:
    from probes.addresses import parse_listen

    try:
        return parse_listen(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def check_metrics_address(args: argparse.Namespace) -> None:
    address: ListenAddress | None = args.metrics_listen
    if address is not None and not address.loopback and not args.metrics_public:
        raise UsageError(
            _(
                "--metrics-listen {address}: other hosts could read the metrics there; listen on a loopback "
                "address (127.0.0.1:9108) or add --metrics-public"
            ).format(address=address)
        )


def check_plan(plan: Plan) -> int:
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
