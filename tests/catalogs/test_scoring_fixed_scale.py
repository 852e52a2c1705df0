"""Scores that mean the same on every printout (issue 28 §5): a candidate's score, bounds and every judgement
are the same whether it is ranked alone, beside two others, or among every bundled offering; only the ranks
(and TOPSIS's closeness, relative by definition) may differ. The ranking reads as one story: the figure it
is ordered by is the one shown first; a place is never decided while another candidate could overtake it;
a peak measured on few evenings counts little and says how many more would settle it."""

from __future__ import annotations

from typing import Any

import pytest

from catalogs.checklist import default_checklist
from catalogs.link_quality import LinkSummary
from catalogs.loader import load_catalogs
from catalogs.needs import load_needs
from catalogs.scoring import RankedOffering, Ranking, evidence_confidence, rank_offerings
from tests.catalogs._builders import catalog, offering, region
from tests.catalogs.test_scoring import EXAMPLE_NEEDS, NVLINK_IB, job, only, priced, summary
from tests.catalogs.test_scoring_totals import measured_links

# Three candidates a team might shortlist: NVSwitch + InfiniBand with a public price, a cheaper H100 node whose
# fabric is not stated, and an 8 × A100 node (older GPU, NVLink).
SHORTLIST = (
    ("coreweave", "hgx-h100", None),
    ("cudo", "sapphire-rapids-h100_8x64v128gb", "no-kristiansand-1"),
    ("lambda", "gpu_8x_a100_80gb_sxm4", "us-east-1"),
)


def _figures(entry: RankedOffering) -> dict[str, Any]:
    """Everything of an entry that must not depend on the other candidates."""
    return {
        "total": entry.total,
        "score_min": entry.score_min,
        "score_max": entry.score_max,
        "coverage": entry.coverage,
        "eligible": entry.eligible,
        "judgements": [
            (j.criterion, j.status, j.score, j.counted, j.counted_min, j.counted_max, j.reason)
            for j in entry.judgements
        ],
        "peak_evenings_needed": entry.peak_evenings_needed,
    }


def _only(catalogs: Any, keep: set[tuple[str, str, str | None]]) -> list[Any]:
    """The bundled catalogs cut down to the given candidates (provider, offering, region)."""
    cut = []
    for provider in catalogs.providers:
        offerings = []
        for o in provider.offerings:
            regions = tuple(r for r in o.regions if (provider.provider.id, o.id, r) in keep)
            if (provider.provider.id, o.id, None) in keep and not o.regions:
                offerings.append(o)
            elif regions:
                offerings.append(o.model_copy(update={"regions": regions}))
        if offerings:
            data = provider.data.model_copy(update={"offerings": tuple(offerings)})
            cut.append(type(provider)(provider.path, data))
    return cut


def _entry(ranking: Ranking, key: tuple[str, str, str | None]) -> RankedOffering:
    return next(e for e in ranking.entries if (e.provider, e.offering, e.region) == key)


@pytest.mark.parametrize("method", ["weighted-sum", "topsis"])
@pytest.mark.parametrize("needs_file", ["example-70b-full.toml", "example-7b-lora.toml"])
def test_a_candidate_scores_the_same_alone_among_three_and_among_every_offering(
    needs_file: str, method: str
) -> None:
    needs = load_needs(EXAMPLE_NEEDS.with_name(needs_file))
    everything = load_catalogs()
    links = measured_links(everything)  # good, bad, thin and off-peak lines, some routes contradicted

    def ranked(catalogs: Any) -> Ranking:
        return rank_offerings(needs, catalogs, links, method=method)  # type: ignore[arg-type]

    all_of_them = ranked(everything)
    three = ranked(_only(everything, set(SHORTLIST)))
    assert len(three.entries) == 3 and len(all_of_them.entries) > 600
    for key in SHORTLIST:
        alone = ranked(_only(everything, {key}))
        (single,) = alone.entries
        expected = _figures(single)
        assert _figures(_entry(three, key)) == expected, key
        assert _figures(_entry(all_of_them, key)) == expected, key
    # the ranks differ (three candidates against 663), the scores do not
    assert {_entry(three, k).rank for k in SHORTLIST} == {1, 2, 3}
    assert max(_entry(all_of_them, k).rank for k in SHORTLIST) > 3


