"""Terminal tables line up by display width: with Chinese (two columns a character) and ASCII target names
in one table, every column starts at the same display offset on every row. Measured with wcwidth (not the
library that lays the tables out), on the real commands' output: probe, schedule --once, history (the list
and a target's rounds), trace, catalog list and score, in English and in Chinese; piped output stays plain
text (no ANSI escapes, no box drawing)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from wcwidth import wcswidth

from desktop.cli._format import table
from tests.conftest import REPO_ROOT, cli_env

CHINESE = "洛杉矶-CN2线路"
ASCII = "la-bgp"
ENGLISH = {"LANG": "C.UTF-8"}
ZH = {"LANG": "zh_CN.UTF-8"}
_CELL = re.compile(r"\S+(?: \S+)*")  # a cell: words one space apart; columns are two or more apart


def width(text: str) -> int:
    columns = wcswidth(text)
    assert columns >= 0, f"{text!r} has a character of no defined width"
    return columns


def columns(line: str) -> list[str]:
    """The line as display columns: a character, then an empty string for each further column it takes."""
    grid: list[str] = []
    for char in line:
        grid += [char] + [""] * (width(char) - 1)
    return grid


def assert_lined_up(lines: list[str]) -> None:
    """The display columns that are blank on every line (two or more side by side) split the table into its
    columns: each header cell must lie in a column of its own. A row padded by character count (or a cell run past its place)
    leaves no blank between the header's cells down the table, and two header cells share a column."""
    assert len(lines) >= 2, lines
    grids = [columns(line) for line in lines]
    widest = max(len(g) for g in grids)
    blank = [all(p >= len(g) or g[p] == " " for g in grids) for p in range(widest)]
    for p in range(widest):  # a gap between columns is two blanks or more ("MEDIAN ms" is one cell)
        if blank[p] and not (p > 0 and blank[p - 1]) and not (p + 1 < widest and blank[p + 1]):
            blank[p] = False
    segment, column_of = -1, []
    for p in range(widest):
        if not blank[p] and (p == 0 or blank[p - 1]):
            segment += 1
        column_of.append(None if blank[p] else segment)
    header = lines[0]
    seen: list[int | None] = []
    for m in _CELL.finditer(header):
        first, last = width(header[: m.start()]), width(header[: m.end()]) - 1
        where = set(column_of[first : last + 1])
        assert len(where) == 1, f"{m.group()!r} spans columns:\n" + "\n".join(lines)
        seen.append(where.pop())
    assert len(seen) >= 3 and len(set(seen)) == len(seen), "header cells share a column:\n" + "\n".join(lines)
    assert all(line and not line.startswith(" ") for line in lines), lines


def rows_starting(out: str, header_start: str, rows: int) -> list[str]:
    """The header line that starts with `header_start` and the `rows` lines under it."""
    lines = out.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    table = lines[index : index + 1 + rows]
    assert len(table) == 1 + rows and all(table), out
    return table


