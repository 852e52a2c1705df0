"""`--db postgresql://…` and `LINKVET_DB` on the commands, against a real server: probe stores its round
there, history reads it back, a URL that is not one is a usage error, an unreachable server exit 3 — and no
message ever holds the password."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import cli_env


def _linkvet(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop.cli", *args],
        cwd=tmp_path,
        env={**cli_env(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_probe_and_history_on_a_postgres_store(tmp_path: Path, postgres_url: str, tcp_listener: int) -> None:
    done = _linkvet(
        tmp_path, "probe", f"127.0.0.1:{tcp_listener}", "-c", "3", "-i", "0", "--db", postgres_url
    )
    assert done.returncode == 0, done.stderr
    listed = _linkvet(tmp_path, "history", "--db", postgres_url)
    assert listed.returncode == 0, listed.stderr
    assert f"127.0.0.1:{tcp_listener}" in listed.stdout
    from_env = _linkvet(tmp_path, "history", "--json", LINKVET_DB=postgres_url)
    assert from_env.returncode == 0 and '"samples": 3' in from_env.stdout, from_env.stderr
    assert not (tmp_path / "xdg-data" / "linkvet" / "linkvet.sqlite3").exists()  # nothing went to the file


def test_a_url_that_is_no_store_is_a_usage_error_without_the_password(tmp_path: Path) -> None:
    done = _linkvet(tmp_path, "history", "--db", "mysql://agent:topsecret@db.example/linkvet")
    assert done.returncode == 2 and "postgresql:// URL" in done.stderr
    assert "topsecret" not in done.stderr + done.stdout
    env = _linkvet(tmp_path, "history", LINKVET_DB="mongodb://agent:topsecret@db.example/x")
    assert env.returncode == 3 and "LINKVET_DB does not name a store" in env.stderr
    assert "topsecret" not in env.stderr + env.stdout


def test_an_unreachable_server_is_exit_3_naming_it_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://agent:topsecret@/linkvet?host={tmp_path}&connect_timeout=2"
    for args in (("history",), ("probe", "127.0.0.1:9", "-c", "1")):
        done = _linkvet(tmp_path, *args, "--db", url)
        assert done.returncode == 3, done.stderr
        assert "agent:***@" in done.stderr and "could not connect to the result store" in done.stderr
        assert "topsecret" not in done.stderr + done.stdout and "Traceback" not in done.stderr
