"""`linkvet eval` end to end in subprocesses, on a real SQLite store: an evaluation made, a vendor created
from the command line, candidates added and taken out (no measurement deleted), exported and imported, its
plan, one measured round from `schedule --eval`, its evidence table (text and JSON) and its ranking of
exactly its candidates; bad input refused with what was expected."""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from catalogs.needs import EXAMPLE_NEEDS


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "team.sqlite3")


def _ok(done) -> str:  # type: ignore[no-untyped-def]
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return str(done.stdout)


def test_an_evaluation_from_new_to_ranking(run_linkvet, db: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = _ok(
        run_linkvet("eval", "new", "q1", "--needs", str(EXAMPLE_NEEDS), "--office", "shanghai:ct", "--db", db)
    )
    assert "evaluation q1 started: office shanghai:ct" in out
    _ok(
        run_linkvet(
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
            "127.0.0.21",
            "--db",
            db,
        )
    )
    # A vendor the catalogs do not have: created with its id and name only, nothing else claimed.
    created = _ok(
        run_linkvet(
            "eval",
            "add",
            "q1",
            "--provider",
            "vendorb",
            "--region",
            "sha-1",
            "--provider-name",
            "Vendor B",
            "--test-ip",
            "127.0.0.22",
            "--db",
            db,
        )
    )
    user = Path(os.environ.get("LINKVET_CATALOG_DIR", ""))
    overlay = user / "vendorb.overlay.toml"
    assert "created provider vendorb" in created and "created region vendorb/sha-1" in created
    assert overlay.is_file() and 'value = "Vendor B"' in overlay.read_text(encoding="utf-8")
    assert 'source = "added by the user"' in overlay.read_text(encoding="utf-8")
    listed = json.loads(_ok(run_linkvet("eval", "list", "--json", "--db", db)))
    assert listed == [{"name": "q1", "candidates": 2, "offices": ["shanghai"]}]

    plan = _ok(run_linkvet("eval", "plan", "q1", "--office", "shanghai", "--db", db))
    assert 'vantage = "shanghai"' in plan and 'provider = "vendorb"' in plan and 'host = "127.0.0.22"' in plan
    assert (
        'peak_windows = [\n        "20:00-23:00 Asia/Shanghai",' in plan
        or "20:00-23:00 Asia/Shanghai" in plan
    )

    measured = run_linkvet(
        "schedule", "--eval", "q1", "--vantage", "shanghai", "--once", "--quiet", "--db", db
    )
    assert measured.returncode in (0, 1), measured.stderr
    shown = json.loads(_ok(run_linkvet("eval", "show", "q1", "--json", "--db", db)))
    assert [c["label"] for c in shown["candidates"]] == ["lambda/us-west-1/gpu_8x_h100_sxm5", "vendorb/sha-1"]
    lambda_line = shown["candidates"][0]["evidence"]["line"]
    assert lambda_line["state"] == "partial"  # measured off-peak: the peak evenings still to come
    assert (
        lambda_line["offices"]["shanghai"]["offpeak_samples"]
        + lambda_line["offices"]["shanghai"]["peak_samples"]
        == 10
    )
    assert shown["candidates"][1]["evidence"]["price"]["state"] == "missing"
    assert all(
        set(c["evidence"])
        == {"line", "load", "throughput", "route_out", "route_back", "questionnaire", "acceptance", "price"}
        for c in shown["candidates"]
    )
    assert any(
        step.startswith("linkvet questionnaire export --provider vendorb")
        for step in shown["candidates"][1]["next"]
    )

    ranked = json.loads(_ok(run_linkvet("score", "--eval", "q1", "--json", "--db", db)))
    (ranking,) = ranked["rankings"]
    assert ranking["office"] == "worst" and {e["provider"] for e in ranking["entries"]} == {"lambda"}
    market = json.loads(_ok(run_linkvet("score", "--eval", "q1", "--market", "--json", "--db", db)))
    alone = next(e for e in ranking["entries"] if e["offering"] == "gpu_8x_h100_sxm5")
    beside = next(
        e
        for e in market["rankings"][0]["entries"]
        if e["offering"] == "gpu_8x_h100_sxm5" and e["region"] == "us-west-1"
    )
    assert (alone["total"], alone["score_min"], alone["score_max"]) == (
        beside["total"],
        beside["score_min"],
        beside["score_max"],
    )

    # Taken out: the evaluation forgets it, the store keeps what was measured.
    _ok(run_linkvet("eval", "remove", "q1", "--candidate", "vendorb/sha-1", "--db", db))
    with closing(sqlite3.connect(db)) as conn:
        rounds_before = conn.execute("SELECT count(*) FROM rounds").fetchone()[0]
    exported = tmp_path / "q1.toml"
    _ok(run_linkvet("eval", "export", "q1", "--out", str(exported), "--db", db))
    _ok(run_linkvet("eval", "remove", "q1", "--db", db))
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT count(*) FROM rounds").fetchone()[0] == rounds_before >= 1
    imported = _ok(run_linkvet("eval", "import", str(exported), "--db", db))
    assert "evaluation q1 read from" in imported and "1 candidate" in imported


def test_one_round_at_peak_counts_the_evenings_the_plan_will_measure(run_linkvet, db: str) -> None:  # type: ignore[no-untyped-def]
    """One round at peak is 10 samples, not an evening's worth: the evenings still needed are counted at the
    plan's peak cadence (a round a minute through the window), so the week of evenings decides (6 more),
    never 1000 samples / 10 a round (99 more), in `eval show` and `score --eval` alike."""
    _ok(
        run_linkvet(
            "eval", "new", "q2", "--needs", str(EXAMPLE_NEEDS), "--peak", "00:00-23:59 UTC", "--db", db
        )
    )
    _ok(
        run_linkvet(
            "eval",
            "add",
            "q2",
            "--provider",
            "lambda",
            "--region",
            "us-west-1",
            "--offering",
            "gpu_8x_h100_sxm5",
            "--test-ip",
            "127.0.0.23",
            "--db",
            db,
        )
    )
    measured = run_linkvet("schedule", "--eval", "q2", "--once", "--quiet", "--db", db)
    assert measured.returncode in (0, 1), measured.stderr
    shown = json.loads(_ok(run_linkvet("eval", "show", "q2", "--json", "--db", db)))
    (line,) = shown["candidates"][0]["evidence"]["line"]["offices"].values()
    if line["peak_samples"] == 0:  # the round straddled 23:59-00:00 UTC, outside the window
        pytest.skip("the round fell in the one minute of the day outside the peak window")
    assert line["peak_samples"] == 10 and line["peak_evenings"] == 1
    assert line["evenings_to_settle"] == 6
    ranked = json.loads(_ok(run_linkvet("score", "--eval", "q2", "--json", "--db", db)))
    (entry,) = ranked["rankings"][0]["entries"]
    assert entry["peak_evenings"] == 1 and entry["peak_evenings_needed"] == 6


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--provider", "raksmrt", "--region", "san-jose", "--offering", "x"), "nearest: raksmart"),
        (("--provider", "lambda", "--region", "us-west-1", "--offering", "gpu_8x_h100"), "gpu_8x_h100_sxm5"),
        (
            ("--provider", "lambda", "--region", "us-west-1", "--test-ip", "javascript:alert(1)"),
            "an http(s) URL",
        ),
        (
            ("--provider", "lambda", "--region", "us-west-1", "--test-ip", "file:///etc/passwd"),
            "an http(s) URL",
        ),
        (
            ("--provider", "lambda", "--region", "us-west-1", "--test-ip", "http://x.example/\r\nHost: y"),
            "U+000D",
        ),
        (("--provider", "Lambda Labs", "--region", "us-west-1"), "expected lower-case letters"),
    ],
)
def test_bad_candidates_are_refused_with_what_was_expected(
    run_linkvet, db: str, args: tuple[str, ...], words: str
) -> None:  # type: ignore[no-untyped-def]
    _ok(run_linkvet("eval", "new", "q1", "--needs", str(EXAMPLE_NEEDS), "--db", db))
    done = run_linkvet("eval", "add", "q1", *args, "--db", db)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert json.loads(_ok(run_linkvet("eval", "list", "--json", "--db", db)))[0]["candidates"] == 0


