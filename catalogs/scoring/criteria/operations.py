"""Running the servers: a separate management network, BMC/IPMI access, power redundancy and cooling."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Result, Source


def _yes_no(
    value: bool | None, yes: str, no: str, unknown: str, source: Callable[[], Source], explain: bool
) -> Result:
    if value is None:
        return None, unknown, None
    if not explain:
        return (1.0 if value else 0.0), "", None
    return (1.0, yes, source()) if value else (0.0, no, source())


def management_network(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    return _yes_no(
        facts.offering.management_network_separate,
        "separate management network",
        "management shares the fabric",
        "separate management network not stated",
        lambda: facts.offering.fact("management_network_separate"),
        explain,
    )


def bmc_ipmi(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    if facts.offering.bmc_ipmi is not None:
        return _yes_no(
            facts.offering.bmc_ipmi,
            "BMC/IPMI available",
            "no BMC/IPMI",
            "",
            lambda: facts.offering.fact("bmc_ipmi"),
            explain,
        )
    service = facts.service
    return _yes_no(
        service.bmc_ipmi if service is not None else None,
        "BMC/IPMI available",
        "no BMC/IPMI",
        "BMC/IPMI not stated",
        lambda: service.provenance("bmc_ipmi") if service is not None else None,
        explain,
    )


def power_redundancy(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    value = facts.offering.power_redundancy
    if value is None:
        return None, "power redundancy not stated", None
    score = params.get(value, 0.3)
    return (
        (score, f"power {value}", facts.offering.fact("power_redundancy")) if explain else (score, "", None)
    )


def cooling(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    value = facts.offering.cooling
    if value is None:
        return None, "cooling not stated", None
    if value == "air" and facts.needs.model.params >= 100e9:
        score, text = params["air_for_100b_plus"], "air cooling (100B+ models may call for liquid)"
    else:
        score, text = params.get(value, 0.5), f"{value} cooling"
    return (score, text, facts.offering.fact("cooling")) if explain else (score, "", None)
