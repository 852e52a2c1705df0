"""Evidence belongs to what it was taken for: a stored series is what was measured, under which labels, from
which vantage point, and is never rewritten. A later round or trace with other labels re-attributes nothing;
two vantage points' rollups are kept apart, so one office's analysis reads its own rollups; rounds that name
no vantage point are `THIS_MACHINE`'s; and a store written by schema 8 (one target row per key, its labels
rewritten by every round: `fixtures/store-v8.sqlite3`, made by `fixtures/make_store_v8.py` with the old code)
upgrades keeping the attribution it had, on SQLite and on PostgreSQL alike."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import numpy as np
import psycopg
import pytest

from probes.analysis import Scope, hour_of_day, route_verdicts
from probes.analysis.clock import local_hour
from probes.analysis.data import prepare
from probes.routes import bundled_table
from probes.store import SCHEMA_VERSION, THIS_MACHINE, Store, measured_round
from probes.store.postgres.schema import MIGRATIONS as POSTGRES_MIGRATIONS
from probes.store.postgres.schema import VERSION_TABLE
from probes.store.rollup import PERIODS_S, Rollups
from probes.target import Method, Target
from tests.analysis.synthetic import trace_result
from tests.probes.test_store import T0, synthetic_result
from tests.rounds import save_round

FIXTURES = Path(__file__).parent / "fixtures"
HOUR_US = 3_600_000_000
LA = Target(Method.ICMP, host="198.18.2.1", name="la-cn2", provider="acme", region="la", line_type="cn2-gia")
CN2 = ["10.0.0.1", "59.43.180.1", "59.43.246.1"]
CHINANET = ["10.0.0.1", "202.97.12.1", "202.97.50.1"]


@pytest.fixture(params=["sqlite", "postgres"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A new store on each backend."""
    location = (
        str(tmp_path / "s.sqlite3") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    )
    with Store(location) as store:
        yield store


def _round(store: Store, target: Target, start_us: int, rtts: list[float | None], **details: object) -> None:
    result = synthetic_result(target, start_us, rtts, spacing_us=10_000_000)
    save_round(store, [result], started_us=start_us, finished_us=result.finished_at_us, source="t", **details)


def _trace(store: Store, target: Target, start_us: int, path: list[str], vantage: str | None = None) -> None:
    result = trace_result(target, start_us, path)
    save_round(
        store,
        [result],
        started_us=result.started_at_us,
        finished_us=result.finished_at_us,
        source="trace",
        vantage=vantage,
    )


def test_a_later_round_with_other_labels_re_attributes_nothing(any_store: Store) -> None:
    store = any_store
    _round(store, LA, T0, [150.0, 151.0], vantage="beijing")
    relabelled = Target(
        Method.ICMP, host=LA.host, name="sj-bgp", provider="vendorb", region="sj", line_type="bgp"
    )
    _round(store, relabelled, T0 + HOUR_US, [170.0, 171.0], vantage="beijing")
    _round(store, LA, T0 + 2 * HOUR_US, [152.0, 153.0], vantage="beijing")  # the first labels again
    frame = store.results_frame()
    assert [(r.name, r.provider, r.region, r.line_type) for r in frame.itertuples()] == [
        ("la-cn2", "acme", "la", "cn2-gia"),
        ("sj-bgp", "vendorb", "sj", "bgp"),
        ("la-cn2", "acme", "la", "cn2-gia"),
    ]
    assert frame.series_id[0] == frame.series_id[2] != frame.series_id[1]  # back to its own series
    (acme,) = store.series(provider="acme")
    assert (acme.key, acme.name, acme.vantage) == ("icmp:198.18.2.1", "la-cn2", "beijing")
    assert [s.name for s in store.find_series("198.18.2.1")] == ["la-cn2", "sj-bgp"]
    assert [s.name for s in store.find_series("la-cn2")] == ["la-cn2"]
    # Each region's figures are its own rounds'.
    hours = hour_of_day(store, Scope(by="region"), "UTC")
    sent = hours.groupby(["provider", "region"])["sent"].sum().to_dict()
    assert sent == {("acme", "la"): 4, ("vendorb", "sj"): 2}


