"""Plans, rounds and engines the alert tests share: rounds built from samples (the engine's input), engines
on a real store with a clock the test moves."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from probes.alerts.engine import AlertEngine
from probes.alerts.rules import resolve_secrets
from probes.results import ProbeResult, Sample
from probes.schedule.plan import Plan, parse_plan
from probes.schedule.report import RoundReport
from probes.store import Store
from tests.notifiers import SMTP_PASSWORD, SMTP_USER, Mailbox, Receiver
from tests.rounds import save_results

T0 = 1_800_000_000.0  # 2027-01-15T08:00:00Z, a Friday (16:00 in Shanghai: off-peak)
HOOK_TOKEN = "tok-7f3a9c-never-logged"
HOOK_SECRET = "hmac-secret-for-the-body"


def plan_text(mailbox: Mailbox | None, *, extra: str = "", hook: str = "", targets: int = 1) -> str:
    lines = [
        'version = 1\nname = "office"\nvantage = "shanghai"\n[schedule]\nevery = "1m"\n'
        'peak_windows = ["20:00-23:00 Asia/Shanghai"]\n'
    ]
    for i in range(targets):
        lines.append(f'[[targets]]\nname = "sj-{i}"\nhost = "198.18.0.{i + 1}"\nprovider = "acme"\n')
    notify = '["hook", "mail"]' if mailbox else '["hook"]'
    lines.append(f'[[alerts]]\nname = "sj-loss"\nwhen = "loss"\nabove = 10\nrounds = 2\nnotify = {notify}\n')
    lines.append(extra)
    lines.append(
        f'[notifiers.hook]\ntype = "webhook"\nurl_env = "T_HOOK_URL"\nsecret_env = "T_HOOK_SECRET"\n{hook}\n'
    )
    if mailbox is not None:
        lines.append(
            f'[notifiers.mail]\ntype = "email"\nsmtp_host = "127.0.0.1"\nsmtp_port = {mailbox.port}\n'
            f'ca_file = "{mailbox.ca_file}"\nusername_env = "T_SMTP_USER"\npassword_env = "T_SMTP_PASSWORD"\n'
            'from = "linkvet@office.test"\nto = ["oncall@office.test"]\n'
        )
    return "".join(lines)


def environ(receiver: Receiver) -> dict[str, str]:
    return {
        "T_HOOK_URL": f"{receiver.base}/hook?token={HOOK_TOKEN}",
        "T_HOOK_SECRET": HOOK_SECRET,
        "T_SMTP_USER": SMTP_USER,
        "T_SMTP_PASSWORD": SMTP_PASSWORD,
    }


class Clock:
    def __init__(self, start: float = T0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def engine(plan: Plan, store: Store, receiver: Receiver, clock: Clock, **options: Any) -> AlertEngine:
    assert plan.alerting is not None
    return AlertEngine(
        plan.alerting,
        store,
        plan=plan.name,
        vantage=plan.vantage,
        targets=[p.target for p in plan.targets],
        secrets=resolve_secrets(plan.alerting, environ(receiver)),
        longest_cadence_s=plan.every_s,
        clock=clock,
        **options,
    )


def load(text: str, tmp_path: Path) -> Plan:
    return parse_plan(text, str(tmp_path / "office.toml"))


def round_of(
    plan: Plan, store: Store, clock: Clock, lost: int, count: int = 10, names: Sequence[str] | None = None
) -> RoundReport:
    """A round in which each named target (all: None) lost `lost` of `count` attempts, stored as the
    scheduler stores it (a restarted engine reads its last rounds back)."""
    start = int(clock.now * 1e6)
    results = []
    for planned in plan.targets:
        if names is not None and planned.target.name not in names:
            continue
        samples = tuple(Sample(i, start + i * 1000, None if i < lost else 150.0 + i) for i in range(count))
        results.append(ProbeResult(planned.target, start, start + count * 1000, samples))
    round_id = save_results(
        store, results, source="schedule", plan=plan.name, vantage=plan.vantage, peak=False
    )
    return RoundReport(round_id, start, start + count * 1000, False, tuple(results))
