"""The scheduling agent: a plan and a store location become a scheduler wired with its spool, its lock, its
alerts (their secrets resolved first) and, where asked, its Prometheus metrics. `linkvet schedule` and the
window's scheduler run this one agent, so whether the window's scheduler alerts, serves metrics or spools is
decided here and nowhere else (Vorta builds a backup job once, in `BorgCreateJob.prepare`, for its button,
tray and scheduler alike).

    agent = Agent.prepare(plan, db, metrics=address)     # secrets, store, metrics server, alert worker
    try:
        stored = await agent.run_until(stop, grace_s=10)  # or: report = await agent.run_once()
    finally:
        agent.close()
    agent.unstored_problem()                              # the rounds not in the store, as an error

An office agent with no plan file (`linkvet agent`) is the same agent, its plan following the evaluations in
its store (`desktop.usecases.office_agent`):

    agent = Agent.follow(db, "shanghai", carrier="ct", metrics=address)

Also here, for `linkvet schedule --check` and `--status`: the plan's next rounds (`next_rounds`) and its
agent's standing in a store (`agent_status`). No Qt.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from desktop.i18n import _, ngettext
from probes.addresses import ListenAddress
from probes.errors import StoreError, UnstoredRoundsError
from probes.results import ProgressHook
from probes.schedule.plan import Plan
from probes.schedule.report import RoundHook, RoundReport
from probes.store_location import StoreLocation

if TYPE_CHECKING:
    from desktop.usecases.office_agent import Follower
    from desktop.usecases.report_schedule import ScheduledReports
    from probes.alerts.engine import AlertWorker
    from probes.alerts.rules import Secrets
    from probes.schedule.metrics import MetricsServer
    from probes.schedule.scheduler import Scheduler
    from probes.store import Store

log = logging.getLogger("linkvet.schedule")


class RoundWatcher(Protocol):
    """What judges the rounds beside the scheduler (an alert worker, an office agent's evaluations' alerts)."""

    def submit(self, report: RoundReport) -> None: ...

    def close(self) -> None: ...


class MetricsAddressRefused(ValueError):
    """`--metrics-listen` cannot be served where asked (another program has the port, no such address)."""


class Agent:
    """A plan's scheduler with everything it is wired to. Build it with `prepare`; close it when done."""

    def __init__(
        self,
        scheduler: Scheduler,
        store: Store,
        *,
        alerts: RoundWatcher | None,
        metrics: MetricsServer | None,
        unreachable: str | None,
        follower: Follower | None = None,
    ) -> None:
        self.scheduler = scheduler
        self.store = store
        self.alerts = alerts
        self.metrics = metrics
        # An office agent's: what reads the evaluations before each round and says the agent's health.
        self.follower = follower
        # The store's server could not be reached at the start: the sentence that says the rounds wait in
        # the spool until it is back (None when the store was opened).
        self.unreachable = unreachable
        self.reports: ScheduledReports | None = None  # the plan's scheduled report, when it has one

    @classmethod
    def prepare(
        cls,
        plan: Plan,
        location: StoreLocation | None,
        *,
        metrics: ListenAddress | None = None,
        progress: ProgressHook | None = None,
    ) -> Agent:
        """Resolve the alerts' secrets (a missing one is a PlanError before anything starts), open the store
        (a PostgreSQL server that cannot be reached: measure into the spool until it is back), start the
        metrics server and the alert worker, and build the scheduler with them as its round hooks."""
        from desktop.usecases.report_schedule import scheduled_reports
        from desktop.usecases.schedule_store import open_schedule_store
        from probes.schedule.scheduler import Scheduler

        secrets = _alert_secrets(plan)
        store, unreachable = open_schedule_store(location)
        if unreachable is not None:
            log.warning(unreachable)
        server: MetricsServer | None = None
        alerts: AlertWorker | None = None
        try:
            hooks: list[RoundHook] = []
            if metrics is not None:
                server, observe = _start_metrics(plan, metrics)
                hooks.append(observe)
            if plan.alerting:
                alerts = _start_alerts(plan, store.path, secrets)
                hooks.append(alerts.submit)
            reports = scheduled_reports(plan, store.path)  # the plan's [report]: written at its hour
            if reports is not None:
                hooks.append(reports.after_round)
            scheduler = Scheduler(plan, store, progress=progress, hooks=hooks)
        except BaseException:
            if alerts is not None:
                alerts.close()
            if server is not None:
                server.stop()
            store.close()
            raise
        agent = cls(scheduler, store, alerts=alerts, metrics=server, unreachable=unreachable)
        agent.reports = reports
        return agent

    @classmethod
    def follow(
        cls,
        location: StoreLocation | None,
        vantage: str | None,
        *,
        carrier: str | None = None,
        metrics: ListenAddress | None = None,
        progress: ProgressHook | None = None,
    ) -> Agent:
        """An office agent with no plan file: it measures the evaluations of the store that name `vantage`
        (None: those that name no office, from this machine), following their changes before each round, its
        health said in the store (`desktop.usecases.office_agent`); their alert rules judged with the
        evaluations' names (`desktop.usecases.agent_alerts`). Opened like `prepare` (a server that cannot be
        reached: measure into the spool, from the plans kept last time)."""
        from desktop.usecases.agent_alerts import EvaluationAlerts
        from desktop.usecases.office_agent import AGENT_PLAN, Follower
        from desktop.usecases.schedule_store import open_schedule_store
        from probes.schedule.scheduler import Scheduler

        store, unreachable = open_schedule_store(location)
        if unreachable is not None:
            log.warning(unreachable)
        alerts = EvaluationAlerts(store.path, vantage, rounds_plan=AGENT_PLAN)
        server: MetricsServer | None = None
        try:
            follower = Follower(store.path, vantage, carrier=carrier, alerts=alerts)
            plan = follower.start(store).merged
            hooks: list[RoundHook] = [follower.observe, alerts.submit]
            if metrics is not None:
                server, observe = _start_metrics(plan, metrics)
                hooks.append(observe)
            scheduler = Scheduler(
                plan,
                store,
                progress=progress,
                hooks=hooks,
                replan=functools.partial(follower.replan, store),
                what=f"linkvet agent --vantage {vantage or '-'}",
            )
            follower.attach(store, scheduler.writer, scheduler.writer.delivery.waiting)
        except BaseException:
            alerts.close()
            if server is not None:
                server.stop()
            store.close()
            raise
        return cls(
            scheduler, store, alerts=alerts, metrics=server, unreachable=unreachable, follower=follower
        )

    @property
    def plan(self) -> Plan:
        return self.scheduler.plan

    async def run_once(self) -> RoundReport:
        """One round now, under the plan's lock (not beside a running agent of the same plan and office)."""
        await self.scheduler.take_lock()
        try:
            return await self.scheduler.run_once()
        finally:
            await self.scheduler.release_lock()

    async def run_until(
        self,
        stop: asyncio.Event,
        *,
        grace_s: float = 10.0,
        on_round: Callable[[RoundReport], None] | None = None,
    ) -> int:
        """Rounds until `stop` is set (the round in flight gets `grace_s` to finish); the rounds stored."""
        return await self.scheduler.run_until(stop, grace_s=grace_s, on_round=on_round)

    def report_problem(self, report: RoundReport) -> UnstoredRoundsError | None:
        """After `run_once`: the error that says the round is not in the store (spooled or lost), or None."""
        if report.store_error is None:
            return None
        return self._unstored(
            spooled=self.scheduler.writer.delivery.waiting(), lost=self.scheduler.writer.lost
        )

    def unstored_problem(self) -> UnstoredRoundsError | None:
        """After `run_until`: the error that says how many measured rounds are not in the store, or None."""
        unstored = self.scheduler.unstored
        if not unstored:
            return None
        lost = self.scheduler.writer.lost
        return self._unstored(spooled=unstored - lost, lost=lost)

    @property
    def lock_lost(self) -> bool:
        """Another agent of the same plan and office took the lock over: this one stopped."""
        return self.scheduler.lock_lost

    def _unstored(self, *, spooled: int, lost: int) -> UnstoredRoundsError:
        from probes.store.delivery import unstored_error

        return unstored_error(
            str(self.store.path), self.scheduler.spool, spooled=spooled, lost=lost, reason=None
        )

    def close(self) -> None:
        """Stop the scheduler's writer (what it holds goes to the spool or the store), then the alert worker,
        the metrics server and the store."""
        try:
            self.scheduler.close()
            if self.follower is not None:  # the store thread is done: the last word on the agent's health
                self.follower.say_health(self.store)
        finally:
            if self.reports is not None:
                self.reports.close()
            if self.alerts is not None:
                self.alerts.close()
            if self.metrics is not None:
                self.metrics.stop()
            self.store.close()


