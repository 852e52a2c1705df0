"""One exit code per cause: the CLI's single table (`desktop.cli.errors.EXIT_RULES`) is the user guide's exit-code
table (`desktop/manual/*/exit-codes.md`, both languages), it matches by class hierarchy, and the same bad input
ends every command that takes it the same way."""

from __future__ import annotations

import importlib
import re
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from desktop.cli.errors import EXIT_RULES, ExitRule, describe, rule_for
from tests.analysis.synthetic import save_traces, utc_us
from tests.conftest import REPO_ROOT, cli_env

EXAMPLE_NEEDS = str(REPO_ROOT / "catalogs" / "needs" / "example-70b-full.toml")
EXAMPLE_PLAN = str(REPO_ROOT / "probes" / "schedule" / "plans" / "example.toml")


GUIDE_TABLES = {"en": "| exit | meaning | raised as |", "zh_CN": "| 退出码 | 含义 | 对应的异常 |"}


def guide_exit_table(language: str = "en") -> set[tuple[int, str]]:
    """(exit code, class name) of every row of the user guide's exit-code table in `language`."""
    text = (REPO_ROOT / "desktop" / "manual" / language / "exit-codes.md").read_text(encoding="utf-8")
    head = text.index(GUIDE_TABLES[language])
    rows = []
    for line in text[head:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    found: set[tuple[int, str]] = set()
    codes = set()
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        code = int(cells[0])
        codes.add(code)
        found |= {(code, name) for name in re.findall(r"`(\w+)`", cells[-1])}
    assert codes == {0, 1, 2, 3, 4, 130}, codes
    return found


@pytest.mark.parametrize("language", sorted(GUIDE_TABLES))
def test_the_guides_table_is_the_clis_table(language: str) -> None:
    assert guide_exit_table(language) == {(rule.code, rule.name) for rule in EXIT_RULES}


def test_every_rule_names_a_real_exception_class() -> None:
    for rule in EXIT_RULES:
        cls = getattr(importlib.import_module(rule.module), rule.name)
        assert isinstance(cls, type) and issubclass(cls, BaseException), rule
        assert rule.resolve() is cls


def test_the_most_specific_class_in_the_table_decides() -> None:
    from catalogs.errors import NeedsProfileError
    from desktop.cli.errors import UsageError
    from probes.errors import IcmpNotPermitted, NetworkTableVersionError, SchemaVersionError

    def rule(exc: BaseException) -> ExitRule:
        found = rule_for(exc)
        assert found is not None, exc
        return found

    assert rule(SchemaVersionError("newer")).name == "StoreError"
    assert rule(IcmpNotPermitted("no")).name == "ProbesError"
    assert rule(NeedsProfileError("bad", path="n.toml", line=3)).code == 2
    newer_table = NetworkTableVersionError("t.toml", "version 9")
    table = rule(newer_table)
    assert (table.code, describe(newer_table, table)) == (2, "network table: t.toml: version 9")
    assert rule(KeyboardInterrupt()).code == 130
    assert rule_for(ZeroDivisionError()) is None  # a bug: not in the table, keeps its traceback
    noted = UsageError("bad input")
    noted.add_note("inner")
    noted.add_note("outer")
    assert describe(noted, rule(noted)) == "outer: inner: bad input"


def _run_all(tmp_path: Path, commands: list[tuple[str, ...]]) -> list[subprocess.CompletedProcess[str]]:
    def run(args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "desktop.cli", *args],
            cwd=tmp_path,
            env=cli_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=180,
        )

    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(run, commands))


def _assert_same_exit(tmp_path: Path, commands: list[tuple[str, ...]], code: int, words: str) -> None:
    for args, done in zip(commands, _run_all(tmp_path, commands), strict=True):
        assert done.returncode == code, (args, done.returncode, done.stderr)
        assert words in done.stderr + done.stdout, (args, done.stderr)  # `catalog validate` reports on stdout
        assert "Traceback" not in done.stderr, (args, done.stderr)


def _store_with_a_trace(path: Path) -> Path:
    from probes.store import Store
    from probes.target import Method, Target

    traced = Target(method=Method.TRACE, host="127.0.0.9", provider="raksmart", region="san-jose")
    with Store(path) as store:
        save_traces(store, traced, [["10.0.0.1", "202.97.12.1"]], utc_us(2026, 11, 2, 3))
    return path


