"""Checks of the GPUs and of how they talk inside the node: model, count, memory, NVLink/NVSwitch and its bandwidth."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalogs.acceptance.check import (
    BANDWIDTH_TOLERANCE,
    MEMORY_TOLERANCE,
    Check,
    _check,
    _not_read,
    _pairs_text,
    reference_id_for,
)
from catalogs.gpus import GpuReference
from catalogs.schema import Offering


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
                    round(measured_gb, 1),
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
