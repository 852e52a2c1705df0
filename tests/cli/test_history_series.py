"""`linkvet history` shows each round under the name, labels and vantage point it was measured with: a one-off
`linkvet probe` of a plan's host never renames the plan's target, rounds that named no vantage point are
"this machine", an ICMP entry never shows a port, and `--method responsiveness` lists responsiveness rows.
Through the real command, with real `linkvet probe` runs against a loopback listener."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from probes.results import ProbeResult, Sample
from probes.store import Store
from probes.target import Method, Target
from tests.rounds import save_round


def _scheduled(db: Path, target: Target, vantage: str, when: datetime) -> None:
    """One round of a plan's target, stored as the scheduler stores it."""
    start = int(when.timestamp() * 1_000_000)
    samples = tuple(Sample(i, start + i * 1_000_000, 150.0 + i) for i in range(3))
    with Store(db) as store:
        save_round(
            store,
            [ProbeResult(target, start, start + 3_000_000, samples)],
            started_us=start,
            finished_us=start + 3_000_000,
            source="schedule",
            plan="office",
            vantage=vantage,
            slot_us=start,
        )


def _json(run_linkvet, *args: str) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    out = run_linkvet("history", *args, "--json")
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_a_one_off_probe_of_a_plans_host_never_renames_the_plans_target(
    run_linkvet, tmp_path: Path, listener: int
) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.sqlite3"
    planned = Target(
        Method.TCP,
        host="127.0.0.1",
        port=listener,
        name="la-ssh",
        provider="raksmart",
        region="los-angeles",
        line_type="cn2-gia",
    )
    _scheduled(db, planned, "beijing", datetime.now(UTC) - timedelta(hours=2))
    done = run_linkvet("probe", f"127.0.0.1:{listener}", "-c", "3", "-i", "0.05", "--db", str(db))
    assert done.returncode == 0, done.stderr
    _scheduled(db, planned, "beijing", datetime.now(UTC) - timedelta(minutes=1))
    # The plan's target keeps its name and labels, round after round, the probe in between notwithstanding.
    rounds = _json(run_linkvet, "la-ssh", "--db", str(db))
    assert [(r["target"], r["provider"], r["region"], r["vantage"]) for r in rounds] == [
        ("la-ssh", "raksmart", "los-angeles", "beijing")
    ] * 2
    # What was measured (the store key) finds both, each round under its own name, labels and vantage point.
    both = _json(run_linkvet, f"tcp:127.0.0.1:{listener}", "--db", str(db))
    assert sorted((r["target"], r["provider"], r["vantage"]) for r in both) == [
        (f"127.0.0.1:{listener}", None, "this-machine"),
        ("la-ssh", "raksmart", "beijing"),
        ("la-ssh", "raksmart", "beijing"),
    ]
    listed = {(r["target"], r["vantage"]): r for r in _json(run_linkvet, "--db", str(db))}
    assert set(listed) == {("la-ssh", "beijing"), (f"127.0.0.1:{listener}", "this-machine")}
    assert (
        listed[("la-ssh", "beijing")]["rounds"] == 2
        and listed[("la-ssh", "beijing")]["line_type"] == "cn2-gia"
    )
    table = run_linkvet("history", "--db", str(db)).stdout.splitlines()
    plan_row = next(line for line in table if line.startswith("la-ssh"))
    probe_row = next(line for line in table if line.startswith(f"127.0.0.1:{listener}"))
    assert plan_row.split()[3] == "beijing" and probe_row.split()[3:5] == ["this", "machine"]
    assert not any(" - " in f" {line} " for line in table[1:-1])  # no vantage point shown as "-"


def test_an_icmp_entry_shows_no_port_and_responsiveness_rows_are_listed(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.sqlite3"
    now = datetime.now(UTC) - timedelta(minutes=5)
    _scheduled(db, Target(Method.ICMP, host="198.18.1.1", port=8080, name="la-ping"), "beijing", now)
    load = Target(Method.RESPONSIVENESS, url="http://198.18.1.1/large.bin", name="la-load")
    _scheduled(db, load, "beijing", now + timedelta(seconds=30))
    row = next(
        line for line in run_linkvet("history", "--db", str(db)).stdout.splitlines() if "la-ping" in line
    )
    assert row.split()[2] == "198.18.1.1" and "8080" not in row
    assert [r["target"] for r in _json(run_linkvet, "--db", str(db), "--method", "responsiveness")] == [
        "la-load"
    ]
    (test,) = _json(run_linkvet, "la-load", "--db", str(db), "--method", "responsiveness")
    assert test["method"] == "responsiveness" and test["vantage"] == "beijing"
