"""When the store refuses: a second scheduler on one store, a full disk (a tiny tmpfs), a read-only store (a
read-only bind mount), a store another process holds locked, and `kill -9` while rounds wait in the spool.
Real SQLite and real `linkvet schedule` processes throughout; nothing measured is lost or stored twice, and
whatever is not stored is said, with exit code 3."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from tests.conftest import cli_env
from tests.disks import fill, mounted, tiny_disk

PLAN = (
    'version = 1\nvantage = "test-office"\n[schedule]\nevery = "{every}"\npeak_windows = []\n'
    "[defaults]\ncount = {count}\ninterval = {interval}\n"
    '[[targets]]\nhost = "127.0.0.1"\n[[targets]]\nhost = "127.0.0.3"\n'
)


def _plan(
    tmp_path: Path, name: str = "plan", every: str = "1s", count: int = 3, interval: float = 0.01
) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(PLAN.format(every=every, count=count, interval=interval))
    return path


@contextmanager
def _schedule(tmp_path: Path, plan: Path, db: Path, *extra: str) -> Iterator[subprocess.Popen[str]]:
    """A scheduler daemon for the block; killed at its end if still running (a failed assertion must not
    leave the test waiting for a daemon nobody stops)."""
    daemon = subprocess.Popen(
        [
            *(sys.executable, "-m", "desktop.cli", "schedule", "--plan", str(plan), "--db", str(db)),
            *("--log-file", str(tmp_path / "log.txt"), "--grace", "5", *extra),
        ],
        cwd=tmp_path,
        env=cli_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield daemon
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.communicate(timeout=30)


def _linkvet(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop.cli", *args],
        cwd=tmp_path,
        env=cli_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _count(path: Path, sql: str) -> int:
    if not path.exists():
        return 0
    with closing(sqlite3.connect(path, timeout=10)) as db:
        try:
            return int(db.execute(sql).fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def _until(condition: Callable[[], bool], timeout_s: float = 60, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached in {timeout_s} s")
        time.sleep(0.1)


def _spool(tmp_path: Path) -> Path:
    return tmp_path / "xdg-data" / "linkvet" / "linkvet-spool.sqlite3"


def _log(tmp_path: Path) -> str:
    path = tmp_path / "log.txt"
    return path.read_text() if path.exists() else ""


def _finished_rounds(log: str) -> int:
    """Rounds the scheduler reported finished: stored at once or kept in the spool."""
    return len(re.findall(r"INFO round \d+ \(", log)) + log.count(
        "could not store the round (kept in the spool"
    )


def _whole(db: Path, samples_per_round: int = 6) -> int:
    """Every stored round is whole (2 results, all their samples), no round id twice; the number of rounds."""
    with closing(sqlite3.connect(db, timeout=10)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        per_round = conn.execute(
            "SELECT count(*), sum((SELECT count(*) FROM samples s WHERE s.result_id = r.id)) FROM results r"
            " GROUP BY round_id"
        ).fetchall()
        rounds = conn.execute("SELECT count(*) FROM rounds").fetchone()[0]
        uids = conn.execute("SELECT count(DISTINCT uid), count(uid) FROM rounds").fetchone()
    assert len(per_round) == rounds and all(row == (2, samples_per_round) for row in per_round), per_round
    assert uids[0] == uids[1] == rounds
    return int(rounds)


def test_a_second_scheduler_of_the_same_plan_refuses_naming_the_first(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    plan = _plan(tmp_path)
    with _schedule(tmp_path, plan, db) as first:
        _until(lambda: _count(db, "SELECT count(*) FROM rounds") >= 1, what="a first round")
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "desktop.cli",
                "schedule",
                "--plan",
                str(plan),
                "--db",
                str(db),
                "--quiet",
            ],
            cwd=tmp_path,
            env=cli_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=60,
        )
        once = _linkvet(tmp_path, "schedule", "--plan", str(plan), "--db", str(db), "--once", "--quiet")
        other = _plan(tmp_path, "other")  # another plan name: its own lock
        elsewhere = _linkvet(tmp_path, "schedule", "--plan", str(other), "--db", str(db), "--once", "--quiet")
        first.send_signal(signal.SIGTERM)
        _out, err = first.communicate(timeout=30)
    assert first.returncode == 0, err
    for refused in (second, once):
        assert refused.returncode == 3, refused.stderr
        assert f"process {first.pid} on " in refused.stderr and "already being measured" in refused.stderr
        assert "plan plan (vantage test-office)" in refused.stderr and "Traceback" not in refused.stderr
    assert elsewhere.returncode == 0, elsewhere.stderr
    rounds = _whole(db)
    with closing(sqlite3.connect(db)) as conn:
        slots = conn.execute(
            "SELECT count(*), count(DISTINCT slot_us) FROM rounds WHERE plan = 'plan'"
        ).fetchone()
    assert slots[0] == slots[1] == rounds - 1  # one round per slot; the other plan's --once has no slot


def test_a_full_disk_spools_the_rounds_and_they_are_stored_when_there_is_room_again(tmp_path: Path) -> None:
    with tiny_disk(tmp_path) as disk:
        db = disk / "s.sqlite3"
        with _schedule(tmp_path, _plan(tmp_path), db) as daemon:
            _until(lambda: _count(db, "SELECT count(*) FROM rounds") >= 2, what="two stored rounds")
            filler = fill(disk)
            spooled = lambda: _count(_spool(tmp_path), "SELECT count(*) FROM spooled")  # noqa: E731
            _until(lambda: spooled() >= 3, what="three spooled rounds")
            filler.unlink()  # room again: the next round forwards the spool
            _until(lambda: spooled() == 0, what="the spool forwarded")
            daemon.send_signal(signal.SIGTERM)
            _out, err = daemon.communicate(timeout=60)
        assert daemon.returncode == 0, err
        log = _log(tmp_path)
        assert "database or disk is full" in log and "forwarded" in log and "Traceback" not in err
        assert _whole(db) == _finished_rounds(log)  # every finished round, once


def test_a_store_still_full_at_stop_is_exit_3_with_the_count_and_the_next_probe_stores_them(
    tmp_path: Path,
) -> None:
    with tiny_disk(tmp_path) as disk:
        db = disk / "s.sqlite3"
        with _schedule(tmp_path, _plan(tmp_path), db) as daemon:
            _until(lambda: _count(db, "SELECT count(*) FROM rounds") >= 1, what="a stored round")
            filler = fill(disk)
            _until(
                lambda: _count(_spool(tmp_path), "SELECT count(*) FROM spooled") >= 2, what="spooled rounds"
            )
            daemon.send_signal(signal.SIGTERM)
            _out, err = daemon.communicate(timeout=60)
        waiting = _count(_spool(tmp_path), "SELECT count(*) FROM spooled")
        assert daemon.returncode == 3, err
        assert re.search(
            rf"linkvet: {waiting} measured rounds are not in the store {re.escape(str(db))}", err
        ), err
        assert "kept in the spool" in err and "Traceback" not in err
        probe = _linkvet(tmp_path, "probe", "127.0.0.1", "-c", "1", "-i", "0", "--db", str(db))
        assert probe.returncode == 3 and "the results above were measured but not stored" in probe.stderr
        assert f"{waiting + 1} measured rounds are not in the store" in probe.stderr  # the probe's round too
        filler.unlink()
        again = _linkvet(tmp_path, "probe", "127.0.0.1", "-c", "1", "-i", "0", "--db", str(db))
        assert again.returncode == 0, again.stderr
        assert _count(_spool(tmp_path), "SELECT count(*) FROM spooled") == 0
        stored = _count(db, "SELECT count(*) FROM rounds")
        assert stored == _finished_rounds(_log(tmp_path)) + 2  # the schedule's rounds and both probes'


def test_a_read_only_store_is_refused_before_anything_is_measured_and_still_read(tmp_path: Path) -> None:
    writable = tmp_path / "rw"
    writable.mkdir()
    done = _linkvet(tmp_path, "probe", "127.0.0.1", "-c", "2", "-i", "0", "--db", str(writable / "s.sqlite3"))
    assert done.returncode == 0, done.stderr
    with mounted(tmp_path / "ro", "--bind", str(writable)) as ro:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(ro)], check=True)
        db = str(ro / "s.sqlite3")
        plan = str(_plan(tmp_path))
        for args in (
            ("probe", "127.0.0.1", "-c", "1", "--db", db),
            ("schedule", "--plan", plan, "--once", "--db", db),
        ):
            refused = _linkvet(tmp_path, *args)
            assert refused.returncode == 3, refused.stderr
            assert "the result store cannot be written" in refused.stderr and "read-only" in refused.stderr
            assert "MEDIAN ms" not in refused.stdout and "Traceback" not in refused.stderr
        history = _linkvet(tmp_path, "history", "--db", db)  # a read-only copy is still read
        assert history.returncode == 0 and "127.0.0.1" in history.stdout, history.stderr


HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("ROLLBACK")
"""


