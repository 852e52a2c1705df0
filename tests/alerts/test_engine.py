"""The alert engine on a real store, delivering to a real webhook receiver and a real mail server on
loopback: firing once, no repeat while firing, resolved once, the state kept across restarts, a failed
delivery retried with backoff then delivered (and logged without secrets), the rate limit holding
notifications and sending them together, and the worker thread never letting a failure out."""

from __future__ import annotations

import hashlib
import hmac
import logging
from pathlib import Path

import pytest

from probes.alerts.engine import AlertWorker
from probes.alerts.rules import resolve_secrets
from probes.store import Store
from tests.alerts._plans import HOOK_SECRET, HOOK_TOKEN, Clock, engine, environ, load, plan_text, round_of
from tests.notifiers import SMTP_USER, Mailbox, Receiver


def test_fires_once_stays_quiet_resolves_once_and_remembers_across_restarts(
    tmp_path: Path, receiver: Receiver, mailbox: Mailbox
) -> None:
    plan = load(plan_text(mailbox), tmp_path)
    clock = Clock()
    db = tmp_path / "s.sqlite3"
    with Store(db) as store:
        first = engine(plan, store, receiver, clock)
        assert first.observe(round_of(plan, store, clock, lost=5)) == 0  # one round of two: not judged yet
        clock.now += 60
        assert first.observe(round_of(plan, store, clock, lost=5)) == 2  # 50% > 10%: firing, two notifiers
        first.deliver_due()
        (hook,) = receiver.wait_for(1)
        (mail,) = mailbox.wait_for(1)
        body = hook.json
        assert body["format"] == "linkvet-alerts" and body["format_version"] == 1
        (alert,) = body["alerts"]
        assert (alert["status"], alert["rule"], alert["kind"], alert["value"]) == (
            "firing",
            "sj-loss",
            "loss",
            50.0,
        )
        assert alert["target"]["name"] == "sj-0" and alert["target"]["provider"] == "acme"
        assert alert["vantage"] == "shanghai" and alert["threshold"] == 10 and alert["unit"] == "%"
        assert "FIRING sj-loss from shanghai" in alert["text"] and "loss 50.0%" in alert["text"]
        signature = hmac.new(HOOK_SECRET.encode(), hook.body, hashlib.sha256).hexdigest()
        assert hook.headers["x-linkvet-signature"] == f"sha256={signature}"
        assert hook.query["token"] == [HOOK_TOKEN]
        assert mail["Subject"] == "linkvet alert: sj-loss firing for sj-0"
        assert mail["To"] == "oncall@office.test" and "loss 50.0%" in mail.get_payload()  # type: ignore[operator]
        assert mailbox.tls_sessions == [True] and mailbox.logins == [SMTP_USER]
        clock.now += 60
        assert first.observe(round_of(plan, store, clock, lost=5)) == 0  # still firing: no repeat
        first.deliver_due()

    with Store(db) as store:  # a restart: the state and the last rounds come back from the store
        second = engine(plan, store, receiver, clock)
        clock.now += 60
        assert second.observe(round_of(plan, store, clock, lost=0)) == 0  # 25% over the last two: firing
        clock.now += 60
        assert second.observe(round_of(plan, store, clock, lost=0)) == 2  # 0%: resolved
        second.deliver_due()
        resolved = receiver.wait_for(2)[1].json["alerts"][0]
        assert resolved["status"] == "resolved" and resolved["value"] == 0.0
        assert resolved["since"] == "2027-01-15T08:01:00.000000Z"  # when it started firing
        assert mailbox.wait_for(2)[1]["Subject"] == "linkvet alert resolved: sj-loss for sj-0"

    with Store(db) as store:
        third = engine(plan, store, receiver, clock)
        clock.now += 60
        assert third.observe(round_of(plan, store, clock, lost=0)) == 0  # resolved stays resolved: no repeat
        third.deliver_due()
    assert len(receiver.requests) == 2 and len(mailbox.messages) == 2


