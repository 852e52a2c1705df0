"""`linkvet schedule --status` on a SQLite store: none yet, then reachable with its last round and a free lock
(the PostgreSQL side, the store down with rounds in the spool, is in tests/probes/test_store_forward_postgres.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

from probes.store import SCHEMA_VERSION

Run = Callable[..., CompletedProcess[str]]


def test_status_says_where_the_agent_stands(run_linkvet: Run, tmp_path: Path, tcp_listener: int) -> None:
    plan = tmp_path / "p.toml"
    plan.write_text(
        f'version = 1\nvantage = "office"\n[schedule]\nevery = "1m"\n[defaults]\ncount = 2\ninterval = 0.01\n'
        f'[[targets]]\nhost = "127.0.0.1"\nport = {tcp_listener}\nmethods = ["tcp"]\n',
        encoding="utf-8",
    )
    db = tmp_path / "s.sqlite3"
    before = run_linkvet("schedule", "--plan", str(plan), "--db", str(db), "--status")
    assert before.returncode == 0, before.stderr
    assert "plan p (vantage office)" in before.stdout and "store: none yet at" in before.stdout
    assert "spool: nothing waiting" in before.stdout and not db.exists()  # asking creates nothing
    once = run_linkvet("schedule", "--plan", str(plan), "--db", str(db), "--once", "--quiet")
    assert once.returncode == 0, once.stderr
    after = run_linkvet("schedule", "--plan", str(plan), "--db", str(db), "--status")
    assert after.returncode == 0, after.stderr
    assert f"store: reachable, schema {SCHEMA_VERSION}" in after.stdout
    assert "lock: free" in after.stdout and "last stored round: 1, finished " in after.stdout