def test_the_same_candidate_or_endpoint_twice_and_bad_names_are_refused(run_linkvet, db: str) -> None:  # type: ignore[no-untyped-def]
    for name in ("Q1 GPU", "../etc", "a" * 80, ""):
        done = run_linkvet("eval", "new", name, "--needs", str(EXAMPLE_NEEDS), "--db", db)
        assert done.returncode == 2 and "expected lower-case letters" in done.stderr, (name, done.stderr)
    _ok(run_linkvet("eval", "new", "q1", "--needs", str(EXAMPLE_NEEDS), "--db", db))
    again = run_linkvet("eval", "new", "q1", "--needs", str(EXAMPLE_NEEDS), "--db", db)
    assert again.returncode == 2 and "has an evaluation 'q1' already" in again.stderr
    add = ("eval", "add", "q1", "--provider", "lambda", "--region", "us-west-1", "--db", db)
    _ok(run_linkvet(*add, "--test-ip", "127.0.0.31"))
    twice = run_linkvet(*add)
    assert twice.returncode == 2 and "lambda/us-west-1 is a candidate of q1 already" in twice.stderr
    # The same candidate with a test endpoint it does not have yet: the endpoint is added, no second candidate.
    more = _ok(run_linkvet(*add, "--test-ip", "127.0.0.31", "--test-ip", "http://127.0.0.31/large.bin"))
    assert "1 test endpoint added to lambda/us-west-1 of q1: http://127.0.0.31/large.bin" in more
    (candidate,) = json.loads(_ok(run_linkvet("eval", "show", "q1", "--json", "--db", db)))["candidates"]
    assert candidate["endpoints"] == ["127.0.0.31", "http://127.0.0.31/large.bin"]
    shared = run_linkvet(
        "eval",
        "add",
        "q1",
        "--provider",
        "lambda",
        "--region",
        "us-east-1",
        "--test-ip",
        "127.0.0.31",
        "--db",
        db,
    )
    assert shared.returncode == 2 and "127.0.0.31 is an endpoint of lambda/us-west-1 already" in shared.stderr
    unknown = run_linkvet("eval", "show", "q2", "--db", db)
    assert (
        unknown.returncode == 2 and "no evaluation 'q2'" in unknown.stderr and "it has: q1" in unknown.stderr
    )
    office = run_linkvet("schedule", "--eval", "q1", "--vantage", "beijing", "--once", "--db", db)
    assert office.returncode == 2 and "q1 has no office 'beijing'" in office.stderr


