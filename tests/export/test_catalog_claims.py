"""Issue 7, done when: a region whose catalog claims a line type its traces contradict is flagged in
`linkvet score` and `linkvet export`, also when the traced targets carry no line-type label (the claim is then
the catalog's)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import pandas as pd

from catalogs.link_quality import catalog_claims
from catalogs.loader import load_catalogs
from catalogs.needs import EXAMPLE_NEEDS
from probes.store import Store
from probes.target import Method, Target
from tests.analysis.synthetic import Series, StepModel, save_traces, utc_us, write_series
from tests.catalogs._builders import catalog_text, offering, region

Run = Callable[..., CompletedProcess[str]]
SAN_JOSE = Target(method=Method.ICMP, host="127.0.0.1", provider="raksmart", region="san-jose")


def test_the_bundled_claims_name_the_checkable_line() -> None:
    claims = catalog_claims(load_catalogs())
    # RakSmart's regions claim ["cn2-gia", "bgp"]: CN2 GIA is what a trace can check (BGP names no backbone).
    assert claims[("raksmart", "san-jose")] == "cn2-gia"
    assert all(provider != "aws" for provider, _ in claims)  # AWS claims no line type


def _store_traced_via_163(path: Path) -> None:
    """A day of pings to RakSmart San Jose and eight unlabelled traces, six of them via 163 (202.97)."""
    traced = Target(method=Method.TRACE, host="127.0.0.9", provider="raksmart", region="san-jose")
    with Store(path) as store:
        write_series(store, [Series(SAN_JOSE, StepModel(150.0, 220.0))], utc_us(2026, 11, 2), 24)
        paths = [["10.0.0.1", "202.97.12.1", "202.97.50.1"]] * 6 + [
            ["10.0.0.1", "59.43.1.1", "59.43.2.2"]
        ] * 2
        save_traces(store, traced, paths, utc_us(2026, 11, 2, 3))


def _catalog_with_a_san_jose_offering(folder: Path) -> Path:
    """RakSmart as the bundled catalog words its regions (CN2 GIA and BGP), with an offering placed in San Jose
    (the bundled one states no regions, so nothing could be linked to a region's line)."""
    folder.mkdir()
    body = region("san-jose", '["cn2-gia", "bgp"]') + region("hong-kong", '["cn2-gia", "bgp"]')
    body += offering(
        "h100x8", '["san-jose", "hong-kong"]', gpu='"H100 SXM"', gpus_per_node="8", max_nodes="8"
    )
    (folder / "raksmart.toml").write_text(catalog_text("raksmart", body), encoding="utf-8")
    return folder


def test_score_flags_the_catalogs_claim_contradicted_by_traces(run_linkvet: Run, tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    _store_traced_via_163(db)
    catalogs = _catalog_with_a_san_jose_offering(tmp_path / "catalogs")
    result = run_linkvet(
        "score", "--needs", str(EXAMPLE_NEEDS), "--db", str(db), "--catalogs", str(catalogs), "--json"
    )
    assert result.returncode == 0, result.stderr
    entries = {e["region"]: e for e in json.loads(result.stdout)["entries"]}
    claim = next(j for j in entries["san-jose"]["judgements"] if j["criterion"] == "line_claim")
    assert (
        "claims CN2 GIA but the route measured as ChinaNet 163 (2 of 8 traces agree with the claim)"
        in claim["reason"]
    )
    assert "the catalog claims CN2 GIA, traced via 202.97" in claim["reason"]
    untraced = next(j for j in entries["hong-kong"]["judgements"] if j["criterion"] == "line_claim")
    assert "route not traced" in untraced["reason"]
    assert claim["score"] < (untraced["score"] if untraced["score"] is not None else 0.25)
    text = run_linkvet("score", "--needs", str(EXAMPLE_NEEDS), "--db", str(db), "--catalogs", str(catalogs))
    assert "route contradicts the claimed CN2 GIA" in text.stdout


def test_export_flags_it_with_or_without_a_needs_profile(run_linkvet: Run, tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    _store_traced_via_163(db)
    for name, extra in (("links.xlsx", ()), ("ranked.xlsx", ("--needs", str(EXAMPLE_NEEDS)))):
        out = tmp_path / name
        result = run_linkvet("export", "--db", str(db), "--out", str(out), *extra)
        assert result.returncode == 0, result.stderr
        row = pd.read_excel(out, sheet_name="Link quality", converters={"Route: traced class": str}).iloc[0]
        assert (row["Provider"], row["Region"]) == ("raksmart", "san-jose")
        assert row["Route: claimed line type"] == "cn2-gia"
        assert row["Route: traced class"] == "163"
        assert bool(row["Route agrees with claim"]) is False
        assert (row["Route: traces"], row["Route: traces agreeing"]) == (8, 2)
        assert row["Route evidence"].startswith("the catalog claims CN2 GIA, traced via 202.97")


def test_the_scorecard_reads_the_same_route_check(tmp_path: Path) -> None:
    """The GUI's scorecard reads the store through `desktop.usecases.links.stored_link_summaries` (a worker
    function, no Qt): with the bundled catalogs it checks the unlabelled traces against RakSmart's claim."""
    from desktop.usecases.links import stored_link_summaries
    from probes.peak import DEFAULT_PEAK_WINDOWS

    db = tmp_path / "s.sqlite3"
    _store_traced_via_163(db)
    (summary,) = stored_link_summaries(db, DEFAULT_PEAK_WINDOWS)
    assert summary.route is not None
    assert (summary.region, summary.route.claimed_line_type, summary.route.agrees) == (
        "san-jose",
        "cn2-gia",
        False,
    )
    own = load_catalogs(_catalog_with_a_san_jose_offering(tmp_path / "catalogs"))
    (summary,) = stored_link_summaries(db, DEFAULT_PEAK_WINDOWS, own)
    assert summary.route is not None and summary.route.evidence is not None
    assert summary.route.evidence.startswith("the catalog claims CN2 GIA")
