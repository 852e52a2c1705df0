"""Plan files: the example loads; every kind of mistake names file, line, field and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from probes import limits
from probes.errors import PlanError
from probes.limits import parse_duration
from probes.schedule.plan import EXAMPLE_PLAN, load_plan, parse_plan
from probes.target import Method

GOOD = """\
version = 1
vantage = "shanghai-office"

[schedule]
every = "5m"
peak_every = "30s"
peak_windows = ["20:00-23:00 Asia/Shanghai", "12:00-13:00 Asia/Shanghai mon,tue,wed,thu,fri"]

[defaults]
count = 5
interval = 0.5
[defaults.download]
count = 1
max_bytes = 1000000

[[targets]]
name = "la"
host = "198.18.7.1"
methods = ["icmp", "tcp"]
port = 22
provider = "acme"
region = "los-angeles"
line_type = "cn2-gia"

[[targets]]
url = "https://files.example/100mb.bin"
methods = ["download"]
every = "1h"
"""


def test_a_good_plan() -> None:
    plan = parse_plan(GOOD, "office.toml")
    assert plan.name == "office" and plan.vantage == "shanghai-office"
    assert (plan.every_s, plan.peak_every_s) == (300, 30)
    assert [str(w) for w in plan.peak_windows][1] == "12:00-13:00 Asia/Shanghai mon,tue,wed,thu,fri"
    keys = [p.target.key for p in plan.targets]
    assert keys == ["icmp:198.18.7.1", "tcp:198.18.7.1:22", "download:https://files.example/100mb.bin"]
    assert plan.targets[0].target.line_type == "cn2-gia" and plan.targets[0].target.name == "la"
    assert plan.targets[2].every_s == 3600
    assert plan.options[Method.ICMP].count == 5 and plan.options[Method.ICMP].interval_s == 0.5
    assert (
        plan.options[Method.DOWNLOAD].count == 1
        and plan.options[Method.DOWNLOAD].download_max_bytes == 1_000_000
    )
    assert plan.options[Method.DOWNLOAD].interval_s == 0.5  # inherits the plan-wide default


def test_the_bundled_example_plan_loads() -> None:
    plan = load_plan(EXAMPLE_PLAN)
    assert plan.targets and all(p.target.host in ("127.0.0.1", "::1") for p in plan.targets)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ("port = 22", "port = 99999"),
            "office.toml:20: targets[0].port: 99999 is not a whole number from 1 to 65535",
        ),
        (
            ('every = "5m"', 'every = "5 minutes"'),
            "office.toml:5: schedule.every: '5 minutes' is not a duration",
        ),
        (
            ('methods = ["icmp", "tcp"]', 'methods = ["icmp", "ping"]'),
            "office.toml:19: targets[0].methods[1]: got 'ping'",
        ),
        (
            ('line_type = "cn2-gia"', 'line_typ = "cn2-gia"'),
            "office.toml:23: targets[0].line_typ: unknown field",
        ),
        (
            ("count = 5", "count = -5"),
            "office.toml:10: defaults.count: -5 is not a whole number from 1 to 100000",
        ),
        (("[[targets]]\nname", "[[targets]\nname"), "office.toml:16: TOML syntax error"),
        (("version = 1", "version = 7"), "office.toml:1: version: plan format version 7 is newer"),
        (
            ('"20:00-23:00 Asia/Shanghai"', '"20:00-23:00 Asia/Shanghia"'),
            "office.toml:7: schedule.peak_windows: unknown time zone 'Asia/Shanghia'",
        ),
        (
            ('url = "https://files.example/100mb.bin"', 'url = "ftp://files.example/x"'),
            "office.toml:26: targets[1].url: 'ftp://files.example/x': expected an http:// or https:// URL",
        ),
        (('every = "1h"', 'every = "-1h"'), "office.toml:28: targets[1].every"),
    ],
)
def test_mistakes_are_located(edit: tuple[str, str], expected: str) -> None:
    text = GOOD.replace(*edit, 1)
    assert text != GOOD
    with pytest.raises(PlanError) as caught:
        parse_plan(text, "office.toml")
    assert str(caught.value).startswith(expected), str(caught.value)


def test_missing_and_duplicate_targets() -> None:
    with pytest.raises(PlanError, match="targets: missing"):
        parse_plan("version = 1\n", "p.toml")
    with pytest.raises(PlanError, match=r"p\.toml:4: targets\[1\]: the same icmp target"):
        parse_plan(
            'version = 1\n[[targets]]\nhost = "198.18.0.1"\n[[targets]]\nhost = "198.18.0.1"\n', "p.toml"
        )
    with pytest.raises(PlanError, match=r"needs `host`"):
        parse_plan('version = 1\n[[targets]]\nname = "x"\n', "p.toml")


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="no such file"):
        load_plan(tmp_path / "absent.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PlanError, match="not UTF-8"):
        load_plan(binary)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90s", 90), ("5m", 300), ("1h30m", 5400), (45, 45), ("7d", 604800), ("2w1d", 1296000)],
)
def test_durations(text: object, seconds: float) -> None:
    assert parse_duration(text) == seconds
    assert parse_duration("0.5s", limits.INTERVAL) == 0.5


@pytest.mark.parametrize(
    "text", ["", "5", "soon", "0s", -3, True, "1m1h", "5m5m", float("inf"), float("nan"), "32d"]
)
def test_bad_durations(text: object) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_cadences_under_a_second_are_refused() -> None:
    with pytest.raises(
        PlanError, match=r"p\.toml:3: schedule\.every: '0.001s' is not a number of seconds from 1"
    ):
        parse_plan('version = 1\n[schedule]\nevery = "0.001s"\n[[targets]]\nhost = "127.0.0.1"\n', "p.toml")


def test_a_malformed_url_is_a_located_error_not_a_traceback() -> None:
    with pytest.raises(PlanError, match=r"p\.toml:3: targets\[0\]\.url: .*not a valid URL"):
        parse_plan('version = 1\n[[targets]]\nurl = "http://[::1"\nmethods = ["http"]\n', "p.toml")


def test_responsiveness_targets_and_their_options() -> None:
    text = """version = 1
[defaults]
count = 10
interval = 1.0
[defaults.responsiveness]
count = 1
idle_seconds = 3
probe_interval = 0.05
upload_url = "https://speed.example.net/upload"
[[targets]]
name = "la-file"
url = "https://speed.example.net/100mb.bin"
methods = ["download", "responsiveness"]
every = "1h"
"""
    plan = parse_plan(text, "loads.toml")
    methods = [p.target.method for p in plan.targets]
    assert methods == [Method.DOWNLOAD, Method.RESPONSIVENESS]
    options = plan.options[Method.RESPONSIVENESS]
    assert (options.count, options.load_idle_s, options.load_probe_interval_s) == (1, 3.0, 0.05)
    assert options.load_upload_url == "https://speed.example.net/upload"
    assert options.download_connections == 4  # responsiveness' default; a download keeps one
    assert plan.options[Method.DOWNLOAD].download_connections == 1
    with pytest.raises(PlanError, match=r"loads.toml.*idle_seconds"):
        parse_plan(text.replace("idle_seconds = 3", "idle_seconds = 0"), "loads.toml")