def test_prices_are_scored_against_a_fixed_reference_not_the_cheapest_loaded() -> None:
    # The same offering beside a much cheaper one: before, the cheaper one set "the best price" and this one's
    # price score halved. Now each is scored against the checklist's reference price.
    cheap = NVLINK_IB.replace('"nvlink-ib"', '"cheap"').replace("gpu_hour = 2.0", "gpu_hour = 0.5")
    needs = job(cluster__gpus_wanted=8)
    alone = rank_offerings(needs, [catalog("acme", region("r1") + NVLINK_IB)], weights=only(price=1))
    beside = rank_offerings(needs, [catalog("acme", region("r1") + NVLINK_IB + cheap)], weights=only(price=1))
    mine = alone.entries[0].judgement("price")
    assert _entry(beside, ("acme", "nvlink-ib", "r1")).judgement("price") == mine
    # 8 GPUs at 2.00 = 16.00 USD/hour against the reference: the job on 8 × 80 GB GPUs at 1.50 USD/GPU-hour
    reference = default_checklist().get("price").params["reference_usd_per_gpu_hour"]
    assert mine.score == pytest.approx(min(1.0, 8 * reference / 16.0))
    assert f"against the reference {8 * reference:,.2f} USD/hour" in mine.reason
    assert _entry(beside, ("acme", "cheap", "r1")).judgement("price").score == 1.0


def test_a_budget_in_another_currency_converts_the_reference_or_says_why_not() -> None:
    body = region("r1") + NVLINK_IB.replace('currency = "USD"', 'currency = "CNY"').replace(
        "gpu_hour = 2.0", "gpu_hour = 14.0"
    )
    providers = [catalog("acme", body)]
    no_rate = job(cluster__gpus_wanted=8, budget__currency="CNY")
    judged = rank_offerings(no_rate, providers, weights=only(price=1)).entries[0].judgement("price")
    assert judged.score is None
    assert (
        "the reference price is in USD and the needs profile gives no exchange rate for it" in judged.reason
    )
    with_rate = job(cluster__gpus_wanted=8, budget__currency="CNY", budget__exchange_rates={"USD": 7.0})
    judged = rank_offerings(with_rate, providers, weights=only(price=1)).entries[0].judgement("price")
    reference = default_checklist().get("price").params["reference_usd_per_gpu_hour"]
    assert judged.score == pytest.approx(min(1.0, reference * 7.0 / 14.0))


def test_the_figure_that_orders_the_ranking_is_shown_first_and_agrees_with_the_order() -> None:
    needs = load_needs(EXAMPLE_NEEDS)
    for method, order, ordered_by in (
        ("weighted-sum", "score-min", "score-min"),
        ("weighted-sum", "total", "total"),
        ("topsis", "total", "topsis"),
    ):
        ranking = rank_offerings(needs, load_catalogs(), method=method, order=order)  # type: ignore[arg-type]
        assert ranking.ordered_by == ordered_by and ranking.as_dict()["ordered_by"] == ordered_by
        passing = [e for e in ranking.entries if e.eligible]
        ratings = [e.rating for e in passing]
        assert ratings == sorted(ratings, reverse=True), method
        shown = {"score-min": "score at worst", "total": "score", "topsis": "TOPSIS closeness"}[ordered_by]
        for entry in passing[:5]:
            assert entry.ordered_by == ordered_by
            assert f"ranked by its {shown} {entry.rating:.3f}" in entry.explanation.split(". ")[0]


def test_a_place_is_never_decided_while_the_sensitivity_line_says_another_could_overtake_it() -> None:
    # Two offerings known on everything counted: the bounds alone would call the first place decided, but
    # moving the price weight by 20 % puts the other first (the sensitivity line says so).
    pcie = (
        NVLINK_IB.replace('"nvlink-ib"', '"pcie"')
        .replace('"nvlink"', '"pcie"')
        .replace("gpu_hour = 2.0", "gpu_hour = 1.0")
    )
    providers = [catalog("acme", region("r1") + NVLINK_IB + pcie)]
    # prices against 1.00 USD/GPU-hour: nvlink-ib 0.5, pcie 1.0; pcie (0.1 + 1.9) / 2.9 leads nvlink-ib
    # (1 + 1.9 · 0.5) / 2.9, and the price weight × 0.8 reverses them
    ranking = rank_offerings(
        job(cluster__gpus_wanted=8), providers, weights=only(intra_node=1, price=1.9), checklist=priced(1.0)
    )
    first, second = ranking.entries
    assert first.offering == "pcie"
    assert first.score_min > second.score_max  # the unknowns cannot reverse them …
    assert not ranking.sensitivity.stable  # … a weight moved ±20 % can
    assert first.decided is False and first.challenger_rank == 2 and first.swayed_by is not None
    criterion, factor = first.swayed_by
    assert (criterion, factor) in {(c.criterion, c.factor) for c in ranking.sensitivity.changes}
    assert "Place not decided: with the weight of" in first.explanation
    assert "#2 would rank above it" in first.explanation