def test_a_hand_written_catalog_and_linkvets_overlay_never_share_a_name(run_linkvet, db: str) -> None:  # type: ignore[no-untyped-def]
    """The user wrote `vendorb.toml` (a whole catalog); linkvet writes its facts about vendorb beside it
    (`vendorb.overlay.toml`), so creating a region there neither fails nor overwrites the user's file."""
    user = Path(os.environ["LINKVET_CATALOG_DIR"])
    user.mkdir(parents=True, exist_ok=True)
    own = user / "vendorb.toml"
    own.write_text(
        'format_version = 1\n[provider]\nid = "vendorb"\nname = "Vendor B"\nsource = "our notes"\n'
        'as_of = "2026-12"\n[[regions]]\nid = "sha-1"\nsource = "our notes"\nas_of = "2026-12"\n',
        encoding="utf-8",
    )
    before = own.read_bytes()
    _ok(run_linkvet("eval", "new", "q1", "--needs", str(EXAMPLE_NEEDS), "--db", db))
    created = _ok(run_linkvet("eval", "add", "q1", "--provider", "vendorb", "--region", "bj-2", "--db", db))
    assert "created region vendorb/bj-2" in created and "created provider" not in created
    assert own.read_bytes() == before and (user / "vendorb.overlay.toml").is_file()
    shown = _ok(run_linkvet("catalog", "show", "vendorb"))
    assert "vendorb.toml" in shown and "region[bj-2]" in shown and "vendorb.overlay.toml" in shown
