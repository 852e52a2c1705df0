"""Checks of the fabric between nodes, local storage, out-of-band management and power."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from catalogs.acceptance.check import (
    BANDWIDTH_TOLERANCE,
    MAX_PORT_GBIT_S,
    MEMORY_TOLERANCE,
    Check,
    _check,
    _not_read,
    _unstated,
)
from catalogs.i18n import _, clauses, ngettext
from catalogs.interconnects import fabric_name
from catalogs.loader import ProviderCatalog
from catalogs.schema import Offering


def _ports(facts: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    rdma = facts.get("rdma") or {}
    return [p for p in rdma.get("ports", []) if p.get("kind") == kind and p.get("active")]


def _unjudged(ports: Sequence[Mapping[str, Any]]) -> list[str]:
    """The active ports whose rate is not a reading (an empty rate file, a rate no port has), with why."""
    return [
        _("{device} port {port}: {reason}").format(
            device=p.get("device"), port=p.get("port"), reason=p.get("rate_doubt") or _("no rate")
        )
        for p in ports
        if not isinstance(p.get("rate_gbit_s"), int | float)
    ]


def _ports_text(ports: Sequence[Mapping[str, Any]], label: str) -> str:
    if not ports:
        return _("no active {fabric} port").format(fabric=label)
    rated = [p for p in ports if isinstance(p.get("rate_gbit_s"), int | float)]
    rates = sorted({float(p["rate_gbit_s"]) for p in rated})
    total = sum(float(p["rate_gbit_s"]) for p in rated)
    if not rated:
        text = ngettext("{n} active {fabric} port", "{n} active {fabric} ports", len(ports)).format(
            n=len(ports), fabric=label
        )
    else:
        text = ngettext(
            "{n} active {fabric} port at {rates} Gb/s ({total:g} Gbit/s together)",
            "{n} active {fabric} ports at {rates} Gb/s ({total:g} Gbit/s together)",
            len(rated),
        ).format(n=len(rated), fabric=label, rates="/".join(f"{r:g}" for r in rates), total=total)
    unjudged = _unjudged(ports)
    if unjudged:
        text = _("{ports}; rate not judged: {unjudged}").format(ports=text, unjudged=clauses(unjudged))
    return text


def fabric_checks(report: Mapping[str, Any], offering: Offering) -> list[Check]:
    facts = report.get("facts", {})
    inter = offering.inter_node
    fabric = inter.fabric if inter else None
    if facts.get("rdma") is None:
        return _fabric_not_read(report, offering)
    ib, roce = _ports(facts, "infiniband"), _ports(facts, "roce")
    seen = clauses((_ports_text(ib, "InfiniBand"), _ports_text(roce, "RoCE")))
    kind_ports = {"infiniband": ib, "roce": roce}.get(fabric or "", [])
    label = fabric_name(fabric) if fabric else ""
    checks = [
        _fabric_check(offering, fabric, _fabric_seen(ib, roce), kind_ports, seen),
        _bandwidth_check(offering, kind_ports, label, seen),
    ]
    rails = inter.rails if inter else None
    if rails is not None:
        checks.append(
            _check(
                "inter_node.rails",
                rails,
                len(kind_ports),
                "confirmed" if len(kind_ports) >= rails else "contradicted",
                _ports_text(kind_ports, label),
                value=len(kind_ports),
                provenance=offering.fact("inter_node.rails"),
            )
        )
    checks.append(_rdma_check(offering, bool(ib or roce), seen))
    return checks


def _fabric_not_read(report: Mapping[str, Any], offering: Offering) -> list[Check]:
    """Each fabric claim unverified: the RDMA ports were not read."""
    inter = offering.inter_node
    why = _("RDMA ports not read: {reason}").format(reason=_not_read(report, "infiniband"))
    return [
        _check(fact, claimed, None, "unverified", why, provenance=offering.fact(fact))
        for fact, claimed in (
            ("inter_node.fabric", inter.fabric if inter else None),
            ("inter_node.bandwidth_gbit_s", inter.bandwidth_gbit_s if inter else None),
            ("inter_node.rdma", inter.rdma if inter else None),
        )
    ]


def _fabric_seen(ib: Sequence[Mapping[str, Any]], roce: Sequence[Mapping[str, Any]]) -> str | None:
    """The fabric the active ports show: InfiniBand before RoCE; None without an active port."""
    return "infiniband" if ib else "roce" if roce else None


def _fabric_check(
    offering: Offering,
    fabric: str | None,
    measured: str | None,
    kind_ports: Sequence[Mapping[str, Any]],
    seen: str,
) -> Check:
    """`inter_node.fabric`: an InfiniBand or RoCE claim held to the active ports of its kind."""
    if fabric in ("infiniband", "roce"):
        return _check(
            "inter_node.fabric",
            fabric,
            measured,
            "confirmed" if kind_ports else "contradicted",
            seen,
            value=fabric if kind_ports else None,
            provenance=offering.fact("inter_node.fabric"),
        )
    return _check(
        "inter_node.fabric",
        fabric,
        measured,
        "unverified",
        _unstated(seen)
        if fabric is None
        else _("{fabric} is not read from sysfs; {seen}").format(fabric=fabric, seen=seen),
        value=None if fabric else measured,
    )


def _bandwidth_check(
    offering: Offering, kind_ports: Sequence[Mapping[str, Any]], label: str, seen: str
) -> Check:
    """`inter_node.bandwidth_gbit_s`: the claim held to the rates of the claimed fabric's active ports."""
    inter = offering.inter_node
    fabric = inter.fabric if inter else None
    claimed_bw = inter.bandwidth_gbit_s if inter else None
    unjudged = _unjudged(kind_ports)
    total = None if unjudged else sum(float(p["rate_gbit_s"]) for p in kind_ports)
    bw_prov = offering.fact("inter_node.bandwidth_gbit_s")
    if unjudged:
        return _check(
            "inter_node.bandwidth_gbit_s",
            claimed_bw,
            None,
            "unverified",
            _("could not judge: {ports}").format(ports=clauses(unjudged)),
            provenance=bw_prov,
        )
    if claimed_bw is None or fabric not in ("infiniband", "roce"):
        return _check(
            "inter_node.bandwidth_gbit_s",
            claimed_bw,
            total or None,
            "unverified",
            _unstated(seen) if claimed_bw is None else seen,
            value=total or None,
        )
    if not kind_ports:
        return _check("inter_node.bandwidth_gbit_s", claimed_bw, 0, "contradicted", seen, provenance=bw_prov)
    assert total is not None  # every port's rate was judged (`unjudged` is empty)
    ok, rule = _bandwidth_rule(claimed_bw, inter.rails if inter else None, kind_ports, total)
    return _check(
        "inter_node.bandwidth_gbit_s",
        claimed_bw,
        total,
        "confirmed" if ok else "contradicted",
        _("{rule}; sysfs: {ports}").format(rule=rule, ports=_ports_text(kind_ports, label)),
        value=total,
        provenance=bw_prov,
    )


