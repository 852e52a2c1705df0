"""A damaged store (garbage rows, missing tables, missing columns, truncated, not SQLite, newer) ends every
command that opens it with exit 3 and a message saying what is wrong and what to do, before anything is
measured; never a traceback."""

from __future__ import annotations

import shutil
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
FIXTURE = REPO_ROOT / "tests" / "probes" / "fixtures" / "store-v2.sqlite3"


def _good(path: Path) -> None:
    from probes.store import Store

    shutil.copyfile(FIXTURE, path)
    Store(path).close()  # upgraded to this linkvet's schema


def _sql(*statements: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        _good(path)
        with sqlite3.connect(path) as db:
            for statement in statements:
                db.execute(statement)
        db.close()

    return damage


def _truncated(path: Path) -> None:
    _good(path)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "garbage rows": (
        _sql("INSERT INTO samples VALUES (1, 999, 1, 'twelve', 0, 'fast', NULL, NULL)"),
        "the table samples holds a row whose ts_us is not of its type",
    ),
    "a missing table": (_sql("DROP TABLE quarter_hourly"), "the table quarter_hourly is missing"),
    "a missing column": (
        _sql(
            "CREATE TABLE r2 AS SELECT id, round_id, series_id, started_us, finished_us FROM results",
            "DROP TABLE results",
            "ALTER TABLE r2 RENAME TO results",
        ),
        "the table results lacks the column(s)",
    ),
    "truncated": (_truncated, "truncated"),
    "not SQLite at all": (
        lambda path: path.write_bytes(b"this is not a SQLite database, " * 40),
        "it is not an SQLite database",
    ),
    "a newer schema": (_sql("PRAGMA user_version = 999"), "newer linkvet"),
}


def _commands(db: Path, tmp_path: Path) -> list[tuple[str, ...]]:
    store = ("--db", str(db))
    return [
        ("history", *store),
        ("history", "127.0.0.1", *store),
        ("score", "--needs", EXAMPLE_NEEDS, *store),
        ("export", "--out", str(tmp_path / "out.xlsx"), *store),
        ("probe", "127.0.0.1", "-c", "1", "-i", "0", *store),
        ("schedule", "--plan", EXAMPLE_PLAN, "--once", "--quiet", *store),
        (),  # plain `linkvet` without a display: one round of the example plan into the default store
    ]


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_store_is_exit_3_with_what_is_wrong_in_every_command(tmp_path: Path, kind: str) -> None:
    damage, words = DAMAGE[kind]
    db = tmp_path / "xdg-data" / "linkvet" / "linkvet.sqlite3"  # the default store, and --db for the rest
    db.parent.mkdir(parents=True)
    damage(db)
    env = {k: v for k, v in cli_env(tmp_path).items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}

    def run(args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "desktop.cli", *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )

    commands = _commands(db, tmp_path)
    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(run, commands))
    for args, finished in zip(commands, done, strict=True):
        assert finished.returncode == 3, (args, finished.returncode, finished.stderr)
        assert words in finished.stderr, (args, finished.stderr)
        assert "Traceback" not in finished.stderr, (args, finished.stderr)
        if kind != "a newer schema":
            assert "move it aside" in finished.stderr, (args, finished.stderr)
        assert "MEDIAN ms" not in finished.stdout  # refused before anything was measured
