"""The alert rules of the evaluations an office agent follows (`desktop.usecases.office_agent`): one alert
worker (`probes.alerts.engine.AlertWorker`) per evaluation with `[[alerts]]`, its states kept under the
evaluation's name and the agent's office, so that every office's agent of an evaluation shares a rule's states
in the store and a rule that needs several offices (`offices = N`) is told once for them all.

A worker is started when an evaluation gets rules, started again when its rules or its targets change (a
candidate added), and stopped when the evaluation is no longer followed; each round's results go to each
evaluation's worker, only those of its own targets and labels. A notifier's environment variable that is not
set on this machine turns that evaluation's alerts off here (said once in the log; the other evaluations
alert on); a worker that could not open the store (its server down at the start) is started again at most
every `RESTART_S`. All of it in a thread of its own: starting a worker reads the store, stopping one waits for
its deliveries, and neither may hold up probing or the scheduler's store thread.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from desktop.i18n import _, ngettext
from probes.errors import PlanError
from probes.schedule.plan import Plan
from probes.schedule.report import RoundReport
from probes.store_location import StoreLocation

if TYPE_CHECKING:
    from probes.alerts.engine import AlertWorker

log = logging.getLogger("linkvet.alerts")

RESTART_S = 300.0
Labels = tuple[str, str | None, str | None, str | None]  # a target's key, provider, region and line type


@dataclass(frozen=True, slots=True)
class _Followed:
    plans: Mapping[str, Plan]
    offices: Mapping[str, int]


@dataclass
class _Running:
    plan: Plan
    labels: frozenset[Labels]
    worker: AlertWorker | None  # None: could not start (its notifiers' secrets are not set here)
    started: float


def labels_of(plan: Plan) -> frozenset[Labels]:
    return frozenset((t.key, t.provider, t.region, t.line_type) for t in (p.target for p in plan.targets))


class EvaluationAlerts:
    """The alert workers of an office agent's evaluations (see the module docstring); `submit` is a round hook,
    `update` takes the evaluations' plans as followed now (both only queue)."""

    def __init__(self, location: StoreLocation, vantage: str | None, *, rounds_plan: str) -> None:
        self.location = location
        self.vantage = vantage
        self.rounds_plan = rounds_plan
        self._queue: queue.Queue[RoundReport | _Followed | None] = queue.Queue()
        self._running: dict[str, _Running] = {}
        self._refused: set[tuple[str, str]] = set()  # (evaluation, why): said once
        self._thread = threading.Thread(target=self._run, name="linkvet-agent-alerts", daemon=True)
        self._thread.start()

    def update(self, plans: Mapping[str, Plan], offices: Mapping[str, int]) -> None:
        """The evaluations followed now: their plans (with their rules) and how many offices each has."""
        self._queue.put_nowait(_Followed(dict(plans), dict(offices)))

    def submit(self, report: RoundReport) -> None:
        self._queue.put_nowait(report)

    def close(self, timeout_s: float = 30.0) -> None:
        """Stop every worker (each judges what it was given and tries what is due once more)."""
        self._queue.put_nowait(None)
        self._thread.join(timeout=timeout_s)

    def evaluations(self) -> list[str]:
        """The evaluations whose alerts run here now."""
        return sorted(name for name, running in self._running.items() if running.worker is not None)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                break
            try:
                if isinstance(item, _Followed):
                    self._follow(item.plans, item.offices)
                else:
                    self._dispatch(item)
            except Exception:
                log.exception(_("the alert workers of the agent hit an error (they carry on)"))
        for running in self._running.values():
            if running.worker is not None:
                running.worker.close()

    def _follow(self, plans: Mapping[str, Plan], offices: Mapping[str, int]) -> None:
        for name in [n for n in self._running if n not in plans or not plans[n].alerting]:
            self._stop(name)
        for name, plan in plans.items():
            if not plan.alerting:
                continue
            running = self._running.get(name)
            labels = labels_of(plan)
            if running is not None and running.plan.alerting == plan.alerting and running.labels == labels:
                dead = running.worker is not None and not running.worker.running
                if not dead or time.monotonic() - running.started < RESTART_S:
                    continue
            self._stop(name)
            self._running[name] = _Running(
                plan, labels, self._start(name, plan, offices.get(name)), time.monotonic()
            )

    def _start(self, name: str, plan: Plan, offices: int | None) -> AlertWorker | None:
        from probes.alerts.engine import AlertWorker
        from probes.alerts.rules import resolve_secrets

        assert plan.alerting is not None
        try:
            secrets = resolve_secrets(plan.alerting)
        except PlanError as exc:
            if (name, str(exc)) not in self._refused:
                self._refused.add((name, str(exc)))
                log.error(
                    _("the alerts of evaluation {name} are off on this agent: {reason}").format(
                        name=name, reason=exc
                    )
                )
            return None
        cadences = [plan.every_s, *(p.every_s for p in plan.targets if p.every_s is not None)]
        worker = AlertWorker(
            plan.alerting,
            self.location,
            plan=name,
            vantage=self.vantage,
            targets=[p.target for p in plan.targets],
            secrets=secrets,
            longest_cadence_s=max(cadences),
            rounds_plan=self.rounds_plan,
            office_count=offices,
        )
        worker.start()
        count = len(plan.alerting.rules)
        log.info(
            ngettext(
                "alerts of evaluation {name}: {count} rule, notifiers {notifiers}",
                "alerts of evaluation {name}: {count} rules, notifiers {notifiers}",
                count,
            ).format(name=name, count=count, notifiers=", ".join(sorted(plan.alerting.notifiers)))
        )
        return worker

    def _stop(self, name: str) -> None:
        running = self._running.pop(name, None)
        if running is not None and running.worker is not None:
            running.worker.close()

    def _dispatch(self, report: RoundReport) -> None:
        for running in self._running.values():
            if running.worker is None:
                continue
            mine = tuple(
                r
                for r in report.results
                if (r.target.key, r.target.provider, r.target.region, r.target.line_type) in running.labels
            )
            if mine:
                running.worker.submit(replace(report, results=mine))