def _bandwidth_rule(
    claimed_bw: float, rails: int | None, kind_ports: Sequence[Mapping[str, Any]], total: float
) -> tuple[bool, str]:
    """Whether the ports meet the claimed bandwidth, and the rule it was read by: per rail when a rail
    count is claimed, else per port up to the fastest port there is, else for the node as a whole."""
    if rails:
        per_rail = claimed_bw / rails
        fast = [p for p in kind_ports if (p.get("rate_gbit_s") or 0) >= per_rail]
        rule = _("{rails} rails × {per_rail:g} Gbit/s").format(rails=rails, per_rail=per_rail)
        return len(fast) >= rails, rule
    if claimed_bw <= MAX_PORT_GBIT_S:
        slow = [p for p in kind_ports if (p.get("rate_gbit_s") or 0) < claimed_bw]
        rule = _("{claimed:g} Gbit/s read as the per-port speed (no rail count claimed)").format(
            claimed=claimed_bw
        )
        return not slow, rule
    rule = _("{claimed:g} Gbit/s read as the node's total").format(claimed=claimed_bw)
    return total >= BANDWIDTH_TOLERANCE * claimed_bw, rule


def _rdma_check(offering: Offering, any_rdma: bool, seen: str) -> Check:
    """`inter_node.rdma`: the claim held to whether any InfiniBand or RoCE port is active."""
    inter = offering.inter_node
    rdma_claim = inter.rdma if inter else None
    if rdma_claim is None:
        return _check(
            "inter_node.rdma",
            None,
            any_rdma,
            "unverified",
            _unstated(seen),
            value=any_rdma or None,
        )
    return _check(
        "inter_node.rdma",
        rdma_claim,
        any_rdma,
        "confirmed" if rdma_claim == any_rdma else "contradicted",
        seen,
        value=any_rdma,
        provenance=offering.fact("inter_node.rdma"),
    )


def storage_checks(report: Mapping[str, Any], offering: Offering) -> list[Check]:
    nvme = report.get("facts", {}).get("nvme")
    claimed = offering.storage.local_nvme_tb if offering.storage else None
    prov = offering.fact("storage.local_nvme_tb")
    if nvme is None:
        return [
            _check(
                "storage.local_nvme_tb",
                claimed,
                None,
                "unverified",
                _("NVMe not read: {reason}").format(reason=_not_read(report, "nvme")),
                provenance=prov,
            )
        ]
    total = round(nvme["total_tb"], 2)
    text = ngettext(
        "{n} NVMe namespace, {total:g} TB together (/sys/block)",
        "{n} NVMe namespaces, {total:g} TB together (/sys/block)",
        nvme["count"],
    ).format(n=nvme["count"], total=total)
    if claimed is None:
        return [
            _check(
                "storage.local_nvme_tb",
                None,
                total,
                "unverified",
                _unstated(text),
                value=total,
            )
        ]
    ok = total >= MEMORY_TOLERANCE * claimed
    return [
        _check(
            "storage.local_nvme_tb",
            claimed,
            total,
            "confirmed" if ok else "contradicted",
            text if ok else _("{seen}, under the {claimed:g} TB claimed").format(seen=text, claimed=claimed),
            value=total,
            provenance=prov,
        )
    ]


