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
from probes import limits
from probes.limits import format_duration

if TYPE_CHECKING:  # for annotations; `run` imports the scheduler when a plan runs
    from probes.alerts.engine import AlertWorker
    from probes.alerts.rules import Secrets
    from probes.metrics import ListenAddress
    from probes.plan import Plan
    from probes.scheduler import RoundHook, RoundReport, Scheduler
    from probes.store import Store
    from probes.store_location import StoreLocation


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "schedule",
        help=_("measure a plan's targets on a schedule, denser at peak hours"),
        description=_(
            "Run the rounds of a plan file until stopped (SIGTERM/SIGINT), storing each finished round."
        ),
    )
    p.add_argument("--plan", type=Path, required=True, help=_("the plan file (TOML)"))
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
    from probes.plan import load_plan

    plan = load_plan(args.plan)
    if args.check:
        return _check(plan)
    if args.status:
        return _status(plan, args.db)
    _check_metrics_address(args)
    secrets = _alert_secrets(plan)
    log_file = setup_logging(args.log_file or log_path(), args.quiet)
    store = _open_store(args.db)  # a store that cannot be used is said here, before anything is measured
    try:
        from probes.scheduler import Scheduler

        if args.once:
            alerts = _start_alerts(plan, store.path, secrets)
            try:
                scheduler = Scheduler(
                    plan, store, progress=ProgressLine(), hooks=[alerts.submit] if alerts else []
                )
                return _once(scheduler, log_file)
            finally:
                if alerts is not None:
                    alerts.close()
        metrics = _start_metrics(args, plan)
        alerts = _start_alerts(plan, store.path, secrets)
        try:
            hooks: list[RoundHook] = []
            if metrics is not None:
                hooks.append(metrics.observe)
            if alerts is not None:
                hooks.append(alerts.submit)
            return asyncio.run(_daemon(Scheduler(plan, store, hooks=hooks), args.grace, log_file))
        finally:
            if alerts is not None:
                alerts.close()
            if metrics is not None:
                metrics.stop()
    finally:
        store.close()


def _open_store(db: StoreLocation | None) -> Store:
    """The store, or one that connects at its first use when its server cannot be reached (said in the log:
    `desktop.usecases.schedule_store`)."""
    from desktop.usecases.schedule_store import open_schedule_store

    store, unreachable = open_schedule_store(db)
    if unreachable is not None:
        logging.getLogger("linkvet.schedule").warning(unreachable)
    return store


def _once(scheduler: Scheduler, log_file: LogFile) -> int:
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
            print(_("nothing was due: every target of the plan was measured recently enough (its `every`)"))
            log_file.check()
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
        print(_("stored round {round} in {store}").format(round=report.round_id, store=scheduler.store.path))
        log_file.check()
        return EXIT_OK if report.failed == 0 else EXIT_SOME_FAILED
    finally:
        scheduler.close()


async def _daemon(scheduler: Scheduler, grace_s: float, log_file: LogFile) -> int:
    from probes.store.delivery import unstored_error

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
    plan = scheduler.plan
    log.info(
        ngettext(
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
            store=scheduler.store.path,
        )
    )
    try:
        log_file.check()  # a log that cannot be written (/dev/full) is refused before the first round
        stored = await scheduler.run_until(stop, grace_s=grace_s)
    finally:
        scheduler.close()
    log.info(
        ngettext("stopped after {count} stored round", "stopped after {count} stored rounds", stored).format(
            count=stored
        )
    )
    log_file.check()
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


