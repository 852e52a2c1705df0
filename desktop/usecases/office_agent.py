"""An office agent that needs only the store and its office's name (`linkvet agent`): it measures every
evaluation in the store that names its office (an agent without an office: the evaluations that name none, as
this machine), each as that evaluation's plan says (`desktop.usecases.evaluation_plan`: its candidates'
endpoints, methods, cadences and peak windows, with the catalogs and the team's facts), merged into one
schedule, and follows every change without a restart.

    agent = Agent.follow(db, "shanghai", carrier="ct")     # desktop.usecases.agent: spool, lock, metrics
    stored = await agent.run_until(stop)

Before each round (in the scheduler's store thread) the follower reads the evaluations again, and the catalogs
when the team's facts or the user's catalog folder changed, and the round measures what they say now: a
candidate added is in the next round, one removed is not, a window changed moves the cadence. It also says how
the agent is (`Store.put_agent`: last round, rounds waiting in its spool, version, host, pid, carrier) for each
evaluation it measures, before each round and after each stored one, so `linkvet eval show` and the window
list every office's agent.

The merged schedule
    Each evaluation's plan keeps its own cadence: a target is measured at most as often as its evaluation says
    at that moment (`probes.schedule.plan.OwnCadence`), on one timetable (the fastest cadence, the union of the
    peak windows). A target is one (address, method) with its labels (provider, region, claimed line type):
    the same target in two evaluations with the same labels is one series, measured once per round; the same
    address under two candidates' labels is probed once per round and its result stored under each label set
    (`probes.schedule.scheduler`), so each candidate's evidence is whole.
    The rounds are the plan `agent` of the office (one lock per office and store: a second agent of the same
    office refuses to start, naming the first); the round's metadata names the evaluations.

When the store cannot be read (a PostgreSQL server that is away) the agent measures what it measured last; it
starts from the plans it kept last time (a small file in the data directory) when the server is away at its
start, and measures into the spool until the server is back. The evaluations' alert rules run in
`desktop.usecases.agent_alerts`. No Qt.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import socket
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catalogs.errors import CatalogError
from catalogs.evaluation.model import Evaluation, parse_evaluation
from catalogs.loader import CatalogSet
from desktop.i18n import _, ngettext
from desktop.usecases.evaluation_plan import plan_document
from probes.errors import PlanError, StoreError
from probes.schedule.plan import OwnCadence, Plan, PlannedTarget, parse_plan
from probes.store_location import StoreLocation, StoreUrl, identity
from probes.timestamps import now_us
from probes.vantage import THIS_MACHINE

if TYPE_CHECKING:
    from desktop.usecases.agent_alerts import EvaluationAlerts
    from probes.schedule.report import RoundReport
    from probes.store import Store
    from probes.store.writer import StoreWriter

log = logging.getLogger("linkvet.agent")

AGENT_PLAN = "agent"  # the plan name of an office agent's rounds
IDLE_EVERY_S = 60.0  # with nothing to measure, how often the store is asked again


def followed(evaluations: Iterable[Evaluation], vantage: str | None) -> list[Evaluation]:
    """The evaluations an agent of office `vantage` measures: those that name it; without an office, those that
    name none (measured from this machine). By name."""
    if vantage is None:
        mine = [e for e in evaluations if not e.offices]
    else:
        mine = [e for e in evaluations if e.office(vantage) is not None]
    return sorted(mine, key=lambda e: e.name)


def merged_plan(plans: Mapping[str, Plan], vantage: str | None) -> Plan:
    """One plan of every evaluation's plan (see the module docstring): each target once per label set, with
    its evaluation's cadence (the faster where two evaluations share it), on the fastest timetable."""
    if not plans:
        return Plan(
            path=_("agent: no evaluation to measure"),
            name=AGENT_PLAN,
            vantage=vantage,
            every_s=IDLE_EVERY_S,
            peak_every_s=IDLE_EVERY_S,
            peak_windows=(),
            targets=(),
        )
    targets: dict[tuple[str, str | None, str | None, str | None], PlannedTarget] = {}
    for name in sorted(plans):
        plan = plans[name]
        own = OwnCadence(plan.every_s, plan.peak_every_s, plan.peak_windows)
        for planned in plan.targets:
            t = planned.target
            ident = (t.key, t.provider, t.region, t.line_type)
            before = targets.get(ident)
            if before is None:
                targets[ident] = PlannedTarget(t, planned.every_s, own)
            else:
                targets[ident] = PlannedTarget(
                    before.target, _faster(before.every_s, planned.every_s), _either(before.own, own)
                )
    first = plans[min(plans)]
    windows = {str(w): w for plan in plans.values() for w in plan.peak_windows}
    return Plan(
        path=_("agent: {evaluations}").format(evaluations=", ".join(sorted(plans))),
        name=AGENT_PLAN,
        vantage=vantage,
        every_s=min(p.every_s for p in plans.values()),
        peak_every_s=min(p.peak_every_s for p in plans.values()),
        peak_windows=tuple(windows.values()),
        targets=tuple(targets.values()),
        options=first.options,
        gap_ms=min(p.gap_ms for p in plans.values()),
        concurrency=max(p.concurrency for p in plans.values()),
    )