def test_a_later_trace_with_other_labels_re_attributes_no_trace(any_store: Store) -> None:
    store = any_store
    traced = Target(
        Method.TRACE, host="127.0.0.9", name="la", provider="acme", region="la", line_type="cn2-gia"
    )
    for n in range(3):
        _trace(store, traced, T0 + n * 60_000_000, CN2, vantage="beijing")
    other = Target(
        Method.TRACE, host="127.0.0.9", name="sj", provider="vendorb", region="sj", line_type="cn2-gia"
    )
    _trace(store, other, T0 + HOUR_US, CHINANET, vantage="beijing")
    traces = store.traces()
    assert [(t.name, t.provider, t.region) for t in traces] == [("la", "acme", "la")] * 3 + [
        ("sj", "vendorb", "sj")
    ]
    assert len(store.traces(provider="acme")) == 3 and len(store.traces(region="sj")) == 1
    checks = route_verdicts(store, table=bundled_table())
    assert checks[("acme", "la")]["traces"] == 3 and checks[("acme", "la")]["agrees"] is True
    assert checks[("vendorb", "sj")]["traces"] == 1 and checks[("vendorb", "sj")]["agrees"] is False


def test_two_vantage_points_keep_their_own_rollups_and_one_offices_analysis_reads_them(
    any_store: Store,
) -> None:
    store = any_store
    for k in range(4):  # the same target, the same hours, from two offices
        _round(store, LA, T0 + k * 900_000_000, [150.0, None, 152.0], vantage="beijing")
        _round(store, LA, T0 + k * 900_000_000 + 5_000, [120.0, 121.0, 122.0], vantage="shanghai")
    by_office = {s.vantage: s.id for s in store.series()}
    assert set(by_office) == {"beijing", "shanghai"}
    hourly = store.rollup_frame(PERIODS_S[0])
    assert sorted(zip(hourly.series_id, hourly.sent, hourly.received, strict=True)) == sorted(
        [(by_office["beijing"], 12, 8), (by_office["shanghai"], 12, 12)]
    )
    for office, (sent, received, median) in {"beijing": (12, 8, 151.0), "shanghai": (12, 12, 121.0)}.items():
        scope = Scope(by="region", vantage=office)
        prepared = prepare(store, scope, [local_hour("UTC")])
        assert prepared.cells.raw_cells == 0  # every hour from this office's own rollups
        (row,) = hour_of_day(store, scope, "UTC").query("sent > 0").itertuples()
        assert (row.sent, row.received) == (sent, received)
        assert row.rtt_median_ms == pytest.approx(median, rel=0.02)
    assert store.vantages() == ["beijing", "shanghai"]


def test_rounds_without_a_vantage_point_are_this_machines(any_store: Store) -> None:
    store = any_store
    _round(store, LA, T0, [150.0], vantage=None)
    _round(store, LA, T0 + 1_000, [151.0], vantage="")
    _round(store, LA, T0 + 2_000, [152.0], vantage="beijing")
    assert store.vantages() == ["beijing", THIS_MACHINE]  # the named ones first
    assert [(s.vantage, len(store.results_frame([s.id]))) for s in store.series()] == [
        ("beijing", 1),
        (THIS_MACHINE, 2),
    ]
    assert store.last_measured_us(LA.key, vantage=THIS_MACHINE) == T0 + 1_000
    assert store.last_measured_us(LA.key) == T0 + 2_000


def test_an_icmp_series_never_shows_its_fallback_port(any_store: Store) -> None:
    store = any_store
    _round(store, Target(Method.ICMP, host="198.18.2.2", port=8080), T0, [1.0])
    _round(store, Target(Method.TCP, host="198.18.2.2", port=22), T0, [1.0])
    addresses = {s.method: s.address for s in store.series()}
    assert addresses == {"icmp": "198.18.2.2", "tcp": "198.18.2.2:22"}


# -- the upgrade from schema 8 --------------------------------------------------------------------------------


