"""The result store: round trips, rollups that match the raw samples, migrations, and crash safety."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from probes import histogram
from probes.analysis.cells import cells_from_samples
from probes.errors import ErrorKind, SchemaVersionError, StoreError
from probes.results import ProbeResult, Sample
from probes.stats import summarize
from probes.store import SCHEMA_VERSION, THIS_MACHINE, Store
from probes.store.rollup import PERIODS_S
from probes.target import Method, Target
from tests.conftest import REPO_ROOT
from tests.rounds import save_round

FIXTURES = Path(__file__).parent / "fixtures"
HOUR_US = 3_600_000_000
T0 = 1_796_000_400 * 1_000_000  # a whole UTC hour


def synthetic_result(
    target: Target, start_us: int, rtts: list[float | None], spacing_us: int = 1_000_000
) -> ProbeResult:
    samples = tuple(
        Sample(i, start_us + i * spacing_us, rtt, None if rtt is not None else ErrorKind.TIMEOUT)
        for i, rtt in enumerate(rtts)
    )
    return ProbeResult(target, start_us, start_us + len(rtts) * spacing_us, samples=samples)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "s.sqlite3") as s:
        yield s


def test_round_trip_keeps_every_sample_and_summary(store: Store) -> None:
    target = Target(Method.ICMP, host="198.18.0.9", provider="acme", region="la", line_type="cn2-gia")
    result = synthetic_result(target, T0, [150.0, None, 151.5, 149.0])
    round_id = save_round(
        store, [result], started_us=T0, finished_us=T0 + 5_000_000, source="test", vantage="sh"
    )
    assert store.counts() == {
        "series": 1,
        "rounds": 1,
        "results": 1,
        "samples": 4,
        "hourly": 1,
        "quarter_hourly": 1,
    }
    frame = store.results_frame()
    row = frame.iloc[0]
    assert (row.round_id, row.provider, row.region, row.line_type, row.vantage) == (
        round_id,
        "acme",
        "la",
        "cn2-gia",
        "sh",
    )
    assert (row.sent, row.received) == (4, 3)
    assert row.loss == pytest.approx(0.25)
    assert row.rtt_median_ms == pytest.approx(150.0)
    samples = store.samples_frame()
    assert samples.ts_us.tolist() == [s.sent_at_us for s in result.samples]
    assert np.isnan(samples.rtt_ms[1]) and samples.error[1] == "timeout"
    assert store.samples_frame(since_us=T0 + 2_000_000).seq.tolist() == [2, 3]


def test_labels_are_the_rounds_own_and_never_rewritten(store: Store) -> None:
    labelled = Target(Method.ICMP, host="198.18.0.9", provider="acme", region="la")
    save_round(store, [synthetic_result(labelled, T0, [1.0])], started_us=T0, finished_us=T0, source="t")
    bare = Target(Method.ICMP, host="198.18.0.9")
    save_round(store, [synthetic_result(bare, T0 + 10, [1.0])], started_us=T0, finished_us=T0, source="t")
    first, second = sorted(store.series(), key=lambda s: s.id)
    assert (first.provider, first.region) == ("acme", "la") and (second.provider, second.region) == (
        None,
        None,
    )
    assert first.key == second.key and first.vantage == second.vantage == THIS_MACHINE
    assert store.series(provider="acme") == [first] and store.series(provider="other") == []


def test_hourly_rollups_match_the_raw_samples(store: Store) -> None:
    rng = np.random.default_rng(3)
    target = Target(Method.ICMP, host="198.18.0.10")
    results = []
    for k in range(30):  # 30 rounds of 20 echoes spread over ~5 hours, with 5% loss
        rtts = [None if rng.random() < 0.05 else float(rng.normal(160, 8)) for _ in range(20)]
        results.append(synthetic_result(target, T0 + k * 600_000_000, rtts, spacing_us=30_000_000))
    for r in results:
        save_round(store, [r], started_us=r.started_at_us, finished_us=r.finished_at_us, source="t")
    hourly = store.hourly_frame()
    samples = store.samples_frame()
    samples["hour_s"] = samples.ts_us // 1_000_000 // 3600 * 3600
    for row in hourly.itertuples():
        raw = samples[samples.hour_s == row.hour_s]
        got = raw.rtt_ms.dropna()
        assert row.sent == len(raw) and row.received == len(got)
        assert row.rtt_sum_ms == pytest.approx(got.sum())
        assert row.rtt_min_ms == pytest.approx(got.min()) and row.rtt_max_ms == pytest.approx(got.max())
        dense = histogram.decode(row.hist_index, row.hist_count)
        assert dense.sum() == len(got)
        exact = float(np.percentile(got, 95))
        assert histogram.quantile(dense, 0.95) == pytest.approx(exact, rel=histogram.RELATIVE_ERROR + 0.01)
    # jitter pairs: within each result, consecutive received RTTs
    total_pairs = sum(summarize([s.rtt_ms for s in r.samples]).received - 1 for r in results)
    assert hourly.jitter_pairs.sum() == total_pairs
    before = hourly.drop(columns=["hist_index", "hist_count"])
    assert store.rebuild_rollups() == len(hourly) + len(store.rollup_frame(900))
    after = store.hourly_frame().drop(columns=["hist_index", "hist_count"])
    assert np.allclose(before.to_numpy(dtype=float), after.to_numpy(dtype=float), equal_nan=True)


def test_a_window_finds_every_sample_sent_in_it_through_the_runs(store: Store) -> None:
    """Samples are found through their runs (results), which may start long before a sample (a run of one
    attempt every ten minutes for three hours) or even after it (the wall clock stepped back between the
    first attempt and the run's start): every window and target choice returns exactly the samples sent
    in it, as filtering all of them does, and the per-target counts agree."""
    a, b, c = (Target(Method.ICMP, host=f"198.18.0.{n}") for n in (21, 22, 23))
    long_run = synthetic_result(a, T0, [150.0 + i for i in range(19)], spacing_us=600_000_000)
    stepped_samples = (
        Sample(0, T0 + HOUR_US, 160.0),
        Sample(1, T0 + HOUR_US + 1_000_000, None, ErrorKind.TIMEOUT),
    )
    stepped = ProbeResult(b, T0 + HOUR_US + 5_000_000, T0 + HOUR_US + 6_000_000, samples=stepped_samples)
    save_round(store, [long_run, stepped], started_us=T0, finished_us=T0 + 3 * HOUR_US, source="test")
    for hour in range(4):
        short = synthetic_result(c, T0 + hour * HOUR_US + 30_000_000, [140.0, 141.0, None])
        save_round(
            store, [short], started_us=short.started_at_us, finished_us=short.finished_at_us, source="test"
        )
    everything = store.samples_frame()
    assert len(everything) == 19 + 2 + 4 * 3
    _every_window_is_exact(store, everything)
    # A store whose facts did not come along (its rows copied in from elsewhere) has no reach: its readers
    # look at every run, and writing a round does not make one up.
    store.backend.connection.execute("DELETE FROM store_facts")  # type: ignore[attr-defined]
    later = synthetic_result(c, T0 + 5 * HOUR_US, [139.0])
    save_round(
        store, [later], started_us=later.started_at_us, finished_us=later.finished_at_us, source="test"
    )
    assert store.backend.connection.execute("SELECT count(*) FROM store_facts").fetchone()[0] == 0  # type: ignore[attr-defined]
    _every_window_is_exact(store, store.samples_frame())


def _every_window_is_exact(store: Store, everything: pd.DataFrame) -> None:
    ids = {t.host: t.id for t in store.series()}
    windows = [
        (T0 + 2 * HOUR_US, T0 + 2 * HOUR_US + 30 * 60_000_000),  # the long run's middle only
        (T0 + HOUR_US, T0 + HOUR_US + 1),  # the stepped run's first sample, before its run started
        (T0 + HOUR_US - 1, T0 + HOUR_US + 2_000_000),
        (T0 + 3 * HOUR_US, T0 + 4 * HOUR_US),
        (None, T0 + HOUR_US),
        (T0 + 150 * 60_000_000, None),
        (None, None),
    ]
    for since, until in windows:
        inside = everything[
            (everything.ts_us >= (since if since is not None else -(2**62)))
            & (everything.ts_us < (until if until is not None else 2**62))
        ]
        for chosen in (None, [ids["198.18.0.21"]], [ids["198.18.0.22"], ids["198.18.0.23"]]):
            expected = inside if chosen is None else inside[inside.series_id.isin(chosen)]
            got = store.samples_frame(chosen, since, until)
            assert _records(got) == _records(expected), (since, until, chosen)
        counts = {
            h.series.id: (h.samples, h.replies)
            for h in store.series_histories(since_us=since, until_us=until)
        }
        for series_id, group in inside.groupby("series_id"):
            if series_id in counts:  # series_histories lists the targets with a result started in the window
                assert counts[series_id] == (len(group), int(group.rtt_ms.notna().sum()))
    assert store.samples_frame(None, T0 + 2 * HOUR_US, T0 + 2 * HOUR_US + 30 * 60_000_000).seq.tolist() == [
        12,
        0,
        1,
        2,
        13,
        14,
    ]
    assert store.samples_frame([ids["198.18.0.22"]], T0 + HOUR_US, T0 + HOUR_US + 1).seq.tolist() == [0]


def _records(frame: pd.DataFrame) -> list[tuple[object, ...]]:
    """A frame's rows as tuples, a missing value (NaN or None) as None."""
    return [tuple(None if pd.isna(v) else v for v in row) for row in frame.itertuples(index=False)]


def test_store_uses_wal_and_reports_its_version(store: Store) -> None:
    with closing(sqlite3.connect(store.path)) as db:
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert store.schema_version == SCHEMA_VERSION


def test_a_newer_store_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaVersionError, match="newer linkvet"):
        Store(path)


