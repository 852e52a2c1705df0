"""A ranking honest about unknowns (issue 13 §3): the lowest and highest score each entry could reach, the
share known, the rule that no entry ranks above one at least as good on everything both know merely because
its unknowns count generously, decided and undecided places with the unknowns that decide them, what to ask
next, a contradicted claim counted below an unknown, and whether the first place survives the unknowns."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogs.loader import load_catalogs
from catalogs.needs import load_needs
from catalogs.scoring import rank_offerings
from tests.catalogs._builders import catalog, offering, region
from tests.catalogs.test_scoring import EXAMPLE_NEEDS, job, only

# Criteria whose score a single catalog field sets, and that field's values with their scores (checklist).
FIELDS: dict[str, tuple[str, dict[str, float]]] = {
    "bmc_ipmi": ("bmc_ipmi", {"true": 1.0, "false": 0.0}),
    "management_network": ("management_network_separate", {"true": 1.0, "false": 0.0}),
    "power_redundancy": ("power_redundancy", {'"2N"': 1.0, '"N+1"': 0.8, '"N"': 0.3}),
    "cooling": ("cooling", {'"liquid"': 1.0, '"air"': 0.8}),
}
BASE = {"gpu": '"H100 SXM"', "gpus_per_node": "8", "max_nodes": "4"}


def two(a: dict[str, str], b: dict[str, str]) -> list[Any]:
    return [
        catalog(
            "acme",
            region("r1") + offering("a", '["r1"]', **BASE, **a) + offering("b", '["r1"]', **BASE, **b),
        )
    ]


WEIGHTS = only(bmc_ipmi=3, management_network=2, power_redundancy=2, cooling=2)


def test_score_min_max_and_coverage_by_hand() -> None:
    # a: BMC yes (1.0, weight 3), the rest unknown; b: everything known.
    ranking = rank_offerings(
        job(),
        two(
            {"bmc_ipmi": "true"},
            {
                "bmc_ipmi": "true",
                "management_network_separate": "false",
                "power_redundancy": '"N"',
                "cooling": '"air"',
            },
        ),
        weights=WEIGHTS,
    )
    by = {e.offering: e for e in ranking.entries}
    a, b = by["a"], by["b"]
    assert a.score_min == pytest.approx(3 / 9) and a.score_max == pytest.approx(1.0)
    assert a.coverage == pytest.approx(3 / 9)
    assert a.total == pytest.approx((3 + 0.25 * 6) / 9)
    known_b = (3 * 1.0 + 2 * 0.0 + 2 * 0.3 + 2 * 0.8) / 9
    assert b.score_min == pytest.approx(known_b) == pytest.approx(b.score_max) == pytest.approx(b.total)
    assert b.coverage == pytest.approx(1.0)
    data = a.as_dict()
    assert {"score_min", "score_max", "coverage", "total"} <= set(data)
    assert data["score_min"] == a.score_min and data["coverage"] == a.coverage


def test_unknowns_counted_generously_never_lift_an_entry_above_one_known_to_be_at_least_as_good() -> None:
    # b knows what a does not, and it is poor (no separate management network, N power): counted at the
    # unknown score a would lead on its unknowns alone. By the worst case it does not.
    poor = {"bmc_ipmi": "true", "management_network_separate": "false", "power_redundancy": '"N"'}
    catalogs = two({"bmc_ipmi": "true"}, poor)
    counted = rank_offerings(
        job(), catalogs, weights=only(bmc_ipmi=3, management_network=2, power_redundancy=2), order="total"
    )
    assert [e.offering for e in counted.entries] == ["a", "b"]  # the older order: a's unknowns count 0.25
    honest = rank_offerings(
        job(), catalogs, weights=only(bmc_ipmi=3, management_network=2, power_redundancy=2)
    )
    assert honest.order == "score-min"
    assert [e.offering for e in honest.entries] == ["b", "a"]
    first = honest.entries[0]
    # b's worst case 3.6/7 is below a's best case: the place depends on a's unknowns, and says which
    assert first.decided is False
    assert {(s.whose, s.criterion) for s in first.deciding} <= {
        ("next", "management_network"),
        ("next", "power_redundancy"),
    }
    assert first.deciding and first.deciding[0].whose == "next"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_ranking_rule_holds_for_any_pair(data: st.DataObject) -> None:
    """For any two offerings: when b is at least as good as a on every criterion both know, and b knows
    more with a score above 0, a never ranks above b."""
    a: dict[str, str] = {}
    b: dict[str, str] = {}
    extra_positive = False
    for criterion, (field, values) in FIELDS.items():
        ordered = sorted(values, key=values.__getitem__)
        state = data.draw(st.sampled_from(["both", "b only", "neither"]), label=criterion)
        if state == "both":
            low = data.draw(st.sampled_from(ordered), label=f"{criterion} a")
            high = data.draw(
                st.sampled_from([v for v in ordered if values[v] >= values[low]]), label=f"{criterion} b"
            )
            a[field], b[field] = low, high
        elif state == "b only":
            value = data.draw(st.sampled_from(ordered), label=f"{criterion} b")
            b[field] = value
            extra_positive = extra_positive or values[value] > 0
    ranking = rank_offerings(job(), two(a, b), weights=WEIGHTS)
    by = {e.offering: e for e in ranking.entries}
    assert by["b"].score_min >= by["a"].score_min - 1e-12
    if extra_positive:
        assert by["b"].rank < by["a"].rank, (a, b)


def test_what_to_ask_next_is_weight_times_swing() -> None:
    ranking = rank_offerings(job(), two({}, {"bmc_ipmi": "true"}), weights=WEIGHTS)
    a = next(e for e in ranking.entries if e.offering == "a")
    assert [s.criterion for s in a.ask_next] == [
        "bmc_ipmi",
        "cooling",
        "management_network",
        "power_redundancy",
    ]
    assert a.ask_next[0].swing == pytest.approx(3 / 9)
    assert "Ask next: Out-of-band management (BMC/IPMI) (±0.33)" in a.explanation


def test_a_decided_place_says_so() -> None:
    everything = {
        "bmc_ipmi": "true",
        "management_network_separate": "true",
        "power_redundancy": '"2N"',
        "cooling": '"liquid"',
    }
    little = {"bmc_ipmi": "false", "management_network_separate": "false"}
    ranking = rank_offerings(job(), two(everything, little), weights=WEIGHTS)
    first, second = ranking.entries
    assert first.offering == "a" and first.decided is True and first.deciding == ()
    assert first.score_min > second.score_max
    assert "Place decided" in first.explanation
    assert ranking.sensitivity.survives_unknowns is True
    assert "survives the unknowns" in ranking.sensitivity.describe()


def test_the_sensitivity_check_names_who_could_overtake_with_their_unknowns() -> None:
    ranking = rank_offerings(job(), two({"bmc_ipmi": "true", "cooling": '"air"'}, {}), weights=WEIGHTS)
    assert ranking.entries[0].offering == "a"
    assert ranking.sensitivity.survives_unknowns is False
    assert ranking.sensitivity.overtakers == ("acme/b in r1",)
    assert ranking.sensitivity.as_dict()["survives_unknowns"] is False


def test_a_contradicted_claim_counts_below_an_unverified_one_and_below_an_unknown() -> None:
    contradicted = {
        "bmc_ipmi": '{ value = true, source = "contradicted on gpu-01 at 2026-12-01T00:00:00Z by linkvet accept", as_of = "2026-12-01", standing = "contradicted" }'
    }
    catalogs = [
        catalog(
            "acme",
            region("r1")
            + offering("claimed", '["r1"]', **BASE, bmc_ipmi="true")
            + offering("contradicted", '["r1"]', **BASE, **contradicted)
            + offering("unknown", '["r1"]', **BASE),
        )
    ]
    ranking = rank_offerings(job(), catalogs, weights=only(bmc_ipmi=1))
    by = {e.offering: e for e in ranking.entries}
    assert by["contradicted"].total == 0.0 < by["unknown"].total < by["claimed"].total
    assert by["contradicted"].score_max == 0.0  # known: nothing left to hope for
    judged = by["contradicted"].judgement("bmc_ipmi")
    assert "contradicted by an acceptance check, so counted 0" in judged.reason
    assert judged.as_dict()["standing"] == "contradicted"
    settled = by["contradicted"].as_dict()["verified_facts"]
    assert settled == [
        {
            "fact": "offering.bmc_ipmi",
            "value": True,
            "standing": "contradicted",
            "source": "contradicted on gpu-01 at 2026-12-01T00:00:00Z by linkvet accept",
            "as_of": "2026-12-01",
            "file": None,
        }
    ]
    assert [e.offering for e in ranking.entries][-1] == "contradicted"


def test_every_entry_of_the_bundled_ranking_carries_the_three_keys_and_its_place() -> None:
    ranking = rank_offerings(load_needs(EXAMPLE_NEEDS), load_catalogs())
    data = ranking.as_dict()
    assert data["order"] == "score-min"
    for entry in data["entries"]:
        assert (
            0.0 <= entry["score_min"] <= entry["total"] + 1e-12 <= entry["score_max"] + 2e-12 <= 1.0 + 2e-12
        )
        assert 0.0 <= entry["coverage"] <= 1.0
        assert isinstance(entry["ask_next"], list) and "decided" in entry
    assert "survives_unknowns" in data["sensitivity"]
