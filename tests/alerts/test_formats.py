"""Each notifier kind's message as its vendor documents it, received by a loopback webhook receiver (or the
loopback mail server) and checked there the way the vendor's server checks it: DingTalk's and Feishu's
signatures recomputed from the secret, linkvet's body HMAC, WeCom's size cap, a bot's refusal inside an HTTP
200 treated as a failed delivery, and secrets never in an error's text."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from pathlib import Path
from typing import Any

import pytest

from probes.alerts import delivery, formats
from probes.alerts.judge import RuleReading
from probes.alerts.messages import FIRING, RESOLVED, event
from probes.alerts.rules import Notifier, Secrets
from probes.errors import DeliveryError
from probes.schedule.plan import parse_plan
from tests.notifiers import SMTP_PASSWORD, SMTP_USER, Mailbox, Receiver

SECRET = "SECa1b2c3-signing-secret"


def _events(count: int = 1) -> list[dict[str, Any]]:
    plan = parse_plan(
        'version = 1\nvantage = "shanghai"\n[[targets]]\nname = "sj"\nhost = "198.18.0.1"\n'
        '[[alerts]]\nname = "sj-loss"\nwhen = "loss"\nabove = 2\nnotify = ["x"]\n'
        '[notifiers.x]\ntype = "webhook"\nurl = "http://127.0.0.1:9/"\n',
        "office.toml",
    )
    assert plan.alerting is not None
    rule = plan.alerting.rules[0]
    target = plan.targets[0].target
    return [
        event(
            rule,
            target,
            FIRING if i % 2 == 0 else RESOLVED,
            RuleReading(i % 2 == 0, 12.5),
            plan="office",
            vantage="shanghai",
            since_us=1_800_000_000_000_000,
            at_us=1_800_000_060_000_000,
        )
        for i in range(count)
    ]


def _send(kind: str, receiver: Receiver, secret: str | None = None, **fields: Any) -> None:
    notifier = Notifier(name=kind, type=kind, url_env="X", timeout_s=5, **fields)
    delivery.send(notifier, Secrets(url=f"{receiver.base}/{kind}?access_token=tok", secret=secret), _events())


def test_slack_takes_a_text_message(receiver: Receiver) -> None:
    _send("slack", receiver)
    (got,) = receiver.requests
    assert got.headers["content-type"].startswith("application/json")
    assert got.json == {"text": "*linkvet alert: sj-loss firing for sj*\n" + _events()[0]["text"]}


def test_wecom_takes_markdown_within_its_size_cap(receiver: Receiver) -> None:
    _send("wecom", receiver)
    body = receiver.requests[0].json
    assert body["msgtype"] == "markdown" and set(body) == {"msgtype", "markdown"}
    assert body["markdown"]["content"].startswith("**linkvet alert: sj-loss firing for sj**\n> <font color=")
    big = formats.wecom("http://127.0.0.1/", _events(200))
    assert len(__import__("json").loads(big.body)["markdown"]["content"].encode()) <= formats.WECOM_MAX_BYTES


def test_dingtalk_signs_its_url_as_its_docs_say(receiver: Receiver) -> None:
    before = int(time.time() * 1000)
    _send("dingtalk", receiver, SECRET)
    (got,) = receiver.requests
    timestamp = int(got.query["timestamp"][0])
    assert before <= timestamp <= int(time.time() * 1000)
    # What DingTalk's server does: HMAC-SHA256 keyed with the secret over "timestamp\nsecret", base64.
    expected = base64.b64encode(
        hmac.new(SECRET.encode(), f"{timestamp}\n{SECRET}".encode(), hashlib.sha256).digest()
    ).decode()
    assert got.query["sign"] == [expected] and got.query["access_token"] == ["tok"]
    body = got.json
    assert (
        body["msgtype"] == "markdown" and body["markdown"]["title"] == "linkvet alert: sj-loss firing for sj"
    )
    assert (
        body["markdown"]["text"].startswith("#### linkvet alert") and "loss 12.5%" in body["markdown"]["text"]
    )


def test_dingtalk_without_a_secret_sends_no_signature(receiver: Receiver) -> None:
    _send("dingtalk", receiver)
    assert set(receiver.requests[0].query) == {"access_token"}


def test_feishu_signs_its_body_as_its_docs_say(receiver: Receiver) -> None:
    before = int(time.time())
    _send("feishu", receiver, SECRET)
    body = receiver.requests[0].json
    timestamp = int(body["timestamp"])
    assert isinstance(body["timestamp"], str) and before <= timestamp <= int(time.time())
    # Feishu's check: the HMAC's key is "timestamp\nsecret", its message empty, base64.
    key = f"{timestamp}\n{SECRET}".encode()
    assert body["sign"] == base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
    assert body["msg_type"] == "text" and body["content"]["text"].startswith("linkvet alert: sj-loss firing")


def test_the_generic_webhook_signs_its_body_and_sends_a_bearer_token(receiver: Receiver) -> None:
    notifier = Notifier(name="hook", type="webhook", url_env="X", timeout_s=5)
    delivery.send(
        notifier, Secrets(url=f"{receiver.base}/hook", secret=SECRET, token="bearer-tok"), _events(2)
    )
    got = receiver.requests[0]
    assert got.headers["authorization"] == "Bearer bearer-tok"
    expected = hmac.new(SECRET.encode(), got.body, hashlib.sha256).hexdigest()
    assert got.headers[formats.SIGNATURE_HEADER.lower()] == f"sha256={expected}"
    body = got.json
    assert [a["status"] for a in body["alerts"]] == ["firing", "resolved"]
    assert body["title"] == "linkvet: 2 alert notifications" and body["text"].count("\n") == 1


@pytest.mark.parametrize(
    ("kind", "answer"),
    [
        ("dingtalk", b'{"errcode":310000,"errmsg":"sign not match"}'),
        ("wecom", b'{"errcode":93000,"errmsg":"invalid webhook url"}'),
        ("feishu", b'{"code":19021,"msg":"sign match fail or timestamp is not within one hour"}'),
    ],
)
def test_a_bot_refusing_inside_http_200_is_a_failed_delivery(
    kind: str, answer: bytes, receiver: Receiver
) -> None:
    receiver.answer = answer
    with pytest.raises(DeliveryError, match="refused the message: code") as caught:
        _send(kind, receiver, SECRET if kind != "wecom" else None)
    assert "tok" not in str(caught.value) and SECRET not in str(caught.value)


def test_an_http_error_names_the_status_and_never_the_url(receiver: Receiver) -> None:
    receiver.status = 404
    with pytest.raises(DeliveryError) as caught:
        _send("slack", receiver)
    assert str(caught.value) == "HTTP 404 Not Found"


def _mail_notifier(mailbox: Mailbox, ca_file: Path | None = None) -> Notifier:
    return Notifier(
        name="mail",
        type="email",
        smtp_host=mailbox.host,
        smtp_port=mailbox.port,
        username_env="U",
        password_env="P",
        ca_file=str(ca_file or mailbox.ca_file),
        sender="linkvet@office.test",
        to=("oncall@office.test", "lead@office.test"),
        timeout_s=10,
    )


def test_mail_goes_over_starttls_with_a_login(mailbox: Mailbox) -> None:
    delivery.send(_mail_notifier(mailbox), Secrets(username=SMTP_USER, password=SMTP_PASSWORD), _events(2))
    (mail,) = mailbox.wait_for(1)
    assert mailbox.tls_sessions == [True] and mailbox.logins == [SMTP_USER]
    assert mail["Subject"] == "linkvet: 2 alert notifications"
    assert mail["From"] == "linkvet@office.test" and mail["To"] == "oncall@office.test, lead@office.test"
    text = mail.get_payload(decode=True).decode()  # type: ignore[union-attr]
    assert text.splitlines() == [e["text"] for e in _events(2)]


def test_a_refused_login_is_a_failed_delivery_without_the_password(mailbox: Mailbox) -> None:
    with pytest.raises(DeliveryError, match="SMTPAuthenticationError") as caught:
        delivery.send(
            _mail_notifier(mailbox), Secrets(username=SMTP_USER, password="wrong-password"), _events()
        )
    assert "wrong-password" not in str(caught.value) and not mailbox.messages


def test_a_certificate_nobody_trusts_is_refused(mailbox: Mailbox, tmp_path: Path) -> None:
    import trustme

    other = tmp_path / "other-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(other))
    notifier = _mail_notifier(mailbox, ca_file=other)
    with pytest.raises(DeliveryError, match="CERTIFICATE_VERIFY_FAILED"):
        delivery.send(notifier, Secrets(username=SMTP_USER, password=SMTP_PASSWORD), _events())
    assert not mailbox.logins


def test_the_words_follow_the_language(receiver: Receiver) -> None:
    from desktop.i18n import set_language

    set_language("zh_CN")
    try:
        _send("dingtalk", receiver)
    finally:
        set_language(None)
    body = receiver.requests[0].json
    assert body["markdown"]["title"] == "linkvet 告警：sj 触发 sj-loss"
    assert (
        "告警 sj-loss（来自 shanghai）：sj (icmp 198.18.0.1)：最近 3 轮丢包率 12.5%，高于 2%"
        in body["markdown"]["text"]
    )
    assert _events()[0]["status"] == "firing"  # the enumerated values stay as they are