def test_a_failed_delivery_is_retried_with_backoff_then_delivered(
    tmp_path: Path, receiver: Receiver, caplog: pytest.LogCaptureFixture
) -> None:
    plan = load(plan_text(None), tmp_path)
    clock = Clock()
    receiver.statuses = [500, 503]
    with Store(tmp_path / "s.sqlite3") as store, caplog.at_level(logging.INFO, "linkvet.alerts"):
        alerts = engine(plan, store, receiver, clock)
        for _ in range(2):
            alerts.observe(round_of(plan, store, clock, lost=10))
            clock.now += 60
        assert alerts.deliver_due() == pytest.approx(clock.now + 10, abs=0.01)  # failed: next try in 10 s
        assert alerts.deliver_due() == pytest.approx(clock.now + 10, abs=0.01)  # not due yet: nothing sent
        assert len(receiver.requests) == 1
        clock.now += 10
        assert alerts.deliver_due() == pytest.approx(clock.now + 20, abs=0.01)  # failed again: 20 s
        clock.now += 20
        assert alerts.deliver_due() is None  # delivered, nothing left
        assert store.backend.outbox("office", "shanghai") == []
    requests = receiver.wait_for(3)
    assert len(requests) == 3 and len({r.body for r in requests}) == 1  # the same message each time
    assert "delivery failed (attempt 1 of 8), retrying in 10 s: HTTP 500" in caplog.text
    assert "(attempt 2 of 8), retrying in 20 s: HTTP 503" in caplog.text
    assert "delivered 1 notification" in caplog.text
    assert HOOK_TOKEN not in caplog.text and HOOK_SECRET not in caplog.text


def test_a_delivery_that_keeps_failing_is_given_up_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    plan = load(plan_text(None, hook="attempts = 2"), tmp_path)
    clock = Clock()
    nothing = Receiver("http://127.0.0.1:9")  # nothing listens on the discard port: connection refused
    with Store(tmp_path / "s.sqlite3") as store, caplog.at_level(logging.INFO, "linkvet.alerts"):
        alerts = engine(plan, store, nothing, clock)
        for _ in range(2):
            alerts.observe(round_of(plan, store, clock, lost=10))
            clock.now += 60
        alerts.deliver_due()
        clock.now += 10
        assert alerts.deliver_due() is None
        assert store.backend.outbox("office", "shanghai") == []
    assert "ConnectError" in caplog.text and "gave up on 1 notification after 2 attempts" in caplog.text
    assert HOOK_TOKEN not in caplog.text


def test_the_rate_limit_holds_notifications_and_sends_them_together(
    tmp_path: Path, receiver: Receiver
) -> None:
    plan = load(plan_text(None, hook='max_messages = 2\nper = "1h"', targets=4), tmp_path)
    clock = Clock()
    with Store(tmp_path / "s.sqlite3") as store:
        alerts = engine(plan, store, receiver, clock)
        for name in ("sj-0", "sj-1", "sj-2", "sj-3"):  # one target starts losing per pair of rounds
            for _ in range(2):
                alerts.observe(round_of(plan, store, clock, lost=10, names=[name]))
                clock.now += 60
            alerts.deliver_due()
        assert len(receiver.wait_for(2)) == 2
        free_again = T_FIRST + 3600
        assert alerts.deliver_due() == pytest.approx(free_again, abs=0.01)
        assert len(receiver.requests) == 2  # held: two messages in the hour already
        clock.now = free_again
        alerts.deliver_due()
        third = receiver.wait_for(3)[2].json
    assert [a["target"]["name"] for a in third["alerts"]] == ["sj-2", "sj-3"]
    assert third["title"] == "linkvet: 2 alert notifications"


T_FIRST = 1_800_000_000.0 + 120  # when the first message of the rate-limit test went out


def test_the_worker_judges_off_the_loop_and_survives_failures(tmp_path: Path, receiver: Receiver) -> None:
    plan = load(plan_text(None), tmp_path)
    assert plan.alerting is not None
    clock = Clock()
    db = tmp_path / "s.sqlite3"
    receiver.statuses = [500]
    worker = AlertWorker(
        plan.alerting,
        db,
        plan=plan.name,
        vantage=plan.vantage,
        targets=[p.target for p in plan.targets],
        secrets=resolve_secrets(plan.alerting, environ(receiver)),
        clock=clock,
        retry_base_s=0.2,
    )
    worker.start()
    try:
        with Store(db) as store:
            for _ in range(2):
                worker.submit(round_of(plan, store, clock, lost=10))
                clock.now += 60
        assert len(receiver.wait_for(1)) == 1  # first try refused
        clock.now += 1  # past the backoff: the worker retries
        requests = receiver.wait_for(2)
        assert [r.json["alerts"][0]["status"] for r in requests] == ["firing", "firing"]
    finally:
        worker.close()