def test_a_store_locked_by_another_process_does_not_stop_probing(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    with _schedule(tmp_path, _plan(tmp_path, count=2), db) as daemon:
        _until(lambda: _count(db, "SELECT count(*) FROM rounds") >= 2, what="two stored rounds")
        hold_s = 20.0
        with subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(db), str(hold_s)], stdout=subprocess.PIPE, text=True
        ) as holder:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
            locked_from = time.time()
            holder.wait(timeout=hold_s + 30)
        locked_until = time.time()
        spooled = lambda: _count(_spool(tmp_path), "SELECT count(*) FROM spooled")  # noqa: E731
        _until(lambda: spooled() == 0, timeout_s=90, what="the spool forwarded")
        daemon.send_signal(signal.SIGTERM)
        _out, err = daemon.communicate(timeout=90)
    assert daemon.returncode == 0, err
    log = _log(tmp_path)
    assert "database is locked" in log and "Traceback" not in err
    with closing(sqlite3.connect(db)) as conn:
        during = conn.execute(
            "SELECT count(*) FROM rounds WHERE started_us BETWEEN ? AND ?",
            (int((locked_from + 1) * 1e6), int((locked_until - 1) * 1e6)),
        ).fetchone()[0]
    # One round a second went on while the store was locked (a loaded machine may skip a few slots: logged).
    skipped = sum(int(n) for n in re.findall(r"skipped (\d+) slot", log))
    assert during + skipped >= hold_s - 4, (during, skipped)
    assert _whole(db, samples_per_round=4) == _finished_rounds(log)


