"""§3 for an evaluation: its evidence table and its ranking read each round under the labels and the vantage
point it was measured with. A one-off `linkvet probe` of a candidate's address (no labels), and a round of the
same address labelled as another region, add nothing to the candidate's line and take nothing from it; the
candidate's own rounds keep counting before and after them. Real `linkvet probe` runs against a loopback
listener, the candidate's rounds stored as the scheduler stores them, a real SQLite store."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from catalogs.needs import EXAMPLE_NEEDS
from probes.results import ProbeResult, Sample
from probes.store import Store
from probes.target import Method, Target
from tests.rounds import save_round

OFFICE = "shanghai"
Linkvet = Callable[..., subprocess.CompletedProcess[str]]


def _scheduled(db: Path, target: Target, when: datetime, rtt_ms: float) -> None:
    """One round of the evaluation's plan (five samples), stored as `schedule --eval --vantage` stores it."""
    start = int(when.timestamp() * 1_000_000)
    samples = tuple(Sample(i, start + i * 1_000_000, rtt_ms + 0.1 * i) for i in range(5))
    with Store(db) as store:
        save_round(
            store,
            [ProbeResult(target, start, start + 5_000_000, samples)],
            started_us=start,
            finished_us=start + 5_000_000,
            source="schedule",
            plan="q1",
            vantage=OFFICE,
            slot_us=start,
        )


def _json(run_linkvet: Linkvet, *args: str) -> Any:
    done = run_linkvet(*args, "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)


def _line(run_linkvet: Linkvet, db: Path) -> dict[str, Any]:
    (candidate,) = _json(run_linkvet, "eval", "show", "q1", "--db", str(db))["candidates"]
    line: dict[str, Any] = candidate["evidence"]["line"]["offices"][OFFICE]
    return line


def _line_judgement(run_linkvet: Linkvet, db: Path) -> dict[str, Any]:
    (ranking,) = _json(run_linkvet, "score", "--eval", "q1", "--db", str(db))["rankings"]
    (entry,) = ranking["entries"]
    (judgement,) = [j for j in entry["judgements"] if j["criterion"] == "line_quality"]
    return dict(judgement)


def test_one_off_probes_and_other_labels_on_a_candidates_address_change_nothing_of_its_line(
    run_linkvet: Linkvet, tmp_path: Path, listener: int
) -> None:
    db = tmp_path / "team.sqlite3"
    for args in (
        ("eval", "new", "q1", "--needs", str(EXAMPLE_NEEDS), "--office", OFFICE),
        (
            "eval",
            "add",
            "q1",
            "--provider",
            "lambda",
            "--region",
            "us-west-1",
            "--offering",
            "gpu_8x_h100_sxm5",
            "--test-ip",
            "127.0.0.1",
        ),
    ):
        done = run_linkvet(*args, "--db", str(db))
        assert done.returncode == 0, done.stderr
    # The plan's TCP fallback of the candidate's address, as the scheduler labels it.
    planned = Target(
        Method.TCP,
        host="127.0.0.1",
        port=listener,
        name="lambda/us-west-1 127.0.0.1",
        provider="lambda",
        region="us-west-1",
        line_type="cn2-gia",
    )
    now = datetime.now(UTC).replace(hour=3, minute=0, second=0, microsecond=0)  # off-peak in Shanghai
    if now > datetime.now(UTC):
        now -= timedelta(days=1)
    _scheduled(db, planned, now - timedelta(hours=2), 150.0)
    _scheduled(db, planned, now - timedelta(hours=1), 150.0)
    before = _line(run_linkvet, db)
    judged = _line_judgement(run_linkvet, db)
    assert before["offpeak_samples"] == 10 and abs(before["offpeak_rtt_median_ms"] - 150.0) < 2, before
    assert judged["score"] is not None

    # From the same office: a one-off probe of the address (no labels), then one labelled as another region.
    address = f"127.0.0.1:{listener}"
    for labels in ((), ("--provider", "lambda", "--region", "us-east-1", "--line-type", "bgp")):
        done = run_linkvet(
            "probe", address, "-c", "5", "-i", "0.05", "--vantage", OFFICE, *labels, "--db", str(db)
        )
        assert done.returncode == 0, done.stderr
    listed = run_linkvet("history", "--json", "--db", str(db))
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert {(r["target"], r["provider"], r["region"]) for r in rows} == {
        ("lambda/us-west-1 127.0.0.1", "lambda", "us-west-1"),
        (address, None, None),
        (address, "lambda", "us-east-1"),
    }, rows
    assert _line(run_linkvet, db) == before
    assert _line_judgement(run_linkvet, db) == judged

    # The candidate's next round lands in its own line as before: the other rounds renamed nothing.
    _scheduled(db, planned, now, 150.0)
    after = _line(run_linkvet, db)
    assert after["offpeak_samples"] == 15 and abs(after["offpeak_rtt_median_ms"] - 150.0) < 2, after