def _faster(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else min(a, b)


def _either(a: OwnCadence | None, b: OwnCadence) -> OwnCadence:
    if a is None:
        return b
    windows = {str(w): w for w in (*a.peak_windows, *b.peak_windows)}
    return OwnCadence(min(a.every_s, b.every_s), min(a.peak_every_s, b.peak_every_s), tuple(windows.values()))


# -- what the agent keeps between starts -------------------------------------------------------------------


def cache_path(location: StoreLocation, vantage: str | None) -> Path:
    """Where an agent keeps the plans it measured last (the data directory; one file per store and office)."""
    from probes.paths import data_dir

    digest = hashlib.sha256(f"{identity(location)}\n{vantage or ''}".encode()).hexdigest()[:16]
    return data_dir() / f"linkvet-agent-{digest}.json"


def _save_cache(path: Path, texts: Mapping[str, str]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"version": 1, "plans": dict(texts)}), encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        log.warning(_("could not keep the agent's plans in {file}: {reason}").format(file=path, reason=exc))


def _load_cache(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    plans = data.get("plans") if isinstance(data, dict) and data.get("version") == 1 else None
    if not isinstance(plans, dict):
        return {}
    return {str(k): v for k, v in plans.items() if isinstance(v, str)}


# -- following the store ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Following:
    """What an agent measures now: each evaluation's plan, and the merged one."""

    plans: Mapping[str, Plan]
    merged: Plan


class Follower:
    """Reads what an agent of `vantage` measures from the store, and says how the agent is there. Used from the
    scheduler's store thread once the agent runs (`replan`), from the caller's before."""

    def __init__(
        self,
        location: StoreLocation,
        vantage: str | None,
        *,
        carrier: str | None = None,
        alerts: EvaluationAlerts | None = None,
        remember: bool = True,
    ) -> None:
        self.location = location
        self.remember = remember  # keep the plans for a start with the store away
        self.vantage = vantage
        self.carrier = carrier
        self.alerts = alerts
        self.cache = cache_path(location, vantage)
        self.texts: dict[str, str] = {}
        self.plans: dict[str, Plan] = {}
        self.offices: dict[str, int] = {}
        self.last_round_us: int | None = None
        self.spooled: Callable[[], int] = lambda: 0
        self._writer: StoreWriter | None = None
        self._store: Store | None = None
        self._catalogs: CatalogSet | None = None
        self._catalog_mark: object = None
        self._said: set[str] = set()  # problems logged already (each once, not every round)
        self._store_away = False

    # -- the plan ------------------------------------------------------------------------------------------

    def start(self, store: Store) -> Following:
        """What to measure first: from the store, or (its server away) from the plans kept last time."""
        try:
            return self.follow(store)
        except StoreError as exc:
            texts = _load_cache(self.cache)
            log.warning(
                ngettext(
                    "cannot read the evaluations from the store ({reason}): measuring the {count} evaluation "
                    "this agent measured last ({file}) until it answers",
                    "cannot read the evaluations from the store ({reason}): measuring the {count} evaluations "
                    "this agent measured last ({file}) until it answers",
                    len(texts),
                ).format(reason=exc, count=len(texts), file=self.cache)
            )
            self._store_away = True
            plans = {}
            for name, text in texts.items():
                try:
                    plans[name] = parse_plan(text, f"evaluation {name}")
                except PlanError as problem:
                    log.error(str(problem))
            self.texts, self.plans = {n: texts[n] for n in plans}, plans
            if self.alerts is not None:
                self.alerts.update(plans, self.offices)
            return Following(plans, merged_plan(plans, self.vantage))

    def replan(self, store: Store) -> Plan | None:
        """Before each round (store thread): the merged plan as the store says now (None: as it was, the
        store being away), and the agent's health said there."""
        try:
            following = self.follow(store)
        except StoreError as exc:
            if not self._store_away:
                log.warning(
                    _("cannot read the evaluations from the store ({reason}): measuring as before").format(
                        reason=exc
                    )
                )
            self._store_away = True
            return None
        if self._store_away:
            log.info(_("the store answers again: following its evaluations"))
            self._store_away = False
        self.say_health(store)
        return following.merged

    def follow(self, store: Store) -> Following:
        """The evaluations of this office in the store, each one's plan (StoreError when it cannot be read)."""
        evaluations = []
        for document in store.evaluations():
            try:
                evaluations.append(
                    parse_evaluation(document.body, f"{store.path} (evaluation {document.name})")
                )
            except CatalogError as exc:
                self._once(f"doc:{document.name}:{document.updated_us}", str(exc))
        mine = followed(evaluations, self.vantage)
        catalogs = self.catalogs(store)
        texts: dict[str, str] = {}
        plans: dict[str, Plan] = {}
        for evaluation in mine:
            self._check_carrier(evaluation)
            planned = self._plan(evaluation, catalogs)
            if planned is not None:
                texts[evaluation.name], plans[evaluation.name] = planned
        self.offices = {e.name: len(e.offices) or 1 for e in mine}
        if texts != self.texts:
            self._changed(plans)
            if self.remember:
                _save_cache(self.cache, texts)
            self.texts, self.plans = texts, plans
            if self.alerts is not None:
                self.alerts.update(plans, self.offices)
        return Following(self.plans, merged_plan(self.plans, self.vantage))

    def _plan(self, evaluation: Evaluation, catalogs: CatalogSet) -> tuple[str, Plan] | None:
        """The evaluation's plan document and plan (without its alerts when a rule selects no target, said
        once); None when it has no plan at all (said)."""
        where = f"evaluation {evaluation.name}"
        try:
            text = plan_document(evaluation, catalogs, self.vantage)
            return text, parse_plan(text, where)
        except PlanError as exc:
            if not evaluation.schedule.alerts:
                self._once(f"plan:{evaluation.name}:{exc}", str(exc))
                return None
            self._once(
                f"alerts:{evaluation.name}:{exc}",
                _("the alerts of evaluation {name} are left out: {reason}").format(
                    name=evaluation.name, reason=exc
                ),
            )
        try:
            text = plan_document(evaluation, catalogs, self.vantage, alerts=False)
            return text, parse_plan(text, where)
        except PlanError as exc:
            self._once(f"plan:{evaluation.name}:{exc}", str(exc))
            return None

    def catalogs(self, store: Store) -> CatalogSet:
        """The catalogs (bundled, the user's folder, the team's facts in the store), loaded again only when the
        team's facts or the folder changed since."""
        from catalogs.user import TeamFacts, load_with_user, user_catalog_dir

        team_store = isinstance(self.location, StoreUrl)
        folder = user_catalog_dir()
        mark = (store.last_vendor_fact_id() if team_store else 0, _folder_mark(folder))
        if self._catalogs is not None and mark == self._catalog_mark:
            return self._catalogs
        team = None
        if team_store:
            from desktop.usecases.overlay_home import read_team_overlays, team_label

            assert isinstance(self.location, StoreUrl)
            overlays, problems = read_team_overlays(store)
            for problem in problems:
                self._once(f"fact:{problem}", str(problem))
            team = TeamFacts(team_label(self.location), {p: o.overlay for p, o in overlays.items()})
        loaded = load_with_user(team=team)
        for error in loaded.errors:
            self._once(f"catalog:{error}", _("skipped: {problem}").format(problem=error))
        self._catalogs, self._catalog_mark = loaded, mark
        return loaded

    def _changed(self, plans: Mapping[str, Plan]) -> None:
        if not plans:
            log.warning(
                _("no evaluation in the store names the office {office}: waiting for one").format(
                    office=self.vantage or THIS_MACHINE
                )
                if self.vantage
                else _(
                    "no evaluation in the store measures from this machine (names no office): waiting for one"
                )
            )
            return
        described = ", ".join(
            ngettext("{name} ({count} target)", "{name} ({count} targets)", len(p.targets)).format(
                name=name, count=len(p.targets)
            )
            for name, p in sorted(plans.items())
        )
        log.info(_("measuring for {evaluations}").format(evaluations=described))

    def _check_carrier(self, evaluation: Evaluation) -> None:
        office = evaluation.office(self.vantage) if self.vantage else None
        if office is None or office.carrier is None or self.carrier is None or office.carrier == self.carrier:
            return
        self._once(
            f"carrier:{evaluation.name}:{office.carrier}",
            _(
                "evaluation {name} says the office {office} is on {said}; this agent was started with --carrier "
                "{carrier}"
            ).format(name=evaluation.name, office=office.name, said=office.carrier, carrier=self.carrier),
        )

    def _once(self, key: str, message: str) -> None:
        if key not in self._said:
            self._said.add(key)
            log.error(message)

    # -- the agent's health ---------------------------------------------------------------------------------

    def attach(self, store: Store, writer: StoreWriter, spooled: Callable[[], int]) -> None:
        """The running scheduler's store, its writer (whose store thread says the health after each round)
        and how many rounds wait in its spool."""
        self._store, self._writer, self.spooled = store, writer, spooled

    def observe(self, report: RoundReport) -> None:
        """A round hook (event loop): the last measured round, said in the store by the store thread."""
        if report.results:
            self.last_round_us = report.finished_us
        if self._writer is not None and self._store is not None:
            self._writer.submit(functools.partial(self.say_health, self._store))

    def say_health(self, store: Store) -> None:
        """Say in the store, for each evaluation measured, how this agent is (store thread); a store that
        refuses is logged, never raised (the rounds go on)."""
        from probes import __version__
        from probes.store import AgentHealth

        now = now_us()
        try:
            for name in sorted(self.plans):
                store.put_agent(
                    AgentHealth(
                        self.vantage or THIS_MACHINE,
                        name,
                        socket.gethostname(),
                        os.getpid(),
                        __version__,
                        self.last_round_us,
                        self.spooled(),
                        now,
                        self.carrier,
                    )
                )
        except StoreError as exc:
            log.debug("could not say the agent's health: %s", exc)


def _folder_mark(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """What changes when a file of the user's catalog folder does (names, sizes, modification times)."""
    try:
        entries = sorted(folder.iterdir()) if folder.is_dir() else []
        return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in entries if p.is_file())
    except OSError:
        return ()


def current_following(db: StoreLocation | None, vantage: str | None) -> Following:
    """What an agent of `vantage` would measure now (`linkvet agent --check`): StoreError when the store cannot
    be read."""
    from probes.store import Store
    from probes.store_location import location_or_default

    location = location_or_default(db)
    with Store(location) as store:
        return Follower(location, vantage, remember=False).follow(store)