def management_checks(
    report: Mapping[str, Any], provider: ProviderCatalog, offering: Offering
) -> list[Check]:
    mgmt = report.get("facts", {}).get("management") or {}
    return [_bmc_check(mgmt, provider, offering), _power_check(report, mgmt, offering)]


def _bmc_check(mgmt: Mapping[str, Any], provider: ProviderCatalog, offering: Offering) -> Check:
    """`bmc_ipmi`: the offering's claim, else the provider service's, held to whether a BMC is seen."""
    claimed = (
        offering.bmc_ipmi
        if offering.bmc_ipmi is not None
        else (provider.service.bmc_ipmi if provider.service else None)
    )
    scope = "offering" if offering.bmc_ipmi is not None else "service"
    prov = (
        offering.fact("bmc_ipmi")
        if scope == "offering"
        else (provider.service.provenance("bmc_ipmi") if provider.service else None)
    )
    seen = bool(mgmt.get("bmc_seen"))
    text = _bmc_text(mgmt, seen)
    if claimed is None:
        return _check(
            "bmc_ipmi",
            None,
            seen,
            "unverified",
            _unstated(text),
            scope=scope,
            value=True if seen else None,
        )
    if seen:
        return _check(
            "bmc_ipmi",
            claimed,
            True,
            "confirmed" if claimed else "contradicted",
            text,
            scope=scope,
            value=True,
            provenance=prov,
        )
    return _check("bmc_ipmi", claimed, None, "unverified", text, scope=scope, provenance=prov)


def _bmc_text(mgmt: Mapping[str, Any], seen: bool) -> str:
    """How the BMC was seen (its device nodes, the SMBIOS entry, ipmitool's answer), or why none is."""
    how = [
        x
        for x in (
            ", ".join(mgmt.get("ipmi_device_nodes") or []),
            "SMBIOS type 38" if mgmt.get("smbios_ipmi_entry") else "",
            _("ipmitool mc info: {maker}").format(maker=mgmt["bmc"].get("Manufacturer Name", "?"))
            if mgmt.get("bmc")
            else "",
        )
        if x
    ]
    return (
        _("BMC seen: {how}").format(how=clauses(how))
        if seen
        else _(
            "no IPMI device node, SMBIOS type 38 entry or ipmitool answer (a BMC not exposed to the OS, as in a "
            "VM, cannot be seen)"
        )
    )


def _power_check(report: Mapping[str, Any], mgmt: Mapping[str, Any], offering: Offering) -> Check:
    """`power_redundancy`: the claim (N, N+1, 2N) held to the healthy power supplies."""
    pclaim = offering.power_redundancy
    pprov = offering.fact("power_redundancy")
    if mgmt.get("power_supplies") is None:
        return _check(
            "power_redundancy",
            pclaim,
            None,
            "unverified",
            _("power supplies not read: {reason}").format(reason=_not_read(report, "power")),
            provenance=pprov,
        )
    healthy = mgmt.get("power_supplies_healthy") or 0
    text = _power_text(mgmt, healthy)
    measured = "N+1" if healthy >= 2 else "N" if healthy == 1 else None
    if pclaim is None:
        return _check(
            "power_redundancy",
            None,
            measured,
            "unverified",
            _unstated(text),
            value=measured,
        )
    if pclaim == "N":
        return _check(
            "power_redundancy",
            pclaim,
            measured,
            "confirmed" if healthy >= 1 else "contradicted",
            text,
            value="N",
            provenance=pprov,
        )
    if healthy < 2:
        return _check(
            "power_redundancy", pclaim, measured, "contradicted", text, value=measured, provenance=pprov
        )
    if pclaim == "2N":
        return _check(
            "power_redundancy",
            pclaim,
            measured,
            "unverified",
            _("{supplies}; 2N needs two independent feeds, which the supplies alone do not show").format(
                supplies=text
            ),
            provenance=pprov,
        )
    return _check("power_redundancy", pclaim, measured, "confirmed", text, value="N+1", provenance=pprov)


def _power_text(mgmt: Mapping[str, Any], healthy: int) -> str:
    """The supplies present and healthy, the faulty ones and the redundancy sensor's reading."""
    present = mgmt.get("power_supplies_present") or 0
    bad = [
        _("{name}: {description}").format(name=p["name"], description=p["description"])
        for p in mgmt["power_supplies"]
        if p.get("present") and not p.get("healthy")
    ]
    text = _("{present} power supplies present, {healthy} healthy").format(present=present, healthy=healthy)
    if bad:
        text = _("{supplies} ({faults})").format(supplies=text, faults=clauses(bad))
    if mgmt.get("redundancy"):
        text = _("{supplies}; redundancy sensor: {sensor}").format(supplies=text, sensor=mgmt["redundancy"])
    return text
