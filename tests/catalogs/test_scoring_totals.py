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
- a margin over the next entry is (wᵢ / Σ wᵢ)·(rᵢ − rᵢ of the next entry), r being what the order ranks by:
  `counted_min` under the default order (`score-min`), `counted` under `total` (and with TOPSIS);
- `score_min` = Σ wᵢ·`counted_min`ᵢ / Σ wᵢ and `score_max` = Σ wᵢ·`counted_max`ᵢ / Σ wᵢ, with `counted_min`ᵢ ≤
  `counted`ᵢ ≤ `counted_max`ᵢ; a criterion known outright counts the same at both ends, an unknown one 0 and
  the most its node shape allows; `coverage` = Σ wᵢ·kᵢ / Σ wᵢ, kᵢ the known share (1 known, 0 unknown, for
  thin line evidence 1 − (`counted_max`ᵢ − `counted_min`ᵢ));
- under `score-min` the entries that pass every gate are ordered by `score_min` (ties by total), and "ask
  next" lists the unknown criteria by (wᵢ / Σ wᵢ)·(`counted_max`ᵢ − `counted_min`ᵢ), largest first;
- a place is decided only when its `score_min` is above the `score_max` of every entry below it in its group;
  when it is not, `challenger_rank` names one that could still overtake it: by its unknowns (its `score_max`
  reaches this `score_min`, the highest best case below), or by one weight moved ±20 % (`swayed_by`: under
  that weight the challenger rates above it by what orders the ranking); and the first place is decided
  only when the sensitivity check says it is stable and survives the unknowns.
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


PARTIAL = {"line_quality", "line_claim"}


def known_share(j: Judgement) -> float:
    if j.score is None:
        return 0.0
    if j.criterion in PARTIAL:
        return 1.0 - ((j.counted_max or 0.0) - (j.counted_min or 0.0))
    return 1.0


def check_bounds(ranking: Ranking) -> None:
    for entry in ranking.entries:
        parts = weighted(entry)
        total_weight = sum(j.weight for j in parts)
        low = sum(j.weight * (j.counted_min or 0.0) for j in parts) / total_weight
        high = sum(j.weight * (j.counted_max or 0.0) for j in parts) / total_weight
        assert entry.score_min == pytest.approx(low, rel=1e-12, abs=1e-12), entry.label
        assert entry.score_max == pytest.approx(high, rel=1e-12, abs=1e-12), entry.label
        assert entry.score_min <= entry.total + 1e-12 <= entry.score_max + 2e-12, entry.label
        coverage = sum(j.weight * known_share(j) for j in parts) / total_weight
        assert entry.coverage == pytest.approx(coverage, rel=1e-9, abs=1e-12), entry.label
        for j in parts:
            assert j.counted_min is not None and j.counted_max is not None
            assert j.counted_min - 1e-12 <= (j.counted or 0.0) <= j.counted_max + 1e-12, (
                entry.label,
                j.criterion,
            )
            if j.score is None:
                assert j.counted_min == 0.0, (entry.label, j.criterion)
            elif j.criterion not in PARTIAL:
                assert j.counted_min == j.counted == j.counted_max, (entry.label, j.criterion)
        swings = [(s.criterion, s.swing) for s in entry.ask_next]
        expected = sorted(
            (
                (j.criterion, j.weight / total_weight * ((j.counted_max or 0.0) - (j.counted_min or 0.0)))
                for j in parts
                if j.score is None and (j.counted_max or 0.0) > (j.counted_min or 0.0) + 1e-12
            ),
            key=lambda pair: (-pair[1], pair[0]),
        )[: len(swings)]
        assert [c for c, _ in swings] == [c for c, _ in expected], entry.label
        for (_, got), (_, want) in zip(swings, expected, strict=True):
            assert got == pytest.approx(want, abs=1e-12)
    if ranking.order == "score-min":
        eligible = [e for e in ranking.entries if e.eligible]
        keys = [(round(e.score_min, 12), round(e.total, 12)) for e in eligible]
        assert keys == sorted(keys, reverse=True)
    check_places(ranking)


def _rated(entry: RankedOffering, ranking: Ranking, moved: tuple[str, float] | None) -> float:
    """What orders the entry (its score at worst, or its score) with one weight moved, in plain Python."""
    parts = weighted(entry)
    weights = [j.weight * (moved[1] if moved and j.criterion == moved[0] else 1.0) for j in parts]
    values = [(j.counted_min if ranking.order == "score-min" else j.counted) or 0.0 for j in parts]
    return sum(w * v for w, v in zip(weights, values, strict=True)) / sum(weights)


def check_places(ranking: Ranking) -> None:
    for group in (True, False):
        entries = [e for e in ranking.entries if e.eligible == group]
        highest_below = -math.inf
        for position in range(len(entries) - 1, -1, -1):
            entry = entries[position]
            below = entries[position + 1 :]
            if not below:
                assert entry.decided is None and entry.challenger_rank is None
                highest_below = entry.score_max
                continue
            by_rank = {e.rank: e for e in below}
            if entry.decided:
                assert entry.score_min > highest_below + 1e-12, entry.label
                assert entry.challenger_rank is None and entry.swayed_by is None
            elif entry.swayed_by is None:
                challenger = by_rank[entry.challenger_rank or 0]
                assert challenger.score_max == pytest.approx(highest_below, abs=1e-12), entry.label
                assert challenger.score_max >= entry.score_min - 1e-12, entry.label
            else:
                assert entry.score_min > highest_below + 1e-12, entry.label
                if ranking.method != "topsis":
                    challenger = by_rank[entry.challenger_rank or 0]
                    moved = entry.swayed_by
                    assert _rated(challenger, ranking, moved) > _rated(entry, ranking, moved), entry.label
            highest_below = max(highest_below, entry.score_max)
    first = next((e for e in ranking.entries if e.eligible), None)
    if first is not None and first.decided is not None:
        sensitivity = ranking.sensitivity
        assert first.decided == (sensitivity.stable and bool(sensitivity.survives_unknowns))


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

        def ranked_by(j: Judgement) -> float:
            return (j.counted_min if ranking.order == "score-min" else j.counted) or 0.0

        for criterion, lead in entry.margins:
            difference = ranked_by(mine[criterion]) - ranked_by(theirs[criterion])
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
    # the cases reach every path that turns a score into what it counts: unknowns, prices, scaling
    counted = [(j, e) for e in ranking.entries for j in weighted(e)]
    assert any(j.score is None for j, _ in counted)
    assert any(j.criterion == "price" and j.score is not None for j, _ in counted)
    assert any("counted" in j.reason for j, _ in counted) or case == "7b-lora"
    check_totals(ranking)
    check_bounds(ranking)
    check_margins(ranking)
    if method == "topsis":
        check_topsis(ranking)
        assert ranking.order == "total"
    else:
        assert all(e.topsis is None for e in ranking.entries)
        assert ranking.order == "score-min"
        counted_order = rank_offerings(
            needs, catalogs, measured_links(catalogs), weights=settings.get("weights"), order="total"
        )
        check_totals(counted_order)
        check_bounds(counted_order)
        check_margins(counted_order)
        eligible_totals = [e.total for e in counted_order.entries if e.eligible]
        assert eligible_totals == sorted(eligible_totals, reverse=True)
    first = next((e for e in ranking.entries if e.eligible), None)
    assert ranking.sensitivity.top == (first.label if first else None)
