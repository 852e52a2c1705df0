"""`linkvet history` without a target: what the store holds, one line (or JSON object) per target, through
the real command on a store written by real `linkvet probe` runs against loopback (plus one stored round
with losses, written through the store as the scheduler writes it)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from probes.results import ProbeResult, Sample
from probes.store import Store
from probes.target import Method, Target
from tests.rounds import save_round


def save_lossy_round(db: Path, when: datetime) -> None:
    """Four attempts to a labelled target, one lost, stored as one round."""
    target = Target(
        Method.ICMP,
        host="198.18.40.1",
        name="sj-cn2",
        provider="raksmart",
        region="san-jose",
        line_type="cn2-gia",
    )
    start_us = int(when.timestamp() * 1_000_000)
    samples = tuple(Sample(i, start_us + i * 1_000_000, None if i == 2 else 150.0 + i) for i in range(4))
    with Store(db) as store:
        result = ProbeResult(target, start_us, start_us + 4_000_000, samples)
        save_round(store, [result], started_us=start_us, finished_us=start_us + 4_000_000, source="test")


@pytest.fixture
def store_with_history(run_linkvet, tmp_path: Path, listener: int) -> Path:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.sqlite3"
    for _ in range(2):  # two rounds of the same target
        done = run_linkvet("probe", f"127.0.0.1:{listener}", "-c", "3", "-i", "0.05", "--db", str(db))
        assert done.returncode == 0, done.stderr
    save_lossy_round(db, datetime.now(UTC) - timedelta(days=10))
    return db


def test_the_list_names_every_stored_target_with_its_span_rounds_and_samples(
    run_linkvet, store_with_history: Path, listener: int
) -> None:  # type: ignore[no-untyped-def]
    db = store_with_history
    out = run_linkvet("history", "--db", str(db))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:6] == ["TARGET", "METHOD", "ADDRESS", "VANTAGE", "FIRST", "(UTC)"]
    with Store(db, readonly=True) as store:
        frame = store.results_frame()
    tcp = frame[frame["method"] == "tcp"]
    first = datetime.fromtimestamp(tcp["started_us"].min() / 1e6, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    last = datetime.fromtimestamp(tcp["started_us"].max() / 1e6, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    row = next(line for line in lines if line.startswith(f"127.0.0.1:{listener}"))
    # Rounds that named no vantage point were measured from this machine.
    assert row.split()[1:10] == [
        "tcp",
        f"127.0.0.1:{listener}",
        "this",
        "machine",
        first,
        last,
        "2",
        "6",
        "0.0%",
    ]
    lossy = next(line for line in lines if line.startswith("sj-cn2"))
    assert lossy.split()[1:] == [
        "icmp",
        "198.18.40.1",
        "this",
        "machine",
        *lossy.split()[5:7],
        "1",
        "4",
        "25.0%",
        "cn2-gia",
        "raksmart",
        "/",
        "san-jose",
    ]
    assert lines[-1].startswith(f"2 series in {db}")


def test_the_json_list_is_the_same_as_objects(run_linkvet, store_with_history: Path, listener: int) -> None:  # type: ignore[no-untyped-def]
    out = run_linkvet("history", "--db", str(store_with_history), "--json")
    assert out.returncode == 0, out.stderr
    records = {r["target"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert set(records) == {f"127.0.0.1:{listener}", "sj-cn2"}
    tcp = records[f"127.0.0.1:{listener}"]
    assert tcp["method"] == "tcp" and tcp["port"] == listener and tcp["key"] == f"tcp:127.0.0.1:{listener}"
    assert tcp["rounds"] == 2 and tcp["samples"] == 6 and tcp["replies"] == 6 and tcp["loss"] == 0.0
    first, last = (datetime.fromisoformat(tcp[k].replace("Z", "+00:00")) for k in ("first_at", "last_at"))
    assert first.tzinfo is not None and first < last < datetime.now(UTC)
    lossy = records["sj-cn2"]
    assert (lossy["rounds"], lossy["samples"], lossy["replies"], lossy["loss"]) == (1, 4, 3, 0.25)
    assert (lossy["provider"], lossy["region"], lossy["line_type"]) == ("raksmart", "san-jose", "cn2-gia")
    assert lossy["vantage"] == tcp["vantage"] == "this-machine"  # JSON keeps the id
    assert lossy["first_at"] == lossy["last_at"]


def test_the_list_takes_the_period_method_and_limit(
    run_linkvet, store_with_history: Path, listener: int
) -> None:  # type: ignore[no-untyped-def]
    db = str(store_with_history)

    def names(*args: str) -> list[str]:
        out = run_linkvet("history", "--db", db, "--json", *args)
        assert out.returncode == 0, out.stderr
        return [json.loads(line)["target"] for line in out.stdout.splitlines()]

    tcp = f"127.0.0.1:{listener}"
    assert names("--since", "7d") == [tcp]  # the lossy round was 10 days ago
    assert names("--until", "7d") == ["sj-cn2"]
    assert names("--method", "icmp") == ["sj-cn2"]
    assert names("--limit", "1") == [tcp]  # the most recently measured
    empty = run_linkvet("history", "--db", db, "--method", "download")
    assert empty.returncode == 0 and "no measurements in" in empty.stdout


def test_an_empty_or_missing_store(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "empty.sqlite3"
    Store(db).close()
    out = run_linkvet("history", "--db", str(db))
    assert out.returncode == 0 and out.stdout.startswith(f"no measurements in {db}")
    assert run_linkvet("history", "--db", str(db), "--json").stdout == ""
    missing = run_linkvet("history", "--db", str(tmp_path / "none.sqlite3"))
    assert missing.returncode == 3 and "no result store here yet" in missing.stderr
    assert "Traceback" not in missing.stderr