# -- wiring ------------------------------------------------------------------------------------------------


def _alert_secrets(plan: Plan) -> dict[str, Secrets]:
    if not plan.alerting:
        return {}
    from probes.alerts.rules import resolve_secrets

    return resolve_secrets(plan.alerting)


def _start_metrics(plan: Plan, address: ListenAddress) -> tuple[MetricsServer, Callable[[RoundReport], None]]:
    from probes.schedule.metrics import MetricsServer, RoundMetrics

    metrics = RoundMetrics(plan.vantage, plan.name, (p.target for p in plan.targets))
    server = MetricsServer(metrics.registry, address)
    try:
        bound = server.start()
    except OSError as exc:
        raise MetricsAddressRefused(
            _("--metrics-listen {address}: cannot listen there: {reason}").format(
                address=address, reason=exc.strerror or exc
            )
        ) from exc
    log.info(_("serving Prometheus metrics at http://{address}/metrics").format(address=bound))
    return server, metrics.observe


def _start_alerts(plan: Plan, db: StoreLocation, secrets: dict[str, Secrets]) -> AlertWorker:
    """The alert worker (its own thread and store connection)."""
    from probes.alerts.engine import AlertWorker

    assert plan.alerting is not None
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
    log.info(
        ngettext(
            "alerts: {count} rule, notifiers {notifiers}",
            "alerts: {count} rules, notifiers {notifiers}",
            len(plan.alerting.rules),
        ).format(count=len(plan.alerting.rules), notifiers=", ".join(sorted(plan.alerting.notifiers)))
    )
    return worker