def test_a_round_that_outlasts_its_slot_logs_the_slots_it_skipped(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    # 25 echoes 0.1 s apart: a round takes about 2.5 s at a cadence of 1 s.
    with _schedule(tmp_path, _plan(tmp_path, count=25, interval=0.1), db) as daemon:
        _until(lambda: _count(db, "SELECT count(*) FROM rounds") >= 2, what="two rounds")
        daemon.send_signal(signal.SIGTERM)
        daemon.communicate(timeout=30)
    assert re.search(r"WARNING skipped [2-9] slots \(.*\): the round before took [2-9]\.\d s", _log(tmp_path))


@pytest.mark.parametrize("delay_s", [0.25, 0.9])
def test_kill_9_while_rounds_wait_in_the_spool_then_restart_stores_every_finished_round_once(
    tmp_path: Path, delay_s: float
) -> None:
    with tiny_disk(tmp_path) as disk:
        db = disk / "s.sqlite3"
        plan = _plan(tmp_path)
        with _schedule(tmp_path, plan, db) as first:
            _until(lambda: _count(db, "SELECT count(*) FROM rounds") >= 1, what="a stored round")
            filler = fill(disk)
            _until(
                lambda: _count(_spool(tmp_path), "SELECT count(*) FROM spooled") >= 2, what="spooled rounds"
            )
            time.sleep(delay_s)  # kill at an arbitrary point, possibly mid-round or mid-spool
            first.send_signal(signal.SIGKILL)
            first.communicate(timeout=10)
        assert first.returncode == -signal.SIGKILL
        finished_before = _finished_rounds(_log(tmp_path))
        filler.unlink()
        with _schedule(tmp_path, plan, db) as second:  # the dead scheduler's lock is taken over at once
            _until(
                lambda: _count(_spool(tmp_path), "SELECT count(*) FROM spooled") == 0,
                what="the spool forwarded",
            )
            _until(
                lambda: "INFO round" in _log(tmp_path).split("linkvet schedule: plan")[-1], what="a new round"
            )
            second.send_signal(signal.SIGTERM)
            _out, err = second.communicate(timeout=60)
        assert second.returncode == 0, err
        log = _log(tmp_path)
        stored = _whole(db)
        # Every round reported finished is stored once; the round the kill interrupted may have been kept in the
        # spool before it could say so (then it is stored too), or lost with the process (at most that one).
        finished = _finished_rounds(log)
        assert finished <= stored <= finished + 1, (finished_before, finished, stored)