def test_a_place_is_not_decided_while_any_candidate_below_could_overtake_it() -> None:
    # a is ahead of b whatever b's unknowns are, but c, known on nothing, could overtake a with its unknowns:
    # a's place is not decided, and c (#3) is named, not b (#2).
    base = {"gpu": '"H100 SXM"', "gpus_per_node": "8"}
    a = offering("a", '["r1"]', **base, bmc_ipmi="true", management_network_separate="true", cooling='"air"')
    b = offering(
        "b", '["r1"]', **base, bmc_ipmi="false", management_network_separate="false", cooling='"air"'
    )
    c = offering("c", '["r1"]', **base)
    weights = only(bmc_ipmi=3, management_network=2, cooling=2)
    ranking = rank_offerings(job(), [catalog("acme", region("r1") + a + b + c)], weights=weights)
    assert [e.offering for e in ranking.entries] == ["a", "b", "c"]
    first, second, third = ranking.entries
    assert first.score_min > second.score_max  # against the next one alone it would read "decided"
    assert third.score_max >= first.score_min
    assert first.decided is False and first.challenger_rank == 3 and first.swayed_by is None
    assert "Place not decided: #3 could still overtake it" in first.explanation
    assert ranking.sensitivity.overtakers == ("acme/c in r1",)
    assert second.decided is False and second.challenger_rank == 3


def _thin_peak(evenings: int | None, samples: int, minutes: float | None) -> LinkSummary:
    return summary(samples=samples, hours=1, minutes=minutes, evenings=evenings)


def test_a_peak_measured_on_few_evenings_counts_little_and_says_how_many_more_would_settle_it() -> None:
    providers = [catalog("acme", region("r1") + NVLINK_IB)]
    # Two evenings of a 15-minute peak window, 500 samples: trusted min(2/7, 500/1000); a week (7 evenings)
    # and 1000 samples (at 250 an evening: 4 evenings) settle it, so 5 more evenings.
    link = _thin_peak(evenings=2, samples=500, minutes=30)
    ranking = rank_offerings(job(), providers, [link], weights=only(line_quality=1))
    (entry,) = ranking.entries
    evidence = default_checklist().evidence
    assert evidence_confidence(link.peak, 24, 1000, evidence.full_confidence_evenings) == pytest.approx(2 / 7)  # type: ignore[arg-type]
    judged = entry.judgement("line_quality")
    assert judged.counted_max - judged.counted_min == pytest.approx(1 - 2 / 7)  # type: ignore[operator]
    assert entry.peak_evenings == 2 and entry.peak_evenings_needed == 5
    assert entry.as_dict()["peak_evenings_needed"] == 5
    assert "5 more peak evenings would settle it" in judged.reason
    assert "over 30 min / on 2 evenings / 500 samples" in judged.reason  # the time measured, not "over 1 h"
    assert "measured at peak on 2 evenings, which counts little: 5 more would settle it" in entry.explanation
    # a week of evenings with enough samples: settled, nothing more to say
    settled = rank_offerings(job(), providers, [_thin_peak(7, 7000, 7 * 180)], weights=only(line_quality=1))
    (entry,) = settled.entries
    assert entry.peak_evenings_needed == 0 and "would settle it" not in entry.explanation
    # few samples an evening: one evening of 100 samples needs 1000 / 100 = 10 evenings for its samples
    sparse = rank_offerings(job(), providers, [_thin_peak(1, 100, 15)], weights=only(line_quality=1))
    assert sparse.entries[0].peak_evenings_needed == 9


def test_a_summary_without_evenings_keeps_the_hours_rule() -> None:
    providers = [catalog("acme", region("r1") + NVLINK_IB)]
    ranking = rank_offerings(job(), providers, [summary(samples=600, hours=6)], weights=only(line_quality=1))
    (entry,) = ranking.entries
    assert entry.peak_evenings is None and entry.peak_evenings_needed is None
    judged = entry.judgement("line_quality")
    assert judged.counted_max - judged.counted_min == pytest.approx(1 - 6 / 24)  # type: ignore[operator]