def _old_attribution(fixture: Path) -> list[tuple[object, ...]]:
    """Each result as the schema-8 store attributed it: its start, the target row's key, name and labels
    then, and its round's vantage point (none: this machine's)."""
    with closing(sqlite3.connect(f"file:{fixture}?mode=ro", uri=True)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 8
        return db.execute(
            "SELECT r.started_us, t.key, t.name, t.provider, t.region, t.line_type,"
            " coalesce(nullif(ro.vantage, ''), 'this-machine'), r.sent, r.received"
            " FROM results r JOIN targets t ON t.id = r.target_id JOIN rounds ro ON ro.id = r.round_id"
            " ORDER BY r.started_us, r.id"
        ).fetchall()


def _attribution(store: Store) -> list[tuple[object, ...]]:
    frame = store.results_frame()
    return [
        (r.started_us, r.key, r.name, r.provider, r.region, r.line_type, r.vantage, r.sent, r.received)
        for r in frame.itertuples()
    ]


def _check_upgraded(store: Store, expected: list[tuple[object, ...]]) -> None:
    assert store.schema_version == SCHEMA_VERSION
    assert _attribution(store) == expected
    # The ICMP target measured from two offices and once by a one-off probe: three series, one per vantage
    # point, each with the labels its row had when the store was upgraded (the probe had renamed it).
    icmp = store.series(method="icmp")
    assert [(s.name, s.provider, s.vantage) for s in icmp] == [
        ("198.18.1.1", "raksmart", "beijing"),
        ("198.18.1.1", "raksmart", "shanghai"),
        ("198.18.1.1", "raksmart", THIS_MACHINE),
    ]
    assert {s.address for s in icmp} == {"198.18.1.1"}  # its fallback port 8080 is no part of it
    # Every sample is its run's series'; the rollups are rebuilt per series from them.
    samples = store.samples_frame()
    runs = store.results_frame().set_index("result_id")["series_id"]
    assert (samples.series_id.to_numpy() == runs.loc[samples.result_id].to_numpy()).all()
    on_line = samples.loc[samples.error != "send_failed"]
    for period_s in PERIODS_S:
        stored = store.rollups(period_s)
        order = np.argsort(on_line.result_id.to_numpy(), kind="stable")
        rebuilt = Rollups.of_samples(
            period_s,
            on_line.series_id.to_numpy()[order],
            on_line.result_id.to_numpy()[order],
            on_line.ts_us.to_numpy()[order],
            on_line.rtt_ms.to_numpy()[order],
        )

        def counts(rollups: Rollups) -> list[tuple[object, ...]]:
            return sorted(
                zip(rollups.keys(), rollups.parts.sent.tolist(), rollups.parts.received.tolist(), strict=True)
            )

        assert counts(stored) == counts(rebuilt) and len(stored) > 0
    # Traces keep the attribution of their target row then (the last trace had relabelled it).
    assert {(t.provider, t.region, t.vantage) for t in store.traces()} == {
        ("vendorb", "sj", "beijing"),
        ("vendorb", "sj", THIS_MACHINE),
    }
    assert len(store.traces()) == 4


def test_a_schema_8_sqlite_store_upgrades_keeping_its_attribution(tmp_path: Path) -> None:
    path = tmp_path / "v8.sqlite3"
    shutil.copyfile(FIXTURES / "store-v8.sqlite3", path)
    expected = _old_attribution(path)
    with Store(path) as store:
        _check_upgraded(store, expected)


def _copy_into_schema_8(fixture: Path, url: str) -> None:
    """A PostgreSQL store at schema 8 holding the fixture's rows: schema 8's own migrations, then the rows."""
    with psycopg.connect(url, autocommit=True) as pg, closing(sqlite3.connect(fixture)) as lite:
        for migration in POSTGRES_MIGRATIONS[:8]:
            for step in migration:
                if isinstance(step, str):
                    pg.execute(step)  # type: ignore[arg-type]
        pg.execute(f"CREATE TABLE {VERSION_TABLE} (version BIGINT NOT NULL)")
        pg.execute(f"INSERT INTO {VERSION_TABLE} VALUES (8)")
        pg.execute("CREATE SEQUENCE store_writes")
        pg.execute("DELETE FROM store_facts")
        for table in ("targets", "rounds", "results", "samples", "traces", "trace_replies", "store_facts"):
            cursor = lite.execute(f"SELECT * FROM {table}")
            columns = ", ".join(d[0] for d in cursor.description)
            with pg.cursor() as out, out.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:  # type: ignore[arg-type]
                for row in cursor:
                    copy.write_row(row)
        for table in ("targets", "rounds"):
            pg.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table}")  # type: ignore[arg-type]


def test_a_schema_8_postgres_store_upgrades_as_sqlite_does(postgres_url: str, tmp_path: Path) -> None:
    path = tmp_path / "v8.sqlite3"
    shutil.copyfile(FIXTURES / "store-v8.sqlite3", path)
    expected = _old_attribution(path)
    _copy_into_schema_8(path, postgres_url)
    with Store(postgres_url) as pg, Store(path) as lite:
        _check_upgraded(pg, expected)
        assert [dataclasses.astuple(s) for s in pg.series()] == [
            dataclasses.astuple(s) for s in lite.series()
        ]
        assert pg.counts() == lite.counts()
        for period_s in PERIODS_S:
            assert pg.rollups(period_s).rows() == lite.rollups(period_s).rows()
        # Both go on writing alike: a new round from beijing adds to the series beijing's rounds had.
        for store in (pg, lite):
            old = Target(
                Method.ICMP,
                host="198.18.1.1",
                name="198.18.1.1",
                provider="raksmart",
                region="los-angeles",
                line_type="cn2-gia",
            )
            _round(store, old, T0 + 100 * HOUR_US, [150.0], vantage="beijing")
        assert pg.counts() == lite.counts() and pg.counts()["series"] == 6