def test_an_older_store_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE unrelated (x)")  # schema version 0
    with Store(path) as s:
        assert s.schema_version == SCHEMA_VERSION
        assert s.counts()["rounds"] == 0


def test_garbage_and_missing_files_are_clear_errors(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(os.urandom(4096))
    with pytest.raises(StoreError, match=r"garbage\.sqlite3"):
        Store(garbage)
    with pytest.raises(StoreError, match="no result store here yet"):
        Store(tmp_path / "absent.sqlite3", readonly=True)


def test_a_reader_sees_whole_rounds_while_a_writer_writes(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    target = Target(Method.ICMP, host="198.18.0.11")
    with Store(path) as writer, Store(path, readonly=True) as reader:
        for k in range(20):
            r = synthetic_result(target, T0 + k * HOUR_US, [1.0] * 50)
            save_round(writer, [r], started_us=r.started_at_us, finished_us=r.finished_at_us, source="t")
            counts = reader.counts()
            assert counts["samples"] == 50 * counts["results"]


WRITER = """
import sys, time
from probes.store import Store
from tests.rounds import save_round
from probes.results import ProbeResult, Sample
from probes.target import Method, Target
store = Store(sys.argv[1])
targets = [Target(Method.ICMP, host=f"198.18.1.{i}") for i in range(1, 21)]
k = 0
while True:
    now = time.time_ns() // 1000
    results = [ProbeResult(t, now, now, samples=tuple(Sample(j, now + j, 1.0 + j) for j in range(200))) for t in targets]
    save_round(store, results, started_us=now, finished_us=now, source="t")
    k += 1
    print(k, flush=True)
"""


@pytest.mark.parametrize("delay_s", [0.3, 0.77, 1.31])
def test_sigkill_mid_write_loses_at_most_the_round_in_flight(tmp_path: Path, delay_s: float) -> None:
    path = tmp_path / "s.sqlite3"
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    ) as writer:
        assert writer.stdout is not None
        writer.stdout.readline()  # at least one round is committed
        time.sleep(delay_s)
        writer.send_signal(signal.SIGKILL)
        committed_lines = writer.stdout.read().split()
    assert writer.returncode == -signal.SIGKILL
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with Store(path) as s:
        counts = s.counts()
    # every stored round is whole: 20 results of 200 samples each
    assert counts["results"] == 20 * counts["rounds"] and counts["samples"] == 200 * counts["results"]
    # and every round the writer reported committed is there (it may have committed one more unreported)
    assert counts["rounds"] >= 1 + len(committed_lines)


def test_rollups_of_a_round_with_many_targets_match_a_direct_computation(store: Store) -> None:
    rng = np.random.default_rng(11)
    targets = [Target(Method.ICMP, host=f"198.18.0.{i}") for i in range(20, 26)]
    for k in range(4):  # rounds straddling an hour boundary
        start = T0 + HOUR_US - 40_000_000 + k * 25_000_000
        results = [
            synthetic_result(
                t,
                start,
                [None if rng.random() < 0.2 else float(rng.normal(100 + 10 * j, 5)) for _ in range(10)],
                spacing_us=3_000_000,
            )
            for j, t in enumerate(targets)
        ]
        save_round(store, results, started_us=start, finished_us=start + 30_000_000, source="t")
    samples = store.samples_frame()
    samples["hour_s"] = samples.ts_us // 1_000_000 // 3600 * 3600
    expected = {}
    for (series_id, hour_s), group in samples.groupby(["series_id", "hour_s"]):
        expected[(series_id, hour_s)] = [len(group), int(group.rtt_ms.notna().sum()), 0.0, 0]
    for _result_id, run in samples.sort_values(["result_id", "seq"]).groupby("result_id"):
        got = run.dropna(subset=["rtt_ms"])
        for (_, a), (_, b) in zip(got.iterrows(), got.iloc[1:].iterrows(), strict=False):
            entry = expected[(int(b.series_id), int(b.hour_s))]
            entry[2] += abs(b.rtt_ms - a.rtt_ms)
            entry[3] += 1
    hourly = store.hourly_frame()
    assert len(hourly) == len(expected) == 12  # 6 targets × 2 hours
    for row in hourly.itertuples():
        sent, received, jitter_sum, pairs = expected[(row.series_id, row.hour_s)]
        assert (row.sent, row.received, row.jitter_pairs) == (sent, received, pairs)
        assert row.jitter_sum_ms == pytest.approx(jitter_sum)


def test_a_reader_upgrades_an_older_store_first(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    shutil.copyfile(FIXTURES / "store-v2.sqlite3", path)  # written by the schema-2 store
    columns = "result_id, ts_us, seq, rtt_ms, error"
    with closing(sqlite3.connect(path)) as db:
        before = db.execute(f"SELECT {columns} FROM samples ORDER BY result_id, seq").fetchall()
        reach = db.execute(
            "SELECT max(abs(s.ts_us - r.started_us)) FROM samples s JOIN results r ON r.id = s.result_id"
        ).fetchone()[0]
    with Store(path, readonly=True) as reader:
        assert reader.schema_version == SCHEMA_VERSION
        frame = reader.samples_frame()
    with closing(sqlite3.connect(path)) as db:
        # Every sample of the runs kept (schema 5 removed the double rounds' runs) is kept, now in run order
        # (schema 8) and keyed by its position in its run (schema 12: 0, 1, … in attempt order), and the store
        # knows how far they lie from their runs.
        kept = {row[0] for row in db.execute("SELECT id FROM results")}
        before = [row for row in before if row[0] in kept]
        assert db.execute(f"SELECT {columns} FROM samples ORDER BY result_id, pos").fetchall() == before
        assert len(before) > 800
        positions: dict[int, list[int]] = {}
        for result_id, pos in db.execute("SELECT result_id, pos FROM samples ORDER BY result_id, pos"):
            positions.setdefault(result_id, []).append(pos)
        assert all(found == list(range(len(found))) for found in positions.values())
        # Each sample is its run's series' (schema 9: one series per target and vantage point).
        assert not db.execute(
            "SELECT count(*) FROM samples s JOIN results r ON r.id = s.result_id WHERE s.series_id <> r.series_id"
        ).fetchone()[0]
        assert db.execute("SELECT value FROM store_facts WHERE name = 'sample_reach_us'").fetchone() == (
            reach,
        )
    assert sorted(zip(frame.result_id, frame.seq, strict=True)) == sorted((r[0], r[2]) for r in before)


def test_attempts_this_machine_could_not_send_are_kept_but_not_counted_as_loss(store: Store) -> None:
    """A sample with `send_failed` is stored (with its error) but is neither sent nor lost: the result's
    summary, the rollups of every length (written with the round, and rebuilt from the raw samples), the
    raw-sample cells of the analysis and the target's history all leave it out."""
    target = Target(Method.ICMP, host="198.18.0.11")
    samples = (
        Sample(0, T0, 150.0),
        Sample(1, T0 + 1_000_000, None, ErrorKind.SEND_FAILED),
        Sample(2, T0 + 2_000_000, None, ErrorKind.TIMEOUT),
        Sample(3, T0 + 3_000_000, 151.0),
    )
    result = ProbeResult(target, T0, T0 + 4_000_000, samples=samples)
    assert (result.sent, result.received, result.loss) == (3, 2, pytest.approx(1 / 3))
    save_round(store, [result], started_us=T0, finished_us=T0 + 4_000_000, source="test")
    assert store.samples_frame().error.tolist()[1:3] == ["send_failed", "timeout"]
    row = store.results_frame().iloc[0]
    assert (row.sent, row.received) == (3, 2)
    written = {
        period: store.rollup_frame(period)[["sent", "received"]].values.tolist() for period in PERIODS_S
    }
    assert written == {period: [[3, 2]] for period in PERIODS_S}
    store.rebuild_rollups()
    assert {p: store.rollup_frame(p)[["sent", "received"]].values.tolist() for p in PERIODS_S} == written
    raw = cells_from_samples(store.samples_frame(), []).frame
    assert raw[["sent", "received"]].values.tolist() == [[3, 2]]
    (history,) = store.series_histories()
    assert (history.samples, history.replies) == (3, 2)
