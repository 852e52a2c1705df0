"""A rule that needs several offices (`offices = 2`): the agents of two offices, each judging its own rounds into
one store (SQLite and a real PostgreSQL), tell one alert when both see the breach, naming them, none while one
does, one resolved when fewer do; and two agents changing at the very same moment, over and over, never both
tell it (the offices' shared state is settled in the transaction that records an office's change)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from probes.alerts.engine import AlertEngine
from probes.alerts.rules import describe_rule, resolve_secrets
from probes.errors import PlanError
from probes.schedule.plan import Plan, parse_plan
from probes.store import Store
from tests.alerts._plans import Clock, environ, round_of
from tests.notifiers import Receiver

PLAN = """\
version = 1
name = "q1"
vantage = "{office}"
[schedule]
every = "1m"
[[targets]]
name = "sj"
host = "198.18.0.1"
provider = "acme"
[[alerts]]
name = "peak-loss"
when = "loss"
above = 2.0
rounds = 1
offices = 2
notify = ["hook"]
[notifiers.hook]
type = "webhook"
url_env = "T_HOOK_URL"
"""


def _plan(office: str) -> Plan:
    return parse_plan(PLAN.format(office=office), f"{office}.toml")


def _engine(plan: Plan, store: Store, receiver: Receiver, clock: Clock) -> AlertEngine:
    assert plan.alerting is not None
    return AlertEngine(
        plan.alerting,
        store,
        plan=plan.name,
        vantage=plan.vantage,
        targets=[p.target for p in plan.targets],
        secrets=resolve_secrets(plan.alerting, environ(receiver)),
        longest_cadence_s=60,
        clock=clock,
        office_count=2,
    )


@pytest.fixture(params=["sqlite", "postgres"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "team.sqlite3")
    return str(request.getfixturevalue("postgres_url"))


def test_one_alert_when_both_offices_see_it_none_while_one_does_one_resolved(
    store_location: str, receiver: Receiver
) -> None:
    shanghai, beijing = _plan("shanghai"), _plan("beijing")
    clock = Clock()
    with Store(store_location) as sh_store, Store(store_location) as bj_store:
        sh = _engine(shanghai, sh_store, receiver, clock)
        bj = _engine(beijing, bj_store, receiver, clock)
        assert sh.observe(round_of(shanghai, sh_store, clock, lost=5)) == 0  # Shanghai sees 50% loss
        assert bj.observe(round_of(beijing, bj_store, clock, lost=0)) == 0  # Beijing does not
        clock.now += 60
        assert sh.observe(round_of(shanghai, sh_store, clock, lost=5)) == 0  # still one office: nothing
        sh.deliver_due()
        assert receiver.requests == []
        assert bj.observe(round_of(beijing, bj_store, clock, lost=3)) == 1  # both: one alert
        bj.deliver_due()
        clock.now += 60
        assert sh.observe(round_of(shanghai, sh_store, clock, lost=5)) == 0  # no repeat
        assert bj.observe(round_of(beijing, bj_store, clock, lost=5)) == 0
        (firing,) = receiver.wait_for(1)
        event = firing.json["alerts"][0]
        assert (event["status"], event["offices"], event["offices_needed"], event["offices_total"]) == (
            "firing",
            ["beijing", "shanghai"],
            2,
            2,
        )
        assert event["values"] == {"beijing": 30.0, "shanghai": 50.0} and event["value"] == 50.0
        assert event["text"] == (
            "FIRING peak-loss from 2 of 2 offices (beijing 30.0%, shanghai 50.0%): sj (icmp 198.18.0.1): loss "
            "above 2% in 1 round, from at least 2 offices at once (one alert for them all)"
        )
        clock.now += 60
        assert sh.observe(round_of(shanghai, sh_store, clock, lost=0)) == 1  # Shanghai is fine: resolved
        sh.deliver_due()
        resolved = receiver.wait_for(2)[1].json["alerts"][0]
        assert resolved["status"] == "resolved" and resolved["offices"] == ["beijing"]
        assert resolved["since"] == event["since"]
        clock.now += 60
        assert bj.observe(round_of(beijing, bj_store, clock, lost=0)) == 0  # already resolved
        states = {
            row[1]: row[4] for row in sh_store.backend.alert_states_of("q1", "peak-loss", "icmp:198.18.0.1")
        }
    assert states == {"*": "ok", "beijing": "ok", "shanghai": "ok"}
    assert len(receiver.requests) == 2


def test_two_agents_changing_at_once_never_both_tell_it(postgres_url: str, receiver: Receiver) -> None:
    plans = {office: _plan(office) for office in ("shanghai", "beijing")}
    clock = Clock()
    stores = {office: Store(postgres_url) for office in plans}
    engines = {office: _engine(plans[office], stores[office], receiver, clock) for office in plans}
    cycles = 12
    barrier = threading.Barrier(2)
    told: dict[str, int] = {office: 0 for office in plans}

    def agent(office: str) -> None:
        for _cycle in range(cycles):
            for lost in (5, 0):  # both breach, then both recover, at the same moment
                report = round_of(plans[office], stores[office], clock, lost=lost)
                barrier.wait(timeout=30)
                told[office] += engines[office].observe(report)
                barrier.wait(timeout=30)

    try:
        threads = [threading.Thread(target=agent, args=(office,)) for office in plans]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert not any(t.is_alive() for t in threads)
        outbox = [row for office in plans for row in stores[office].backend.outbox("q1", office)]
    finally:
        for store in stores.values():
            store.close()
    # Each cycle: one firing (the second office to breach) and one resolved (the first to recover).
    assert sum(told.values()) == len(outbox) == 2 * cycles, (told, len(outbox))


def test_offices_is_read_checked_and_described() -> None:
    rule = _plan("shanghai").alerting.rules[0]  # type: ignore[union-attr]
    assert rule.offices == 2
    assert describe_rule(rule).endswith("from at least 2 offices at once (one alert for them all)")
    with pytest.raises(PlanError, match=r"alerts\[0\]\.offices.*greater than or equal to 2"):
        parse_plan(PLAN.format(office="x").replace("offices = 2", "offices = 1"), "x.toml")
