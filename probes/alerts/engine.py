"""The alert engine: judges each round against the plan's rules, records each change of an alert's state in
the store together with the notifications it queues, and delivers what is due.

- An alert (a rule on a target) is `ok` or `firing`. Only a change is told: firing once when it starts,
  resolved once when it ends; a restart reads the states back, so it neither repeats nor forgets one.
- A notification waits in the store's outbox until its notifier accepts it. A failure is logged and
  retried after 10 s, 20 s, 40 s, … (at most 15 min apart), up to the notifier's `attempts`; then it is
  dropped with an error in the log.
- Rate limit: at most `max_messages` messages per notifier in any `per` period. Notifications held by it
  (or due together) go out as one message listing them all (up to 50 at a time).
- A rule that needs several offices (`offices = N`) tells nothing for one office: each agent records its own
  office's state, and in the same transaction the ledger settles the offices' shared state
  (`probes.store.alerts`): one notification when N offices see it at once, naming them, and one when fewer
  do. The agent whose change settles it queues the notification and delivers it.

`AlertEngine` is synchronous and owns no thread; `AlertWorker` runs one in a thread of its own with a store
connection of its own, fed by the scheduler's round hook through a queue, so neither judging, the store nor
a slow webhook ever holds up probing, and nothing it raises reaches the scheduler.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from probes.alerts import delivery, history, messages
from probes.alerts.judge import Point, RuleReading, counts, judge, judge_no_data, point_for
from probes.alerts.rules import Alerting, AlertRule, Notifier, Secrets
from probes.errors import DeliveryError, StoreError
from probes.i18n import _, ngettext
from probes.store import Store
from probes.store.alerts import FIRING, OK, Agreement, AlertLedger, AlertState, OutboxEntry
from probes.store_location import StoreLocation
from probes.target import Target

if TYPE_CHECKING:
    from probes.schedule.report import RoundReport

log = logging.getLogger("linkvet.alerts")

BATCH = 50
Sender = Callable[[Notifier, Secrets, Sequence[dict[str, Any]]], None]


class AlertEngine:
    def __init__(
        self,
        alerting: Alerting,
        store: Store,
        *,
        plan: str,
        vantage: str | None,
        targets: Sequence[Target],
        secrets: Mapping[str, Secrets],
        longest_cadence_s: float = 3600.0,
        clock: Callable[[], float] = time.time,
        send: Sender = delivery.send,
        retry_base_s: float = 10.0,
        retry_max_s: float = 900.0,
        rounds_plan: str | None = None,
        office_count: int | None = None,
    ) -> None:
        """`plan` names the rules' states (an evaluation's name, for an office agent); `rounds_plan` the plan
        of the rounds whose results the rules read back at a restart (default `plan`); `office_count` how
        many offices a rule that needs several can hear from (default: those that have a state for it)."""
        self.rules = alerting.rules
        self.notifiers = alerting.notifiers
        self.secrets = secrets
        self.plan = plan
        self.vantage = vantage
        self.targets = {t.key: t for t in targets}
        self.clock = clock
        self.send = send
        self.retry_base_s = retry_base_s
        self.retry_max_s = retry_max_s
        self.office_count = office_count
        self.ledger = AlertLedger(store, plan, vantage)
        self.states = self.ledger.states()
        self.started_us = self._now_us()
        since = self.started_us - int(history.lookback_s(self.rules, longest_cadence_s) * 1e6)
        seeded, self.last_data = history.seed(
            store, self.rules, list(self.targets), plan=rounds_plan or plan, vantage=vantage, since_us=since
        )
        self.points: dict[tuple[str, str], deque[Point]] = {}
        for rule in self.rules:
            for key in rule.target_keys:
                self.points[(rule.name, key)] = deque(seeded.get((rule.name, key), ()), maxlen=rule.rounds)
        self._sent_at: dict[str, deque[float]] = defaultdict(deque)
        self._holding: set[str] = set()

    def _now_us(self) -> int:
        return int(self.clock() * 1_000_000)

    # -- judging ----------------------------------------------------------------------------------------

    def observe(self, report: RoundReport) -> int:
        """Judge a round's results; the number of notifications queued."""
        changes: list[AlertState] = []
        events: list[tuple[AlertRule, dict[str, Any] | None]] = []
        now = self._now_us()
        for result in report.results:
            key = result.target.key
            if result.error is None:
                self.last_data[key] = max(self.last_data.get(key, 0), result.started_at_us)
            for rule in self.rules:
                if key not in rule.target_keys or rule.kind == "no_data":
                    continue
                point = point_for(rule, result)
                if point is None or not counts(rule, point.at_us):
                    continue
                window = self.points[(rule.name, key)]
                window.append(point)
                self._judged(rule, key, window, now, changes, events)
        self._no_data(now, changes, events)
        return self._record(changes, events, now)

    def tick(self) -> int:
        """Judge the no-data rules now (the worker calls this between rounds)."""
        changes: list[AlertState] = []
        events: list[tuple[AlertRule, dict[str, Any] | None]] = []
        now = self._now_us()
        self._no_data(now, changes, events)
        return self._record(changes, events, now)

    def _no_data(
        self, now: int, changes: list[AlertState], events: list[tuple[AlertRule, dict[str, Any] | None]]
    ) -> None:
        for rule in self.rules:
            if rule.kind != "no_data":
                continue
            for key in sorted(rule.target_keys):
                judgement = judge_no_data(rule, self.last_data.get(key, self.started_us), now)
                self._transition(rule, key, judgement, now, changes, events)

    def _judged(
        self,
        rule: AlertRule,
        key: str,
        window: deque[Point],
        now: int,
        changes: list[AlertState],
        events: list[tuple[AlertRule, dict[str, Any] | None]],
    ) -> None:
        state = self.states.get((rule.name, key))
        baseline = state.baseline if state is not None else None
        if rule.kind == "route" and rule.expect is None and baseline is None:
            # The class first seen is the one expected from now on (kept in the store).
            baseline = window[0].route_class
            changes.append(AlertState(rule.name, key, OK, now, None, baseline, now))
        self._transition(rule, key, judge(rule, list(window), baseline), now, changes, events, baseline)

    def _transition(
        self,
        rule: AlertRule,
        key: str,
        judgement: RuleReading,
        now: int,
        changes: list[AlertState],
        events: list[tuple[AlertRule, dict[str, Any] | None]],
        baseline: str | None = None,
    ) -> None:
        if judgement.breaching is None:
            return
        state = self.states.get((rule.name, key))
        status = state.status if state is not None else OK
        wanted = FIRING if judgement.breaching else OK
        if wanted == status:
            return
        since = state.since_us if state is not None else self.started_us
        baseline = baseline if baseline is not None else (state.baseline if state is not None else None)
        changes.append(AlertState(rule.name, key, wanted, now, judgement.value, baseline, now))
        if rule.offices is not None:  # told once for the offices together (`_record`), not per office
            events.append((rule, None))
            return
        target = self.targets[key]
        status_word = messages.FIRING if wanted == FIRING else messages.RESOLVED
        event = messages.event(
            rule,
            target,
            status_word,
            judgement,
            plan=self.plan,
            vantage=self.vantage,
            since_us=now if wanted == FIRING else since,
            at_us=now,
            expected=rule.expect or baseline,
        )
        events.append((rule, event))

    def _record(
        self, changes: list[AlertState], events: list[tuple[AlertRule, dict[str, Any] | None]], now: int
    ) -> int:
        notes = [(name, event) for rule, event in events if event is not None for name in rule.notify]
        shared = {rule.name: rule for rule, event in events if event is None}
        agreements = [self._agreement(shared[state.rule], state) for state in changes if state.rule in shared]
        # Stored first: only a recorded change counts (a store that refused it sees it judged again).
        told = self.ledger.record(changes, notes, now, agreements)
        for state in changes:
            self.states[(state.rule, state.target_key)] = state
            if state.rule in shared:
                log.info(
                    _(
                        "alert {rule}: this office is {status} for {target} (told when enough offices agree)"
                    ).format(rule=state.rule, status=state.status, target=self.targets[state.target_key].name)
                )
        for event in [e for _rule, e in events if e is not None] + told:
            log.warning(_("alert: {text}").format(text=event["text"]))
        by_rule = {rule.name: rule for rule in self.rules}
        return len(notes) + sum(len(by_rule[e["rule"]].notify) for e in told)

    def _agreement(self, rule: AlertRule, state: AlertState) -> Agreement:
        assert rule.offices is not None
        target = self.targets[state.target_key]

        def event(
            status: str, firing: list[str], values: dict[str, float | None], since_us: int
        ) -> dict[str, Any]:
            return messages.team_event(
                rule,
                target,
                messages.FIRING if status == FIRING else messages.RESOLVED,
                plan=self.plan,
                firing=firing,
                values=values,
                total=self.office_count or len(values),
                since_us=since_us,
                at_us=self._now_us(),
            )

        return Agreement(rule.name, state.target_key, rule.offices, rule.notify, event)

    # -- delivering -------------------------------------------------------------------------------------

    def deliver_due(self) -> float | None:
        """Send what is due (one message per notifier and call); when something is due next (Unix s)."""
        now = self.clock()
        pending: dict[str, list[OutboxEntry]] = defaultdict(list)
        for entry in self.ledger.outbox():
            pending[entry.notifier].append(entry)
        wake: list[float] = []
        for name, entries in pending.items():
            notifier = self.notifiers.get(name)
            if notifier is None:
                log.error(
                    ngettext(
                        "dropped {count} notification for notifier {name}: the plan no longer has it",
                        "dropped {count} notifications for notifier {name}: the plan no longer has it",
                        len(entries),
                    ).format(count=len(entries), name=name)
                )
                self.ledger.done([e.id for e in entries])
                continue
            due = [e for e in entries if e.next_attempt_us <= now * 1e6]
            later = [e.next_attempt_us / 1e6 for e in entries if e.next_attempt_us > now * 1e6]
            if not due:
                wake.append(min(later))
                continue
            free_at = self._free_at(notifier, now)
            if free_at > now:
                if name not in self._holding:
                    log.warning(
                        ngettext(
                            "notifier {name}: rate limit reached ({limit} messages per {per_s:g} s); "
                            "{count} notification held, to be sent together",
                            "notifier {name}: rate limit reached ({limit} messages per {per_s:g} s); "
                            "{count} notifications held, to be sent together",
                            len(due),
                        ).format(name=name, limit=notifier.max_messages, per_s=notifier.per_s, count=len(due))
                    )
                    self._holding.add(name)
                wake.append(free_at)
                continue
            self._holding.discard(name)
            batch = due[:BATCH]
            retry_at = self._deliver(notifier, batch, now)
            if retry_at is not None:
                later.append(retry_at)
            wake.append(now if len(due) > len(batch) else min(later, default=float("inf")))
        finite = [w for w in wake if w != float("inf")]
        return min(finite) if finite else None

    def _free_at(self, notifier: Notifier, now: float) -> float:
        sent = self._sent_at[notifier.name]
        while sent and sent[0] <= now - notifier.per_s:
            sent.popleft()
        return sent[0] + notifier.per_s if len(sent) >= notifier.max_messages else now

    def _deliver(self, notifier: Notifier, batch: list[OutboxEntry], now: float) -> float | None:
        """Send one message; when to try again if it failed (None: delivered, or given up)."""
        ids = [e.id for e in batch]
        try:
            self.send(notifier, self.secrets.get(notifier.name, Secrets()), [e.event for e in batch])
        except DeliveryError as exc:
            attempts = max(e.attempts for e in batch) + 1
            if attempts >= notifier.attempts:
                log.error(
                    ngettext(
                        "notifier {name} ({type}): gave up on {count} notification after {attempts} attempts: "
                        "{reason}",
                        "notifier {name} ({type}): gave up on {count} notifications after {attempts} attempts: "
                        "{reason}",
                        len(batch),
                    ).format(
                        name=notifier.name,
                        type=notifier.type,
                        count=len(batch),
                        attempts=attempts,
                        reason=exc,
                    )
                )
                self.ledger.done(ids)
                return None
            delay = float(min(self.retry_base_s * 2 ** (attempts - 1), self.retry_max_s))
            log.warning(
                _(
                    "notifier {name} ({type}): delivery failed (attempt {attempt} of {attempts}), retrying in "
                    "{delay_s:g} s: {reason}"
                ).format(
                    name=notifier.name,
                    type=notifier.type,
                    attempt=attempts,
                    attempts=notifier.attempts,
                    delay_s=delay,
                    reason=exc,
                )
            )
            self.ledger.retry(ids, attempts, int((now + delay) * 1e6), str(exc))
            return now + delay
        self._sent_at[notifier.name].append(now)
        self.ledger.done(ids)
        log.info(
            ngettext(
                "notifier {name} ({type}): delivered {count} notification",
                "notifier {name} ({type}): delivered {count} notifications",
                len(batch),
            ).format(name=notifier.name, type=notifier.type, count=len(batch))
        )
        return None


