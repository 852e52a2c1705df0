"""Rounds in the store: the upgrade of a store the schema-2 code wrote, one round per uid and per (vantage,
plan, slot), the spool's form of a round, and the store's named locks."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probes.errors import LockHeldError
from probes.store import SCHEMA_VERSION, Store, WriteStatus, measured_round
from probes.store.locks import StoreLock
from probes.store.measured import from_json, to_json
from probes.store.rollup import HOUR_S, QUARTER_S, Rollups
from tests.conftest import REPO_ROOT
from tests.probes.test_store import T0, synthetic_result

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    path = tmp_path / "old.sqlite3"
    shutil.copyfile(FIXTURES / "store-v2.sqlite3", path)
    return path


def _rollups_from_samples(store: Store, period_s: int) -> Rollups:
    samples = store.samples_frame().sort_values(["result_id", "seq"], kind="stable")
    return Rollups.of_samples(
        period_s,
        samples["series_id"].to_numpy(),
        samples["result_id"].to_numpy(),
        samples["ts_us"].to_numpy(),
        samples["rtt_ms"].to_numpy(),
    )


def test_a_store_the_schema_2_code_wrote_is_upgraded_doubles_removed_and_rollups_rebuilt(
    old_store: Path,
) -> None:
    with closing(sqlite3.connect(old_store)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
        before = {
            t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("rounds", "results", "samples")
        }
        doubled = db.execute(
            "SELECT max(id) FROM rounds WHERE source = 'schedule' GROUP BY started_us / 1000000 HAVING count(*) > 1"
        ).fetchall()
    assert before == {"rounds": 27, "results": 79, "samples": 948} and len(doubled) == 2
    with Store(old_store) as store:
        assert store.schema_version == SCHEMA_VERSION
        counts = store.counts()
        # The two doubles (the later of each pair) are gone with their 3 results and 36 samples each.
        assert (counts["rounds"], counts["results"], counts["samples"]) == (25, 73, 876)
        kept = {r.id for r in store.rounds()}
        assert not kept & {row[0] for row in doubled}
        for period_s in (HOUR_S, QUARTER_S):
            stored = {row[:2]: row for row in store.rollups(period_s).rows()}
            expected = {row[:2]: row for row in _rollups_from_samples(store, period_s).rows()}
            assert stored.keys() == expected.keys() and len(stored) > 0
            for key, row in expected.items():
                got = stored[key]
                assert got[2:4] + got[8:] == row[2:4] + row[8:], key  # counts, pairs, histograms exactly
                assert np.allclose([got[4], got[7]], [row[4], row[7]])
        assert counts["quarter_hourly"] > counts["hourly"] > 0


def test_a_round_is_stored_once_per_uid_and_once_per_slot(tmp_path: Path) -> None:
    from probes.target import Method, Target

    target = Target(Method.ICMP, host="198.18.0.40")

    def round_at(
        start: int, *, vantage: str | None = "office", slot: int | None = T0, uid: str | None = None
    ):  # type: ignore[no-untyped-def]
        return measured_round(
            [synthetic_result(target, start, [10.0, 11.0])],
            started_us=start,
            finished_us=start + 2,
            source="schedule",
            plan="p",
            vantage=vantage,
            slot_us=slot,
            uid=uid,
        )

    with Store(tmp_path / "s.sqlite3") as store:
        first = round_at(T0 + 5)
        written = store.write_round(first)
        assert written.status is WriteStatus.STORED
        again = store.write_round(first)  # forwarded twice from the spool
        assert (again.status, again.round_id) == (WriteStatus.ALREADY_STORED, written.round_id)
        double = store.write_round(round_at(T0 + 9))  # a second scheduler, the same slot
        assert (double.status, double.round_id) == (WriteStatus.SLOT_TAKEN, written.round_id)
        elsewhere = store.write_round(round_at(T0 + 9, vantage="beijing"))
        assert elsewhere.status is WriteStatus.STORED
        none, empty = (
            store.write_round(round_at(T0, vantage=None)),
            store.write_round(round_at(T0 + 1, vantage="")),
        )
        assert (none.status, empty.status) == (WriteStatus.STORED, WriteStatus.SLOT_TAKEN)
        unscheduled = [store.write_round(round_at(T0 + k, slot=None)).status for k in (20, 21)]
        assert unscheduled == [WriteStatus.STORED, WriteStatus.STORED]
        assert store.counts()["rounds"] == 5 and store.counts()["samples"] == 10
        with pytest.raises(sqlite3.IntegrityError):  # the store itself refuses a double, not only the code
            store.backend.connection.execute(  # type: ignore[attr-defined]
                "INSERT INTO rounds (started_us, finished_us, source, plan, vantage, tool_version, slot_us)"
                " VALUES (1, 1, 'x', 'p', 'office', 'v', ?)",
                (T0,),
            )


def test_a_round_survives_its_spool_form(tmp_path: Path) -> None:
    from probes.target import Method, Target

    results = [
        synthetic_result(Target(Method.ICMP, host="198.18.0.41", provider="acme"), T0, [1.5, None, 2.25]),
        synthetic_result(Target(Method.TCP, host="198.18.0.42", port=22), T0 + 7, []),
    ]
    measured = measured_round(
        results,
        started_us=T0,
        finished_us=T0 + 9,
        source="schedule",
        plan="p",
        vantage="v",
        peak=True,
        slot_us=T0,
    )
    assert from_json(to_json(measured)) == measured
    with Store(tmp_path / "a.sqlite3") as a, Store(tmp_path / "b.sqlite3") as b:
        a.write_round(measured)
        b.write_round(from_json(to_json(measured)))
        assert (
            a.results_frame().drop(columns="started_at").equals(b.results_frame().drop(columns="started_at"))
        )
        assert a.samples_frame().equals(b.samples_frame())


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=30,
    )
)
def test_spool_text_is_a_round_or_a_clear_value_error(document: object) -> None:
    for text in (
        json.dumps(document),
        json.dumps({"format": "linkvet-round", "version": 1, "round": document}),
    ):
        with contextlib.suppress(ValueError):  # a round, or our own error; nothing else
            from_json(text)


def test_spool_text_that_is_not_json_is_a_value_error() -> None:
    for text in ("", "{", "[" * 100_000, '{"format": "linkvet-round", "version": 2}'):
        with pytest.raises(ValueError):
            from_json(text)


def test_a_lock_is_held_by_one_holder_and_taken_over_when_its_holder_is_gone(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with Store(path) as one, Store(path) as two:
        first = StoreLock(one.backend, "schedule p @ v", "first")
        mine = first.take()
        second = StoreLock(two.backend, "schedule p @ v", "second")
        with pytest.raises(LockHeldError, match=f"process {os.getpid()} on ") as held:
            second.take()
        assert held.value.holder.token == mine.token  # type: ignore[attr-defined]
        assert StoreLock(two.backend, "schedule p @ elsewhere", "other").take()  # another lock is free
        assert first.refresh()
        first.release()
        second.take()  # released: free
        assert not first.refresh()  # it is not first's any more
        # A holder whose heartbeat stopped long ago is gone.
        two.backend.connection.execute("UPDATE locks SET heartbeat_us = 0")  # type: ignore[attr-defined]
        StoreLock(one.backend, "schedule p @ v", "third").take()


def test_a_lock_whose_process_died_on_this_host_is_taken_over_at_once(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    Store(path).close()
    code = (
        "import sys; from probes.store import Store; from probes.store.locks import StoreLock;"
        "s = Store(sys.argv[1]); StoreLock(s.backend, 'schedule p @ v', 'gone').take()"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(path)], check=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    )
    with Store(path) as store:
        (row,) = store.backend.connection.execute("SELECT pid FROM locks").fetchall()  # type: ignore[attr-defined]
        assert row[0] != os.getpid()  # the holder exited without releasing it: its pid is gone
        StoreLock(store.backend, "schedule p @ v", "me").take()
