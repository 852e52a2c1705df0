"""Running the servers: a separate management network, BMC/IPMI access, power redundancy and cooling."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from catalogs.i18n import _
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
        _("separate management network"),
        _("management shares the fabric"),
        _("separate management network not stated"),
        lambda: facts.offering.fact("management_network_separate"),
        explain,
    )


def bmc_ipmi(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    if facts.offering.bmc_ipmi is not None:
        return _yes_no(
            facts.offering.bmc_ipmi,
            _("BMC/IPMI available"),
            _("no BMC/IPMI"),
            "",
            lambda: facts.offering.fact("bmc_ipmi"),
            explain,
        )
    service = facts.service
    return _yes_no(
        service.bmc_ipmi if service is not None else None,
        _("BMC/IPMI available"),
        _("no BMC/IPMI"),
        _("BMC/IPMI not stated"),
        lambda: service.provenance("bmc_ipmi") if service is not None else None,
        explain,
    )


def power_redundancy(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    value = facts.offering.power_redundancy
    if value is None:
        return None, _("power redundancy not stated"), None
    score = params.get(value, 0.3)
    if not explain:
        return score, "", None
    return score, _("power {redundancy}").format(redundancy=value), facts.offering.fact("power_redundancy")


def cooling(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    value = facts.offering.cooling
    if value is None:
        return None, _("cooling not stated"), None
    if value == "air" and facts.needs.model.params >= 100e9:
        score, text = params["air_for_100b_plus"], _("air cooling (100B+ models may call for liquid)")
    else:
        score = params.get(value, 0.5)
        text = {"air": _("air cooling"), "liquid": _("liquid cooling"), "hybrid": _("hybrid cooling")}[value]
    return (score, text, facts.offering.fact("cooling")) if explain else (score, "", None)
