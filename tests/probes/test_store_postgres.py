"""The result store on a real PostgreSQL server (tests/postgres_server.py): the same schema as SQLite, the
store's own tests passing on it, many writers at once without a lost round or a lost rollup update, rounds
stored once, locks that end with their holder's connection, and errors that never show the password."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import psycopg
import pytest

from probes.errors import LockHeldError, SchemaVersionError, StoreError
from probes.store import SCHEMA_VERSION, Store, WriteStatus, measured_round
from probes.store.locks import StoreLock
from probes.store.postgres import connecting
from probes.store.postgres.schema import VERSION_TABLE
from probes.store.sqlite import opening
from probes.store_location import StoreUrl
from probes.target import Method, Target
from probes.timestamps import now_us
from tests.conftest import REPO_ROOT
from tests.postgres_server import PASSWORD, PostgresServer, SessionDatabase
from tests.probes import test_store as base
from tests.probes.test_store import T0, synthetic_result
from tests.rounds import save_round


@pytest.fixture
def pg_store(postgres_url: str) -> Iterator[Store]:
    with Store(postgres_url) as store:
        yield store


# The store's own tests of what it keeps and answers, run on PostgreSQL as they run on SQLite.
SHARED: list[Callable[[Store], None]] = [
    base.test_round_trip_keeps_every_sample_and_summary,
    base.test_labels_are_the_rounds_own_and_never_rewritten,
    base.test_hourly_rollups_match_the_raw_samples,
    base.test_attempts_this_machine_could_not_send_are_kept_but_not_counted_as_loss,
    base.test_a_window_finds_every_sample_sent_in_it_through_the_runs,
]


@pytest.mark.parametrize("check", SHARED, ids=lambda f: f.__name__)
def test_the_store_tests_pass_on_postgres(pg_store: Store, check: Callable[[Store], None]) -> None:
    check(pg_store)


def test_postgres_has_the_sqlite_schema_table_for_table_column_for_column(pg_store: Store) -> None:
    sqlite_schema = opening.expected_schema()
    pg_schema = connecting.actual_schema(pg_store.backend.connection)  # type: ignore[attr-defined]
    tables = {t: c for t, c in sqlite_schema.items() if t != "index:"}
    assert {t: c for t, c in pg_schema.items() if t != "index:"} == tables
    assert sqlite_schema["index:"] <= pg_schema["index:"]  # PostgreSQL adds its keys' own indexes
    assert pg_store.schema_version == SCHEMA_VERSION
    # Column types: the dialect table's counterparts, nothing else.
    counterpart = {"INTEGER": "bigint", "REAL": "double precision", "TEXT": "text", "BLOB": "bytea"}
    db = sqlite3_schema_db()
    pg_types = {
        (t, c): ty
        for t, c, ty in pg_store.backend.connection.execute(  # type: ignore[attr-defined]
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema()"
        )
    }
    for (table, column), declared in db.items():
        assert pg_types[(table, column)] == counterpart[declared], (table, column)


def sqlite3_schema_db() -> dict[tuple[str, str], str]:
    import sqlite3

    from probes.store.sqlite.schema import MIGRATIONS, REBUILD_ROLLUPS

    with closing(sqlite3.connect(":memory:")) as db:
        for migration in MIGRATIONS:
            for step in migration:
                if isinstance(step, str):
                    db.execute(step)
                elif step is not REBUILD_ROLLUPS:
                    step(db)
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            (table, str(row[1])): str(row[2]).upper()
            for table in tables
            for row in db.execute(f"PRAGMA table_info({table})")
        }


def test_a_newer_store_is_refused(postgres_url: str) -> None:
    Store(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute(f"UPDATE {VERSION_TABLE} SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(SchemaVersionError, match="newer linkvet"):
        Store(postgres_url)


def test_a_round_is_stored_once_and_a_slot_holds_one_round(pg_store: Store) -> None:
    target = Target(Method.TCP, host="198.18.0.7", port=443, provider="acme", region="tokyo")
    measured = measured_round(
        [synthetic_result(target, T0, [50.0, 51.0])],
        started_us=T0,
        finished_us=T0 + 2_000_000,
        source="schedule",
        plan="p",
        vantage="beijing",
        slot_us=T0,
    )
    first = pg_store.write_round(measured)
    assert first.status is WriteStatus.STORED
    again = pg_store.write_round(measured)
    assert (again.status, again.round_id) == (WriteStatus.ALREADY_STORED, first.round_id)
    other = measured_round(
        [synthetic_result(target, T0 + 5, [52.0])],
        started_us=T0 + 5,
        finished_us=T0 + 9,
        source="schedule",
        plan="p",
        vantage="beijing",
        slot_us=T0,
    )
    assert pg_store.write_round(other).status is WriteStatus.SLOT_TAKEN
    elsewhere = measured_round(
        [synthetic_result(target, T0 + 5, [52.0])],
        started_us=T0 + 5,
        finished_us=T0 + 9,
        source="schedule",
        plan="p",
        vantage="shanghai",
        slot_us=T0,
    )
    assert pg_store.write_round(elsewhere).status is WriteStatus.STORED
    assert pg_store.counts()["rounds"] == 2 and pg_store.counts()["samples"] == 3


_WRITER = """
import sys
import time
from probes.store import Store, measured_round
from probes.target import Method, Target
from probes.timestamps import now_us
from tests.probes.test_store import synthetic_result
url, vantage, rounds, t0 = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
targets = [Target(Method.ICMP, host=f"198.18.1.{i}", provider="acme", region="la") for i in range(20)]
with Store(url) as store:
    for k in range(rounds):
        start = t0 + k * 60_000_000
        results = [synthetic_result(t, start + i, [100.0 + k, None, 101.0 + i]) for i, t in enumerate(targets)]
        store.write_round(measured_round(results, started_us=start, finished_us=start + 3_000_000,
                                         source="schedule", plan="p", vantage=vantage, slot_us=start))
