"""End to end: `linkvet schedule --once` measures real loopback targets, a line that stops answering fires an
alert that reaches a test webhook and a test mailbox, the next run (the line answering again, a new process)
resolves it, and a route that is not the one expected fires once and is not repeated; `--check` lists the
rules and refuses a notifier whose environment variable is unset."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import cli_env
from tests.notifiers import SMTP_PASSWORD, SMTP_USER, Mailbox, Receiver


def _plan(tmp_path: Path, port: int, mailbox: Mailbox) -> Path:
    plan = tmp_path / "office.toml"
    plan.write_text(
        f"""\
version = 1
vantage = "shanghai"
[schedule]
every = "1m"
peak_windows = []
[defaults]
count = 3
interval = 0.01
timeout = 0.3
[[targets]]
name = "line"
host = "127.0.0.1"
port = {port}
methods = ["tcp"]
[[targets]]
name = "path"
host = "127.0.0.1"
methods = ["trace"]
[[alerts]]
name = "line-loss"
when = "loss"
above = 50
rounds = 1
notify = ["ops", "mail"]
[[alerts]]
name = "path-route"
when = "route"
expect = "cn2-gia"
notify = ["ops"]
[notifiers.ops]
type = "wecom"
url_env = "T_WECOM_URL"
[notifiers.mail]
type = "email"
smtp_host = "127.0.0.1"
smtp_port = {mailbox.port}
ca_file = "{mailbox.ca_file}"
username_env = "T_SMTP_USER"
password_env = "T_SMTP_PASSWORD"
from = "linkvet@office.test"
to = ["oncall@office.test"]
"""
    )
    return plan


def _linkvet(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop.cli", *args],
        cwd=tmp_path,
        env={**cli_env(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


class Line:
    """A loopback TCP port that first drops SYNs silently (a full accept queue), then answers."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
        self.port = int(self.listener.getsockname()[1])
        self.fillers = [socket.create_connection(("127.0.0.1", self.port))]
        extra = socket.socket()
        extra.setblocking(False)
        extra.connect_ex(("127.0.0.1", self.port))
        self.fillers.append(extra)
        time.sleep(0.1)

    def answer(self) -> None:
        for sock in self.fillers:
            sock.close()
        self.listener.close()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", self.port))
        self.listener.listen(128)

    def close(self) -> None:
        self.answer()
        self.listener.close()


def test_an_alert_fires_reaches_webhook_and_mailbox_and_resolves_in_the_next_run(
    tmp_path: Path, receiver: Receiver, mailbox: Mailbox
) -> None:
    line = Line()
    plan = _plan(tmp_path, line.port, mailbox)
    env = {
        "T_WECOM_URL": f"{receiver.base}/cgi-bin/webhook/send?key=wecom-key-123",
        "T_SMTP_USER": SMTP_USER,
        "T_SMTP_PASSWORD": SMTP_PASSWORD,
    }
    args = ("schedule", "--plan", str(plan), "--once", "--db", str(tmp_path / "s.sqlite3"))
    args += ("--log-file", str(tmp_path / "l.log"))
    try:
        first = _linkvet(tmp_path, env, *args)
        assert first.returncode in (0, 1), first.stderr
        (message,) = receiver.wait_for(1)
        content = message.json["markdown"]["content"]
        assert "FIRING line-loss from shanghai" in content and "loss 100.0%" in content
        assert "FIRING path-route from shanghai" in content and "expected cn2-gia" in content
        assert message.query["key"] == ["wecom-key-123"]
        (mail,) = mailbox.wait_for(1)
        assert mail["Subject"] == "linkvet alert: line-loss firing for line"

        line.answer()
        second = _linkvet(tmp_path, env, *args)  # a new process: the state comes from the store
        assert second.returncode == 0, second.stderr
    finally:
        line.close()
    requests = receiver.wait_for(2)
    assert len(requests) == 2
    content = requests[1].json["markdown"]["content"]
    assert "RESOLVED line-loss from shanghai" in content and "loss 0.0%" in content
    assert "path-route" not in content  # still not cn2-gia: firing, and not told again
    mails = mailbox.wait_for(2)
    assert [m["Subject"] for m in mails][1] == "linkvet alert resolved: line-loss for line"
    log = (tmp_path / "l.log").read_text()
    assert "wecom-key-123" not in log and SMTP_PASSWORD not in log
    assert "notifier ops (wecom): delivered 2 notifications" in log


def test_check_lists_the_rules_and_refuses_an_unset_secret(tmp_path: Path, mailbox: Mailbox) -> None:
    plan = _plan(tmp_path, 9, mailbox)
    done = _linkvet(tmp_path, {}, "schedule", "--plan", str(plan), "--check")
    assert done.returncode == 2
    assert "2 alert rules:" in done.stdout
    assert "line-loss: loss above 50% in 1 round; targets line; notify ops, mail" in done.stdout
    assert "ops: wecom, at most 10 messages per 1h; environment: T_WECOM_URL (NOT SET)" in done.stdout
    assert "notifiers.ops.url_env: the environment variable T_WECOM_URL is not set" in done.stderr
    env = {"T_WECOM_URL": "http://127.0.0.1:9/x", "T_SMTP_USER": "u", "T_SMTP_PASSWORD": "p"}
    assert _linkvet(tmp_path, env, "schedule", "--plan", str(plan), "--check").returncode == 0
