"""One store merged into another (`probes.store.copying`, `linkvet merge`): every round, result, sample,
trace and rollup of the source in the destination (ids aside), each round once however often it is merged
(rounds stored before rounds had ids too), a vantage point given to rounds that name none, a slot another
round holds left alone; into SQLite and into a real PostgreSQL server."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from probes.errors import ErrorKind
from probes.results import ProbeResult, Sample
from probes.store import Store, WriteStatus, measured_round
from probes.store.copying import merge_into
from probes.store.rollup import PERIODS_S
from probes.target import Method, Target
from tests.gui.synthetic_routes import write_route_history
from tests.probes.test_store import T0, synthetic_result
from tests.rounds import save_round

START = datetime(2026, 11, 2, 8, tzinfo=UTC)


def _records(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    return sorted(
        (tuple(None if pd.isna(v) else v for v in row) for row in frame.itertuples(index=False)),
        key=repr,
    )


def contents(store: Store) -> dict[str, Any]:
    """What the store holds, with its own ids replaced by what they stand for (target keys, run starts)."""
    key_of = {t.id: t.key for t in store.series()}
    results = store.results_frame()
    run_of = {
        int(r.result_id): (key_of[int(r.series_id)], int(r.started_us))
        for r in results.itertuples(index=False)
    }
    samples = store.samples_frame()
    samples["run"] = [run_of[int(i)] for i in samples.result_id]
    rollups = {}
    for period in PERIODS_S:
        frame = store.rollup_frame(period)
        frame["series_id"] = [key_of[int(i)] for i in frame.series_id]
        rollups[period] = _records(frame)
    return {
        "targets": sorted(dataclasses.astuple(dataclasses.replace(t, id=0)) for t in store.series()),
        "results": _records(results.drop(columns=["result_id", "round_id", "series_id"])),
        "samples": _records(samples.drop(columns=["result_id", "series_id"])),
        "rollups": rollups,
        "traces": sorted(repr(dataclasses.replace(t, result_id=0, series_id=0)) for t in store.traces()),
        "rounds": sorted(
            (r.started_us, r.finished_us, r.source, r.plan, r.vantage, r.peak) for r in store.rounds()
        ),
    }


def fill_source(path: Path) -> None:
    """Traces with their route verdicts, echo rounds, and a scheduled round with a lost attempt and one
    this machine could not send."""
    write_route_history(path, start=START, change_at=START.replace(day=4), days=2, every_h=6)
    target = Target(Method.ICMP, host="198.18.0.44", provider="acme", region="la", line_type="bgp")
    samples = (
        Sample(0, T0, 150.0),
        Sample(1, T0 + 1_000_000, None, ErrorKind.SEND_FAILED),
        Sample(2, T0 + 2_000_000, None, ErrorKind.TIMEOUT),
        Sample(3, T0 + 3_000_000, 151.0),
    )
    with Store(path) as store:
        store.write_round(
            measured_round(
                [ProbeResult(target, T0, T0 + 4_000_000, samples=samples)],
                started_us=T0,
                finished_us=T0 + 4_000_000,
                source="schedule",
                plan="office",
                vantage="shanghai",
                slot_us=T0,
            )
        )


def test_a_merged_store_holds_everything_the_source_holds_and_merging_again_adds_nothing(
    tmp_path: Path,
) -> None:
    source, team = tmp_path / "office.sqlite3", tmp_path / "team.sqlite3"
    fill_source(source)
    with Store(source, readonly=True) as reader, Store(team) as writer:
        counts = merge_into(reader, writer)
        assert counts.stored == counts.rounds == reader.counts()["rounds"] > 10
        assert counts.samples == reader.counts()["samples"]
        assert contents(writer) == contents(reader)
        again = merge_into(reader, writer)
        assert (again.stored, again.already_stored, again.samples) == (0, counts.rounds, 0)
        assert writer.counts() == reader.counts()
    # The rollups the merge wrote are those the raw samples give.
    with Store(team) as writer:
        before = contents(writer)["rollups"]
        writer.rebuild_rollups()
        assert contents(writer)["rollups"] == before


def _sample_reads(reader: Store) -> list[str]:
    """The statements reading samples that the reader's SQLite connection runs from now on."""
    statements: list[str] = []
    reader.backend._db.set_trace_callback(  # type: ignore[attr-defined]
        lambda sql: statements.append(sql) if "CROSS JOIN samples" in sql else None
    )
    return statements


def test_merging_again_reads_only_the_rounds_the_destination_lacks(tmp_path: Path) -> None:
    """A store merged before is not read again: only its rounds' rows (to see which the destination holds);
    the results and samples of a round are read only when the destination lacks it."""
    source, team = tmp_path / "office.sqlite3", tmp_path / "team.sqlite3"
    fill_source(source)
    with Store(source, readonly=True) as reader, Store(team) as writer:
        first = _sample_reads(reader)
        counts = merge_into(reader, writer)
        assert first and counts.stored == counts.rounds
        again = _sample_reads(reader)
        assert merge_into(reader, writer).already_stored == counts.rounds
        assert again == []
    target = Target(Method.ICMP, host="198.18.0.47")
    later = synthetic_result(target, T0 + 86_400_000_000, [152.0, 153.0])
    with Store(source) as store:
        save_round(
            store, [later], started_us=later.started_at_us, finished_us=later.finished_at_us, source="t"
        )
    with Store(source, readonly=True) as reader, Store(team) as writer:
        reads = _sample_reads(reader)
        newer = merge_into(reader, writer)
        assert (newer.stored, newer.already_stored, newer.samples) == (1, counts.rounds, 2)
        assert len(reads) == 1  # the one new round's samples
        assert contents(writer) == contents(reader)


