"""The provider's service: DDoS protection, room to scale out, delivery time, support hours and SLA."""

from __future__ import annotations

from collections.abc import Mapping

from catalogs.i18n import _, clauses, items
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Result
from catalogs.scoring.judgement import fmt as _fmt
from catalogs.scoring.judgement import linear as _linear


def ddos_protection(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    service = facts.service
    if service is None or service.ddos_protection_gbit_s is None:
        return None, _("DDoS protection not stated"), None
    value = service.ddos_protection_gbit_s
    score = min(1.0, value / params["full_gbit_s"])
    if not explain:
        return score, "", None
    text = _("DDoS protection {gbit} Gbit/s").format(gbit=_fmt(value))
    return score, text, service.provenance("ddos_protection_gbit_s")


def elasticity(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    parts: list[float] = []
    text: list[str] = []
    planned = facts.planned_gpus
    if facts.capacity is not None and planned:
        headroom = facts.capacity / planned
        parts.append(min(1.0, headroom / params["full_headroom"]))
        if explain:
            text.append(_("{headroom:.1f}× the planned GPUs available").format(headroom=headroom))
    inter = facts.offering.inter_node
    if inter is not None and inter.upgrade_path:
        parts.append(1.0)
        if explain:
            text.append(_("fabric upgrade path {path}").format(path=inter.upgrade_path))
    if parts:
        return sum(parts) / len(parts), clauses(text), None
    service = facts.service
    if service is not None and service.scale_out:
        source = service.provenance("scale_out") if explain else None
        return params["claimed_only"], _("scale-out on demand claimed, not quantified"), source
    return None, _("scale-out headroom and upgrade path not stated"), None


def delivery_time(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    service = facts.service
    if service is None or service.delivery_days is None:
        return None, _("delivery time not stated"), None
    days = service.delivery_days
    score = _linear(days, params["good_days"], params["bad_days"])
    if not explain:
        return score, "", None
    return score, _("delivered in {days:g} days").format(days=days), service.provenance("delivery_days")


def support(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    service = facts.service
    if service is None or (service.support_24x7 is None and service.sla_uptime_percent is None):
        return None, _("support hours and SLA not stated"), None
    parts: list[float] = []
    text: list[str] = []
    if service.support_24x7 is not None:
        parts.append(1.0 if service.support_24x7 else 0.4)
        text.append(_("24/7 support") if service.support_24x7 else _("support not 24/7"))
    if service.sla_uptime_percent is not None:
        sla, good = service.sla_uptime_percent, params["good_sla_percent"]
        parts.append(1.0 if sla >= good else max(0.0, 1 - (good - sla)))
        text.append(_("SLA {percent:g} %").format(percent=sla))
    score = sum(parts) / len(parts)
    return (score, items(text), service.provenance("support_24x7")) if explain else (score, "", None)