def test_a_broken_network_table_is_exit_2_in_every_command(tmp_path: Path) -> None:
    bad = 'version = 1\n\n[[prefix]]\ncidr = "59.43.0.0/99"\nasn = 4809\nsource = "x"\n'
    user_table = tmp_path / "xdg-config" / "linkvet" / "route-networks.toml"
    user_table.parent.mkdir(parents=True)
    user_table.write_text(bad)
    given = tmp_path / "nets.toml"
    given.write_text(bad)
    db = str(_store_with_a_trace(tmp_path / "traced.sqlite3"))
    commands = [
        ("trace", "127.0.0.1", "--networks", str(given), "--no-store"),
        ("trace", "127.0.0.1", "--no-store"),  # the user's table from the config directory
        ("score", "--needs", EXAMPLE_NEEDS, "--db", db),  # the route checks of the stored trace
        ("export", "--db", db, "--out", str(tmp_path / "out.xlsx")),
    ]
    _assert_same_exit(tmp_path, commands, 2, "linkvet: network table: ")


def test_a_catalog_folder_with_nothing_loadable_is_exit_2_in_every_command(tmp_path: Path) -> None:
    folder = tmp_path / "catalogs"
    folder.mkdir()
    (folder / "broken.toml").write_text("format_version = 1\n[provider\n")
    empty_links = tmp_path / "links.json"
    empty_links.write_text("[]")
    given = ("--catalogs", str(folder))
    commands = [
        ("catalog", "validate", str(folder)),
        ("catalog", "list", *given),
        ("catalog", "targets", *given),
        ("score", "--needs", EXAMPLE_NEEDS, "--links", str(empty_links), *given),
        ("export", "--out", str(tmp_path / "out.xlsx"), *given),
    ]
    _assert_same_exit(tmp_path, commands, 2, "broken.toml")


def test_a_bad_needs_profile_is_exit_2_in_every_command(tmp_path: Path) -> None:
    needs = tmp_path / "needs.toml"
    needs.write_text((Path(EXAMPLE_NEEDS).read_text()).replace("[model]", "[model]\nparams = -5", 1))
    empty_links = tmp_path / "links.json"
    empty_links.write_text("[]")
    commands = [
        ("size", "--needs", str(needs)),
        ("score", "--needs", str(needs), "--links", str(empty_links)),
        ("export", "--needs", str(needs), "--out", str(tmp_path / "out.xlsx")),
    ]
    _assert_same_exit(tmp_path, commands, 2, f"{needs}:")


def test_a_bad_plan_is_exit_2_in_every_command(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text('version = 1\n[[targets]]\nhost = "127.0.0.1"\nmethods = ["smoke-signals"]\n')
    commands = [("schedule", "--plan", str(plan), *extra) for extra in ((), ("--check",), ("--once",))]
    _assert_same_exit(tmp_path, commands, 2, f"{plan}:4")


def _readers_and_writers(db: Path, tmp_path: Path) -> list[tuple[str, ...]]:
    store = ("--db", str(db))
    return [
        ("history", "127.0.0.1", *store),
        ("score", "--needs", EXAMPLE_NEEDS, *store),
        ("export", "--out", str(tmp_path / "out.xlsx"), *store),
        ("probe", "127.0.0.1", "-c", "1", "-i", "0", *store),
        ("trace", "127.0.0.1", "-P", "udp", "-m", "1", "-q", "1", *store),
        ("schedule", "--plan", EXAMPLE_PLAN, "--once", "--quiet", *store),
    ]


def test_a_file_that_is_no_store_is_exit_3_in_every_command(tmp_path: Path) -> None:
    db = tmp_path / "garbage.sqlite3"
    db.write_bytes(b"this is not a SQLite database, " * 40)
    _assert_same_exit(tmp_path, _readers_and_writers(db, tmp_path), 3, "the result store is damaged")


def test_a_store_from_a_newer_linkvet_is_exit_3_in_every_command(tmp_path: Path) -> None:
    from probes.store import Store

    db = tmp_path / "newer.sqlite3"
    Store(db).close()
    with sqlite3.connect(db) as raw:
        raw.execute("PRAGMA user_version = 999")
    raw.close()
    _assert_same_exit(tmp_path, _readers_and_writers(db, tmp_path), 3, "newer linkvet")


@pytest.mark.parametrize("command", [("gui",), ("probe", "127.0.0.1", "--count", "x")])
def test_argparse_and_the_window_keep_their_codes(tmp_path: Path, command: tuple[str, ...]) -> None:
    env = {
        k: v
        for k, v in cli_env(tmp_path).items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    done = subprocess.run(
        [sys.executable, "-m", "desktop.cli", *command], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == (3 if command == ("gui",) else 2), done.stderr
    assert "Traceback" not in done.stderr
