"""The scheduler: peak-aware slots (pure), rounds stored whole, and the daemon under SIGTERM and SIGKILL."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from probes.schedule.plan import parse_plan
from probes.schedule.scheduler import Scheduler
from probes.schedule.timetable import cadence_at, next_slot
from probes.store import Store
from probes.store.sqlite.spool import Spool
from tests.conftest import cli_env
from tests.rounds import save_round

PLAN = """\
version = 1
vantage = "test-office"
[schedule]
every = "5m"
peak_every = "1m"
peak_windows = ["20:00-23:00 Asia/Shanghai"]
[defaults]
count = 3
interval = 0.01
[[targets]]
name = "lo"
host = "127.0.0.1"
[[targets]]
name = "hourly"
host = "127.0.0.2"
every = "1h"
"""


def utc(hour: int, minute: int, second: int = 0) -> float:
    return datetime(2026, 11, 30, hour, minute, second, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (utc(11, 58, 30), utc(12, 0)),  # 20:00 Shanghai: the peak starts, a 5-minute slot anyway
        (utc(12, 0), utc(12, 1)),  # inside the peak: every minute
        (utc(14, 58, 59), utc(14, 59)),
        (utc(14, 59), utc(15, 0)),  # 23:00: the window has ended (end is exclusive), the 5-minute slot
        (utc(15, 0), utc(15, 5)),
        (utc(3, 2), utc(3, 5)),
    ],
)
def test_next_slot_is_denser_inside_peak_windows(after: float, expected: float) -> None:
    plan = parse_plan(PLAN, "p.toml")
    assert next_slot(plan, after) == expected


def test_cadence_follows_the_window() -> None:
    plan = parse_plan(PLAN, "p.toml")
    assert cadence_at(plan, utc(12, 30)) == 60 and cadence_at(plan, utc(11, 59)) == 300


def test_round_is_stored_with_its_plan_vantage_and_peak_flag(tmp_path: Path) -> None:
    plan = parse_plan(PLAN, "p.toml")
    with Store(tmp_path / "s.sqlite3") as store:
        scheduler = Scheduler(plan, store, clock=lambda: utc(12, 30))
        report = asyncio.run(scheduler.run_once())
        assert report.round_id is not None and report.peak and len(report.results) == 2
        (stored,) = store.rounds()
        assert (stored.plan, stored.vantage, stored.peak, stored.source) == (
            "p",
            "test-office",
            True,
            "schedule",
        )
        frame = store.results_frame()
        assert sorted(frame.name) == ["hourly", "lo"] and frame.received.sum() == 6


def test_targets_with_their_own_cadence_wait_their_turn(tmp_path: Path) -> None:
    plan = parse_plan(PLAN, "p.toml")
    with Store(tmp_path / "s.sqlite3") as store:
        now = [time.time()]
        scheduler = Scheduler(plan, store, clock=lambda: now[0])
        asyncio.run(scheduler.run_once())
        now[0] += 300
        second = asyncio.run(scheduler.run_once())
        assert [r.target.name for r in second.results] == ["lo"]  # "hourly" waits for its hour
        now[0] += 3600
        third = asyncio.run(scheduler.run_once())
        assert sorted(r.target.name for r in third.results) == ["hourly", "lo"]


def test_after_a_restart_an_overdue_plan_runs_at_once(tmp_path: Path) -> None:
    plan = parse_plan(PLAN, "p.toml")
    with Store(tmp_path / "s.sqlite3") as store:
        now = [utc(3, 2)]
        scheduler = Scheduler(plan, store, clock=lambda: now[0])
        assert scheduler.first_start() == utc(3, 2)  # never ran: now
        save_round(
            store,
            [],
            started_us=int(utc(3, 1) * 1e6),
            finished_us=int(utc(3, 1) * 1e6),
            source="schedule",
            plan="p",
        )
        assert scheduler.first_start() == utc(3, 5)  # ran a minute ago: the next slot
        now[0] = utc(3, 9)
        assert scheduler.first_start() == utc(3, 9)  # missed a slot: catch up now


def _daemon_plan(tmp_path: Path, count: int = 3, every: str = "1s") -> Path:
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'version = 1\n[schedule]\nevery = "{every}"\npeak_windows = []\n[defaults]\ncount = {count}\n'
        'interval = 0.01\n[[targets]]\nhost = "127.0.0.1"\n[[targets]]\nhost = "127.0.0.3"\n'
    )
    return plan


def _start(tmp_path: Path, plan: Path, db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "desktop.cli",
            "schedule",
            "--plan",
            str(plan),
            "--db",
            str(db),
            "--log-file",
            str(tmp_path / "log.txt"),
            "--grace",
            "1",
        ],
        cwd=tmp_path,
        env=cli_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_rounds(db: Path, at_least: int, timeout_s: float = 30) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if db.exists():
            with closing(sqlite3.connect(db, timeout=5)) as conn:
                try:
                    rounds = conn.execute("SELECT count(*) FROM rounds").fetchone()[0]
                except sqlite3.OperationalError:
                    rounds = 0
            if rounds >= at_least:
                return int(rounds)
        time.sleep(0.1)
    raise AssertionError(f"fewer than {at_least} rounds after {timeout_s} s")


def _whole(db: Path) -> tuple[int, int]:
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rounds = conn.execute("SELECT count(*) FROM rounds").fetchone()[0]
        per_round = conn.execute("SELECT count(*) FROM results GROUP BY round_id").fetchall()
        samples = conn.execute("SELECT count(*) FROM samples").fetchone()[0]
    assert all(n == 2 for (n,) in per_round) and len(per_round) == rounds
    return int(rounds), int(samples)


def test_daemon_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    with _start(tmp_path, _daemon_plan(tmp_path), db) as daemon:
        _wait_rounds(db, 2)
        daemon.send_signal(signal.SIGTERM)
        _out, err = daemon.communicate(timeout=20)
    assert daemon.returncode == 0, err
    assert "stopped after" in err and "Traceback" not in err
    rounds, samples = _whole(db)
    assert rounds >= 2 and samples == rounds * 2 * 3
    assert "stopped after" in (tmp_path / "log.txt").read_text()


def test_sigterm_drops_a_round_that_outlasts_the_grace(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    # 200 echoes 0.01 s apart take over two seconds: longer than the 1 s grace
    with _start(tmp_path, _daemon_plan(tmp_path, count=200, every="1h"), db) as daemon:
        # Signalled once the daemon says it runs the plan (its SIGTERM handler is in place by then; the log
        # file's mere existence came before it, and a busy machine once let SIGTERM kill it unhandled), and
        # half a second into the round that starts right after.
        log = tmp_path / "log.txt"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            log.exists() and "linkvet schedule: plan" in log.read_text(errors="replace")
        ):
            time.sleep(0.05)
        time.sleep(0.5)
        daemon.send_signal(signal.SIGTERM)
        _out, err = daemon.communicate(timeout=20)
    assert daemon.returncode == 0, err
    assert "dropped the round in flight" in err
    assert _whole(db) == (0, 0)


def test_sigkill_and_restart_lose_no_finished_round(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    plan = _daemon_plan(tmp_path)
    with _start(tmp_path, plan, db) as first:
        _wait_rounds(db, 3)
        time.sleep(0.37)  # kill at an arbitrary point, possibly mid-round
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=10)
    before, _ = _whole(db)
    with Store(db) as store:
        kept = [r.id for r in store.rounds()]
    with _start(tmp_path, plan, db) as second:
        _wait_rounds(db, before + 2)
        second.send_signal(signal.SIGTERM)
        second.communicate(timeout=20)
    after, _ = _whole(db)
    assert after >= before + 2
    with Store(db) as store:
        assert set(kept) <= {r.id for r in store.rounds()}


def test_a_locked_store_spools_the_round_until_it_can_be_stored(tmp_path: Path) -> None:
    plan = parse_plan(PLAN, "p.toml")
    db = tmp_path / "s.sqlite3"
    spool = Spool(tmp_path / "spool.sqlite3")
    with Store(db) as store:
        store.backend.connection.execute("PRAGMA busy_timeout = 100")  # give up on the lock quickly
        now = [time.time()]
        scheduler = Scheduler(plan, store, clock=lambda: now[0], spool=spool)
        scheduler.writer.retry_s = 0  # try the store again at the next round
        with closing(sqlite3.connect(db)) as holder:
            holder.execute("BEGIN IMMEDIATE")  # another writer holds the store
            first = asyncio.run(scheduler.run_once())
            holder.execute("ROLLBACK")
        assert first.round_id is None and "database is locked" in (first.store_error or "")
        assert first.outcome == "spooled" and scheduler.unstored == 1
        now[0] += 300
        second = asyncio.run(scheduler.run_once())
        assert second.store_error is None and second.round_id is not None
        assert len(store.rounds()) == 2  # the first round was forwarded from the spool, before the second
        assert store.counts()["results"] == 2 + 1  # both targets, then "lo" alone ("hourly" waits its hour)
        assert scheduler.unstored == 0
        # The first came out of the spool; the second was stored from memory, then left the spool too.
        assert (scheduler.writer.delivery.forwarded, scheduler.writer.stored_directly) == (1, 1)
        assert spool.count(store.identity) == 0
        scheduler.close()


def test_a_round_is_stored_from_memory_not_read_back_from_the_spool(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Each round is spooled first (durable at once), but the store thread writes the round it holds; it reads
    back from the spool only rounds that waited there before it (parsing a round's JSON again cost a 10,000
    target agent a share of its CPU every minute)."""
    caplog.set_level(logging.INFO, logger="linkvet.store")
    spool = Spool(tmp_path / "spool.sqlite3")
    now = [time.time()]
    with Store(tmp_path / "s.sqlite3") as store:
        scheduler = Scheduler(parse_plan(PLAN, "p.toml"), store, clock=lambda: now[0], spool=spool)
        first = asyncio.run(scheduler.run_once())
        now[0] += 300
        second = asyncio.run(scheduler.run_once())
        scheduler.close()
        assert first.outcome == second.outcome == "stored"
        assert [r.id for r in store.rounds()] == sorted([first.round_id, second.round_id], reverse=True)
        assert (scheduler.writer.delivery.forwarded, scheduler.writer.stored_directly) == (0, 2)
        assert spool.count(store.identity) == 0
    assert "forwarded" not in caplog.text


def test_probe_prints_what_it_measured_when_the_store_refuses(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "locked.sqlite3"
    Store(db).close()
    with closing(sqlite3.connect(db)) as holder:
        holder.execute("BEGIN EXCLUSIVE")
        out = run_linkvet(
            "probe", "127.0.0.1", "-c", "2", "-i", "0.01", "--json", "--db", str(db), timeout=60
        )
    assert out.returncode == 3
    assert json.loads(out.stdout)["received"] == 2
    assert "measured but not stored" in out.stderr and "Traceback" not in out.stderr


def test_round_hooks_see_every_round_and_a_failing_one_is_only_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    plan = parse_plan(PLAN, "p.toml")
    seen = []

    def broken(report: object) -> None:
        raise RuntimeError("a hook's own fault")

    with Store(tmp_path / "s.sqlite3") as store:
        scheduler = Scheduler(plan, store, clock=lambda: utc(12, 30), hooks=[broken, seen.append])
        report = asyncio.run(scheduler.run_once())
        assert report.round_id is not None and len(store.rounds()) == 1
    assert seen == [report]
    assert "a round hook failed" in caplog.text
