"""Done when: after a `linkvet schedule` run on loopback targets, `linkvet export` writes a workbook that
opens in LibreOffice and whose figures match the store."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from probes.analysis import link_summaries
from probes.histogram import BASE_MS, GROWTH, RELATIVE_ERROR
from probes.peak import PeakWindow, mask_any
from probes.store import Store
from tests.analysis.reference import figures, labelled_samples
from tests.export.catalog_fixtures import write_catalogs, write_needs
from tests.export.libreoffice import convert

# The whole day is "peak" for the first window and nothing for the second: both sides get data whatever
# the time of day the test runs.
WINDOWS = ["00:00-12:00 UTC", "12:00-24:00 Asia/Tokyo"]


def plan_text(tcp_port: int, http_server: str) -> str:
    return f"""
version = 1
name = "loopback-lab"
vantage = "test-office"

[schedule]
every = "5m"

[defaults]
count = 15
interval = 0.01
timeout = 1.0
[defaults.download]
count = 1
max_bytes = 2_000_000

[[targets]]
name = "la-ping"
host = "127.0.0.1"
methods = ["icmp"]
provider = "raksmart"
region = "los-angeles"
line_type = "cn2-gia"

[[targets]]
name = "la-file"
url = "http://{http_server}/file"
methods = ["download"]
provider = "raksmart"
region = "los-angeles"
line_type = "cn2-gia"

