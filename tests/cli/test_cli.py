"""The headless `linkvet` command end to end, in subprocesses, against loopback."""

from __future__ import annotations

import json
import re
from pathlib import Path

from probes.schedule.plan import EXAMPLE_PLAN


def test_probe_json_done_when(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = run_linkvet("probe", "127.0.0.1", "--count", "20", "--interval", "0.01", "--json")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["loss"] == 0 and record["sent"] == 20 and record["received"] == 20
    for key in ("rtt_min_ms", "rtt_median_ms", "rtt_mean_ms", "rtt_p95_ms", "rtt_max_ms", "jitter_ms"):
        assert isinstance(record[key], float), key
    assert len(record["samples"]) == 20 and record["samples"][0]["sent_at"].endswith("Z")
    # stored by default, in the user data directory
    assert (tmp_path / "xdg-data" / "linkvet" / "linkvet.sqlite3").exists()


def test_probe_table_and_no_store(run_linkvet, tmp_path: Path, tcp_listener: int) -> None:  # type: ignore[no-untyped-def]
    out = run_linkvet(
        "probe", "127.0.0.1", f"127.0.0.1:{tcp_listener}", "--count", "3", "--interval", "0.01", "--no-store"
    )
    assert out.returncode == 0, out.stderr
    header, first, second = out.stdout.splitlines()
    assert header.split()[:5] == ["TARGET", "METHOD", "SENT", "RECV", "LOSS"]
    assert first.split()[:5] == ["127.0.0.1", "icmp", "3", "3", "0.0%"]
    assert second.split()[:2] == [f"127.0.0.1:{tcp_listener}", "tcp"]
    assert not (tmp_path / "xdg-data").exists()


def test_target_file_and_mixed_outcomes(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    targets = tmp_path / "targets.txt"
    targets.write_text("# office checks\n127.0.0.1\n\nno-such-host.invalid  # typo on purpose\n")
    out = run_linkvet(
        "probe", "--file", str(targets), "--count", "2", "--interval", "0.01", "--json", "--no-store"
    )
    assert out.returncode == 1  # one target could not be measured at all
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["target"] for r in records] == ["127.0.0.1", "no-such-host.invalid"]
    assert records[1]["error"] == "dns" and records[1]["loss"] is None
    assert "Traceback" not in out.stderr


def test_usage_errors_are_one_line_and_exit_2(run_linkvet) -> None:  # type: ignore[no-untyped-def]
    for args, expected in [
        (("probe",), "no targets"),
        (("probe", "127.0.0.1", "--count", "0"), "'0' is not a whole number from 1 to 100000"),
        (("probe", "host:99999"), "port '99999' is not a number 1-65535"),
        (("probe", "ftp://x.example/", "--method", "http"), "http:// or https://"),
        (("probe", "--file", "/nonexistent/list.txt"), "/nonexistent/list.txt: no such file"),
        (("probe", "http://[::1"), "'http://[::1': not a valid URL (Invalid IPv6 URL)"),
        (("probe", "http://127.0.0.1:0/"), "port '0' is not a number 1-65535"),
        (("probe", "http://a b/"), "character 9 (SPACE) cannot be part of a host, address or URL"),
    ]:
        out = run_linkvet(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert expected in out.stderr, (args, out.stderr)
        assert "Traceback" not in out.stderr


def test_schedule_once_then_history(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "office.sqlite3"
    plan = EXAMPLE_PLAN
    out = run_linkvet(
        "schedule", "--plan", str(plan), "--once", "--db", str(db), "--log-file", str(tmp_path / "l")
    )
    assert out.returncode == 0, out.stderr
    assert "stored round 1" in out.stdout
    history = run_linkvet("history", "loopback", "--db", str(db), "--json")
    assert history.returncode == 0, history.stderr
    records = [json.loads(line) for line in history.stdout.splitlines()]
    assert sorted(r["method"] for r in records) == ["icmp", "tcp"]
    assert all(r["provider"] == "example" and r["vantage"] == "this-machine" for r in records)
    table = run_linkvet("history", "127.0.0.1", "--db", str(db))
    assert "loopback" in table.stdout and "icmp" in table.stdout


def test_bad_plan_and_missing_store(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plan = tmp_path / "plan.toml"
    plan.write_text('version = 1\n[[targets]]\nhost = "127.0.0.1"\nmethods = ["tcp"]\nport = "ssh"\n')
    out = run_linkvet("schedule", "--plan", str(plan), "--once")
    assert out.returncode == 2
    assert f"{plan}:5: targets[0].port:" in out.stderr
    missing = run_linkvet("history", "x", "--db", str(tmp_path / "none.sqlite3"))
    assert missing.returncode == 3 and "no result store here yet" in missing.stderr
    unknown = run_linkvet("history", "never-probed", "--db", str(tmp_path / "s.sqlite3"))
    assert unknown.returncode == 3  # the store does not exist yet either


def test_schedule_check_lists_the_next_rounds(run_linkvet) -> None:  # type: ignore[no-untyped-def]
    out = run_linkvet("schedule", "--plan", str(EXAMPLE_PLAN), "--check")
    assert out.returncode == 0, out.stderr
    assert "next rounds (UTC):" in out.stdout and out.stdout.count("cadence") == 5


def test_help_lists_the_commands(run_linkvet) -> None:  # type: ignore[no-untyped-def]
    out = run_linkvet("--help")
    assert out.returncode == 0
    for command in ("probe", "schedule", "history"):
        assert command in out.stdout


def test_linkvet_alone_runs_the_headless_main_job_without_a_display(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import cli_env

    env = cli_env(tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(name, None)
    out = subprocess.run(
        [sys.executable, "-m", "desktop.cli"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "no display here" in out.stdout and "example evaluation" in out.stdout
    assert "stored round 1" in out.stdout  # the example evaluation measured into the default store…
    assert (tmp_path / "xdg-data" / "linkvet" / "linkvet.sqlite3").exists()
    # … at its loopback addresses only (never a provider's public endpoint) …
    for address in ("127.0.0.11", "127.0.0.12", "127.0.0.13"):
        assert re.search(rf"{re.escape(address)}\s+icmp\s+10/10", out.stdout), out.stdout
        assert re.search(rf"{re.escape(address)}\s+trace\s", out.stdout), out.stdout
    assert "cannot resolve" not in out.stdout and "http" not in out.stdout.split("stored round 1")[0]
    # … its evidence table: the line measured off-peak (partial), the rest missing with the next step …
    assert "CANDIDATE" in out.stdout and "partial" in out.stdout and "next:" in out.stdout
    # … exactly its three candidates ranked, and what to do for one's own vendors.
    assert "3 candidate(s)" in out.stdout and "#1 " in out.stdout
    assert "linkvet eval new NAME --needs FILE" in out.stdout
    assert "Traceback" not in out.stderr


def test_a_bad_line_in_a_target_list_is_located(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    listing = tmp_path / "targets.txt"
    listing.write_text("127.0.0.1\n# a comment\n127.0.0.1:abc\n")
    out = run_linkvet("probe", "--file", str(listing), "--no-store")
    assert out.returncode == 2
    assert out.stderr.strip() == f"linkvet: {listing}:3: '127.0.0.1:abc': port 'abc' is not a number 1-65535"


def test_plain_http_to_a_tls_port_says_what_happened(run_linkvet, https_server: str) -> None:  # type: ignore[no-untyped-def]
    out = run_linkvet("probe", f"http://{https_server}/ok", "-c", "1", "--json", "--no-store")
    record = json.loads(out.stdout)
    assert record["error"] in ("connect", "protocol")
    assert record["message"].split(": ", 1)[1].strip(), record["message"]  # something after the URL


def test_probe_records_the_vantage_point(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.sqlite3"
    out = run_linkvet(
        "probe", "127.0.0.1", "-c", "2", "-i", "0.01", "--vantage", "shanghai-office", "--db", str(db)
    )
    assert out.returncode == 0, out.stderr
    history = run_linkvet("history", "127.0.0.1", "--db", str(db), "--json")
    assert json.loads(history.stdout)["vantage"] == "shanghai-office"
