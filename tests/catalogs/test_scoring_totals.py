"""Every number a ranking shows is tied to its parts: an entry's total is the weighted combination of its own
judgements, for every method, and so are its TOPSIS closeness, its margins over the next entry and the
sensitivity check's first place.

What "its own judgements" combine to, precisely (`RankedOffering.judgements`, the weighted ones, in
checklist order, each with `weight` wᵢ and `counted` cᵢ):
- `total` = Σ wᵢ·cᵢ / Σ wᵢ, whatever the method;
- with TOPSIS, `topsis` of an entry that passes every gate is the TOPSIS closeness of its row in the matrix
  whose rows are the `counted` vectors of every entry that passes every gate (Hwang & Yoon: each column
  divided by its Euclidean norm, times wᵢ / Σ wᵢ; closeness d⁻ / (d⁺ + d⁻) to the column-wise best and worst,
  1 at the ideal best), and entries are ordered by it; an entry that fails a gate has no closeness;
- a judgement's `score`, when known, is what it counts (`counted` = `score`);
- a margin over the next entry is (wᵢ / Σ wᵢ)·(cᵢ − cᵢ of the next entry).
The reference sums below are written out in plain Python, independently of the ranking's numpy.
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

import pytest

from catalogs.link_quality import LinkSummary
from catalogs.loader import CatalogSet, load_catalogs
from catalogs.needs import NeedsProfile, load_needs
from catalogs.scoring import Judgement, RankedOffering, Ranking, rank_offerings
from tests.catalogs.test_scoring import EXAMPLE_NEEDS


def measured_links(catalogs: CatalogSet) -> list[LinkSummary]:
    """Link summaries for two regions in three: good, bad, thin, off-peak only; some with a traced route
    that agrees with the claimed line type and some with one that contradicts it."""
    links = []
    for n, catalog in enumerate(catalogs.providers):
        for m, region in enumerate(catalog.regions):
            k = n * 7 + m
            if k % 3 == 0:
                continue
            stats = {
                "rtt_median_ms": 100.0 + (k * 37) % 300,
                "rtt_p95_ms": 120.0 + (k * 37) % 300,
                "loss": (k % 10) / 200,
                "jitter_ms": (k % 13) * 3.0,
                "throughput_mbps": None if k % 2 else 50.0 + k,
                "samples": (k * 997) % 60000,
                "hours": (k * 13) % 300 / 2,
            }
            agrees = k % 8 != 1
            route = {
                "claimed_line_type": "cn2-gia",
                "measured_class": "cn2-gia" if agrees else "163",
                "agrees": agrees,
                "traces": k % 6,
                "agreeing_traces": k % 6 if agrees else 0,
                "evidence": None if agrees else "traced via 202.97 (163)",
            }
            links.append(
                LinkSummary.from_dict(
                    {
                        "provider": catalog.provider.id,
                        "region": region.id,
                        "vantage": "shanghai-office",
                        "peak": stats if k % 7 else None,
                        "offpeak": stats,
                        "route": route if k % 4 == 1 else None,
                    }
                )
            )
    return links


def weighted(entry: RankedOffering) -> list[Judgement]:
    return [j for j in entry.judgements if j.kind == "weighted"]


def reference_topsis(rows: list[list[float]], weights: list[float]) -> list[float]:
    total_weight = sum(weights)
    columns = range(len(weights))
    norms = [math.sqrt(sum(row[c] ** 2 for row in rows)) for c in columns]
    scaled = [
        [(row[c] / norms[c] if norms[c] > 0 else 0.0) * weights[c] / total_weight for c in columns]
        for row in rows
    ]
    best = [max(row[c] for row in scaled) for c in columns]
    worst = [min(row[c] for row in scaled) for c in columns]
    closeness = []
    for row in scaled:
        d_best = math.sqrt(sum((row[c] - best[c]) ** 2 for c in columns))
        d_worst = math.sqrt(sum((row[c] - worst[c]) ** 2 for c in columns))
        closeness.append(1.0 if d_best == 0 else d_worst / (d_best + d_worst))
    return closeness


def check_totals(ranking: Ranking) -> None:
    for entry in ranking.entries:
        parts = weighted(entry)
        assert [j.criterion for j in parts] == list(ranking.weights), entry.label
        assert [j.weight for j in parts] == list(ranking.weights.values()), entry.label
        total_weight = sum(j.weight for j in parts)
        expected = sum(j.weight * (j.counted or 0.0) for j in parts) / total_weight
        assert entry.total == pytest.approx(expected, rel=1e-12, abs=1e-12), entry.label
        for j in parts:
            assert j.counted is not None and 0.0 <= j.counted <= 1.0, (entry.label, j.criterion)
            if j.score is not None:
                assert j.counted == j.score, (entry.label, j.criterion)
        assert entry.eligible == (not entry.failed_gates), entry.label


def check_margins(ranking: Ranking) -> None:
    entries = ranking.entries
    for entry, following in pairwise(entries):
        if entry.next_rank is None:
            assert entry.eligible != following.eligible  # only the last of its group has no next
            continue
        assert entry.next_rank == following.rank
        total_weight = sum(ranking.weights.values())
        mine = {j.criterion: j for j in weighted(entry)}
        theirs = {j.criterion: j for j in weighted(following)}
        for criterion, lead in entry.margins:
            difference = (mine[criterion].counted or 0.0) - (theirs[criterion].counted or 0.0)
            assert lead == pytest.approx(mine[criterion].weight / total_weight * difference, abs=1e-12)
            assert lead > 0


def check_topsis(ranking: Ranking) -> None:
    eligible = [e for e in ranking.entries if e.eligible]
    assert all(e.topsis is None for e in ranking.entries if not e.eligible)
    if not eligible:
        return
    rows = [[j.counted or 0.0 for j in weighted(e)] for e in eligible]
    expected = reference_topsis(rows, list(ranking.weights.values()))
    for entry, closeness in zip(eligible, expected, strict=True):
        assert entry.topsis == pytest.approx(closeness, rel=1e-9, abs=1e-12), entry.label
    topsis = [e.topsis or 0.0 for e in eligible]
    assert topsis == sorted(topsis, reverse=True)  # ordered by closeness (ties by ids)


CASES: dict[str, dict[str, Any]] = {
    "70b-full": {},
    "7b-lora": {"needs": "example-7b-lora.toml"},
    "70b-price-heavy": {"weights": {"price": 20, "line_quality": 5, "intra_node": 0.5}},
    "70b-on-32-gpus": {
        "needs": NeedsProfile.model_validate(
            {
                "model": {"params": 70e9},
                "training": {"mode": "full", "strategy": "zero3"},
                "cluster": {"gpus_wanted": 32},
                "location": {"vantage": "shanghai-office"},
                "budget": {"gpu_hour_max": 6.0, "currency": "USD", "exchange_rates": {"CNY": 0.14}},
            }
        )
    },
}


@pytest.mark.parametrize("method", ["weighted-sum", "topsis"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_total_is_the_weighted_combination_of_its_own_judgements(case: str, method: str) -> None:
    settings = CASES[case]
    needs_given = settings.get("needs", "example-70b-full.toml")
    needs = (
        needs_given
        if isinstance(needs_given, NeedsProfile)
        else load_needs(EXAMPLE_NEEDS.with_name(needs_given))
    )
    catalogs = load_catalogs()
    ranking = rank_offerings(
        needs,
        catalogs,
        measured_links(catalogs),
        weights=settings.get("weights"),
        method=method,  # type: ignore[arg-type]
    )
    assert len(ranking.entries) > 100
    # the cases reach every path that turns a score into what it counts: unknowns, relative prices, scaling
    counted = [(j, e) for e in ranking.entries for j in weighted(e)]
    assert any(j.score is None for j, _ in counted)
    assert any(j.criterion == "price" and j.score is not None for j, _ in counted)
    assert any("counted" in j.reason for j, _ in counted) or case == "7b-lora"
    check_totals(ranking)
    check_margins(ranking)
    if method == "topsis":
        check_topsis(ranking)
    else:
        assert all(e.topsis is None for e in ranking.entries)
        eligible_totals = [e.total for e in ranking.entries if e.eligible]
        assert eligible_totals == sorted(eligible_totals, reverse=True)
    first = next((e for e in ranking.entries if e.eligible), None)
    assert ranking.sensitivity.top == (first.label if first else None)