[[targets]]
name = "hk-ssh"
host = "127.0.0.2"
port = {tcp_port}
methods = ["tcp"]
provider = "lambda"
region = "us-west-1"
line_type = "bgp"
"""


@pytest.fixture
def scheduled_store(run_linkvet, tmp_path: Path, tcp_listener: int, http_server: str) -> Path:  # type: ignore[no-untyped-def]
    plan = tmp_path / "plan.toml"
    plan.write_text(plan_text(tcp_listener, http_server))
    db = tmp_path / "office.sqlite3"
    for _ in range(2):
        out = run_linkvet(
            "schedule", "--plan", str(plan), "--once", "--db", str(db), "--log-file", str(tmp_path / "log")
        )
        assert out.returncode == 0, out.stderr
    return db


def _as_histogram_holds_them(frame: pd.DataFrame) -> pd.DataFrame:
    """The samples as a rollup histogram holds them: each RTT within RELATIVE_ERROR of itself, except below
    the histogram's 10 µs floor (a loopback echo timed by the kernel at both ends takes ~5 µs), where it is the
    first bucket's midpoint. A percentile interpolates between two ranks, either of which may be below the
    floor (CI once read a p95 2.9% over the raw samples' own: loopback echoes straddle 10 µs)."""
    floored = frame.copy()
    rtt = floored["rtt_ms"]
    floored["rtt_ms"] = rtt.where(rtt.isna() | (rtt >= BASE_MS), BASE_MS * GROWTH**0.5)
    return floored


def test_schedule_then_export_matches_the_store_and_opens_in_libreoffice(
    run_linkvet,
    scheduled_store: Path,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    out_file = tmp_path / "comparison.xlsx"
    peak_args = [arg for window in WINDOWS for arg in ("--peak", window)]
    done = run_linkvet("export", "--db", str(scheduled_store), "--out", str(out_file), *peak_args)
    assert done.returncode == 0, done.stderr
    assert "2 regions measured" in done.stdout
    assert not out_file.with_name("comparison.xlsx.partial").exists()

    with Store(scheduled_store, readonly=True) as store:
        reference = labelled_samples(store, "Asia/Shanghai")
        transfers = store.results_frame()
    transfers = transfers.loc[transfers["method"] == "download"]
    windows = [PeakWindow.parse(w) for w in WINDOWS]
    in_peak = mask_any(windows, reference["ts_us"].to_numpy())
    quality = pd.read_excel(out_file, sheet_name="Link quality").set_index("Region")
    assert set(quality.index) == {"los-angeles", "us-west-1"}
    for region, row in quality.iterrows():
        mine = reference["region"] == region
        for side, mask in (("Peak", in_peak), ("Off-peak", ~in_peak)):
            expected = figures(reference.loc[mine & mask])
            assert row[f"{side} samples"] == expected["sent"]
            if expected["sent"]:
                assert row[f"{side} loss (%)"] == pytest.approx(expected["loss"])
            if expected["received"]:
                held = figures(_as_histogram_holds_them(reference.loc[mine & mask]))
                assert row[f"{side} p95 RTT (ms)"] == pytest.approx(held["rtt_p95_ms"], rel=RELATIVE_ERROR)
                assert row[f"{side} median RTT (ms)"] == pytest.approx(
                    held["rtt_median_ms"], rel=RELATIVE_ERROR
                )
        assert row["Vantage point"] == "test-office"
    assert quality.loc["los-angeles", "Peak samples"] + quality.loc["los-angeles", "Off-peak samples"] == 30
    rates = transfers["throughput_mbps"].dropna()
    assert len(rates) == 2
    shown = quality.loc["los-angeles", ["Peak throughput (Mbit/s)", "Off-peak throughput (Mbit/s)"]].dropna()
    assert list(shown) and all(min(rates) <= v <= max(rates) for v in shown)
    assert pd.isna(quality.loc["us-west-1", "Peak throughput (Mbit/s)"])

    hours = pd.read_excel(out_file, sheet_name="Hour-of-day")
    measured = hours.loc[hours["Samples"] > 0]
    for _, row in measured.iterrows():
        expected = figures(
            reference.loc[
                (reference["region"] == row["Region"]) & (reference["hour"] == row["Hour (Asia/Shanghai)"])
            ]
        )
        assert row["Samples"] == expected["sent"]
    assert int(measured["Samples"].sum()) == len(reference)
    method = pd.read_excel(out_file, sheet_name="Method").set_index("Item")["Value"]
    assert method["Peak windows"] == "; ".join(WINDOWS)
    assert method["Vantage points"] == "test-office"
    assert method["Result store"] == str(scheduled_store)

    converted = convert(out_file, "pdf", tmp_path, tmp_path / "profile")
    assert converted.returncode == 0, converted.stderr
    assert (tmp_path / "comparison.pdf").read_bytes().startswith(b"%PDF")


def test_export_csv_folder(run_linkvet, scheduled_store: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "csv"
    done = run_linkvet(
        "export", "--db", str(scheduled_store), "--out", str(folder), "--format", "csv", "--tz", "UTC"
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in folder.iterdir()) == [
        "01-link-quality.csv",
        "02-hour-of-day.csv",
        "03-method.csv",
    ]
    hours = pd.read_csv(folder / "02-hour-of-day.csv", encoding="utf-8-sig")
    assert "Hour (UTC)" in hours.columns and len(hours) == 2 * 24


def test_export_errors_are_one_line(run_linkvet, scheduled_store: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = str(scheduled_store)
    out = str(tmp_path / "c.xlsx")
    cases = [
        (("--peak", "20:00-23:00 Mars/Olympus"), 2, "unknown time zone 'Mars/Olympus'"),
        (("--tz", "Nowhere/City"), 2, "unknown time zone 'Nowhere/City'"),
        (("--since", "2026-12-01", "--until", "2026-11-01"), 2, "--since must be before --until"),
        (("--since", "yesterday-ish"), 2, "neither an ISO date/time"),
        (("--needs", str(tmp_path / "none.toml")), 2, "no such needs profile"),
    ]
    for extra, code, message in cases:
        done = run_linkvet("export", "--db", db, "--out", out, *extra)
        assert done.returncode == code, (extra, done.stderr)
        assert message in done.stderr, (extra, done.stderr)
        assert "Traceback" not in done.stderr
    bad_name = run_linkvet("export", "--db", db, "--out", str(tmp_path / "c.xls"))
    assert bad_name.returncode == 2 and "must end in .xlsx" in bad_name.stderr
    first = run_linkvet("export", "--db", db, "--out", out)
    assert first.returncode == 0, first.stderr
    again = run_linkvet("export", "--db", db, "--out", out)
    assert again.returncode == 2 and "--force" in again.stderr
    forced = run_linkvet("export", "--db", db, "--out", out, "--force")
    assert forced.returncode == 0
    assert openpyxl.load_workbook(out).sheetnames == ["Link quality", "Hour-of-day", "Method"]


def test_export_with_needs_ranks_on_the_measured_lines(
    run_linkvet, scheduled_store: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    catalogs = write_catalogs(tmp_path / "catalogs")
    needs = write_needs(tmp_path, vantage="test-office")
    out_file = tmp_path / "ranked.xlsx"
    done = run_linkvet(
        "export",
        "--db",
        str(scheduled_store),
        "--needs",
        str(needs),
        "--catalogs",
        str(catalogs),
        "--out",
        str(out_file),
        "--weight",
        "line_quality=30",
    )
    assert done.returncode == 0, done.stderr
    assert "2 offerings ranked" in done.stdout
    assert openpyxl.load_workbook(out_file).sheetnames == [
        "Ranking",
        "Score breakdown",
        "Link quality",
        "Hour-of-day",
        "GPU offerings",
        "Sizing",
        "Method",
    ]
    ranking = pd.read_excel(out_file, sheet_name="Ranking").set_index("Region")
    assert ranking["Line quality score"].notna().all()  # both regions measured from test-office
    converted = convert(out_file, "pdf", tmp_path, tmp_path / "profile")
    assert converted.returncode == 0, converted.stderr


def test_score_reads_the_line_quality_from_the_store(
    run_linkvet, scheduled_store: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    catalogs = str(write_catalogs(tmp_path / "catalogs"))
    needs = str(write_needs(tmp_path, vantage="test-office"))
    done = run_linkvet(
        "score", "--needs", needs, "--catalogs", catalogs, "--db", str(scheduled_store), "--json"
    )
    assert done.returncode == 0, done.stderr
    entries = {e["region"]: e for e in json.loads(done.stdout)["entries"]}
    with Store(scheduled_store, readonly=True) as store:
        expected = {s.region: s.as_dict() for s in link_summaries(store)}
    for region in ("los-angeles", "us-west-1"):
        line = next(j for j in entries[region]["judgements"] if j["criterion"] == "line_quality")
        assert line["score"] is not None, line
        assert "measured from test-office" in line["source"]
        p95 = expected[region]["peak"]["rtt_p95_ms"] or expected[region]["offpeak"]["rtt_p95_ms"]
        assert f"{p95:.0f}" in line["reason"] or f"{p95:.1f}" in line["reason"], (line["reason"], p95)
    # --links still wins over the store.
    links = tmp_path / "links.json"
    links.write_text("[]")
    without = run_linkvet(
        "score",
        "--needs",
        needs,
        "--catalogs",
        catalogs,
        "--db",
        str(scheduled_store),
        "--links",
        str(links),
        "--json",
    )
    assert without.returncode == 0, without.stderr
    for entry in json.loads(without.stdout)["entries"]:
        line = next(j for j in entry["judgements"] if j["criterion"] == "line_quality")
        assert line["score"] is None


def test_a_missing_store_means_nothing_measured_yet_for_score_and_export(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # `--db` naming a store that does not exist yet, and the default store before any probe, read the same:
    # nothing measured (a note on stderr), not an error.
    catalogs = str(write_catalogs(tmp_path / "catalogs"))
    needs = str(write_needs(tmp_path))
    new = str(tmp_path / "new" / "store.sqlite3")
    for db in (("--db", new), ()):
        scored = run_linkvet("score", "--needs", needs, "--catalogs", catalogs, *db, "--json")
        assert scored.returncode == 0, scored.stderr
        assert "no result store at" in scored.stderr and "nothing measured" in scored.stderr
        for entry in json.loads(scored.stdout)["entries"]:
            line = next(j for j in entry["judgements"] if j["criterion"] == "line_quality")
            assert line["score"] is None and line["reason"].startswith("not measured")
        out = tmp_path / f"comparison{len(db)}.xlsx"
        exported = run_linkvet("export", "--needs", needs, "--catalogs", catalogs, *db, "--out", str(out))
        assert exported.returncode == 0, exported.stderr
        assert "nothing measured" in exported.stderr
        assert "(0 regions measured, 2 offerings ranked)" in exported.stdout
        book = openpyxl.load_workbook(out)
        assert book.sheetnames == [
            "Ranking",
            "Score breakdown",
            "Link quality",
            "Hour-of-day",
            "GPU offerings",
            "Sizing",
            "Method",
        ]
        method = pd.read_excel(out, sheet_name="Method").set_index("Item")
        assert method.loc["Measurements", "Value"] == "none yet"
    assert not (tmp_path / "new").exists()  # a reader creates no store


def test_export_into_a_missing_folder_is_a_usage_error_and_creates_nothing(
    run_linkvet, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    # run_linkvet runs in tmp_path, so the relative paths are under it; no store: checked before reading it.
    db = str(tmp_path / "none.sqlite3")
    before = sorted(tmp_path.rglob("*"))
    for out, folder in (
        ("some/dir/x.csv", "some/dir"),  # a .csv name: the folder of csv files, in some/dir
        ("some/dir/x.xlsx", "some/dir"),
        (str(tmp_path / "some" / "x.xlsx"), str(tmp_path / "some")),
    ):
        done = run_linkvet("export", "--db", db, "--out", out)
        assert done.returncode == 2, (out, done.stderr)
        assert f"the folder {folder} does not exist" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
        assert done.stdout == ""
        assert sorted(tmp_path.rglob("*")) == before  # nothing created: no folder, no file
    # A file where a folder is wanted says so.
    (tmp_path / "notes.csv").write_text("mine\n")
    inside = run_linkvet("export", "--db", db, "--out", "notes.csv/x.xlsx")
    assert inside.returncode == 2 and "notes.csv is a file, not a folder" in inside.stderr
    as_folder = run_linkvet("export", "--db", db, "--out", "notes.csv")
    assert (
        as_folder.returncode == 2 and "notes.csv is a file: --format csv writes a folder" in as_folder.stderr
    )
    assert (tmp_path / "notes.csv").read_text() == "mine\n"
    # The csv folder itself is made, in a folder that exists.
    made = run_linkvet("export", "--db", db, "--out", "fresh.csv")
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in (tmp_path / "fresh.csv").iterdir()) == [
        "01-link-quality.csv",
        "02-hour-of-day.csv",
        "03-method.csv",
    ]
