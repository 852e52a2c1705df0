"""Measured line quality for scoring: the analysis's MeasuredLink turned into LinkSummary field by field,
exactly as the published JSON shape reads back; from the store and from a `--links` file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalogs.errors import LinkSummaryError
from catalogs.link_quality import LinkSummary, to_link_summary
from desktop.usecases.links import measured_link_summaries, read_link_file, stored_link_summaries
from probes.analysis import Scope, link_summaries
from probes.store import Store
from tests.analysis.synthetic import utc_us

ROUTE = {
    "claimed_line_type": "cn2-gia",
    "measured_class": "163",
    "agrees": False,
    "traces": 8,
    "agreeing_traces": 2,
    "evidence": "traced via 202.97 (163) on 6 of 8 traces",
}


@pytest.mark.parametrize(
    "scope", [None, Scope(since_us=utc_us(2026, 11, 3, 7, 30), until_us=utc_us(2026, 11, 5, 1, 15))]
)
def test_the_summary_is_the_one_its_json_shape_reads_back_as(week_store: Store, scope: Scope | None) -> None:
    links = link_summaries(week_store, scope, routes={("raksmart", "los-angeles"): ROUTE})
    assert {link.region for link in links} == {"los-angeles", "us-west-1"}
    for link in links:
        summary = to_link_summary(link)
        from_json = LinkSummary.from_dict(json.loads(json.dumps(link.as_dict())))
        assert summary == from_json
        # the same values of the same types: what scoring prints (`score --json`) cannot tell them apart
        assert json.dumps(summary.as_dict()) == json.dumps(from_json.as_dict())
    la = to_link_summary(next(link for link in links if link.region == "los-angeles"))
    assert la.route is not None and la.route.as_dict() == ROUTE
    assert la.period_start is not None and la.period_start.microsecond == 0  # published in whole seconds


def test_the_stores_summaries_are_the_analysis_results(week_store: Store, week_store_path: Path) -> None:
    expected = [LinkSummary.from_dict(link.as_dict()) for link in link_summaries(week_store)]
    assert measured_link_summaries(week_store) == expected
    # From the file, with the catalogs' claims: no traces here, so the claims change nothing.
    assert stored_link_summaries(week_store_path) == expected


def test_no_store_yet_is_nothing_measured(tmp_path: Path) -> None:
    assert stored_link_summaries(tmp_path / "none.sqlite3") == []
    assert not (tmp_path / "none.sqlite3").exists()  # a reader never creates the store


def test_a_links_file_reads_back_and_a_bad_one_names_file_and_entry(
    week_store: Store, tmp_path: Path
) -> None:
    good = tmp_path / "links.json"
    good.write_text(json.dumps([link.as_dict() for link in link_summaries(week_store)]))
    assert read_link_file(good) == measured_link_summaries(week_store)
    bad = tmp_path / "bad.json"
    entry = link_summaries(week_store)[0].as_dict()
    entry["peak"]["loss"] = 6.1  # percent, not a fraction
    bad.write_text(json.dumps([entry]))
    with pytest.raises(LinkSummaryError, match=r"bad\.json: \[0\]\.peak\.loss: expected a fraction 0\.\.1"):
        read_link_file(bad)
    for text, words in (("{}", "expected a JSON list"), ("[", "not valid JSON")):
        bad.write_text(text)
        with pytest.raises(LinkSummaryError, match=words):
            read_link_file(bad)
    with pytest.raises(LinkSummaryError, match=r"missing\.json: no such file"):
        read_link_file(tmp_path / "missing.json")
