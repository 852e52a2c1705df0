"""The alert tables as the rest of linkvet sees them: each (plan, vantage, rule, target)'s state, and the
notifications waiting to be delivered. `AlertLedger` reads and writes them through the store's backend;
each change of states goes in one transaction with the notifications it queues, so a restart neither
repeats an alert nor loses its notification.

A rule that needs several offices to agree (`offices = N`) keeps one more state per target, the offices'
shared one (vantage `TEAM_VANTAGE`): in the same transaction that records an office's change, the ledger reads
every office's state of the rule and target, and when at least N are firing (or, once firing, fewer are) it
changes the shared state and queues the one notification. Write transactions take turns (SQLite's write lock,
PostgreSQL's advisory lock), so two agents that change at once never both send it."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from probes.i18n import N_

if TYPE_CHECKING:
    from probes.store.store import Store

ALERT_STATE_COLUMNS = (
    "plan",
    "vantage",
    "rule",
    "target_key",
    "status",
    "since_us",
    "value",
    "baseline",
    "updated_us",
)
OUTBOX_COLUMNS = (
    "id",
    "plan",
    "vantage",
    "notifier",
    "created_us",
    "event_json",
    "attempts",
    "next_attempt_us",
    "last_error",
)
FIRING = "firing"
OK = "ok"
TEAM_VANTAGE = "*"  # the offices' shared state of a rule that needs several to agree (no office is named so)


@dataclass(frozen=True, slots=True)
class AlertState:
    """Where one rule stands for one target: `firing` or `ok` since `since_us`; `value` the figure last
    judged; `baseline` what a route rule without `expect` compares with."""

    rule: str
    target_key: str
    status: str
    since_us: int
    value: float | None = None
    baseline: str | None = None
    updated_us: int = 0


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """A notification waiting for its notifier: the event (JSON-ready), attempts so far, when to try next."""

    id: int
    notifier: str
    created_us: int
    event: dict[str, Any]
    attempts: int
    next_attempt_us: int
    last_error: str | None


@dataclass(frozen=True, slots=True)
class Agreement:
    """A rule needing `needed` offices for one target, to settle after an office's change: `event(status,
    firing, values, since_us)` builds the notification (firing: the offices firing, by name; values: each
    office's last judged value) and `notify` names its notifiers."""

    rule: str
    target_key: str
    needed: int
    notify: tuple[str, ...]
    event: Callable[[str, list[str], dict[str, float | None], int], dict[str, Any]]


class AlertLedger:
    """The alert tables of one plan as seen from one vantage point (None is stored as "")."""

    def __init__(self, store: Store, plan: str, vantage: str | None) -> None:
        self.backend = store.backend
        self.plan = plan
        self.vantage = vantage or ""

    def states(self) -> dict[tuple[str, str], AlertState]:
        """(rule, target_key) → state."""
        out = {}
        for row in self.backend.alert_states(self.plan, self.vantage):
            _plan, _vantage, rule, key, status, since, value, baseline, updated = row
            out[(rule, key)] = AlertState(rule, key, status, int(since), value, baseline, int(updated))
        return out

    def record(
        self,
        states: Sequence[AlertState],
        notifications: Sequence[tuple[str, dict[str, Any]]],
        now_us: int,
        agreements: Sequence[Agreement] = (),
    ) -> list[dict[str, Any]]:
        """Write changed states and queue (notifier, event) notifications, and settle the offices' shared
        state of each agreement, in one transaction; the shared notifications queued (their events)."""
        if not states and not notifications and not agreements:
            return []
        told: list[dict[str, Any]] = []
        with self.backend.transaction(N_("could not record alert states")):
            self.backend.put_alert_states(
                [
                    (
                        self.plan,
                        self.vantage,
                        s.rule,
                        s.target_key,
                        s.status,
                        s.since_us,
                        s.value,
                        s.baseline,
                        s.updated_us,
                    )
                    for s in states
                ]
            )
            self._queue(notifications, now_us)
            for agreement in agreements:
                event = self._settle(agreement, now_us)
                if event is not None:
                    self._queue([(name, event) for name in agreement.notify], now_us)
                    told.append(event)
        return told

    def _queue(self, notifications: Sequence[tuple[str, dict[str, Any]]], now_us: int) -> None:
        self.backend.add_outbox(
            [
                (
                    self.plan,
                    self.vantage,
                    notifier,
                    now_us,
                    json.dumps(event, ensure_ascii=False),
                    0,
                    now_us,
                    None,
                )
                for notifier, event in notifications
            ]
        )

    def _settle(self, agreement: Agreement, now_us: int) -> dict[str, Any] | None:
        """Inside the transaction: change the offices' shared state when the offices now say otherwise; the
        event to tell, or None."""
        rows = self.backend.alert_states_of(self.plan, agreement.rule, agreement.target_key)
        shared = next((r for r in rows if r[1] == TEAM_VANTAGE), None)
        offices = [r for r in rows if r[1] != TEAM_VANTAGE]
        firing = sorted(str(r[1]) for r in offices if r[4] == FIRING)
        wanted = FIRING if len(firing) >= agreement.needed else OK
        status = shared[4] if shared is not None else OK
        if wanted == status:
            return None
        since = int(shared[5]) if shared is not None else now_us
        self.backend.put_alert_states(
            [
                (
                    self.plan,
                    TEAM_VANTAGE,
                    agreement.rule,
                    agreement.target_key,
                    wanted,
                    now_us,
                    None,
                    None,
                    now_us,
                )
            ]
        )
        values = {str(r[1]): (None if r[6] is None else float(r[6])) for r in offices}
        return agreement.event(wanted, firing, values, now_us if wanted == FIRING else since)

    def outbox(self) -> list[OutboxEntry]:
        return [
            OutboxEntry(int(i), notifier, int(created), json.loads(event), int(attempts), int(next_us), error)
            for i, _plan, _vantage, notifier, created, event, attempts, next_us, error in self.backend.outbox(
                self.plan, self.vantage
            )
        ]

    def retry(self, ids: Sequence[int], attempts: int, next_attempt_us: int, error: str) -> None:
        with self.backend.transaction(N_("could not reschedule a notification")):
            self.backend.retry_outbox(ids, attempts, next_attempt_us, error)

    def done(self, ids: Sequence[int]) -> None:
        """Remove delivered (or abandoned) notifications."""
        with self.backend.transaction(N_("could not remove delivered notifications")):
            self.backend.delete_outbox(ids)