def _listen_address(text: str) -> ListenAddress:
    from probes.metrics import parse_listen

    try:
        return parse_listen(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _Metrics:
    """The scheduler's metrics and the server publishing them."""

    def __init__(self, plan: Plan, address: ListenAddress) -> None:
        from probes.metrics import MetricsServer, RoundMetrics

        self.metrics = RoundMetrics(plan.vantage, plan.name, (p.target for p in plan.targets))
        self.server = MetricsServer(self.metrics.registry, address)

    def observe(self, report: RoundReport) -> None:
        self.metrics.observe(report)

    def stop(self) -> None:
        self.server.stop()


def _check_metrics_address(args: argparse.Namespace) -> None:

    address: ListenAddress | None = args.metrics_listen
    if address is not None and not address.loopback and not args.metrics_public:
        raise UsageError(
            _(
                "--metrics-listen {address}: other hosts could read the metrics there; listen on a loopback "
                "address (127.0.0.1:9108) or add --metrics-public"
            ).format(address=address)
        )


def _start_metrics(args: argparse.Namespace, plan: Plan) -> _Metrics | None:

    address: ListenAddress | None = args.metrics_listen
    if address is None:
        return None
    metrics = _Metrics(plan, address)
    try:
        bound = metrics.server.start()
    except OSError as exc:
        raise EnvironmentRefused(
            _("--metrics-listen {address}: cannot listen there: {reason}").format(
                address=address, reason=exc.strerror or exc
            )
        ) from exc
    logging.getLogger("linkvet.schedule").info("serving Prometheus metrics at http://%s/metrics", bound)
    return metrics


def _alert_secrets(plan: Plan) -> dict[str, Secrets]:
    if not plan.alerting:
        return {}
    from probes.alerts.rules import resolve_secrets

    return resolve_secrets(plan.alerting)


def _start_alerts(plan: Plan, db: StoreLocation, secrets: dict[str, Secrets]) -> AlertWorker | None:
    """The alert worker (its own thread and store connection), when the plan has rules."""
    if not plan.alerting:
        return None
    from probes.alerts.engine import AlertWorker

    cadences = [plan.every_s, *(p.every_s for p in plan.targets if p.every_s is not None)]
    worker = AlertWorker(
        plan.alerting,
        db,
        plan=plan.name,
        vantage=plan.vantage,
        targets=[p.target for p in plan.targets],
        secrets=secrets,
        longest_cadence_s=max(cadences),
    )
    worker.start()
    logging.getLogger("linkvet.schedule").info(
        "alerts: %d rule(s), notifiers %s",
        len(plan.alerting.rules),
        ", ".join(sorted(plan.alerting.notifiers)),
    )
    return worker


def _status(plan: Plan, db: StoreLocation | None) -> int:
    """What an operator asks of an agent: is its store there, who holds the plan's lock, when did the last
    round arrive, and how many rounds wait in its spool (read without the store: the spool is local)."""
    from probes.errors import StoreError
    from probes.paths import default_spool_path
    from probes.scheduler import lock_name
    from probes.store import Store
    from probes.store.locks import LockHolder
    from probes.store.sqlite.spool import Spool
    from probes.store_location import exists, identity, location_or_default
    from probes.timestamps import iso_utc

    location = location_or_default(db)
    print(
        _("plan {plan} (vantage {vantage}), store {store}").format(
            plan=plan.name, vantage=plan.vantage or "-", store=location
        )
    )
    spool = Spool(default_spool_path())
    try:
        backlog = spool.backlog(identity(location))
    finally:
        spool.close()
    if backlog.rounds:
        print(
            ngettext(
                "spool: {count} round waiting ({samples} samples), spooled {oldest} ({spool})",
                "spool: {count} rounds waiting ({samples} samples), the oldest spooled {oldest} ({spool})",
                backlog.rounds,
            ).format(
                count=backlog.rounds,
                samples=backlog.samples,
                oldest=iso_utc(backlog.oldest_us or 0),
                spool=spool.path,
            )
        )
    else:
        print(_("spool: nothing waiting ({spool})").format(spool=spool.path))
    if not exists(location):
        print(_("store: none yet at {store} (the first stored round creates it)").format(store=location))
        return EXIT_OK
    try:
        store = Store(location, readonly=True)
    except StoreError as exc:
        print(_("store: not reachable: {reason}").format(reason=exc))
        raise
    with store:
        print(_("store: reachable, schema {version}").format(version=store.schema_version))
        row = store.backend.lock_row(lock_name(plan))
        if row is None:
            print(_("lock: free (no scheduler of this plan and vantage point runs against this store)"))
        elif row[6] == 0:
            print(_("lock: left by {holder}, who is gone").format(holder=LockHolder(*row).describe()))
        else:
            print(_("lock: held by {holder}").format(holder=LockHolder(*row).describe()))
        vantage = plan.vantage or None
        mine = [r for r in store.rounds(plan=plan.name, limit=500) if (r.vantage or None) == vantage]
        if mine:
            print(
                _("last stored round: {round}, finished {finished}").format(
                    round=mine[0].id, finished=iso_utc(mine[0].finished_us)
                )
            )
        else:
            print(_("last stored round: none of this plan and vantage point yet"))
    return EXIT_OK


def _check(plan: Plan) -> int:
    import time

    from probes.scheduler import cadence_at, next_slot

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
    moment = time.time()
    print(_("next rounds (UTC):"))
    for _slot in range(5):
        moment = next_slot(plan, moment)
        cadence = format_duration(cadence_at(plan, moment))
        print(
            f"  {datetime.fromtimestamp(moment, tz=UTC):%Y-%m-%d %H:%M:%S}  "
            + _("(cadence {cadence})").format(cadence=cadence)
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
