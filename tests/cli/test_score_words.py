"""`linkvet score` names criteria by their shown titles and the method and order in words, in English and in
Chinese, in every sentence (the table, the explanations, the sensitivity line, the notes): never a raw id
such as `intra_node`, `bmc_ipmi` or "Method: weighted-sum". The JSON keeps the ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.catalogs._builders import catalog_text, offering, region
from tests.catalogs.test_chinese import EXAMPLE, linkvet
from tests.raw_ids import raw_ids

CONTRADICTED = (
    '{ value = true, source = "contradicted on gpu-01 at 2026-12-01T00:00:00Z by linkvet accept", '
    'as_of = "2026-12-01", standing = "contradicted" }'
)


def _scenario(tmp_path: Path) -> tuple[Path, Path]:
    """A catalog whose candidates reach every kind of sentence: a contradicted fact, a failed gate (over
    budget), a line measured on two peak evenings whose route contradicts the claim, unknowns."""
    base = {"gpu": '"H100 SXM"', "gpus_per_node": "8", "currency": '"USD"'}
    body = (
        region("los-angeles", '["cn2-gia"]')
        + offering(
            "h100x8",
            '["los-angeles"]',
            **base,
            prices="[{ gpu_hour = 2.5 }]",
            intra_node__kind='"nvlink"',
            bmc_ipmi=CONTRADICTED,
        )
        + offering("dear", '["los-angeles"]', **base, prices="[{ gpu_hour = 40.0 }]", cooling='"air"')
        + offering("bare", '["los-angeles"]', gpu='"H100 SXM"', gpus_per_node="8")
    )
    catalogs = tmp_path / "catalogs"
    catalogs.mkdir()
    (catalogs / "raksmart.toml").write_text(catalog_text("raksmart", body), encoding="utf-8")
    peak = {"rtt_median_ms": 190.0, "rtt_p95_ms": 240.0, "loss": 0.01, "jitter_ms": 9.0, "samples": 400}
    link = {
        "provider": "raksmart",
        "region": "los-angeles",
        "vantage": "shanghai-office",
        "peak": {**peak, "minutes": 30, "evenings": 2},
        "offpeak": {**peak, "rtt_median_ms": 160.0, "minutes": 600},
        "route": {
            "claimed_line_type": "cn2-gia",
            "measured_class": "163",
            "agrees": False,
            "traces": 3,
            "agreeing_traces": 0,
            "evidence": "traced via 202.97 (163) on 3 of 3 traces",
        },
    }
    links = tmp_path / "links.json"
    links.write_text(json.dumps([link]), encoding="utf-8")
    return catalogs, links


@pytest.mark.parametrize("method", ["weighted-sum", "topsis"])
@pytest.mark.parametrize("lang", ["en_US.UTF-8", "zh_CN.UTF-8"])
def test_no_sentence_of_linkvet_score_names_a_raw_id(tmp_path: Path, lang: str, method: str) -> None:
    catalogs, links = _scenario(tmp_path)
    args = ["--needs", EXAMPLE, "--catalogs", str(catalogs), "--links", str(links), "--method", method]
    result = linkvet(tmp_path, lang, "score", *args)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    chinese = lang.startswith("zh")
    # the scenario reaches the sentences that used to carry ids
    if chinese:
        assert "排名" in text or "第 1 名" in text
    else:
        assert "Fails: Within budget" in text and "Contradicted fact: Out-of-band management" in text
        assert "Method: weighted sum" in text or "Method: TOPSIS" in text
        assert "more peak evenings would settle it" in text
    assert raw_ids(text, chinese=chinese) == [], text
    bundled = linkvet(tmp_path, lang, "score", "--needs", EXAMPLE, "--top", "12", "--method", method)
    assert bundled.returncode == 0, bundled.stderr
    assert raw_ids(bundled.stdout, chinese=chinese) == []


def test_the_json_keeps_the_ids(tmp_path: Path) -> None:
    catalogs, links = _scenario(tmp_path)
    args = ["--needs", EXAMPLE, "--catalogs", str(catalogs), "--links", str(links), "--json"]
    result = linkvet(tmp_path, "zh_CN.UTF-8", "score", *args)
    data = json.loads(result.stdout)
    assert data["method"] == "weighted-sum" and data["order"] == "score-min"
    assert data["ordered_by"] == "score-min"
    entry = next(e for e in data["entries"] if e["offering"] == "h100x8")
    assert {j["criterion"] for j in entry["judgements"]} >= {"intra_node", "bmc_ipmi", "line_quality"}
    assert entry["peak_evenings"] == 2 and entry["peak_evenings_needed"] == 5
    assert "ask_next" in entry and all("criterion" in s for s in entry["ask_next"])
