"""`[[alerts]]` and `[notifiers.NAME]` in plan files: what each kind needs, errors naming file, line and field,
secrets only from the environment; and the judging of each kind on a target's last points (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from probes.alerts.judge import Point, counts, judge, judge_no_data, point_for
from probes.alerts.rules import resolve_secrets
from probes.errors import ErrorKind, PlanError
from probes.results import ProbeResult, Sample
from probes.schedule.plan import parse_plan
from probes.target import parse_target

HEAD = """\
version = 1
vantage = "shanghai"
[schedule]
every = "5m"
peak_windows = ["20:00-23:00 Asia/Shanghai"]
[[targets]]
name = "sj"
host = "198.18.0.1"
methods = ["icmp", "trace"]
provider = "acme"
line_type = "cn2-gia"
[[targets]]
name = "file"
url = "https://files.example/1g.bin"
methods = ["download"]
"""
HOOK = '[notifiers.ops]\ntype = "dingtalk"\nurl_env = "T_DING_URL"\nsecret_env = "T_DING_SECRET"\n'


def _plan(alerts: str, notifiers: str = HOOK):  # type: ignore[no-untyped-def]
    return parse_plan(HEAD + alerts + notifiers, "office.toml")


def test_every_kind_of_rule_reads() -> None:
    plan = _plan(
        '[[alerts]]\nname = "loss"\nwhen = "loss"\nabove = 2\nnotify = ["ops"]\n'
        '[[alerts]]\nname = "p95"\nwhen = "p95"\nabove_ms = 180\npeak_only = true\nnotify = ["ops"]\n'
        '[[alerts]]\nname = "slow"\nwhen = "throughput"\nbelow_mbps = 50\nrounds = 2\nnotify = ["ops"]\n'
        '[[alerts]]\nname = "route"\nwhen = "route"\nexpect = "cn2-gia"\nnotify = ["ops", "ops"]\n'
        '[[alerts]]\nname = "quiet"\nwhen = "no_data"\nfor = "30m"\nprovider = "acme"\nnotify = ["ops"]\n'
    )
    assert plan.alerting is not None
    loss, p95, slow, route, quiet = plan.alerting.rules
    assert (loss.kind, loss.threshold, loss.rounds, sorted(loss.target_keys)) == (
        "loss",
        2,
        3,
        ["icmp:198.18.0.1"],
    )
    assert [str(w) for w in p95.windows] == ["20:00-23:00 Asia/Shanghai"]
    assert sorted(slow.target_keys) == ["download:https://files.example/1g.bin"] and slow.rounds == 2
    assert sorted(route.target_keys) == ["trace:198.18.0.1"] and route.notify == ("ops",)
    assert quiet.for_s == 1800 and sorted(quiet.target_keys) == ["icmp:198.18.0.1", "trace:198.18.0.1"]
    assert plan.alerting.notifiers["ops"].env_names == ("T_DING_URL", "T_DING_SECRET")


@pytest.mark.parametrize(
    ("alerts", "notifiers", "expected"),
    [
        ('when = "loss"\nnotify = ["ops"]\n', HOOK, "office.toml:16: alerts[0]: a `loss` rule needs `above`"),
        (
            'when = "loss"\nabove = 2\nabove_ms = 5\nnotify = ["ops"]\n',
            HOOK,
            "office.toml:16: alerts[0]: `above_ms` does not apply to a `loss` rule",
        ),
        (
            'when = "loss"\nabove = 200\nnotify = ["ops"]\n',
            HOOK,
            "office.toml:19: alerts[0].above: Input should be less than or equal to 100 (got 200)",
        ),
        (
            'when = "lost"\nabove = 2\nnotify = ["ops"]\n',
            HOOK,
            "office.toml:18: alerts[0].when: Input should be 'loss', 'p95', 'throughput', 'route' or 'no_data'",
        ),
        (
            'when = "loss"\nabove = 2\nnotify = ["pager"]\n',
            HOOK,
            "office.toml:20: alerts[0].notify[0]: no notifier 'pager' (add a [notifiers.pager] table; defined: ops)",
        ),
        (
            'when = "loss"\nabove = 2\ntargets = ["nope"]\nnotify = ["ops"]\n',
            HOOK,
            "office.toml:20: alerts[0].targets[0]: the plan has no target named 'nope'",
        ),
        (
            'when = "throughput"\nbelow_mbps = 5\ntargets = ["sj"]\nnotify = ["ops"]\n',
            HOOK,
            "office.toml:16: alerts[0]: the rule selects no target it can judge (a `throughput` rule judges "
            "download, iperf3 targets)",
        ),
        (
            'when = "loss"\nabove = 2\nnotify = ["ops"]\n',
            '[notifiers.ops]\ntype = "slack"\nurl = "https://hooks.slack.example/T0/B0/XXXX"\n',
            "office.toml:21: notifiers.ops: a slack URL carries the bot's token: give it as `url_env`, not in the plan",
        ),
        (
            'when = "loss"\nabove = 2\nnotify = ["ops"]\n',
            '[notifiers.ops]\ntype = "email"\nsmtp_host = "smtp.example"\nfrom = "a@b.example"\nto = ["x"]\n',
            "office.toml:21: notifiers.ops: 'x' is not an email address",
        ),
        (
            'when = "loss"\nabove = 2\nnotify = ["ops"]\n',
            '[notifiers.ops]\ntype = "email"\nsmtp_host = "smtp.example"\nfrom = "a@b.example"\nto = ["x@y.example"]\n'
            'tls = "none"\nusername_env = "U"\npassword_env = "P"\n',
            'office.toml:21: notifiers.ops: `tls = "none"` would send the password in clear text: use starttls or tls',
        ),
        (
            'when = "loss"\nabove = 2\nnotify = ["ops"]\n',
            '[notifiers.ops]\ntype = "webhook"\nurl_env = "has space"\n',
            "office.toml:23: notifiers.ops.url_env: String should match pattern",
        ),
    ],
)
def test_mistakes_name_the_file_line_and_field(alerts: str, notifiers: str, expected: str) -> None:
    with pytest.raises(PlanError) as caught:
        _plan('[[alerts]]\nname = "r"\n' + alerts, notifiers)
    assert str(caught.value).startswith(expected)
    assert "hooks.slack.example" not in str(caught.value)


def test_secrets_come_from_the_environment_and_a_missing_one_is_named() -> None:
    plan = _plan('[[alerts]]\nname = "r"\nwhen = "loss"\nabove = 2\nnotify = ["ops"]\n')
    assert plan.alerting is not None
    secrets = resolve_secrets(
        plan.alerting,
        {"T_DING_URL": "https://ding.example/robot/send?access_token=t", "T_DING_SECRET": "SECx"},
    )
    assert (
        secrets["ops"].url == "https://ding.example/robot/send?access_token=t"
        and secrets["ops"].secret == "SECx"
    )
    with pytest.raises(
        PlanError,
        match=r"office.toml:21: notifiers.ops.secret_env: the environment variable T_DING_SECRET is not set",
    ):
        resolve_secrets(plan.alerting, {"T_DING_URL": "https://ding.example/robot/send?access_token=t"})
    with pytest.raises(PlanError, match="T_DING_URL: not an http") as caught:
        resolve_secrets(plan.alerting, {"T_DING_URL": "ding.example/secret-token", "T_DING_SECRET": "SECx"})
    assert "secret-token" not in str(caught.value)


def _rule(alerts: str):  # type: ignore[no-untyped-def]
    plan = _plan('[[alerts]]\nname = "r"\n' + alerts)
    assert plan.alerting is not None
    return plan.alerting.rules[0]


def test_loss_and_p95_pool_the_last_rounds() -> None:
    loss = _rule('when = "loss"\nabove = 10\nrounds = 2\nnotify = ["ops"]\n')
    assert judge(loss, [Point(0, 10, 5)]).breaching is None  # window not full
    assert judge(loss, [Point(0, 10, 10), Point(1, 10, 1), Point(2, 10, 1)]).value == 10.0  # the last two
    assert judge(loss, [Point(1, 10, 1), Point(2, 10, 2)]).breaching is True
    p95 = _rule('when = "p95"\nabove_ms = 100\nrounds = 2\nnotify = ["ops"]\n')
    points = [Point(0, 3, 0, (10.0, 20.0, 30.0)), Point(1, 2, 1, (200.0,))]
    judged = judge(p95, points)
    assert judged.breaching is True and judged.value == pytest.approx(
        174.5
    )  # NumPy's linear p95 of 4 replies
    assert judge(p95, [Point(0, 3, 3), Point(1, 3, 3)]).breaching is None  # nothing answered: loss's business


def test_peak_only_counts_rounds_inside_the_windows() -> None:
    p95 = _rule('when = "p95"\nabove_ms = 100\npeak_only = true\nnotify = ["ops"]\n')
    evening = int(datetime(2027, 1, 15, 13, 30, tzinfo=UTC).timestamp() * 1e6)  # 21:30 in Shanghai
    morning = int(datetime(2027, 1, 15, 2, 0, tzinfo=UTC).timestamp() * 1e6)
    assert counts(p95, evening) and not counts(p95, morning)


def test_throughput_route_and_no_data() -> None:
    slow = _rule('when = "throughput"\nbelow_mbps = 50\nrounds = 2\nnotify = ["ops"]\n')
    assert judge(slow, [Point(0, mbps=40.0), Point(1, mbps=70.0)]).breaching is False  # mean 55
    assert judge(slow, [Point(0, mbps=40.0), Point(1, mbps=50.0)]).breaching is True
    route = _rule('when = "route"\nexpect = "cn2-gia"\nrounds = 2\nnotify = ["ops"]\n')
    assert judge(route, [Point(0, route_class="163"), Point(1, route_class="163")]).breaching is True
    assert judge(route, [Point(0, route_class="163"), Point(1, route_class="cn2-gia")]).breaching is None
    assert judge(route, [Point(0, route_class="cn2-gia"), Point(1, route_class="cn2-gia")]).breaching is False
    changed = _rule('when = "route"\nnotify = ["ops"]\n')  # no `expect`: the class first seen
    assert judge(changed, [Point(0, route_class="cn2-gt")], baseline="cn2-gia").observed == "cn2-gt"
    quiet = _rule('when = "no_data"\nfor = "30m"\nnotify = ["ops"]\n')
    assert judge_no_data(quiet, 0, 1_799_000_000).breaching is False
    assert judge_no_data(quiet, 0, 1_801_000_000).breaching is True


def test_attempts_this_machine_could_not_send_count_as_neither_sent_nor_lost() -> None:
    """A round's point, as the judge takes it live, is what the stored result says (sent, received): two
    echoes refused by this machine (hand-written: no route for them) are not loss on the line."""
    loss = _rule('when = "loss"\nabove = 10\nrounds = 1\nnotify = ["ops"]\n')
    rtts = [150.0, None, 151.0, None, 152.0, None]
    errors = [None, ErrorKind.SEND_FAILED, None, ErrorKind.TIMEOUT, None, ErrorKind.SEND_FAILED]
    samples = tuple(
        Sample(i, i * 1000, rtt, error) for i, (rtt, error) in enumerate(zip(rtts, errors, strict=True))
    )
    result = ProbeResult(parse_target("198.18.0.1"), 0, 6000, samples)
    point = point_for(loss, result)
    assert point is not None and (point.sent, point.lost) == (4, 1) == (
        result.sent,
        result.sent - result.received,
    )
    assert judge(loss, [point]).value == 25.0
