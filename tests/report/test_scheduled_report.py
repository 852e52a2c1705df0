"""The scheduled report: a plan's `[report]` table carried out by the scheduling agent (`Agent`, as `linkvet
schedule` runs it) after a real round to a loopback target: written at its hour (and once only), sent to a
local WeCom-style webhook receiver (the summary and the file's path) and a local SMTP server (the PDF attached),
not written when its slot is days ago; the table's bad input refused with the file, line and field."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from desktop.usecases.agent import Agent
from probes.errors import PlanError
from probes.schedule.plan import load_plan, parse_plan
from tests.notifiers import SMTP_PASSWORD, SMTP_USER, Mailbox, Receiver

ZONE = "Asia/Shanghai"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _plan(tmp_path: Path, weekday: str, hour: int, receiver: Receiver, mailbox: Mailbox, out: str) -> Path:
    text = f"""
version = 1
name = "sh-agent"
vantage = "shanghai"

[schedule]
every = "1m"
peak_windows = ["20:00-23:00 {ZONE}"]

[defaults]
count = 2
interval = 0.05
timeout = 0.5

[[targets]]
name = "loop"
host = "127.0.0.1"
provider = "lambda"
region = "asia-northeast-1"

[report]
evaluation = "q1"
weekday = "{weekday}"
hour = {hour}
out = "{out}"
lang = "zh_CN"
notify = ["team", "mail"]

[notifiers.team]
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
to = ["management@office.test"]
"""
    path = tmp_path / "agent.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch, receiver: Receiver) -> None:
    monkeypatch.setenv("T_WECOM_URL", f"{receiver.base}/cgi-bin/webhook/send?key=team-key")
    monkeypatch.setenv("T_SMTP_USER", SMTP_USER)
    monkeypatch.setenv("T_SMTP_PASSWORD", SMTP_PASSWORD)


def _round(plan_path: Path, db: Path) -> Agent:
    agent = Agent.prepare(load_plan(plan_path), db)
    try:
        asyncio.run(agent.run_once())
    finally:
        agent.close()  # waits for a report being written and sent
    return agent


def test_the_agent_writes_the_report_at_its_hour_and_sends_it(
    measured_db: Path, tmp_path: Path, receiver: Receiver, mailbox: Mailbox, secrets: None
) -> None:
    now = datetime.now(ZoneInfo(ZONE))
    plan = _plan(
        tmp_path, WEEKDAYS[now.weekday()], now.hour, receiver, mailbox, "reports/{evaluation}-{date}.pdf"
    )
    agent = _round(plan, measured_db)
    assert agent.reports is not None
    (written,) = agent.reports.written
    assert (
        written.parent == tmp_path / "reports" and written.name.startswith("q1-") and written.suffix == ".pdf"
    )
    assert written.read_bytes().startswith(b"%PDF")

    (posted,) = receiver.wait_for(1)
    assert posted.query["key"] == ["team-key"]
    content = posted.json["markdown"]["content"]
    assert "推荐：lambda/gpu_8x_h100_sxm5" in content and str(written) in content

    (mail,) = mailbox.wait_for(1)
    assert mailbox.logins == [SMTP_USER] and mailbox.tls_sessions == [True]
    assert mail["To"] == "management@office.test"
    attached = [part for part in mail.walk() if part.get_filename() == written.name]
    assert attached and attached[0].get_content_type() == "application/pdf"
    assert attached[0].get_payload(decode=True) == written.read_bytes()

    # The next round in the same slot writes nothing again (the state says it was written).
    again = _round(plan, measured_db)
    assert again.reports is not None and again.reports.written == []
    assert len(receiver.requests) == 1


def test_a_slot_days_ago_is_not_written(
    measured_db: Path, tmp_path: Path, receiver: Receiver, mailbox: Mailbox, secrets: None
) -> None:
    tomorrow = datetime.now(ZoneInfo(ZONE)) + timedelta(days=1)
    plan = _plan(tmp_path, WEEKDAYS[tomorrow.weekday()], tomorrow.hour, receiver, mailbox, "r-{week}.html")
    agent = _round(plan, measured_db)
    assert agent.reports is not None and agent.reports.written == []
    assert not list(tmp_path.glob("r-*.html")) and receiver.requests == []


def test_a_report_that_cannot_be_written_is_logged_once_and_measuring_goes_on(
    measured_db: Path,
    tmp_path: Path,
    receiver: Receiver,
    mailbox: Mailbox,
    secrets: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = datetime.now(ZoneInfo(ZONE))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    plan = _plan(tmp_path, WEEKDAYS[now.weekday()], now.hour, receiver, mailbox, f"{blocker}/r.pdf")
    with caplog.at_level("ERROR", logger="linkvet.schedule"):
        first = _round(plan, measured_db)
        second = _round(plan, measured_db)
    assert first.reports is not None and first.reports.written == []
    assert second.reports is not None and second.reports.written == []
    failures = [r for r in caplog.records if "not written" in r.getMessage()]
    assert len(failures) == 1 and "cannot write" in failures[0].getMessage()
    assert receiver.requests == [] and mailbox.messages == []


def test_the_slot_is_the_last_weekday_and_hour_in_the_zone() -> None:
    plan = parse_plan(
        'version = 1\n[[targets]]\nhost = "127.0.0.1"\n[report]\nevaluation = "q1"\nweekday = "monday"\n'
        'hour = 9\ntz = "Asia/Shanghai"\nout = "/tmp/{evaluation}-{week}.pdf"\n',
        "/plans/x.toml",
    )
    schedule = plan.report
    assert schedule is not None
    # Monday 2026-01-05 09:30 in Shanghai is 01:30 UTC: that Monday's slot; the Sunday before: the one before.
    slot = schedule.last_slot(datetime(2026, 1, 5, 1, 30, tzinfo=UTC))
    assert (slot.year, slot.month, slot.day, slot.hour) == (2026, 1, 5, 9)
    earlier = schedule.last_slot(datetime(2026, 1, 4, 12, 0, tzinfo=UTC))
    assert (earlier.month, earlier.day) == (12, 29)
    assert schedule.path_for(slot) == Path("/tmp/q1-2026-W02.pdf")


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ('evaluation = "q1"\nout = "r.docx"', "must end in .pdf or .html"),
        ('evaluation = "q1"\nout = "r-{when}.pdf"', "unknown placeholder {when}"),
        ('evaluation = "q1"\nout = "r.pdf"\nhour = 24', "hour"),
        ('evaluation = "q1"\nout = "r.pdf"\nnotify = ["nobody"]', "no notifier 'nobody'"),
        ('evaluation = "q1"\nout = "r.pdf"\nweekday = "someday"', "weekday"),
    ],
)
def test_a_bad_report_table_is_refused_with_its_line(table: str, words: str) -> None:
    text = f'version = 1\n[[targets]]\nhost = "127.0.0.1"\n\n[report]\n{table}\n'
    with pytest.raises(PlanError) as caught:
        parse_plan(text, "plan.toml")
    assert words in str(caught.value)
    assert "plan.toml:" in str(caught.value)