# -- what `--check` and `--status` show ----------------------------------------------------------------------


def next_rounds(plan: Plan, count: int = 5, after_s: float | None = None) -> list[tuple[float, float]]:
    """The plan's next `count` round starts after `after_s` (now by default): (UTC seconds, cadence s)."""
    from probes.schedule.timetable import cadence_at, next_slot

    moment = time.time() if after_s is None else after_s
    out = []
    for _slot in range(count):
        moment = next_slot(plan, moment)
        out.append((moment, cadence_at(plan, moment)))
    return out


@dataclass(frozen=True, slots=True)
class AgentStatus:
    """A plan's agent as its store and spool see it."""

    store: str  # where the store is (without its password)
    spool: str
    spooled_rounds: int
    spooled_samples: int
    oldest_spooled_us: int | None
    store_exists: bool
    schema_version: int | None = None
    lock: str | None = None  # None: free; else who holds it, or left it
    lock_alive: bool = False
    last_round: tuple[int, int] | None = None  # (round id, finished µs) of this plan and office
    unreachable: StoreError | None = None  # why the store could not be read (the spool's figures stand)


def agent_status(plan: Plan, db: StoreLocation | None) -> AgentStatus:
    """Is the store there, who holds the plan's lock, when did its last round arrive, how many rounds wait in
    the spool (read without the store: the spool is local, so it is told when the store cannot be read)."""
    from probes.paths import default_spool_path
    from probes.schedule.timetable import lock_name
    from probes.store import Store
    from probes.store.locks import LockHolder
    from probes.store.sqlite.spool import Spool
    from probes.store_location import exists, identity, location_or_default

    location = location_or_default(db)
    spool = Spool(default_spool_path())
    try:
        backlog = spool.backlog(identity(location))
    finally:
        spool.close()
    status = AgentStatus(
        str(location),
        str(spool.path),
        backlog.rounds,
        backlog.samples,
        backlog.oldest_us,
        store_exists=exists(location),
    )
    if not status.store_exists:
        return status
    try:
        store = Store(location, readonly=True)
    except StoreError as exc:
        return replace(status, unreachable=exc)
    with store:
        row = store.backend.lock_row(lock_name(plan))
        holder = None if row is None else LockHolder(*row).describe()
        vantage = plan.vantage or None
        mine = [r for r in store.rounds(plan=plan.name, limit=500) if (r.vantage or None) == vantage]
        return AgentStatus(
            status.store,
            status.spool,
            status.spooled_rounds,
            status.spooled_samples,
            status.oldest_spooled_us,
            store_exists=True,
            schema_version=store.schema_version,
            lock=holder,
            lock_alive=row is not None and row[6] != 0,
            last_round=(mine[0].id, mine[0].finished_us) if mine else None,
        )