def test_an_old_spooled_round_lands_in_the_series_its_labels_and_vantage_name(any_store: Store) -> None:
    """A round the spool kept in its version-1 form (before samples had phases) carries each result's target
    row with its labels, and its round's vantage point: forwarded today it lands in those series."""
    import json

    from probes.store.measured import from_json, to_json

    relabelled = Target(Method.ICMP, host=LA.host, name="sj-bgp", provider="vendorb", region="sj")
    results = [synthetic_result(LA, T0, [150.0, None]), synthetic_result(relabelled, T0 + 1, [170.0])]
    document = json.loads(
        to_json(
            measured_round(
                results, started_us=T0, finished_us=T0 + 2_000_000, source="schedule", vantage="bj"
            )
        )
    )
    document["version"] = 1
    for result in document["results"]:
        del result["phase"]
    any_store.write_round(from_json(json.dumps(document)))
    assert [(s.name, s.provider, s.region, s.vantage) for s in any_store.series()] == [
        ("la-cn2", "acme", "la", "bj"),
        ("sj-bgp", "vendorb", "sj", "bj"),
    ]
    assert any_store.samples_frame().phase.isna().all()


def test_a_round_of_runs_with_and_without_phases_keeps_each_sample_with_its_phase(any_store: Store) -> None:
    """Runs without phases are written without the column (schema 12's faster insert), runs with phases with
    it, in one round: every sample comes back with its own phase, keyed by its position in its run."""
    from probes.results import ProbeResult, Sample

    icmp = synthetic_result(LA, T0, [150.0, None, 151.0])
    loaded = Target(Method.RESPONSIVENESS, url="https://198.18.2.9/big", name="la-rpm")
    phases = ("idle", "download", "download", None)
    phased = ProbeResult(
        loaded,
        T0,
        T0 + 4_000_000,
        samples=tuple(Sample(i, T0 + i * 1_000_000, 20.0 + i, None, phase) for i, phase in enumerate(phases)),
    )
    later = synthetic_result(LA, T0 + 5_000_000, [149.0])
    save_round(any_store, [icmp, phased, later], started_us=T0, finished_us=T0 + 6_000_000, source="t")
    frame = any_store.samples_frame().sort_values(["result_id", "seq"])
    got = [
        (int(r), int(s), None if p is None or p != p else str(p))
        for r, s, p in zip(frame.result_id, frame.seq, frame.phase, strict=True)
    ]
    first = int(frame.result_id.min())
    assert got == [
        (first, 0, None),
        (first, 1, None),
        (first, 2, None),
        *((first + 1, i, phase) for i, phase in enumerate(phases)),
        (first + 2, 0, None),
    ]
    assert any_store.counts()["samples"] == 8


def test_a_round_that_received_nothing_stores_rollups_without_rtts(any_store: Store) -> None:
    """Every rollup of the round has no RTT (min and max NULL in every row PostgreSQL's one-statement write
    sends: a column of NULLs only); a later round in the same hour adds to them."""
    other = Target(Method.ICMP, host="198.18.2.2", name="la-bgp", provider="acme", region="la")
    lost = [synthetic_result(target, T0, [None, None]) for target in (LA, other)]
    save_round(any_store, lost, started_us=T0, finished_us=T0 + 3_000_000, source="t")
    for period_s in PERIODS_S:
        rollups = any_store.rollups(period_s)
        assert rollups.parts.sent.tolist() == [2, 2] and rollups.parts.received.tolist() == [0, 0]
        assert np.isnan(rollups.parts.rtt_min_ms).all() and np.isnan(rollups.parts.rtt_max_ms).all()
    _round(any_store, LA, T0 + 10_000_000, [150.0])
    hourly = any_store.rollups(PERIODS_S[0])
    assert sorted(zip(hourly.parts.sent.tolist(), hourly.parts.received.tolist(), strict=True)) == [
        (2, 0),
        (3, 1),
    ]
    assert np.nanmax(hourly.parts.rtt_max_ms) == 150.0
