"""The alert tables as the rest of linkvet sees them: each (plan, vantage, rule, target)'s state, and the
notifications waiting to be delivered. `AlertLedger` reads and writes them through the store's backend;
each change of states goes in one transaction with the notifications it queues, so a restart neither
repeats an alert nor loses its notification."""

from __future__ import annotations

import json
from collections.abc import Sequence
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
        self, states: Sequence[AlertState], notifications: Sequence[tuple[str, dict[str, Any]]], now_us: int
    ) -> None:
        """Write changed states and queue (notifier, event) notifications, in one transaction."""
        if not states and not notifications:
            return
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