"""


def test_many_writers_at_once_lose_no_round_and_no_rollup_update(postgres_url: str) -> None:
    Store(postgres_url).close()  # created once; the writers then race on the same targets and hours
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    writers, rounds = 6, 15
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, postgres_url, f"office-{w}", str(rounds), str(T0)], env=env
        )
        for w in range(writers)
    ]
    assert [p.wait(timeout=300) for p in processes] == [0] * writers
    with Store(postgres_url, readonly=True) as store:
        counts = store.counts()
        assert counts["rounds"] == writers * rounds
        assert counts["samples"] == writers * rounds * 20 * 3
        assert counts["series"] == 20 * writers  # each office its own series of the 20 targets
        hourly = store.hourly_frame()
        assert int(hourly.sent.sum()) == counts["samples"]  # every round's samples reached the rollups
        assert int(hourly.received.sum()) == writers * rounds * 20 * 2
        assert {r.vantage for r in store.rounds()} == {f"office-{w}" for w in range(writers)}
        before = hourly.drop(columns=["hist_index", "hist_count"]).to_numpy(dtype=float)
    with Store(postgres_url) as store:
        store.rebuild_rollups()
        after = store.hourly_frame().drop(columns=["hist_index", "hist_count"]).to_numpy(dtype=float)
    assert (before == after).all()


def test_agents_opening_a_new_database_at_once_create_its_tables_once(postgres_url: str) -> None:
    code = "import sys; from probes.store import Store; Store(sys.argv[1]).close()"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    processes = [subprocess.Popen([sys.executable, "-c", code, postgres_url], env=env) for _ in range(5)]
    assert [p.wait(timeout=120) for p in processes] == [0] * 5
    with Store(postgres_url) as store:
        assert store.schema_version == SCHEMA_VERSION and store.counts()["rounds"] == 0


def _until_session_ended(store: Store, pid: int, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with store.backend.connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,))
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.02)
    raise AssertionError(f"the server did not end session {pid} in {timeout_s} s")


def test_a_lock_ends_with_its_holders_connection(postgres_url: str) -> None:
    with Store(postgres_url) as one, Store(postgres_url) as two:
        mine = StoreLock(one.backend, "schedule p @ v", "first").take()
        with pytest.raises(LockHeldError, match=f"process {os.getpid()} on "):
            StoreLock(two.backend, "schedule p @ v", "second").take()
        assert StoreLock(two.backend, "schedule p @ v2", "other").take()
        # The holder on another machine, heartbeat fresh: while its session lives the lock is held …
        with two.backend.transaction("t"):
            two.backend.put_lock(("schedule p @ far", "tok", 1, "far-away-host", "far", now_us(), now_us()))
        with pytest.raises(LockHeldError, match="far-away-host"):
            StoreLock(one.backend, "schedule p @ far", "near").take()
        # … and when its connection ends (a crash, a kill, a lost network), the lock is free at once: as soon
        # as the server has ended that session (which it does on its own time after the client goes: waited
        # for here, so a busy machine's slow backend exit is not read as the lock outliving its session).
        session = two.backend.connection.execute("SELECT pg_backend_pid()").fetchone()[0]
        two.close()
        _until_session_ended(one, session)
        assert StoreLock(one.backend, "schedule p @ far", "near").take()
        assert mine.token


def test_an_unreachable_server_is_a_store_error_naming_it_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://agent:topsecret@/linkvet?host={tmp_path}&connect_timeout=2"
    with pytest.raises(StoreError) as caught:
        Store(url)
    text = str(caught.value)
    assert (
        "topsecret" not in text and "agent:***@" in text and "could not connect to the result store" in text
    )


def test_the_password_comes_from_the_password_file(
    own_postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = own_postgres.tcp_url()
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    with pytest.raises(StoreError, match="password") as caught:
        Store(url)
    assert PASSWORD not in str(caught.value)
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"127.0.0.1:{own_postgres.port}:*:{own_postgres.user}:{PASSWORD}\n", encoding="utf-8")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    with Store(url) as store:
        assert store.schema_version == SCHEMA_VERSION
    # A wrong password written in the URL itself is refused and never shown.
    wrong = url.replace("@", ":not-the-password@")
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    with pytest.raises(StoreError, match="password authentication failed") as caught:
        Store(wrong)
    assert "not-the-password" not in str(caught.value) and ":***@" in str(caught.value)


def test_a_store_whose_server_restarted_is_used_again(own_postgres: PostgresServer) -> None:
    target = Target(Method.ICMP, host="198.18.0.5")
    with Store(own_postgres.url()) as store:
        save_round(store, [synthetic_result(target, T0, [1.0])], started_us=T0, finished_us=T0, source="t")
        own_postgres.stop()
        with pytest.raises(StoreError, match="could not save the round"):
            save_round(
                store, [synthetic_result(target, T0 + 9, [2.0])], started_us=T0, finished_us=T0, source="t"
            )
        own_postgres.start()
        save_round(
            store, [synthetic_result(target, T0 + 9, [2.0])], started_us=T0, finished_us=T0, source="t"
        )
        assert store.counts()["rounds"] == 2


def test_the_store_url_names_it_without_the_password(postgres_server: SessionDatabase) -> None:
    store = Store(postgres_server.url)
    try:
        assert isinstance(store.path, StoreUrl) and store.identity == str(store.path)
    finally:
        store.close()


def test_an_older_postgres_store_is_upgraded_doubles_removed_and_rollups_rebuilt(postgres_url: str) -> None:
    """A store at schema 4 (before round uids and slots) holding two schedulers' doubles: opening it runs the
    migrations 5–7 on PostgreSQL — the Python step written for sqlite3 included — and rebuilds the rollups."""
    from probes.store.postgres.schema import MIGRATIONS

    second = 1_796_000_000
    with psycopg.connect(postgres_url, autocommit=True) as db:
        for migration in MIGRATIONS[:4]:
            for step in migration:
                assert isinstance(step, str)  # the first four are SQL only
                db.execute(step)  # type: ignore[arg-type]
        db.execute(f"CREATE TABLE {VERSION_TABLE} (version BIGINT NOT NULL)")
        db.execute(f"INSERT INTO {VERSION_TABLE} VALUES (4)")
        db.execute("CREATE SEQUENCE store_writes")
        db.execute(
            "INSERT INTO targets (key, name, method, host) VALUES ('icmp:198.18.0.1', 'a', 'icmp', '198.18.0.1')"
        )
        for round_id, offset_us in ((1, 1_000), (2, 400_000)):  # the same second: the same slot, twice
            start = second * 1_000_000 + offset_us
            db.execute(
                "INSERT INTO rounds (id, started_us, finished_us, source, plan, vantage, tool_version)"
                " VALUES (%s, %s, %s, 'schedule', 'p', 'v', 'old')",
                (round_id, start, start + 3_000_000),
            )
            db.execute(
                "INSERT INTO results (id, round_id, target_id, started_us, finished_us, sent, received)"
                " VALUES (%s, %s, 1, %s, %s, 3, 2)",
                (round_id, round_id, start, start + 3_000_000),
            )
            for seq, rtt in enumerate((10.0, None, 12.0)):
                db.execute(
                    "INSERT INTO samples (result_id, target_id, ts_us, seq, rtt_ms) VALUES (%s, 1, %s, %s, %s)",
                    (round_id, start + seq * 1_000_000, seq, rtt),
                )
    with Store(postgres_url) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert [r.id for r in store.rounds()] == [1]  # the first stored of the doubles is kept
        assert store.counts() == {
            "series": 1,
            "rounds": 1,
            "results": 1,
            "samples": 3,
            "hourly": 1,
            "quarter_hourly": 1,
        }
        (hour,) = store.hourly_frame().itertuples()
        assert (hour.sent, hour.received, hour.rtt_sum_ms) == (3, 2, 22.0)
        (row,) = store.backend.connection.execute("SELECT slot_us FROM rounds").fetchall()  # type: ignore[attr-defined]
        assert row[0] == second * 1_000_000


def test_how_results_were_timed_reads_alike_on_both_backends(pg_store: Store, tmp_path: Path) -> None:
    """`Store.timed_by` (the export's "Probe backends" row) from the results' metrics, on both stores."""
    from dataclasses import replace

    target = Target(Method.ICMP, host="198.18.0.21")
    base_result = synthetic_result(target, T0, [150.0, None])
    results = [
        replace(base_result, metrics={"backend": "linux", "timestamps": "kernel"}),
        replace(base_result, metrics={"backend": "linux", "timestamps": "kernel"}),
        replace(base_result, metrics={"backend": "portable", "timestamps": "user"}),
        base_result,  # a result that says neither (HTTP's, or one stored before the probe backends)
    ]
    answers = []
    with Store(tmp_path / "s.sqlite3") as sqlite_store:
        for store in (sqlite_store, pg_store):
            for n, result in enumerate(results):
                save_round(store, [result], started_us=T0 + n, finished_us=T0 + n + 1, source="test")
            answers.append(store.timed_by())
    assert answers[0] == answers[1] == [("linux/kernel", 2), ("unrecorded", 1), ("portable/user", 1)]
