"""`linkvet accept import report.json` (issue 14, the report's way into scoring): a replayed report's checks
become verified facts with the report's provenance, contradicted claims are marked and count 0, `linkvet
score --json` shows the verified facts with their provenance, the export has an Acceptance checks sheet, and
importing the same report twice changes nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from catalogs.needs import EXAMPLE_NEEDS, load_needs
from catalogs.scoring import rank_offerings
from catalogs.user import load_with_user
from desktop.usecases.accept import accept
from desktop.usecases.accept_import import import_report
from desktop.usecases.errors import InputError
from probes.accept import AcceptOptions
from tests.accept.conftest import CATALOGS, SCENARIOS


def report_of(scenario: str, offering: str, tmp_path: Path) -> Path:
    catalogs = load_with_user([CATALOGS], include_user=False)
    report = accept(
        AcceptOptions(replay_dir=SCENARIOS / scenario),
        catalogs=catalogs,
        provider="trialco",
        offering=offering,
        region="frankfurt",
    )
    path = tmp_path / f"{scenario}.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def entry(ranking: Any, offering: str) -> Any:
    return next(e for e in ranking.entries if e.offering == offering)


def test_a_pcie_box_sold_as_nvswitch_turns_into_verified_and_contradicted_facts(tmp_path: Path) -> None:
    folder = tmp_path / "user"
    report = report_of("pcie-box", "h100-sxm-8x", tmp_path)
    needs = load_needs(EXAMPLE_NEEDS)
    before = entry(rank_offerings(needs, load_with_user([CATALOGS], folder)), "h100-sxm-8x")
    result = import_report(report, load_with_user([CATALOGS], folder), folder)
    assert result.overlay == folder / "trialco.overlay.toml" and result.host == "h100-pcie"
    assert result.checks_added == len(json.loads(report.read_text())["checks"])
    catalogs = load_with_user([CATALOGS], folder)
    offering = next(o for o in catalogs.provider("trialco").offerings if o.id == "h100-sxm-8x")  # type: ignore[union-attr]
    # what the server showed stands in the catalog now, with where and when it was seen
    assert offering.intra_node is not None and offering.intra_node.kind == "pcie"
    kind = offering.fact("intra_node.kind")
    assert kind.standing == "verified" and kind.source.startswith("verified on h100-pcie at ")  # type: ignore[union-attr]
    assert offering.gpu == "H100 PCIe" and offering.fact("gpu").standing == "verified"
    # claims with no measured value to put in their place are contradicted
    assert offering.fact("inter_node.fabric").standing == "contradicted"
    after = entry(rank_offerings(needs, catalogs), "h100-sxm-8x")
    assert after.judgement("intra_node").score == 0.0 < before.judgement("intra_node").score  # type: ignore[operator]
    assert after.judgement("inter_node_fabric").score == 0.0
    unverified_unknown = catalogs.provider("trialco").offerings  # type: ignore[union-attr]
    assert unverified_unknown  # the other offerings keep their claims
    # `score --json` shows the verified facts with their provenance, and the checks
    data = after.as_dict()
    settled = {f["fact"]: f for f in data["verified_facts"]}
    assert settled["offering.intra_node.kind"]["standing"] == "verified"
    assert settled["offering.intra_node.kind"]["source"].startswith("verified on h100-pcie at ")
    assert settled["offering.inter_node.fabric"]["standing"] == "contradicted"
    assert settled["offering.intra_node.kind"]["file"] == str(folder / "trialco.overlay.toml")
    verdicts = {c["fact"]: c["verdict"] for c in data["acceptance_checks"]}
    assert verdicts["intra_node.kind"] == "contradicted" and verdicts["gpus_per_node"] == "confirmed"
    assert re.search(r"Verified fact: [^=.]+ = pcie", after.explanation), after.explanation
    assert "Acceptance checks:" in after.explanation
    # the same report again changes nothing
    text = (folder / "trialco.overlay.toml").read_bytes()
    again = import_report(report, load_with_user([CATALOGS], folder), folder)
    assert again.checks_added == 0 and {c.what for c in again.changes} <= {"unchanged"}
    assert (folder / "trialco.overlay.toml").read_bytes() == text


def test_a_confirmed_nvlink_node_is_verified_and_scores_above_what_was_contradicted(tmp_path: Path) -> None:
    folder = tmp_path / "user"
    import_report(
        report_of("nv18-box", "a100-nvlink-8x", tmp_path), load_with_user([CATALOGS], folder), folder
    )
    import_report(report_of("pcie-box", "h100-sxm-8x", tmp_path), load_with_user([CATALOGS], folder), folder)
    catalogs = load_with_user([CATALOGS], folder)
    ranking = rank_offerings(load_needs(EXAMPLE_NEEDS), catalogs)
    nvlink, pcie = entry(ranking, "a100-nvlink-8x"), entry(ranking, "h100-sxm-8x")
    verified = nvlink.judgement("intra_node")
    assert verified.source.standing == "verified" and verified.score > pcie.judgement("intra_node").score  # type: ignore[union-attr,operator]


def test_a_report_without_claims_or_for_an_unknown_offering_is_refused(tmp_path: Path) -> None:
    catalogs = load_with_user([CATALOGS], include_user=False)
    bare = accept(AcceptOptions(replay_dir=SCENARIOS / "pcie-box"))
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(bare), encoding="utf-8")
    with pytest.raises(InputError, match="checks no claims"):
        import_report(path, catalogs, tmp_path / "user")
    other = json.loads(report_of("pcie-box", "h100-sxm-8x", tmp_path).read_text())
    other["claims"]["offering"] = "nope"
    path.write_text(json.dumps(other), encoding="utf-8")
    with pytest.raises(InputError, match="trialco/nope, which is not in the catalogs"):
        import_report(path, catalogs, tmp_path / "user")


def test_done_when_the_report_imports_and_score_json_shows_the_verified_facts(
    run_linkvet, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    report = report_of("pcie-box", "h100-sxm-8x", tmp_path)
    imported = run_linkvet("accept", "import", str(report), "--catalogs", str(CATALOGS))
    assert imported.returncode == 0, imported.stderr
    assert "checks of trialco/h100-sxm-8x in frankfurt on h100-pcie" in imported.stdout
    assert "offering[h100-sxm-8x].intra_node.kind = pcie" in imported.stdout
    again = run_linkvet("accept", "import", str(report), "--catalogs", str(CATALOGS))
    assert again.returncode == 0 and "nothing new" in again.stdout
    scored = run_linkvet(
        "score",
        "--needs",
        str(EXAMPLE_NEEDS),
        "--catalogs",
        str(CATALOGS),
        "--json",
        "--links",
        str(_no_links(tmp_path)),
    )
    assert scored.returncode == 0, scored.stderr
    data = json.loads(scored.stdout)
    box = next(e for e in data["entries"] if e["offering"] == "h100-sxm-8x")
    facts = {f["fact"]: f for f in box["verified_facts"]}
    assert facts["offering.intra_node.kind"]["value"] == "pcie"
    assert facts["offering.intra_node.kind"]["source"].startswith("verified on h100-pcie at ")
    assert {"score_min", "score_max", "coverage"} <= set(box)
    exported = run_linkvet(
        "export",
        "--needs",
        str(EXAMPLE_NEEDS),
        "--catalogs",
        str(CATALOGS),
        "--out",
        str(tmp_path / "c.xlsx"),
    )
    assert exported.returncode == 0, exported.stderr
    from openpyxl import load_workbook

    book = load_workbook(tmp_path / "c.xlsx", read_only=True)
    assert "Acceptance checks" in book.sheetnames
    rows = list(book["Acceptance checks"].iter_rows(values_only=True))
    assert rows[0][:4] == ("Provider", "Offering", "Region", "Server")
    assert any(r[5] == "intra_node.kind" and r[9] == "contradicted" for r in rows[1:])
    ranking = next(iter(book["Ranking"].iter_rows(max_row=1, values_only=True)))
    headers = {str(h).replace(" (orders the ranking)", "") for h in ranking}
    assert {"Score at worst", "Score at best", "Known (%)", "Place", "Ask next"} <= headers, ranking


def _no_links(tmp_path: Path) -> Path:
    path = tmp_path / "links.json"
    path.write_text("[]", encoding="utf-8")
    return path


def test_islands_on_a_server_whose_offering_claims_nothing_contradict_the_derived_nvlink(
    tmp_path: Path,
) -> None:
    """The vendor said nothing about the link between the GPUs; scoring derives NVLink from the SXM part. The
    trial server shows two NVLink islands of four: that contradicts the derived value, it is stored as such,
    and the ranking no longer counts NVLink for it."""
    folder = tmp_path / "user"
    catalogs_dir = tmp_path / "catalogs"
    catalogs_dir.mkdir()
    unstated = (CATALOGS / "trialco.toml").read_text(encoding="utf-8") + (
        '\n[[offerings]]\nid = "a100-unstated-8x"\nname = "8x A100 80GB SXM"\ngpu = "A100 80GB SXM"\n'
        'gpus_per_node = 8\nregions = ["frankfurt"]\nsource = "hand-written test fixture"\nas_of = "2026-12"\n'
    )
    (catalogs_dir / "trialco.toml").write_text(unstated, encoding="utf-8")
    report = accept(
        AcceptOptions(replay_dir=SCENARIOS / "islands-box"),
        catalogs=load_with_user([catalogs_dir], include_user=False),
        provider="trialco",
        offering="a100-unstated-8x",
        region="frankfurt",
    )
    (check,) = [c for c in report["checks"] if c["fact"] == "intra_node.kind"]
    assert check["verdict"] == "contradicted" and check["claimed"] == "nvlink"
    assert "the GPU (A100 80GB SXM) implies NVLink" in check["evidence"]
    path = tmp_path / "islands.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    needs = load_needs(EXAMPLE_NEEDS)
    before = entry(rank_offerings(needs, load_with_user([catalogs_dir], folder)), "a100-unstated-8x")
    assert before.judgement("intra_node").score > 0  # type: ignore[operator]  # derived NVLink counted
    import_report(path, load_with_user([catalogs_dir], folder), folder)
    catalogs = load_with_user([catalogs_dir], folder)
    offering = next(o for o in catalogs.provider("trialco").offerings if o.id == "a100-unstated-8x")  # type: ignore[union-attr]
    assert offering.fact("intra_node.kind").standing == "contradicted"
    after = entry(rank_offerings(needs, catalogs), "a100-unstated-8x")
    assert after.judgement("intra_node").score == 0.0
    assert re.search(r"Contradicted fact: [^=.]+ = nvlink", after.explanation), after.explanation
