"""Property-based tests of every file format linkvet reads from a person (issue 12): plans, target lists,
network tables, catalogs, the checklist, needs profiles, `--links` JSON, the app's probe list and
acceptance reports. Any input parses to a valid object or raises the package's own error naming the file;
never anything else (a RecursionError, an OverflowError, a ValueError from deep inside), never a hang."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import example, given

from catalogs.checklist import CHECKLIST_PATH, parse_checklist_text
from catalogs.errors import CatalogFileError, LinkSummaryError, NeedsProfileError
from catalogs.link_quality import LinkSummary
from catalogs.loader import BUNDLED_PROVIDERS_DIR, parse_catalog_text
from catalogs.needs import EXAMPLE_NEEDS, parse_needs_text
from desktop.usecases.errors import ProbeListError
from desktop.usecases.links import read_link_file
from desktop.usecases.probe_list import ProbeListFile
from probes import limits
from probes.errors import AcceptError, NetworkTableError, PlanError, TargetError
from probes.routes.table import bundled_table_path, parse_table_text
from probes.schedule.plan import EXAMPLE_PLAN, parse_plan
from probes.target import parse_target_list
from tests.fuzz.strategies import FUZZ, json_documents, toml_documents

DEEP_ARRAY = "a = " + "[" * 100_000 + "]" * 100_000
DEEP_KEY = "a" + ".a" * 100_000 + " = 1"
DEEP_TABLE = "[" + "a." * 100_000 + "a]"
LONG_NUMBER = "version = " + "1" * 5000
DEEP_JSON = "[" * 100_000 + "]" * 100_000
LONG_JSON_NUMBER = "[" + "1" * 5000 + "]"


def _toml(path: Path) -> tuple[dict[str, object], str]:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text), text


PLAN, PLAN_TEXT = _toml(EXAMPLE_PLAN)
NEEDS, NEEDS_TEXT = _toml(EXAMPLE_NEEDS)
CATALOG, CATALOG_TEXT = _toml(BUNDLED_PROVIDERS_DIR / "raksmart.toml")
CHECKLIST, CHECKLIST_TEXT = _toml(CHECKLIST_PATH)
TABLE_TEXT = bundled_table_path().read_text(encoding="utf-8")
TABLE = tomllib.loads(TABLE_TEXT)


@FUZZ
@given(toml_documents(PLAN, PLAN_TEXT))
@example(DEEP_ARRAY)
@example(DEEP_KEY)
@example(DEEP_TABLE)
@example(LONG_NUMBER)
@example(PLAN_TEXT.replace('every = "5m"', "every = inf"))
@example(PLAN_TEXT.replace('peak_every = "1m"', 'peak_every = "1h"'))
def test_a_plan_parses_or_is_a_plan_error_naming_the_file(text: str) -> None:
    try:
        plan = parse_plan(text, "hostile.toml")
    except PlanError as exc:
        assert str(exc).startswith("hostile.toml")
        return
    assert limits.CADENCE.low <= plan.peak_every_s <= plan.every_s <= limits.CADENCE.high
    names: dict[str, str | None] = {}
    for planned in plan.targets:
        assert names.setdefault(planned.target.name, planned.target.host) == planned.target.host


@FUZZ
@given(toml_documents(TABLE, TABLE_TEXT))
@example(DEEP_ARRAY)
@example(DEEP_KEY)
@example(LONG_NUMBER)
def test_a_network_table_parses_or_is_a_network_table_error(text: str) -> None:
    try:
        parse_table_text(text, path="hostile.toml")
    except NetworkTableError as exc:
        assert str(exc).startswith("hostile.toml")


@FUZZ
@given(toml_documents(CATALOG, CATALOG_TEXT))
@example(DEEP_ARRAY)
@example(DEEP_KEY)
@example(DEEP_TABLE)
@example("format_version = " + "1" * 5000)
@example("format_version = 1\nx = " + "9" * 30)  # rtoml refuses a 64-bit overflow tomllib reads
def test_a_catalog_loads_or_lists_its_problems_with_the_file(text: str) -> None:
    path = Path("hostile.toml")
    catalog, problems = parse_catalog_text(text, path)
    assert (catalog is None) == bool(problems)
    for problem in problems:
        assert isinstance(problem, CatalogFileError) and problem.path == path


@FUZZ
@given(toml_documents(CHECKLIST, CHECKLIST_TEXT))
@example(DEEP_ARRAY)
@example(DEEP_KEY)
def test_the_checklist_parses_or_is_a_catalog_file_error(text: str) -> None:
    path = Path("hostile.toml")
    try:
        parse_checklist_text(text, path)
    except CatalogFileError as exc:
        assert exc.path == path


@FUZZ
@given(toml_documents(NEEDS, NEEDS_TEXT))
@example(DEEP_ARRAY)
@example(DEEP_KEY)
@example(DEEP_TABLE)
@example(LONG_NUMBER.replace("version", "format_version"))
@example(NEEDS_TEXT.replace("params = 7e9", "params = nan"))
def test_a_needs_profile_parses_or_is_a_needs_profile_error(text: str) -> None:
    path = Path("hostile.toml")
    try:
        parse_needs_text(text, path)
    except NeedsProfileError as exc:  # a syntax problem is one too (the reader passes its class)
        assert exc.path == path


TARGET_LIST = "127.0.0.1\n# a comment\n[::1]:22\nhttps://speed.example.net/x\nexample.com  # name\n"


@FUZZ
@given(toml_documents({}, TARGET_LIST))
@example("[::1\n")
@example("[::1]junk\n")
@example("127.0.0\x00.1\n")
@example("127.0.0.1\n127.000.000.001\n")
@example("example.com\nEXAMPLE.com.\n")
def test_a_target_list_parses_or_is_a_target_error_naming_file_and_line(text: str) -> None:
    try:
        targets = parse_target_list(text, "list.txt")
    except TargetError as exc:
        assert str(exc).startswith("list.txt:")
        return
    assert len({t.key for t in targets}) == len(targets)  # normalised, then compared


LINKS = [
    {
        "provider": "acme",
        "region": "la",
        "vantage": "office",
        "period_start": "2026-11-01T00:00:00Z",
        "period_end": "2026-11-08T00:00:00Z",
        "peak_windows": ["20:00-23:00 Asia/Shanghai"],
        "peak": {"rtt_median_ms": 150.0, "loss": 0.01, "samples": 100, "hours": 3.0},
        "offpeak": {"rtt_median_ms": 140.0, "loss": 0.0, "samples": 500, "hours": 20.0},
        "route": {"claimed_line_type": "cn2-gia", "measured_class": "cn2-gia", "agrees": True, "traces": 3},
    }
]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@FUZZ
@given(json_documents(LINKS))
@example(DEEP_JSON)
@example(LONG_JSON_NUMBER)
@example(json.dumps(LINKS).replace("150.0", "NaN"))
@example(json.dumps(LINKS).replace("150.0", "1e999"))
@example(json.dumps(LINKS).replace("2026-11-08T00:00:00Z", "9999-12-31T23:59:59-14:00"))
def test_a_links_file_reads_or_is_a_link_summary_error(scratch: Path, text: str) -> None:
    path = scratch / "links.json"
    path.write_text(text, encoding="utf-8")
    try:
        summaries = read_link_file(path)
    except LinkSummaryError as exc:
        assert str(exc).startswith(str(path))
        return
    assert all(isinstance(s, LinkSummary) for s in summaries)


PROBE_LIST = {
    "version": 1,
    "targets": [
        {"name": "a", "method": "icmp", "host": "127.0.0.1", "port": None, "url": None, "enabled": True},
        {"name": "b", "method": "http", "host": None, "url": "https://x.example/", "origin": "catalog"},
    ],
}


@FUZZ
@given(json_documents(PROBE_LIST))
@example(DEEP_JSON)
@example(LONG_JSON_NUMBER)
def test_the_probe_list_reads_or_is_a_probe_list_error(scratch: Path, text: str) -> None:
    path = scratch / "gui-targets.json"
    path.write_text(text, encoding="utf-8")
    try:
        ProbeListFile(path).load()
    except ProbeListError as exc:
        assert str(exc).startswith(str(path))


REPORT = {
    "format": "linkvet-acceptance-report",
    "format_version": 1,
    "checks": [{"fact": "gpu", "verdict": "confirmed"}],
    "summary": {"confirmed": 1, "contradicted": 0, "unverified": 0},
}


@FUZZ
@given(json_documents(REPORT))
@example(DEEP_JSON)
@example(LONG_JSON_NUMBER)
@example(json.dumps({**REPORT, "checks": 1}))  # found by Hypothesis: a TypeError, not an AcceptError
@example(json.dumps({**REPORT, "host": ["x"]}))
def test_an_acceptance_report_reads_or_is_an_accept_error(scratch: Path, text: str) -> None:
    from probes.accept.report import load_report

    path = scratch / "report.json"
    path.write_text(text, encoding="utf-8")
    try:
        load_report(path)
    except AcceptError as exc:
        assert str(path) in str(exc)
