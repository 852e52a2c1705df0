"""Alerts on a PostgreSQL store: the state and the queued notifications live in the shared store, so an
alert fires once, stays quiet while firing and resolves once across an agent's restarts, as on SQLite."""

from __future__ import annotations

from pathlib import Path

from probes.store import Store
from tests.alerts._plans import Clock, engine, load, plan_text, round_of
from tests.notifiers import Mailbox, Receiver


def test_fires_once_and_resolves_once_across_restarts_on_postgres(
    tmp_path: Path, receiver: Receiver, mailbox: Mailbox, postgres_url: str
) -> None:
    plan = load(plan_text(mailbox), tmp_path)
    clock = Clock()
    with Store(postgres_url) as store:
        first = engine(plan, store, receiver, clock)
        assert first.observe(round_of(plan, store, clock, lost=5)) == 0
        clock.now += 60
        assert first.observe(round_of(plan, store, clock, lost=5)) == 2  # firing: webhook and mail
        first.deliver_due()
        assert receiver.wait_for(1)[0].json["alerts"][0]["status"] == "firing"
        assert mailbox.wait_for(1)[0]["Subject"] == "linkvet alert: sj-loss firing for sj-0"
        clock.now += 60
        assert first.observe(round_of(plan, store, clock, lost=5)) == 0  # still firing: no repeat
    with Store(postgres_url) as store:  # a restart: the state comes back from the server
        second = engine(plan, store, receiver, clock)
        clock.now += 60
        assert second.observe(round_of(plan, store, clock, lost=0)) == 0
        clock.now += 60
        assert second.observe(round_of(plan, store, clock, lost=0)) == 2  # resolved
        second.deliver_due()
        assert receiver.wait_for(2)[1].json["alerts"][0]["status"] == "resolved"
        assert mailbox.wait_for(2)[1]["Subject"] == "linkvet alert resolved: sj-loss for sj-0"
    assert len(receiver.requests) == 2 and len(mailbox.messages) == 2
