"""Issue 31 §3: secrets out of logs. A token, URL or SMTP setting with a line break is refused by
`schedule --check` (naming the variable, never its value); whatever a delivery library raises becomes a
delivery error with every secret masked, in any form the library quoted it; the alert worker logs what went
wrong in words, never a traceback, never a secret."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from probes.alerts import delivery
from probes.alerts.delivery import redact, send
from probes.alerts.engine import AlertWorker
from probes.alerts.rules import Notifier, Secrets, mask_url
from probes.errors import DeliveryError
from probes.store import Store
from tests.alerts._plans import load, plan_text
from tests.alerts.test_schedule_alerts import _linkvet, _plan
from tests.notifiers import Mailbox

TOKEN = "tok-7f3a9c-Never-Logged"
EVENTS = [
    {"text": "x", "status": "firing", "rule": "r", "target": {"name": "t"}, "plan": "p", "vantage": None}
]


@pytest.mark.parametrize(
    ("variable", "value", "why"),
    [
        (
            "T_WECOM_URL",
            f"http://127.0.0.1:9/hook?key={TOKEN}\r\nX-Evil: 1",
            "a URL with a space, a line break",
        ),
        ("T_WECOM_URL", f"http://127.0.0.1:9/hook?key={TOKEN} x", "a URL with a space, a line break"),
        ("T_WECOM_URL", f"javascript:alert('{TOKEN}')", "not an http:// or https:// URL"),
        ("T_SMTP_USER", f"user\r\nRCPT TO:<{TOKEN}@x>", "a line break, a control character or a non-ASCII"),
        ("T_SMTP_PASSWORD", f"{TOKEN}\n", "a line break or a control character"),
    ],
)
def test_check_refuses_a_line_break_in_a_url_or_header_and_never_repeats_it(
    tmp_path: Path, mailbox: Mailbox, variable: str, value: str, why: str
) -> None:
    plan = _plan(tmp_path, 9, mailbox)
    env = {"T_WECOM_URL": "http://127.0.0.1:9/x", "T_SMTP_USER": "u", "T_SMTP_PASSWORD": "p", variable: value}
    done = _linkvet(tmp_path, env, "schedule", "--plan", str(plan), "--check")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"the environment variable {variable}: {why}" in done.stderr
    assert TOKEN not in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_a_webhook_token_with_a_line_break_is_refused_before_any_delivery(tmp_path: Path) -> None:
    plan = load(plan_text(None, hook='token_env = "T_TOKEN"'), tmp_path)
    assert plan.alerting is not None
    from probes.alerts.rules import resolve_secrets
    from probes.errors import PlanError

    env = {"T_HOOK_URL": "http://127.0.0.1:9/hook", "T_HOOK_SECRET": "s", "T_TOKEN": f"{TOKEN}\r\nX-Evil: 1"}
    with pytest.raises(PlanError) as raised:
        resolve_secrets(plan.alerting, env)
    assert "the environment variable T_TOKEN: a line break" in str(raised.value)
    assert TOKEN not in str(raised.value)


def test_an_email_address_with_a_line_break_is_refused_in_the_plan(tmp_path: Path, mailbox: Mailbox) -> None:
    plan = _plan(tmp_path, 9, mailbox)
    plan.write_text(
        plan.read_text().replace('to = ["oncall@office.test"]', 'to = ["oncall@office.test\\r\\nBcc: x@y.z"]')
    )
    done = _linkvet(tmp_path, {}, "schedule", "--plan", str(plan), "--check")
    assert done.returncode == 2 and "a line break or a control character in an email setting" in done.stderr


@pytest.mark.parametrize(
    "secrets",
    [
        Secrets(url=f"http://127.0.0.1:9/hook?token={TOKEN}\r\nX: 1"),  # httpx.InvalidURL, not an HTTPError
        Secrets(url="http://127.0.0.1:9/hook", token=f"{TOKEN}\r\nX-Evil: 1"),
        Secrets(url="http://127.0.0.1:9/hook", token=f"tök-{TOKEN}"),
        Secrets(url=f"http://no-such-host.invalid/services/{TOKEN}"),
    ],
)
def test_whatever_delivery_raises_is_a_delivery_error_with_the_secrets_masked(secrets: Secrets) -> None:
    notifier = Notifier(name="hook", type="webhook", url_env="U", token_env="T", timeout_s=2.0)
    with pytest.raises(DeliveryError) as raised:
        send(notifier, secrets, EVENTS)
    text = str(raised.value)
    assert TOKEN not in text and "Never-Logged" not in text and "Never%2DLogged" not in text


def test_redact_masks_every_form_a_library_quotes_a_secret_in() -> None:
    secrets = Secrets(
        url=f"https://hooks.example.com/services/{TOKEN}?a=b c",
        token=f"{TOKEN}\r\nX: y",
        password="p@ss w/rd",
    )
    said = (
        f"Invalid header value b'Bearer {TOKEN}\\r\\nX: y' for https://hooks.example.com/services/{TOKEN}"
        f"?a=b%20c; login p%40ss%20w%2Frd refused; p%40ss+w%2Frd"
    )
    masked = redact(said, secrets)
    assert TOKEN not in masked and "p%40ss" not in masked and "p@ss" not in masked, masked
    assert "https://hooks.example.com/***" in masked
    assert (
        mask_url(f"https://hooks.example.com:8443/services/{TOKEN}?k=1")
        == "https://hooks.example.com:8443/***"
    )


def test_the_alert_worker_logs_a_failure_in_words_never_a_traceback_or_a_secret(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = load(plan_text(None), tmp_path)
    assert plan.alerting is not None
    secrets = {"hook": Secrets(url=f"http://127.0.0.1:9/hook?token={TOKEN}", secret="s")}
    db = tmp_path / "alerts.sqlite3"
    Store(db).close()

    def broken(notifier: Any, given: Secrets, events: Any) -> None:
        raise RuntimeError(f"the library choked on http://127.0.0.1:9/hook?token={TOKEN}")

    worker = AlertWorker(
        plan.alerting,
        db,
        tick_s=0.05,
        plan=plan.name,
        vantage=plan.vantage,
        targets=[p.target for p in plan.targets],
        secrets=secrets,
        longest_cadence_s=plan.every_s,
    )
    from probes.alerts import engine as engine_module

    def observe(self: Any, report: Any) -> None:
        raise ValueError(f"a bug that quotes {TOKEN}")

    monkeypatch.setattr(engine_module.AlertEngine, "observe", observe)
    monkeypatch.setattr(delivery, "send", broken)
    with caplog.at_level(logging.INFO, logger="linkvet"):
        worker.start()
        worker.submit(object())  # type: ignore[arg-type]
        worker.close()
    errors = [r for r in caplog.records if r.name.startswith("linkvet") and r.levelno >= logging.ERROR]
    assert errors, caplog.text
    assert any(
        "the alert worker hit an error (it carries on): ValueError: a bug that quotes ***" in r.getMessage()
        for r in errors
    )
    for record in caplog.records:
        assert record.exc_info is None and record.exc_text is None
        assert TOKEN not in record.getMessage()
    assert "Traceback" not in caplog.text and TOKEN not in caplog.text


def test_check_shows_a_notifiers_address_with_its_token_masked(tmp_path: Path, mailbox: Mailbox) -> None:
    plan = _plan(tmp_path, 9, mailbox)
    env = {"T_WECOM_URL": f"https://qyapi.example.com/cgi-bin/webhook/send?key={TOKEN}", "T_SMTP_USER": "u"}
    env["T_SMTP_PASSWORD"] = TOKEN
    done = _linkvet(tmp_path, env, "schedule", "--plan", str(plan), "--check")
    assert done.returncode == 0, done.stderr
    assert "; address https://qyapi.example.com/***" in done.stdout
    assert f"; address smtp://127.0.0.1:{mailbox.port}" in done.stdout
    assert TOKEN not in done.stdout + done.stderr