def linkvet(tmp_path: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    environment = cli_env(tmp_path) | env
    return subprocess.run(
        [sys.executable, "-m", "desktop.cli", *args],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=180,
    )


def assert_plain(out: str) -> None:
    assert "\x1b" not in out, "ANSI escapes in piped output"
    assert not set(out) & set("│─┃━┏┓┗┛┌┐└┘├┤┼╭╮╰╯"), "box drawing in piped output"


# -- the checker itself --------------------------------------------------------------------------------


def test_the_checker_catches_padding_by_character_count() -> None:
    """What the tables did before: padded to len(), which a Chinese name overruns."""
    names = [CHINESE, ASCII]
    padded = max(len(n) for n in [*names, "TARGET"])
    lines = ["TARGET".ljust(padded) + "  METHOD  LOSS"] + [n.ljust(padded) + "  tcp     0.0%" for n in names]
    with pytest.raises(AssertionError, match=r"share a column|spans columns"):
        assert_lined_up(lines)


def test_table_lines_up_chinese_and_ascii_cells_and_right_aligns_numbers() -> None:
    out = io.StringIO()
    table(
        ["TARGET", "n", "NOTE"], [[CHINESE, "8", "x"], [ASCII, "16", "延迟高"], ["", "", ""]], out, right=(1,)
    )
    lines = out.getvalue().splitlines()
    assert lines[3] == ""  # an empty row is an empty line, no trailing spaces
    assert_lined_up(lines[:3])
    note = width(lines[0][: lines[0].index("NOTE")])
    assert width(lines[1][: lines[1].index("x")]) == width(lines[2][: lines[2].index("延迟高")]) == note
    assert width(lines[1][: lines[1].index("8") + 1]) == width(lines[2][: lines[2].index("16") + 2])  # right
    assert_plain(out.getvalue())


# -- the commands ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", [ENGLISH, ZH], ids=["en", "zh_CN"])
def test_probe_table_lines_up(tmp_path: Path, env: dict[str, str]) -> None:
    urls = [f"http://127.0.0.1:1/{CHINESE}", f"http://127.0.0.1:1/{ASCII}"]  # port 1: refused at once
    done = linkvet(tmp_path, "probe", *urls, "-c", "1", "--no-store", env=env)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3 and CHINESE in lines[1]
    assert_lined_up(lines)
    assert_plain(done.stdout)


@pytest.fixture
def plan(tmp_path: Path, listener: int) -> Path:
    path = tmp_path / "plan.toml"
    path.write_text(
        f"""version = 1
name = "aligned"

[schedule]
every = "5m"

[defaults]
count = 2
interval = 0.05

[[targets]]
name = "{CHINESE}"
host = "127.0.0.1"
methods = ["tcp"]
port = {listener}
provider = "raksmart"
region = "los-angeles"

[[targets]]
name = "{ASCII}"
host = "127.0.0.2"
methods = ["tcp"]
port = {listener}
"""
    )
    return path


@pytest.mark.parametrize("env", [ENGLISH, ZH], ids=["en", "zh_CN"])
def test_schedule_and_history_tables_line_up(tmp_path: Path, plan: Path, env: dict[str, str]) -> None:
    db = tmp_path / "s.sqlite3"
    listed = linkvet(tmp_path, "schedule", "--plan", str(plan), "--check", env=env)
    assert listed.returncode == 0, listed.stderr
    header = next(line for line in listed.stdout.splitlines() if line.startswith(("METHOD", "方法")))
    assert_lined_up(rows_starting(listed.stdout, header, 2))
    once = linkvet(tmp_path, "schedule", "--plan", str(plan), "--once", "--db", str(db), env=env)
    assert once.returncode in (0, 1), once.stderr  # 127.0.0.2 may not answer on every system
    results = rows_starting(once.stdout, once.stdout.splitlines()[0][:2], 2)
    assert any(CHINESE in r for r in results)
    assert_lined_up(results)
    history = linkvet(tmp_path, "history", "--db", str(db), env=env)
    assert history.returncode == 0, history.stderr
    lines = history.stdout.splitlines()[:-1]  # the last line says how many targets
    assert len(lines) == 3 and any(CHINESE in line for line in lines)
    assert_lined_up(lines)
    rounds = linkvet(tmp_path, "history", CHINESE, "--db", str(db), env=env)
    assert rounds.returncode == 0, rounds.stderr
    assert_lined_up(rounds.stdout.splitlines())
    assert_plain(listed.stdout + once.stdout + history.stdout + rounds.stdout)


@pytest.mark.parametrize("env", [ENGLISH, ZH], ids=["en", "zh_CN"])
def test_trace_hop_table_lines_up(tmp_path: Path, env: dict[str, str]) -> None:
    nets = tmp_path / "nets.toml"  # hand-written: loopback in a network with a Chinese label
    nets.write_text(
        f'version = 1\n\n[[asn]]\nasn = 64512\nbackbone = "other"\nname = "test"\nlabel = "{CHINESE}"\n'
        'source = "hand-written"\n\n[[prefix]]\ncidr = "127.0.0.0/8"\nasn = 64512\nsource = "hand-written"\n'
    )
    done = linkvet(
        tmp_path, "trace", "127.0.0.1", "-P", "udp", "-q", "2", "--no-store", "--networks", str(nets), env=env
    )
    assert done.returncode == 0, done.stderr
    hops = rows_starting(done.stdout, "HOP" if env is ENGLISH else "跳", 1)
    assert CHINESE in hops[1]
    assert_lined_up(hops)
    assert_plain(done.stdout)


@pytest.mark.parametrize("env", [ENGLISH, ZH], ids=["en", "zh_CN"])
def test_catalog_list_and_score_tables_line_up(tmp_path: Path, env: dict[str, str]) -> None:
    listed = linkvet(tmp_path, "catalog", "list", "--provider", "fluidstack", env=env)
    assert listed.returncode == 0, listed.stderr
    assert_lined_up(listed.stdout.splitlines()[:-1])
    needs = REPO_ROOT / "catalogs" / "needs" / "example-70b-full.toml"
    scored = linkvet(
        tmp_path, "score", "--needs", str(needs), "--top", "3", "--db", str(tmp_path / "no.sqlite3"), env=env
    )
    assert scored.returncode == 0, scored.stderr
    ranking = rows_starting(scored.stdout, "#", 3)
    assert_lined_up(ranking)
    assert_plain(listed.stdout + scored.stdout)


def test_the_progress_bar_draws_on_a_terminal_only_and_goes_when_done() -> None:
    from desktop.cli._format import ProgressLine
    from probes.results import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    bar = ProgressLine(screen)
    bar(Progress(0, 2, None, 0.0))
    bar(Progress(1, 2, None, 0.4))
    drawn = screen.getvalue()
    assert "1/2" in drawn and "targets" in drawn
    before = len(screen.getvalue())
    bar.finish()
    after = screen.getvalue()[before:]
    assert "\x1b[?25h" in after and after.endswith("\x1b[2K")  # cursor back, the bar's line erased
    piped = io.StringIO()
    quiet = ProgressLine(piped)
    quiet(Progress(1, 2, None, 0.4))
    quiet.finish()
    assert piped.getvalue() == ""