def test_rounds_stored_before_rounds_had_ids_are_merged_once_and_a_vantage_is_given_where_none_is(
    tmp_path: Path,
) -> None:
    source, team = tmp_path / "office.sqlite3", tmp_path / "team.sqlite3"
    target = Target(Method.TCP, host="198.18.0.45", port=443)
    with Store(source) as store:
        for hour in range(3):
            result = synthetic_result(target, T0 + hour * 3_600_000_000, [150.0, 151.0])
            save_round(
                store,
                [result],
                started_us=result.started_at_us,
                finished_us=result.finished_at_us,
                source="t",
            )
        save_round(
            store,
            [synthetic_result(target, T0 + 5 * 3_600_000_000, [149.0])],
            started_us=T0 + 5 * 3_600_000_000,
            finished_us=T0 + 5 * 3_600_000_000 + 1_000_000,
            source="t",
            vantage="beijing",
        )
    with closing(sqlite3.connect(source)) as db, db:
        db.execute("UPDATE rounds SET uid = NULL WHERE vantage IS NULL")  # as schema 5 left older rounds
    for _ in range(2):
        with Store(source, readonly=True) as reader, Store(team) as writer:
            merge_into(reader, writer, vantage="shanghai")
    with Store(team, readonly=True) as store:
        assert sorted(r.vantage for r in store.rounds()) == ["beijing", "shanghai", "shanghai", "shanghai"]
        assert store.counts()["samples"] == 7


def test_a_scheduled_round_whose_slot_the_destination_holds_is_left_alone(tmp_path: Path) -> None:
    source, team = tmp_path / "office.sqlite3", tmp_path / "team.sqlite3"
    target = Target(Method.ICMP, host="198.18.0.46")

    def scheduled(rtt: float) -> Any:
        result = synthetic_result(target, T0, [rtt])
        return measured_round(
            [result], started_us=T0, finished_us=T0 + 1, source="schedule", plan="p", vantage="sh", slot_us=T0
        )

    with Store(source) as store:
        store.write_round(scheduled(150.0))
    with Store(team) as store:
        assert store.write_round(scheduled(160.0)).status is WriteStatus.STORED  # another agent's round
    with Store(source, readonly=True) as reader, Store(team) as writer:
        counts = merge_into(reader, writer)
        assert (counts.stored, counts.slot_taken) == (0, 1)
        assert writer.samples_frame().rtt_ms.tolist() == [160.0]


def test_an_office_store_merged_into_postgresql_reads_the_same(tmp_path: Path, postgres_url: str) -> None:
    source = tmp_path / "office.sqlite3"
    fill_source(source)
    with Store(source, readonly=True) as reader, Store(postgres_url) as writer:
        counts = merge_into(reader, writer)
        assert counts.stored == reader.counts()["rounds"]
        assert contents(writer) == contents(reader)
        assert merge_into(reader, writer).already_stored == counts.rounds
    # And back out of PostgreSQL into another SQLite store, twice: the second time stores nothing.
    with Store(postgres_url, readonly=True) as reader, Store(tmp_path / "copy.sqlite3") as writer:
        assert merge_into(reader, writer).stored == counts.rounds
        assert merge_into(reader, writer).already_stored == counts.rounds
        assert contents(writer) == contents(reader)


def test_linkvet_merge_says_what_it_stored_in_english_and_chinese(tmp_path: Path, run_linkvet: Any) -> None:
    source, team = tmp_path / "office.sqlite3", tmp_path / "team.sqlite3"
    fill_source(source)
    with Store(source, readonly=True) as reader:
        rounds, samples = reader.counts()["rounds"], reader.counts()["samples"]
    first = run_linkvet("merge", str(source), "--db", str(team), "--vantage", "shanghai")
    assert first.returncode == 0, first.stderr
    assert f": {rounds} of {rounds} rounds stored ({samples} samples)" in first.stdout
    again = run_linkvet("merge", str(source), "--db", str(team), "--json")
    assert json.loads(again.stdout) == {
        "rounds": rounds,
        "stored": 0,
        "already_stored": rounds,
        "slot_taken": 0,
        "samples": 0,
    }
    chinese = run_linkvet("--lang", "zh_CN", "merge", str(source), "--db", str(team))
    assert chinese.returncode == 0 and f"已在结果库中：{rounds} 轮" in chinese.stdout, chinese.stdout
    missing = run_linkvet("merge", str(tmp_path / "none.sqlite3"), "--db", str(team))
    assert missing.returncode == 2 and "no result store there to merge from" in missing.stderr
    itself = run_linkvet("merge", str(team), "--db", str(team))
    assert itself.returncode == 2 and "cannot be merged into itself" in itself.stderr
