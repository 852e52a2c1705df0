"""Issue 28's story, played whole: three vendors, two offices, one peak, to a decision.

- Vendors: `vendorx` is created from the command line (`eval add --provider-name`: id and name only, in the
  team's store, as every fact learnt about a vendor with a PostgreSQL store); its offering, its line type and its test endpoints come from its answers to the
  linkvet questionnaire (exported, answered with openpyxl, imported). `steadyco` and `islandco` are
  hand-written test catalogs (tests/lab/fixtures/story) in the user's catalog folder, which every command
  reads (the office machines share it here).
- Offices: shanghai (China Telecom) and beijing (China Unicom). The emulated-link lab (tests/lab/netlab.py)
  has one office namespace: both offices measure from it, one after the other, each with its own home
  (spool, lock, log) and `--vantage`, with `linkvet schedule --eval story --vantage OFFICE --once`, into a
  real PostgreSQL (tests/postgres_server.py, over its Unix socket, which the namespace reaches). What each
  office sees differs by a fixed extra delay per region (tests/lab/story.py: `EXTRA_MS`), set on the
  emulated links before each office's rounds, so the office that decides each region (`decide_by` worst)
  is known beforehand.
- Peak: once each office has measured its first round, the evaluation's peak window is set (exported,
  changed, imported with `--replace`, as a team edits it) to the next whole minute in UTC ("HH:MM-HH:MM
  UTC"); steadyco's line is congested exactly inside it (a time-varying profile aligned to the window's
  edges: +155 ms and 20 % bursty loss each way) and calm outside it. Each office measures rounds before
  and inside the window; the acceptance replays and the route lab's traces are done while waiting for it
  to open where they fit (after it where they do not).
- Acceptance: recorded replays (tests/accept/fixtures/scenarios): `nv18-box` confirms everything steadyco
  claims for its H100 offering (its return route traced too, which cannot check a BGP line), `islands-box`
  (two NVLink islands of four) contradicts the full NVLink islandco claims.
- Routes: a second lab in the same test, the route lab (tests/lab/route_lab.py), whose routers carry
  backbone addresses: traced from its office with each office's `--vantage`, labelled as the candidates, into
  the same store: vendorx's endpoint over a GIA-like path (agrees with its CN2 GIA claim), islandco's over a
  163-like path (contradicts its CN2 GIA claim). The emulated lab's own traces (one hop straight to the
  region, through none of the listed backbones) stay beside them; steadyco's line is sold as BGP, which no
  route can check.

Then `score --eval` and `eval show` are judged on what the code decided: exactly the three ranked, every
line measured from both offices, the worse office deciding, steadyco penalised at peak only, islandco
marked contradicted twice, each place decided exactly where the bounds say so, and what is still missing
named with the command that fills it. A trace by hand of islandco's address under other labels, and a
one-off probe of steadyco's address (no labels) after the last round, change none of it (§3, end to end).

Root only (network namespaces), with PostgreSQL's server binaries; skipped otherwise, saying why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from catalogs.needs import EXAMPLE_NEEDS
from desktop.usecases.questionnaire_workbook import ANSWER, KEY
from tests.conftest import REPO_ROOT
from tests.lab import route_lab
from tests.lab.netlab import Lab, lab_unavailable_reason
from tests.lab.route_lab import RouteLab
from tests.lab.story import OFFICES, VENDOR_REGION, Offices, Window, sleep_until, worse_office

_REASON = lab_unavailable_reason() or route_lab.lab_unavailable_reason()
pytestmark = [pytest.mark.lab, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]

EVAL = "story"
FIXTURES = Path(__file__).parent / "fixtures" / "story"
SCENARIOS = REPO_ROOT / "tests" / "accept" / "fixtures" / "scenarios"
LEAD_S = 5.0  # the peak window opens on the first whole minute at least this far from when it is set
WINDOW_MINUTES = 1
ROUND_S = 14.0  # a round of ICMP only takes about 11 s; one is started off-peak where this much time is left
PEAK_ROUND_S = 6.0  # at peak, one is started where this much is left (its samples after the end: off-peak)
CHORE_S = {"acceptance": 15.0, "routes": 25.0}  # a chore is done before the window where this much is left
CANDIDATES = {
    "vendorx": "vendorx/hk-1",
    "steadyco": "steadyco/tokyo/h100-sxm-ib",
    "islandco": "islandco/singapore/a100-80g-nvlink",
}
REGIONS = {"vendorx": "vendorx/hk-1", "steadyco": "steadyco/tokyo", "islandco": "islandco/singapore"}
ROUTES = {"gia": ["59.43.1.1", "59.43.2.1"], "n163": ["202.97.2.1", "202.97.3.1"]}
ANSWERS: dict[str, Any] = {
    "meta.answered_by": "Chen Jing, Vendor X presales",
    "meta.answered_on": "2026-12-05",
    "service.support_24x7": "yes",
    "service.sla_uptime_percent": 99.9,
    "service.delivery_days": 5,
    "region[hk-1].line_types": "cn2-gia",
    "region[hk-1].endpoints": "198.18.1.1, http://198.18.1.1/large.bin",  # a test IP and a test file
    "offering[vx-h100].gpu": "H100 SXM",
    "offering[vx-h100].gpus_per_node": 8,
    "offering[vx-h100].gpu_memory_gb": 80,
    "offering[vx-h100].intra_node.kind": "nvswitch",
    "offering[vx-h100].intra_node.bandwidth_gbytes_s": 900,
    "offering[vx-h100].inter_node.fabric": "infiniband",
    "offering[vx-h100].inter_node.bandwidth_gbit_s": 3200,
    "offering[vx-h100].inter_node.rails": 8,
    "offering[vx-h100].inter_node.rdma": "yes",
    "offering[vx-h100].price.gpu_hour": 2.6,
    "offering[vx-h100].currency": "USD",
    "offering[vx-h100].max_gpus": 256,
    "offering[vx-h100].regions": "hk-1",
}


def _env(home: Path) -> dict[str, str]:
    """A linkvet machine's environment: this checkout, English, its own data folders; the user's catalog
    folder (LINKVET_CATALOG_DIR, the test's own) is the team's."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env["LANG"] = "C.UTF-8"
    env["PYTHONPATH"] = str(REPO_ROOT)
    for variable, sub in (("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "cfg")):
        env[variable] = str(home / sub)
    return env


class Team:
    """The team lead's machine (the root namespace): the evaluation, the catalogs, the verdicts."""

    def __init__(self, home: Path, db: str) -> None:
        self.home = home
        self.db = db
        home.mkdir(parents=True, exist_ok=True)

    def run(self, *args: str, ok: tuple[int, ...] = (0,)) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "desktop.cli", *args],
            env=_env(self.home),
            cwd=self.home,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode in ok, (
            f"linkvet {' '.join(args)}: {done.returncode}\n{done.stdout}\n{done.stderr}"
        )
        assert "Traceback" not in done.stderr, done.stderr
        return done.stdout

    def json(self, *args: str) -> Any:
        return json.loads(self.run(*args, "--json", "--db", self.db))


def _answer(workbook: Path, answered: Path) -> int:
    book = load_workbook(workbook)
    count = 0
    for sheet in book.worksheets:
        if sheet["A2"].value != "key":  # About, Lists
            continue
        for row in sheet.iter_rows(min_row=3):
            if row[KEY].value in ANSWERS:
                row[ANSWER].value = ANSWERS[row[KEY].value]
                count += 1
    book.save(answered)
    return count


def _trace(route: RouteLab, host: str, provider: str, region: str, office: str, db: str, home: Path) -> None:
    done = route.run_in_office(
        [
            *(sys.executable, "-m", "desktop.cli", "trace", host, "-q", "2", "-i", "0.1", "-n", "2"),
            *("--provider", provider, "--region", region, "--line-type", "cn2-gia", "--vantage", office),
            *("--db", db),
        ],
        env=_env(home),
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _entry(ranking: dict[str, Any], provider: str) -> dict[str, Any]:
    (found,) = [e for e in ranking["entries"] if e["provider"] == provider]
    return dict(found)


def _judgement(entry: dict[str, Any], criterion: str) -> dict[str, Any]:
    (found,) = [j for j in entry["judgements"] if j["criterion"] == criterion]
    return dict(found)


def _line_scores(ranking: dict[str, Any]) -> dict[str, float]:
    scores = {}
    for provider in CANDIDATES:
        score = _judgement(_entry(ranking, provider), "line_quality")["score"]
        assert score is not None, f"{provider}: line quality not measured"
        scores[provider] = float(score)
    return scores


def _set_peak(team: Team, tmp_path: Path, window: Window) -> None:
    """The evaluation's peak window set to `window`, the way a team edits an evaluation: exported, the
    window changed in the file, imported over it."""
    path = tmp_path / f"{EVAL}.toml"
    team.run("eval", "export", EVAL, "--out", str(path), "--db", team.db)
    text, count = re.subn(r"peak_windows = \[[^\]]*\]", f'peak_windows = ["{window}"]', path.read_text())
    assert count == 1, text
    path.write_text(text, encoding="utf-8")
    team.run("eval", "import", str(path), "--replace", "--db", team.db)


def _chores(team: Team, tmp_path: Path, db: str) -> list[tuple[float, Callable[[], None]]]:
    """What the team does beside the measuring, each with the seconds it is given: the acceptance
    replays (one confirms steadyco, one contradicts islandco) and the traces through the route lab."""

    def acceptance() -> None:
        steady, island = tmp_path / "steadyco-accept.json", tmp_path / "islandco-accept.json"
        team.run(
            "accept", "--replay", str(SCENARIOS / "nv18-box"), "--provider", "steadyco", "--offering",
            "h100-sxm-ib", "--region", "tokyo", "--return-route", "--json", "--out", str(steady),
        )  # fmt: skip
        team.run(
            "accept", "--replay", str(SCENARIOS / "islands-box"), "--provider", "islandco", "--offering",
            "a100-80g-nvlink", "--region", "singapore", "--json", "--out", str(island), ok=(4,),
        )  # fmt: skip
        # Into the team's store (issue 32), recorded as from the office that ran them.
        assert "(contradicted)" not in team.run(
            "accept", "import", str(steady), "--db", db, "--office", "beijing"
        )
        assert "offering[a100-80g-nvlink].intra_node.kind = nvlink (contradicted)" in team.run(
            "accept", "import", str(island), "--db", db, "--office", "beijing"
        )

    def routes() -> None:
        """Traced from both offices' vantage, labelled as the candidates: vendorx's endpoint over a GIA-like
        path, islandco's over a 163-like one; then islandco's path once more by hand under other labels."""
        with RouteLab(ROUTES, icmp_ratelimit_ms=0) as route:
            for office in OFFICES:
                home = tmp_path / "offices" / office
                _trace(route, route.region("gia"), "vendorx", "hk-1", office, db, home)
                _trace(route, route.region("n163"), "islandco", "singapore", office, db, home)
            _trace(
                route,
                route.region("n163"),
                "adhoc",
                "check",
                "shanghai",
                db,
                tmp_path / "offices" / "shanghai",
            )

    return [(CHORE_S["acceptance"], acceptance), (CHORE_S["routes"], routes)]


def test_three_vendors_two_offices_one_peak_to_a_decision(tmp_path: Path, postgres_url: str) -> None:
    started = time.monotonic()
    user_catalogs = Path(os.environ["LINKVET_CATALOG_DIR"])
    user_catalogs.mkdir(parents=True, exist_ok=True)
    for name in ("steadyco.toml", "islandco.toml"):
        shutil.copy(FIXTURES / name, user_catalogs / name)
    db = postgres_url
    team = Team(tmp_path / "team", db)

    with Lab(tmp_path / "lab", regions=("r1", "r2", "r3"), large_file_mb=32) as lab:
        assert [lab.region(VENDOR_REGION[v]).address for v in CANDIDATES] == [
            "198.18.1.1",
            "198.18.2.1",
            "198.18.3.1",
        ]
        # -- the evaluation: two offices, three candidates; its peak window is set once measuring started --
        far = Window.after(6 * 3600, 60)  # hours away: nothing measured before it is set falls into it
        team.run(
            "eval", "new", EVAL, "--needs", str(EXAMPLE_NEEDS), "--office", "shanghai:ct",
            "--office", "beijing:cu", "--peak", str(far), "--db", db,
        )  # fmt: skip
        created = team.run(
            "eval", "add", EVAL, "--provider", "vendorx", "--region", "hk-1", "--provider-name", "Vendor X",
            "--region-name", "Hong Kong 1", "--db", db,
        )  # fmt: skip
        assert "created provider vendorx" in created and "created region vendorx/hk-1" in created
        # With a PostgreSQL store the vendor lives in the team's store, for every office (issue 32).
        assert not (user_catalogs / "vendorx.overlay.toml").exists()
        assert "your team's facts" in team.run("catalog", "show", "vendorx", "--db", db)
        team.run(
            "eval", "add", EVAL, "--provider", "steadyco", "--region", "tokyo", "--offering", "h100-sxm-ib",
            "--test-ip", "198.18.2.1", "--db", db,
        )  # fmt: skip
        team.run(
            "eval", "add", EVAL, "--provider", "islandco", "--region", "singapore", "--offering",
            "a100-80g-nvlink", "--test-ip", "198.18.3.1", "--db", db,
        )  # fmt: skip

        # -- Vendor X answers the questionnaire: its offering, its line, its test IP and test file -------
        workbook, answered = tmp_path / "vendorx.xlsx", tmp_path / "vendorx-answered.xlsx"
        team.run(
            "questionnaire",
            "export",
            "--provider",
            "vendorx",
            "--offering",
            "vx-h100",
            "--out",
            str(workbook),
            "--db",
            db,
        )
        assert _answer(workbook, answered) == len(ANSWERS)
        imported = team.run(
            "questionnaire", "import", str(answered), "--provider", "vendorx", "--db", db, "--office", "shanghai"
        )  # fmt: skip
        assert f"{len(ANSWERS) - 2} facts added" in imported, imported
        plan = team.run("eval", "plan", EVAL, "--office", "shanghai", "--db", db)
        assert 'url = "http://198.18.1.1/large.bin"' in plan and 'host = "198.18.1.1"' in plan

        # -- measuring: each office's first round (the traces and vendorx's test file are due once), then
        # the peak window set to the next whole minute; the chores and off-peak rounds until it opens, rounds
        # through it, the chores that did not fit before it after it ------------------------------------------
        offices = Offices(lab, tmp_path / "offices", db, _env)
        setup_s = time.monotonic() - started
        offices.each(EVAL, far, "first")
        window = Window.after(LEAD_S, WINDOW_MINUTES)
        _set_peak(team, tmp_path, window)
        later = []
        for chore_s, chore in _chores(team, tmp_path, db):
            if time.time() + chore_s < window.start_s:
                chore()
            else:
                later.append(chore)
        offices.until(window.start_s, ROUND_S, EVAL, window, "off-peak")
        sleep_until(window.start_s + 0.2)
        offices.until(window.end_s, PEAK_ROUND_S, EVAL, window, "peak")
        for chore in later:
            chore()
        measured_s = time.monotonic() - started
        # A one-off probe of steadyco's address from shanghai, after the last round: no labels.
        before_probe = team.json("eval", "show", EVAL)
        probe = offices.linkvet(
            "shanghai", "probe", "198.18.2.1", "-c", "3", "-i", "0.2", "--vantage", "shanghai", "--db", db
        )
        assert probe.returncode == 0, probe.stdout + probe.stderr

    # -- what the store says now ---------------------------------------------------------------------------
    shown = team.json("eval", "show", EVAL)
    ranked = team.json("score", "--eval", EVAL)
    rounds = "; ".join(offices.log)

    # The one-off probe (no labels) renamed nothing: every candidate's evidence is what it was.
    assert [c["evidence"] for c in shown["candidates"]] == [c["evidence"] for c in before_probe["candidates"]]
    history = [json.loads(line) for line in team.run("history", "--json", "--db", db).splitlines()]
    planned = [r for r in history if r["target"] == "steadyco/tokyo/h100-sxm-ib 198.18.2.1"]
    assert {(r["provider"], r["region"], r["line_type"]) for r in planned} == {("steadyco", "tokyo", "bgp")}
    assert {r["vantage"] for r in planned} == set(OFFICES)
    (one_off,) = [r for r in history if r["target"] == "198.18.2.1"]
    assert one_off["provider"] is None and one_off["vantage"] == "shanghai"

    # Exactly the three, each on the line of the office that sees it worse.
    (ranking,) = ranked["rankings"]
    assert ranking["office"] == "worst"
    assert sorted(e["provider"] for e in ranking["entries"]) == sorted(CANDIDATES)
    assert ranking["deciding_offices"] == {REGIONS[v]: worse_office(VENDOR_REGION[v]) for v in CANDIDATES}, (
        rounds
    )

    # Every line measured from both offices, off-peak and at peak.
    cells = {c["provider"]: c for c in shown["candidates"]}
    assert [c["label"] for c in shown["candidates"]] == list(CANDIDATES.values())
    for vendor, cell in cells.items():
        line = cell["evidence"]["line"]
        for office in OFFICES:
            figures = line["offices"][office]
            assert figures["offpeak_samples"] >= 10 and figures["peak_samples"] >= 10, (
                vendor,
                office,
                rounds,
            )
            assert figures["peak_evenings"] == 1 and figures["evenings_to_settle"] > 0
        assert line["state"] == "partial"  # one evening of peak: more evenings settle it
        assert any(step.startswith(f"linkvet schedule --eval {EVAL} --vantage ") for step in cell["next"])

    # steadyco's line is congested at peak, and only there.
    steady_line = cells["steadyco"]["evidence"]["line"]["offices"]
    for office in OFFICES:
        assert steady_line[office]["peak_rtt_median_ms"] > steady_line[office]["offpeak_rtt_median_ms"] + 100
        assert steady_line[office]["peak_loss"] > 0.05
        for calm in ("vendorx", "islandco"):
            other = cells[calm]["evidence"]["line"]["offices"][office]
            assert abs(other["peak_rtt_median_ms"] - other["offpeak_rtt_median_ms"]) < 10
            assert other["peak_loss"] == 0.0
    at_peak = _line_scores(ranking)
    assert at_peak["steadyco"] < min(at_peak["vendorx"], at_peak["islandco"]), at_peak
    # Off-peak only (the rounds before the window), its line scores better than at peak.
    after = team.json("score", "--eval", EVAL, "--until", window.start.isoformat())["rankings"][0]
    assert _line_scores(after)["steadyco"] > at_peak["steadyco"]
    assert _entry(after, "steadyco")["peak_evenings"] is None

    # islandco is marked: its NVLink contradicted by acceptance, its CN2 GIA by the traced route.
    island_entry = _entry(ranking, "islandco")
    nvlink = _judgement(island_entry, "intra_node")
    assert nvlink["standing"] == "contradicted" and nvlink["counted"] == 0.0
    assert "contradicted by an acceptance check" in nvlink["reason"]
    assert any(f["standing"] == "contradicted" for f in island_entry["verified_facts"])
    claim = _judgement(island_entry, "line_claim")
    assert claim["score"] < 0.25 and "163" in claim["reason"], claim
    assert cells["islandco"]["evidence"]["acceptance"]["state"] == "contradicted"
    route_out = cells["islandco"]["evidence"]["route_out"]
    assert route_out["state"] == "contradicted"
    assert {o["measured"] for o in route_out["offices"].values()} == {"163"}
    # Two route-lab traces and the emulated lab's one from each office: the check by hand under other labels
    # is not islandco's.
    assert all(o["traces"] == 3 for o in route_out["offices"].values()), route_out
    # vendorx's route agrees with its claim; steadyco's acceptance confirms everything it claims.
    vendorx_route = cells["vendorx"]["evidence"]["route_out"]
    assert vendorx_route["state"] == "done"
    assert all(o["agreeing_traces"] == 2 and o["traces"] == 3 for o in vendorx_route["offices"].values())
    assert (
        "route agrees with the claimed CN2 GIA"
        in _judgement(_entry(ranking, "vendorx"), "line_claim")["reason"]
    )
    assert cells["steadyco"]["evidence"]["acceptance"]["state"] == "done"
    # Its return route was traced on the trial server, but a BGP line is no single backbone: it says so.
    steady_back = cells["steadyco"]["evidence"]["route_back"]
    assert steady_back["state"] == "partial" and "cannot be checked" in steady_back["text"], steady_back

    # "decided" exactly where the bounds allow it.
    entries = ranking["entries"]
    for position, entry in enumerate(entries):
        below = entries[position + 1 :]
        if not below:
            assert entry["decided"] is None
            continue
        if entry["decided"]:
            assert all(entry["score_min"] > other["score_max"] for other in below), entry["label"]
        else:
            assert entry["challenger_rank"] is not None
            assert entry["swayed_by"] is not None or any(
                other["score_max"] >= entry["score_min"] for other in below
            )
    assert any(entry["decided"] for entry in entries), [
        (e["rank"], e["provider"], e["score_min"], e["score_max"]) for e in entries
    ]

    # What is still missing, and the command that fills it.
    for vendor in ("steadyco", "islandco"):
        evidence = cells[vendor]["evidence"]
        assert evidence["throughput"]["state"] == "missing" and evidence["load"]["state"] == "missing"
        assert evidence["questionnaire"]["state"] == "missing"
        assert (
            f"linkvet questionnaire export --provider {vendor} --out {vendor}.xlsx" in cells[vendor]["next"]
        )
    # steadyco's BGP line: traced (from the emulated lab, straight to the region), but no route can check it.
    steady_route = cells["steadyco"]["evidence"]["route_out"]
    assert steady_route["state"] == "partial" and "cannot be checked from the route" in steady_route["text"]
    assert cells["islandco"]["evidence"]["route_back"]["state"] == "partial"  # accept without --return-route
    vendorx = cells["vendorx"]["evidence"]
    assert vendorx["throughput"]["state"] == "done" and vendorx["load"]["state"] == "done"
    assert vendorx["questionnaire"]["state"] == "done" and vendorx["acceptance"]["state"] == "missing"
    # The next step named for a test URL works: it gives steadyco's candidate the URL, no second candidate.
    step = f"linkvet eval add {EVAL} --provider steadyco --region tokyo --offering h100-sxm-ib --test-ip URL"
    assert step in cells["steadyco"]["next"]
    added = team.run(*step.split()[1:-1], "http://198.18.2.1/large.bin", "--db", db)
    assert "1 test endpoint added to steadyco/tokyo/h100-sxm-ib of story" in added
    again = {c["provider"]: c for c in team.json("eval", "show", EVAL)["candidates"]}
    assert len(again) == 3 and again["steadyco"]["endpoints"] == ["198.18.2.1", "http://198.18.2.1/large.bin"]
    assert (
        again["steadyco"]["evidence"]["throughput"]["next"]
        == f"linkvet schedule --eval {EVAL} --vantage shanghai"
    )

    print(
        f"\nstory: set up in {setup_s:.0f} s, measured until {measured_s:.0f} s, checked at "
        f"{time.monotonic() - started:.0f} s; window {window}; rounds: {rounds}"
    )
    print(team.run("eval", "show", EVAL, "--db", db))
    print(team.run("score", "--eval", EVAL, "--top", "3", "--db", db))