class AlertWorker:
    """An `AlertEngine` in a thread of its own: `submit` is the scheduler's round hook (it only queues)."""

    def __init__(
        self, alerting: Alerting, db_path: StoreLocation, *, tick_s: float = 30.0, **engine: Any
    ) -> None:
        self.alerting = alerting
        self.db_path = db_path
        self.tick_s = tick_s
        self.engine_options = engine
        self._queue: queue.Queue[RoundReport | None] = queue.Queue()  # None: close
        self._thread = threading.Thread(target=self._run, name="linkvet-alerts", daemon=True)
        self._ready = threading.Event()

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(timeout=60)

    def submit(self, report: RoundReport) -> None:
        self._queue.put_nowait(report)

    @property
    def running(self) -> bool:
        """Whether its engine runs (false once closed, or when it could not start: alerts are off)."""
        return self._thread.is_alive()

    def close(self, timeout_s: float = 15.0) -> None:
        """Judge what was submitted, try what is due once more, and stop (waiting at most `timeout_s`;
        what is not delivered stays in the store's outbox for the next start)."""
        self._queue.put_nowait(None)
        self._thread.join(timeout=timeout_s)
        if self._thread.is_alive():
            log.warning(
                _(
                    "the alert worker did not finish in {timeout_s:g} s; undelivered notifications stay queued"
                ).format(timeout_s=timeout_s)
            )

    def _run(self) -> None:
        try:
            store = Store(self.db_path)
        except StoreError as exc:  # said plainly (a server that is down at start, say)
            log.error(
                _("alerts are off: the alert worker cannot open the store: {reason}").format(reason=exc)
            )
            self._ready.set()
            return
        except Exception as exc:
            log.error(
                _("alerts are off: the alert worker cannot open the store: {reason}").format(
                    reason=self._reason(exc)
                )
            )
            self._ready.set()
            return
        try:
            try:
                engine = AlertEngine(self.alerting, store, **self.engine_options)
            except Exception as exc:
                log.error(
                    _("alerts are off: the alert engine could not start: {reason}").format(
                        reason=self._reason(exc)
                    )
                )
                return
            finally:
                self._ready.set()
            self._loop(engine)
        finally:
            store.close()

    def _reason(self, exc: BaseException) -> str:
        """An exception in words for the log: its type and text with every notifier's secrets masked (no
        traceback: a log line is read by people, and a traceback repeats what a secret-laden call held)."""
        from probes.alerts.delivery import redact

        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        for secrets in (self.engine_options.get("secrets") or {}).values():
            text = redact(text, secrets)
        return text[:300]

    def _loop(self, engine: AlertEngine) -> None:
        def _safely(call: Callable[[], Any]) -> Any:
            """Run one step of the worker; log whatever it raises, in words (alerts never stop the
            scheduler)."""
            try:
                return call()
            except Exception as exc:
                log.error(
                    _("the alert worker hit an error (it carries on): {reason}").format(
                        reason=self._reason(exc)
                    )
                )
                return None

        wake = _safely(engine.deliver_due)
        last_tick = time.monotonic()
        while True:
            timeout = self.tick_s if wake is None else min(self.tick_s, max(0.0, wake - engine.clock()))
            try:
                item = self._queue.get(timeout=max(0.01, timeout))
            except queue.Empty:
                pass
            else:
                if item is None:
                    _safely(engine.deliver_due)
                    return
                _safely(functools.partial(engine.observe, item))
            if time.monotonic() - last_tick >= self.tick_s:
                _safely(engine.tick)
                last_tick = time.monotonic()
            wake = _safely(engine.deliver_due)
