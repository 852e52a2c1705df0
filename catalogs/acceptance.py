"""Acceptance checks: what a rented server showed (`linkvet accept`'s report facts, plain dicts) against
what its provider's catalog claims for the offering, fact by fact.

Each check is `{fact, scope, claimed, measured, verdict, evidence, catalog_value, claim_source, claim_as_of}`:

* `fact` is the catalog field it checks (`gpu`, `gpus_per_node`, `intra_node.kind`, `inter_node.bandwidth_gbit_s`,
  `storage.local_nvme_tb`, `bmc_ipmi`, `power_redundancy`, …) or, for figures no catalog field holds, a
  measurement name (`nccl.allreduce_busbw_gbytes_s`, `needs.internode_gbit_s`); `scope` says which
  (`offering`, `service`, `region`, `measurement`).
* `verdict`: `confirmed`, `contradicted`, or `unverified` (no claim, or nothing read that could decide).
* `catalog_value`: the measured value in the catalog field's own unit, when it can stand in the catalog as
  a verified fact (what `linkvet accept import` will write); None when it cannot.

Rules (tolerances are linkvet's, stated in the evidence):
* GPU model: nvidia-smi's product names mapped to the GPU reference (`SMI_NAMES`, with a source).
* NVLink: the topology verdict decides; a pair of GPUs joined only through PCIe contradicts an NVLink or
  NVSwitch claim, the pairs are the evidence. NVSwitch itself is not visible in the matrix (said so).
* Fabric bandwidth: with `rails`, each rail must reach bandwidth ÷ rails; without, a claim of at most 800
  Gbit/s (one XDR port) is read as the per-port speed vendors quote ("400G InfiniBand") and every active
  port must reach it; a larger one as the node's total.
* A BMC that is not visible from the OS (a VM) leaves a BMC claim unverified, never contradicted.

Imports no `probes`: the facts come in as the report's JSON-shaped dicts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from catalogs.facts import Provenance
from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.loader import ProviderCatalog
from catalogs.needs import NeedsProfile
from catalogs.schema import Offering, Region

Verdict = Literal["confirmed", "contradicted", "unverified"]
MEMORY_TOLERANCE = 0.95
BANDWIDTH_TOLERANCE = 0.9
MAX_PORT_GBIT_S = 800  # XDR, the fastest single InfiniBand port

# nvidia-smi product names → GPU reference ids, where the name is not itself an id or alias.
# Source: the names as recorded nvidia-smi/NVML outputs print them (superbenchmark's NCCL log
# "A100-SXM4-40GB"; thamada/nvidia-smi:nvsim/H100SXMx8_deviceQuery.py "NVIDIA H100 80GB HBM3" for an
# H100 SXM5 node; apache/hadoop's nvidia-smi sample "Tesla P100-PCIE-12GB").
SMI_NAMES: tuple[tuple[str, str], ...] = (
    (r"^H100 80GB HBM3$", "H100 SXM"),
    (r"^H100 PCIe$", "H100 PCIe"),
    (r"^H200$", "H200 SXM"),
    (r"^A100-SXM4-80GB$", "A100 80GB SXM"),
    (r"^A100-SXM4-40GB$", "A100 40GB SXM"),
    (r"^A100[- ]PCIE[- ]40GB$", "A100 40GB PCIe"),
    (r"^A100 80GB PCIe$", "A100 80GB PCIe"),
    (r"^A800-SXM4-80GB$", "A800 80GB SXM"),
    (r"^H800$", "H800"),
    (r"^B200$", "B200"),
    (r"^L40S$", "L40S"),
    (r"^L4$", "L4"),
    (r"^A10G$", "A10G"),
    (r"^GeForce RTX 4090$", "RTX 4090"),
)


@dataclass(frozen=True, slots=True)
class Check:
    fact: str
    scope: str
    claimed: Any
    measured: Any
    verdict: Verdict
    evidence: str
    catalog_value: Any = None
    claim_source: str | None = None
    claim_as_of: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "fact": self.fact,
            "scope": self.scope,
            "claimed": self.claimed,
            "measured": self.measured,
            "verdict": self.verdict,
            "evidence": self.evidence,
            "catalog_value": self.catalog_value,
            "claim_source": self.claim_source,
            "claim_as_of": self.claim_as_of,
        }


def _check(
    fact: str,
    claimed: Any,
    measured: Any,
    verdict: Verdict,
    evidence: str,
    *,
    scope: str = "offering",
    value: Any = None,
    provenance: Provenance | None = None,
) -> Check:
    return Check(
        fact,
        scope,
        claimed,
        measured,
        verdict,
        evidence,
        value,
        None if provenance is None else provenance.source,
        None if provenance is None else provenance.as_of,
    )


def reference_id_for(name: str, gpus: GpuReference | None = None) -> str | None:
    """The GPU reference id of an nvidia-smi product name, or None when linkvet does not know it."""
    gpus = gpus or default_gpu_reference()
    bare = re.sub(r"^(NVIDIA|Tesla)\s+", "", name.strip())
    match = gpus.get(bare)
    if match is not None and match.exact is not None and not match.by_family:
        return match.exact.id
    for pattern, ref in SMI_NAMES:
        if re.match(pattern, bare, flags=re.IGNORECASE):
            return ref
    return None


def _not_read(facts: Mapping[str, Any], reader: str) -> str:
    reasons = [
        r.get("reason")
        for r in facts.get("read", [])
        if r.get("reader") == reader and r.get("status") != "read"
    ]
    return "; ".join(str(r) for r in reasons if r) or "not read"


_FARTHEST_FIRST = {"SYS": 0, "SOC": 0, "NODE": 1, "PHB": 2, "PXB": 3, "PIX": 4}


def _pairs_text(pairs: Sequence[str], limit: int = 8) -> str:
    """GPU pairs joined only through PCIe, the farthest paths (across the CPU interconnect) first."""
    pairs = sorted(pairs, key=lambda p: _FARTHEST_FIRST.get(p.rsplit(" ", 1)[-1], 5))
    shown = ", ".join(pairs[:limit])
    return shown + (f" and {len(pairs) - limit} more" if len(pairs) > limit else "")


# -- GPUs and the node ---------------------------------------------------------------------------------------


def gpu_checks(report: Mapping[str, Any], offering: Offering, gpus: GpuReference) -> list[Check]:
    facts = report.get("facts", {})
    inventory = facts.get("gpus")
    checks: list[Check] = []
    why = _not_read(report, "gpus")
    if inventory is None:
        for fact, claimed in (
            ("gpu", offering.gpu),
            ("gpus_per_node", offering.gpus_per_node),
            ("gpu_memory_gb", offering.gpu_memory_gb),
        ):
            checks.append(
                _check(
                    fact, claimed, None, "unverified", f"GPUs not read: {why}", provenance=offering.fact(fact)
                )
            )
        return checks
    models = list(inventory.get("models", []))
    ids = sorted({reference_id_for(name, gpus) or "" for name in models})
    count = inventory.get("count")
    seen = f"{count} × {', '.join(models)} ({inventory.get('read_with')})"
    # model
    if offering.gpu is None:
        checks.append(
            _check(
                "gpu",
                None,
                models,
                "unverified",
                f"the catalog does not say; {seen}",
                value=ids[0] if len(ids) == 1 and ids[0] else None,
            )
        )
    elif "" in ids or len(ids) != 1:
        checks.append(
            _check(
                "gpu",
                offering.gpu,
                models,
                "unverified",
                f"{seen}: linkvet's GPU reference does not name this model",
                provenance=offering.fact("gpu"),
            )
        )
    else:
        match = gpus.get(offering.gpu, offering.gpu_memory_gb)
        candidates = [spec.id for spec in match.candidates] if match else []
        ok = ids[0] in candidates
        checks.append(
            _check(
                "gpu",
                offering.gpu,
                models,
                "confirmed" if ok else "contradicted",
                f"{seen} = {ids[0]}" + ("" if ok else f", not {match.describe() if match else offering.gpu}"),
                value=ids[0],
                provenance=offering.fact("gpu"),
            )
        )
    # count
    if offering.gpus_per_node is None:
        checks.append(
            _check(
                "gpus_per_node", None, count, "unverified", f"the catalog does not say; {seen}", value=count
            )
        )
    else:
        ok = count == offering.gpus_per_node
        checks.append(
            _check(
                "gpus_per_node",
                offering.gpus_per_node,
                count,
                "confirmed" if ok else "contradicted",
                f"{seen}" + ("" if ok else f", not {offering.gpus_per_node}"),
                value=count,
                provenance=offering.fact("gpus_per_node"),
            )
        )
    # memory
    sizes = [g.get("memory_total_mib") for g in inventory.get("gpus", []) if g.get("memory_total_mib")]
    if not sizes:
        checks.append(
            _check("gpu_memory_gb", offering.gpu_memory_gb, None, "unverified", "no GPU reported its memory")
        )
    else:
        measured_gb = min(sizes) * 1.048576 / 1000
        if offering.gpu_memory_gb is None:
            checks.append(
                _check(
                    "gpu_memory_gb",
                    None,
                    measured_gb,
                    "unverified",
                    f"the catalog does not say; {min(sizes)} MiB per GPU",
                )
            )
        else:
            ok = measured_gb >= MEMORY_TOLERANCE * offering.gpu_memory_gb
            checks.append(
                _check(
                    "gpu_memory_gb",
                    offering.gpu_memory_gb,
                    round(measured_gb, 1),
                    "confirmed" if ok else "contradicted",
                    f"{min(sizes)} MiB ({measured_gb:.1f} GB) per GPU"
                    + (
                        ""
                        if ok
                        else f", under {MEMORY_TOLERANCE:.0%} of the {offering.gpu_memory_gb:g} GB claimed"
                    ),
                    value=offering.gpu_memory_gb if ok else round(measured_gb, 1),
                    provenance=offering.fact("gpu_memory_gb"),
                )
            )
    return checks


def intra_node_checks(report: Mapping[str, Any], offering: Offering) -> list[Check]:
    facts = report.get("facts", {})
    topo = facts.get("topology")
    intra = offering.intra_node
    kind = intra.kind if intra else None
    prov = offering.fact("intra_node.kind")
    checks: list[Check] = []
    if topo is None:
        checks.append(
            _check(
                "intra_node.kind",
                kind,
                None,
                "unverified",
                f"topology not read: {_not_read(report, 'topology')}",
                provenance=prov,
            )
        )
    else:
        verdict = topo["verdict"]
        pairs = list(topo.get("pcie_pairs", []))
        text = topo.get("explanation", verdict)
        measured_kind = {"nvlink-all": "nvlink", "pcie-only": "pcie"}.get(verdict)
        if verdict == "single-gpu":
            checks.append(
                _check(
                    "intra_node.kind",
                    kind,
                    verdict,
                    "unverified",
                    "one GPU: no pair to judge",
                    provenance=prov,
                )
            )
        elif kind is None:
            checks.append(
                _check(
                    "intra_node.kind",
                    None,
                    verdict,
                    "unverified",
                    f"the catalog does not say; {text}",
                    value=measured_kind,
                )
            )
        elif kind in ("nvlink", "nvswitch"):
            if verdict == "nvlink-all":
                note = _switch_note(facts) if kind == "nvswitch" else ""
                checks.append(
                    _check(
                        "intra_node.kind",
                        kind,
                        verdict,
                        "confirmed",
                        text + note,
                        value=kind,
                        provenance=prov,
                    )
                )
            else:
                shape = {
                    "nvlink-islands": "NVLink islands, not a full NVLink node",
                    "nvlink-partial": "not every pair over NVLink",
                    "pcie-only": "PCIe only",
                }[verdict]
                checks.append(
                    _check(
                        "intra_node.kind",
                        kind,
                        verdict,
                        "contradicted",
                        f"{shape}: {text}; through PCIe: {_pairs_text(pairs)}",
                        value=measured_kind,
                        provenance=prov,
                    )
                )
        elif kind == "pcie":
            checks.append(
                _check(
                    "intra_node.kind",
                    kind,
                    verdict,
                    "confirmed",
                    f"PCIe is there ({text})",
                    value="pcie",
                    provenance=prov,
                )
            )
        else:
            checks.append(
                _check(
                    "intra_node.kind",
                    kind,
                    verdict,
                    "unverified",
                    f"{kind} is not read by nvidia-smi; {text}",
                    provenance=prov,
                )
            )
    checks.append(_nvlink_bandwidth(report, offering))
    return checks


def _switch_note(facts: Mapping[str, Any]) -> str:
    remotes = {
        link.get("remote") for g in (facts.get("gpus") or {}).get("gpus", []) for link in g.get("nvlinks", [])
    }
    if "switch" in remotes:
        return "; NVML reports the NVLinks ending at an NVSwitch"
    return "; the matrix cannot tell NVSwitch from a full NVLink mesh (NVML's link ends can)"


def _nvlink_bandwidth(report: Mapping[str, Any], offering: Offering) -> Check:
    facts = report.get("facts", {})
    intra = offering.intra_node
    claimed = intra.bandwidth_gbytes_s if intra else None
    prov = offering.fact("intra_node.bandwidth_gbytes_s")
    topo = facts.get("topology")
    gpus = (facts.get("gpus") or {}).get("gpus", [])
    per_gpu = []
    for gpu in gpus:
        speeds = [link.get("speed_gbytes_s") for link in gpu.get("nvlinks", []) if link.get("active")]
        if speeds and all(isinstance(s, int | float) for s in speeds):
            per_gpu.append(2 * sum(speeds))
    measured = round(min(per_gpu), 1) if per_gpu and len(per_gpu) == len(gpus) else None
    if (
        topo is not None
        and topo.get("pcie_pairs")
        and intra is not None
        and intra.kind in ("nvlink", "nvswitch")
        and claimed
    ):
        return _check(
            "intra_node.bandwidth_gbytes_s",
            claimed,
            measured,
            "contradicted",
            f"{claimed:g} GB/s per GPU needs NVLink to every peer; through PCIe only: {_pairs_text(topo['pcie_pairs'])}",
            provenance=prov,
        )
    if measured is None:
        return _check(
            "intra_node.bandwidth_gbytes_s",
            claimed,
            None,
            "unverified",
            f"NVLink link speeds not read ({_not_read(report, 'nvlink')})",
            provenance=prov,
        )
    links = min(len([x for x in g.get("nvlinks", []) if x.get("active")]) for g in gpus)
    text = (
        f"{links} active NVLinks per GPU, {measured:g} GB/s both directions together (nvidia-smi nvlink -s)"
    )
    if not claimed:
        return _check(
            "intra_node.bandwidth_gbytes_s",
            None,
            measured,
            "unverified",
            f"the catalog does not say; {text}",
            value=measured,
        )
    ok = measured >= BANDWIDTH_TOLERANCE * claimed
    return _check(
        "intra_node.bandwidth_gbytes_s",
        claimed,
        measured,
        "confirmed" if ok else "contradicted",
        text + ("" if ok else f", under {BANDWIDTH_TOLERANCE:.0%} of {claimed:g}"),
        value=claimed if ok else measured,
        provenance=prov,
    )


# -- fabric, storage, management -------------------------------------------------------------------------------


def _ports(facts: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    rdma = facts.get("rdma") or {}
    return [p for p in rdma.get("ports", []) if p.get("kind") == kind and p.get("active")]


def _ports_text(ports: Sequence[Mapping[str, Any]], label: str) -> str:
    if not ports:
        return f"no active {label} port"
    rates = sorted({float(p["rate_gbit_s"]) for p in ports if p.get("rate_gbit_s") is not None})
    total = sum(p.get("rate_gbit_s") or 0 for p in ports)
    return f"{len(ports)} active {label} port(s) at {'/'.join(f'{r:g}' for r in rates)} Gb/s ({total:g} Gbit/s together)"


def fabric_checks(report: Mapping[str, Any], offering: Offering) -> list[Check]:
    facts = report.get("facts", {})
    inter = offering.inter_node
    fabric = inter.fabric if inter else None
    checks: list[Check] = []
    if facts.get("rdma") is None:
        why = f"RDMA ports not read: {_not_read(report, 'infiniband')}"
        for fact, claimed in (
            ("inter_node.fabric", fabric),
            ("inter_node.bandwidth_gbit_s", inter.bandwidth_gbit_s if inter else None),
            ("inter_node.rdma", inter.rdma if inter else None),
        ):
            checks.append(_check(fact, claimed, None, "unverified", why, provenance=offering.fact(fact)))
        return checks
    ib, roce = _ports(facts, "infiniband"), _ports(facts, "roce")
    seen = f"{_ports_text(ib, 'InfiniBand')}; {_ports_text(roce, 'RoCE')}"
    kind_ports = {"infiniband": ib, "roce": roce}.get(fabric or "", [])
    label = {"infiniband": "InfiniBand", "roce": "RoCE"}.get(fabric or "", fabric or "")
    prov = offering.fact("inter_node.fabric")
    if fabric in ("infiniband", "roce"):
        checks.append(
            _check(
                "inter_node.fabric",
                fabric,
                "infiniband" if ib else "roce" if roce else None,
                "confirmed" if kind_ports else "contradicted",
                seen,
                value=fabric if kind_ports else None,
                provenance=prov,
            )
        )
    else:
        checks.append(
            _check(
                "inter_node.fabric",
                fabric,
                "infiniband" if ib else "roce" if roce else None,
                "unverified",
                ("the catalog does not say; " if fabric is None else f"{fabric} is not read from sysfs; ")
                + seen,
                value=None if fabric else ("infiniband" if ib else "roce" if roce else None),
            )
        )
    claimed_bw = inter.bandwidth_gbit_s if inter else None
    rails = inter.rails if inter else None
    total = sum(p.get("rate_gbit_s") or 0 for p in kind_ports)
    bw_prov = offering.fact("inter_node.bandwidth_gbit_s")
    if claimed_bw is None or fabric not in ("infiniband", "roce"):
        checks.append(
            _check(
                "inter_node.bandwidth_gbit_s",
                claimed_bw,
                total or None,
                "unverified",
                ("the catalog does not say; " if claimed_bw is None else "") + seen,
                value=total or None,
            )
        )
    elif not kind_ports:
        checks.append(
            _check("inter_node.bandwidth_gbit_s", claimed_bw, 0, "contradicted", seen, provenance=bw_prov)
        )
    else:
        if rails:
            per_rail = claimed_bw / rails
            fast = [p for p in kind_ports if (p.get("rate_gbit_s") or 0) >= per_rail]
            ok = len(fast) >= rails
            rule = f"{rails} rails × {per_rail:g} Gbit/s"
        elif claimed_bw <= MAX_PORT_GBIT_S:
            slow = [p for p in kind_ports if (p.get("rate_gbit_s") or 0) < claimed_bw]
            ok = not slow
            rule = f"{claimed_bw:g} Gbit/s read as the per-port speed (no rail count claimed)"
        else:
            ok = total >= BANDWIDTH_TOLERANCE * claimed_bw
            rule = f"{claimed_bw:g} Gbit/s read as the node's total"
        checks.append(
            _check(
                "inter_node.bandwidth_gbit_s",
                claimed_bw,
                total,
                "confirmed" if ok else "contradicted",
                f"{rule}; sysfs: {_ports_text(kind_ports, label)}",
                value=total,
                provenance=bw_prov,
            )
        )
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
    rdma_claim = inter.rdma if inter else None
    any_rdma = bool(ib or roce)
    if rdma_claim is None:
        checks.append(
            _check(
                "inter_node.rdma",
                None,
                any_rdma,
                "unverified",
                f"the catalog does not say; {seen}",
                value=any_rdma or None,
            )
        )
    else:
        ok = rdma_claim == any_rdma
        checks.append(
            _check(
                "inter_node.rdma",
                rdma_claim,
                any_rdma,
                "confirmed" if ok else "contradicted",
                seen,
                value=any_rdma,
                provenance=offering.fact("inter_node.rdma"),
            )
        )
    return checks


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
                f"NVMe not read: {_not_read(report, 'nvme')}",
                provenance=prov,
            )
        ]
    total = round(nvme["total_tb"], 2)
    text = f"{nvme['count']} NVMe namespace(s), {total:g} TB together (/sys/block)"
    if claimed is None:
        return [
            _check(
                "storage.local_nvme_tb",
                None,
                total,
                "unverified",
                f"the catalog does not say; {text}",
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
            text + ("" if ok else f", under the {claimed:g} TB claimed"),
            value=total,
            provenance=prov,
        )
    ]


def management_checks(
    report: Mapping[str, Any], provider: ProviderCatalog, offering: Offering
) -> list[Check]:
    mgmt = report.get("facts", {}).get("management") or {}
    checks: list[Check] = []
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
    how = [
        x
        for x in (
            ", ".join(mgmt.get("ipmi_device_nodes") or []),
            "SMBIOS type 38" if mgmt.get("smbios_ipmi_entry") else "",
            f"ipmitool mc info: {mgmt['bmc'].get('Manufacturer Name', '?')}" if mgmt.get("bmc") else "",
        )
        if x
    ]
    text = (
        ("BMC seen: " + "; ".join(how))
        if seen
        else "no IPMI device node, SMBIOS type 38 entry or ipmitool answer (a BMC not exposed to the OS, as in a VM, cannot be seen)"
    )
    if claimed is None:
        checks.append(
            _check(
                "bmc_ipmi",
                None,
                seen,
                "unverified",
                f"the catalog does not say; {text}",
                scope=scope,
                value=True if seen else None,
            )
        )
    elif seen:
        checks.append(
            _check(
                "bmc_ipmi",
                claimed,
                True,
                "confirmed" if claimed else "contradicted",
                text,
                scope=scope,
                value=True,
                provenance=prov,
            )
        )
    else:
        checks.append(_check("bmc_ipmi", claimed, None, "unverified", text, scope=scope, provenance=prov))
    supplies = mgmt.get("power_supplies")
    pclaim = offering.power_redundancy
    pprov = offering.fact("power_redundancy")
    if supplies is None:
        checks.append(
            _check(
                "power_redundancy",
                pclaim,
                None,
                "unverified",
                f"power supplies not read: {_not_read(report, 'power')}",
                provenance=pprov,
            )
        )
        return checks
    healthy = mgmt.get("power_supplies_healthy") or 0
    present = mgmt.get("power_supplies_present") or 0
    bad = [f"{p['name']}: {p['description']}" for p in supplies if p.get("present") and not p.get("healthy")]
    text = (
        f"{present} power supplies present, {healthy} healthy"
        + (f" ({'; '.join(bad)})" if bad else "")
        + (f"; redundancy sensor: {mgmt['redundancy']}" if mgmt.get("redundancy") else "")
    )
    measured = "N+1" if healthy >= 2 else "N" if healthy == 1 else None
    if pclaim is None:
        checks.append(
            _check(
                "power_redundancy",
                None,
                measured,
                "unverified",
                f"the catalog does not say; {text}",
                value=measured,
            )
        )
    elif pclaim == "N":
        checks.append(
            _check(
                "power_redundancy",
                pclaim,
                measured,
                "confirmed" if healthy >= 1 else "contradicted",
                text,
                value="N",
                provenance=pprov,
            )
        )
    elif healthy < 2:
        checks.append(
            _check(
                "power_redundancy", pclaim, measured, "contradicted", text, value=measured, provenance=pprov
            )
        )
    elif pclaim == "2N":
        checks.append(
            _check(
                "power_redundancy",
                pclaim,
                measured,
                "unverified",
                text + "; 2N needs two independent feeds, which the supplies alone do not show",
                provenance=pprov,
            )
        )
    else:
        checks.append(
            _check("power_redundancy", pclaim, measured, "confirmed", text, value="N+1", provenance=pprov)
        )
    return checks


# -- everything ---------------------------------------------------------------------------------------------


def check_offering(
    report: Mapping[str, Any],
    provider: ProviderCatalog,
    offering: Offering,
    region: Region | None = None,
    needs: NeedsProfile | None = None,
    gpus: GpuReference | None = None,
) -> list[Check]:
    """Every check of the report's facts against `offering`'s claims (route claims are checked by the
    caller, which has the route classifier: `desktop.accept`)."""
    from catalogs.acceptance_bandwidth import nccl_reference_check, needs_check

    gpus = gpus or default_gpu_reference()
    checks = [
        *gpu_checks(report, offering, gpus),
        *intra_node_checks(report, offering),
        *fabric_checks(report, offering),
        *storage_checks(report, offering),
        *management_checks(report, provider, offering),
        nccl_reference_check(report),
    ]
    if needs is not None:
        checks.append(needs_check(report, needs, offering, gpus))
    return checks


def summarize(checks: Sequence[Check] | Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts = {"confirmed": 0, "contradicted": 0, "unverified": 0}
    for check in checks:
        verdict = check.verdict if isinstance(check, Check) else check["verdict"]
        counts[verdict] += 1
    return counts
