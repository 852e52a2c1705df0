"""Issue 12's reproducers, kept: hostile input through the real `linkvet` command ends with the exit code
the README's table gives its cause and one line saying what is wrong — never a hang (every run has a
timeout), never a traceback, never a silently wrong result."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, cli_env

EXAMPLE_NEEDS = str(REPO_ROOT / "catalogs" / "needs" / "example-70b-full.toml")
EXAMPLE_PLAN = str(REPO_ROOT / "probes" / "schedule" / "plans" / "example.toml")
RunLinkvet = Callable[..., subprocess.CompletedProcess[str]]


def _run_all(tmp_path: Path, commands: list[tuple[str, ...]]) -> list[subprocess.CompletedProcess[str]]:
    def run(args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "desktop.cli", *args],
            cwd=tmp_path,
            env=cli_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,  # a hang fails the test instead of blocking the suite
        )

    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(run, commands))


def _assert_each(tmp_path: Path, cases: list[tuple[tuple[str, ...], int, str]]) -> None:
    runs = _run_all(tmp_path, [args for args, _, _ in cases])
    for (args, code, words), done in zip(cases, runs, strict=True):
        said = done.stderr + done.stdout
        assert done.returncode == code, (args, done.returncode, said[-600:])
        assert re.search(words, said), (args, words, said[-600:])
        assert "Traceback" not in said, (args, said)


def _links(tmp_path: Path) -> Path:
    path = tmp_path / "links.json"
    path.write_text("[]")
    return path


def test_a_fifo_given_as_any_input_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "input.toml"
    os.mkfifo(fifo)
    f, links = str(fifo), str(_links(tmp_path))
    pipe = "is a named pipe \\(FIFO\\), not a regular file"
    cases: list[tuple[tuple[str, ...], int, str]] = [
        (("schedule", "--plan", f, "--check"), 2, f"{f}: {pipe}"),
        (("schedule", "--plan", f, "--once"), 2, f"{f}: {pipe}"),
        (("probe", "--file", f, "--no-store"), 2, f"{f}: {pipe}"),
        (("score", "--needs", f, "--links", links), 2, pipe),
        (("size", "--needs", f), 2, pipe),
        (("export", "--needs", f, "--out", str(tmp_path / "o.xlsx")), 2, pipe),
        (("score", "--needs", EXAMPLE_NEEDS, "--links", f), 2, f"{f}: {pipe}"),
        (("score", "--needs", EXAMPLE_NEEDS, "--links", links, "--checklist", f), 2, pipe),
        (("catalog", "validate", f), 2, pipe),
        (("catalog", "list", "--catalogs", f), 2, pipe),
        (("catalog", "import-skypilot", f, "--out", str(tmp_path)), 2, pipe),
        (("trace", "127.0.0.1", "--networks", f, "--no-store"), 2, f"network table: {f}: {pipe}"),
        (("history", "--db", f), 3, f"{f}: {pipe}"),
        (("probe", "127.0.0.1", "-c", "1", "--db", f), 3, f"{f}: {pipe}"),
        (("schedule", "--plan", EXAMPLE_PLAN, "--once", "--log-file", f), 3, "log file .*named pipe"),
        (("accept", "--nccl-log", f), 2, pipe),
    ]
    _assert_each(tmp_path, cases)


def test_a_device_or_a_folder_as_input_is_refused(tmp_path: Path) -> None:
    cases: list[tuple[tuple[str, ...], int, str]] = [
        (("schedule", "--plan", "/dev/zero", "--check"), 2, "/dev/zero: is a device"),
        (("size", "--needs", str(tmp_path)), 2, "is a folder, not a file"),
        (("probe", "--file", "/dev/zero", "--no-store"), 2, "is a device"),
        (("schedule", "--plan", EXAMPLE_PLAN, "--once", "--log-file", str(tmp_path)), 3, "it is a folder"),
    ]
    _assert_each(tmp_path, cases)


def test_out_of_range_numbers_are_usage_errors_with_the_same_limits_as_plans(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(Path(EXAMPLE_PLAN).read_text().replace('every = "5m"', "every = inf"))
    counted = tmp_path / "counted.toml"
    counted.write_text(Path(EXAMPLE_PLAN).read_text().replace("count = 10", "count = 99999999999999"))
    cases: list[tuple[tuple[str, ...], int, str]] = [
        (("history", "--since", "9999999d"), 2, "reaches back before 1970-01-01"),
        (("history", "--until", "9999-12-31T23:59:59-14:00"), 2, "outside the times linkvet reads"),
        (("export", "--since", "9999999d", "--out", str(tmp_path / "o.xlsx")), 2, "reaches back"),
        (("schedule", "--plan", str(plan), "--check"), 2, f"{plan}:9: .*inf is not a number"),
        (("probe", "127.0.0.1", "-c", "99999999999999"), 2, "is not a whole number from 1 to 100000"),
        (("schedule", "--plan", str(counted), "--check"), 2, "is not a whole number from 1 to 100000"),
        (("probe", "127.0.0.1", "-i", "1e12"), 2, "'1e12' is not a number of seconds from 0 to 3600"),
        (("probe", "127.0.0.1", "--gap-ms", "1e12"), 2, "is not a number of milliseconds from 0 to 10000"),
        (("probe", "127.0.0.1", "-t", "nan"), 2, "'nan' is not a number of seconds above 0"),
        (("size", "--params", "70e9", "--gpu-memory", "nan"), 2, "GPU memory nan is not a number of GB"),
        (("size", "--params", "70e9", "--gpus-per-node", "0"), 2, "0 GPUs per node"),
        (("size", "--params", "nan"), 2, r"model.params: got nan \(expected a finite number"),
    ]
    _assert_each(tmp_path, cases)


def test_nesting_and_huge_numbers_are_clear_errors_with_file_and_line(tmp_path: Path) -> None:
    deep_toml = tmp_path / "deep.toml"
    deep_toml.write_text("version = 1\nx = " + "[" * 100_000 + "]" * 100_000 + "\n")
    dotted = tmp_path / "dotted.toml"
    dotted.write_text("format_version = 1\n" + "a" + ".a" * 100_000 + " = 1\n")
    digits = tmp_path / "digits.toml"
    digits.write_text("format_version = " + "1" * 5000 + "\n")
    deep_json = tmp_path / "deep.json"
    deep_json.write_text("[" * 100_000 + "]" * 100_000)
    deep = "nested more than 32 levels deep"
    cases: list[tuple[tuple[str, ...], int, str]] = [
        (("schedule", "--plan", str(deep_toml), "--check"), 2, f"{deep_toml}:2: {deep}"),
        (("size", "--needs", str(dotted)), 2, f"{dotted}:2: {deep}"),
        (("size", "--needs", str(digits)), 2, f"{digits}:1: a number of more than 100 digits"),
        (("catalog", "validate", str(dotted)), 2, f"{dotted}:2: {deep}"),
        (("trace", "127.0.0.1", "--networks", str(deep_toml), "--no-store"), 2, deep),
        (("score", "--needs", EXAMPLE_NEEDS, "--links", str(deep_json)), 2, f"{deep_json}:1: {deep}"),
    ]
    _assert_each(tmp_path, cases)


def test_targets_are_read_strictly(tmp_path: Path) -> None:
    listed = tmp_path / "targets.txt"
    listed.write_bytes(b"127.0.0.1\n127.0.0\x00.1\n")
    doubled = tmp_path / "doubled.txt"
    doubled.write_text("127.0.0.1\n# the same address, spelled otherwise\n127.000.000.001\n")
    twice = tmp_path / "twice.txt"
    twice.write_text("example.com\nEXAMPLE.com.\n")
    cases: list[tuple[tuple[str, ...], int, str]] = [
        (("probe", "[::1", "--no-store"), 2, "is not closed"),
        (("probe", "[::1]junk", "--no-store"), 2, "only :PORT may follow"),
        (("probe", "--file", str(listed), "--no-store"), 2, f"{listed}:2: .*U\\+0000"),
        (("probe", "--file", str(doubled), "--no-store"), 2, f"{doubled}:3: .*write 127.0.0.1"),
        (("probe", "--file", str(twice), "--no-store"), 2, f"{twice}:2: example.com is already on line 1"),
        (("probe", "127.0.0.1", "127.0.0.1", "--no-store"), 2, "127.0.0.1 is given twice"),
    ]
    _assert_each(tmp_path, cases)


def test_a_byte_order_mark_is_not_part_of_the_first_host(run_linkvet: RunLinkvet, tmp_path: Path) -> None:
    listed = tmp_path / "targets.txt"
    listed.write_bytes("\ufeff127.0.0.1:9\n".encode())
    done = run_linkvet("probe", "--file", str(listed), "-c", "1", "--no-store", "--json", timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target"] == "127.0.0.1:9"


def test_a_plan_that_contradicts_itself_is_refused(tmp_path: Path) -> None:
    slower = tmp_path / "slower.toml"
    slower.write_text(Path(EXAMPLE_PLAN).read_text().replace('peak_every = "1m"', 'peak_every = "1h"'))
    shared = tmp_path / "shared.toml"
    shared.write_text(
        'version = 1\n[[targets]]\nname = "sj"\nhost = "127.0.0.1"\n'
        '[[targets]]\nname = "sj"\nhost = "127.0.0.2"\n'
    )
    cases: list[tuple[tuple[str, ...], int, str]] = [
        (("schedule", "--plan", str(slower), "--check"), 2, f"{slower}:10: .*peak_every \\(1h\\) is longer"),
        (
            ("schedule", "--plan", str(shared), "--check"),
            2,
            f"{shared}:5: .*'sj' is already target #1 \\(line 2\\)",
        ),
    ]
    _assert_each(tmp_path, cases)


HOSTILE_NAME = "x\x1b[2J\n2026-12-01T00:00:00+0000 INFO round 999 (peak): 1 targets in 0.1 s, 0 failed"


def _hostile_plan(tmp_path: Path) -> Path:
    plan = tmp_path / "hostile.toml"
    plan.write_text(
        "version = 1\n[defaults]\ncount = 2\ninterval = 0.01\ntimeout = 0.5\n"
        f'[[targets]]\nname = {json.dumps(HOSTILE_NAME)}\nhost = "127.0.0.1"\nmethods = ["tcp"]\nport = 9\n'
    )
    return plan


def test_control_characters_never_reach_the_terminal_or_forge_a_log_line(
    run_linkvet: RunLinkvet, tmp_path: Path
) -> None:
    plan, log = _hostile_plan(tmp_path), tmp_path / "linkvet.log"
    checked = run_linkvet("schedule", "--plan", str(plan), "--check", timeout=60)
    assert checked.returncode == 0, checked.stderr
    assert "\x1b" not in checked.stdout and "x\\x1b[2J\\n2026" in checked.stdout
    done = run_linkvet(
        "schedule",
        "--plan",
        str(plan),
        "--once",
        "--db",
        str(tmp_path / "s.db"),
        "--log-file",
        str(log),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    table = [line for line in done.stdout.splitlines() if "INFO round 999" in line]
    assert len(table) == 1 and table[0].startswith("x\\x1b[2J\\n2026")  # one row, escaped
    history = run_linkvet("history", "--db", str(tmp_path / "s.db"), timeout=60)
    assert "\x1b" not in history.stdout and "x\\x1b[2J" in history.stdout
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines and all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000 [A-Z]+ ", line) for line in lines)
    assert not any(line.startswith("2026-12-01T00:00:00+0000 INFO round 999") for line in lines)


def test_a_log_that_cannot_be_written_is_exit_3_and_loses_no_round(
    run_linkvet: RunLinkvet, tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    done = run_linkvet(
        "schedule", "--plan", EXAMPLE_PLAN, "--once", "--db", str(db), "--log-file", "/dev/full", timeout=120
    )
    assert done.returncode == 3, done.stderr
    assert "the log file /dev/full could not be written: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr and "stored round 1" in done.stdout
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT count(*) FROM rounds").fetchone() == (1,)
    raw.close()


@pytest.mark.parametrize("device", ["/dev/null"])
def test_a_device_log_is_written_without_rotation(
    run_linkvet: RunLinkvet, tmp_path: Path, device: str
) -> None:
    done = run_linkvet(
        "schedule",
        "--plan",
        EXAMPLE_PLAN,
        "--once",
        "--quiet",
        "--db",
        str(tmp_path / "s.db"),
        "--log-file",
        device,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
