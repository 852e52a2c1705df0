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
    _unstated,
    reference_id_for,
)
from catalogs.gpus import GpuReference
from catalogs.i18n import N_, _, items
from catalogs.interconnects import intra_node_name
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
                    fact,
                    claimed,
                    None,
                    "unverified",
                    _("GPUs not read: {reason}").format(reason=why),
                    provenance=offering.fact(fact),
                )
            )
        return checks
    models = list(inventory.get("models", []))
    ids = sorted({reference_id_for(name, gpus) or "" for name in models})
    count = inventory.get("count")
    seen = _("{count} × {models} ({read_with})").format(
        count=count, models=items(models), read_with=inventory.get("read_with")
    )
    # model
    if offering.gpu is None:
        checks.append(
            _check(
                "gpu",
                None,
                models,
                "unverified",
                _unstated(seen),
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
                _("{seen}: linkvet's GPU reference does not name this model").format(seen=seen),
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
                _("{seen} = {gpu}").format(seen=seen, gpu=ids[0])
                if ok
                else _("{seen} = {gpu}, not {claimed}").format(
                    seen=seen, gpu=ids[0], claimed=match.describe() if match else offering.gpu
                ),
                value=ids[0],
                provenance=offering.fact("gpu"),
            )
        )
    # count
    if offering.gpus_per_node is None:
        checks.append(_check("gpus_per_node", None, count, "unverified", _unstated(seen), value=count))
    else:
        ok = count == offering.gpus_per_node
        checks.append(
            _check(
                "gpus_per_node",
                offering.gpus_per_node,
                count,
                "confirmed" if ok else "contradicted",
                seen if ok else _("{seen}, not {claimed}").format(seen=seen, claimed=offering.gpus_per_node),
                value=count,
                provenance=offering.fact("gpus_per_node"),
            )
        )
    # memory
    sizes = [g.get("memory_total_mib") for g in inventory.get("gpus", []) if g.get("memory_total_mib")]
    if not sizes:
        checks.append(
            _check(
                "gpu_memory_gb", offering.gpu_memory_gb, None, "unverified", _("no GPU reported its memory")
            )
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
                    _unstated(_("{mib} MiB per GPU").format(mib=min(sizes))),
                )
            )
        else:
            ok = measured_gb >= MEMORY_TOLERANCE * offering.gpu_memory_gb
            values = {
                "mib": min(sizes),
                "gb": measured_gb,
                "share": MEMORY_TOLERANCE,
                "claimed": offering.gpu_memory_gb,
            }
            checks.append(
                _check(
                    "gpu_memory_gb",
                    offering.gpu_memory_gb,
                    round(measured_gb, 1),
                    "confirmed" if ok else "contradicted",
                    _("{mib} MiB ({gb:.1f} GB) per GPU").format(**values)
                    if ok
                    else _(
                        "{mib} MiB ({gb:.1f} GB) per GPU, under {share:.0%} of the {claimed:g} GB claimed"
                    ).format(**values),
                    value=offering.gpu_memory_gb if ok else round(measured_gb, 1),
                    provenance=offering.fact("gpu_memory_gb"),
                )
            )
    return checks


def intra_node_checks(
    report: Mapping[str, Any], offering: Offering, gpus: GpuReference | None = None
) -> list[Check]:
    """The GPUs' link inside the node against the claim, or, where the catalog claims nothing, against what
    scoring would otherwise derive from the GPU reference (an SXM part implies NVLink): a server showing
    NVLink islands or PCIe contradicts that derived value, so it never stands in the ranking."""
    facts = report.get("facts", {})
    topo = facts.get("topology")
    intra = offering.intra_node
    kind = intra.kind if intra else None
    prov = offering.fact("intra_node.kind")
    derived = _derived_kind(offering, gpus) if kind is None else None
    checks: list[Check] = []
    if topo is None:
        checks.append(
            _check(
                "intra_node.kind",
                kind,
                None,
                "unverified",
                _("topology not read: {reason}").format(reason=_not_read(report, "topology")),
                provenance=prov,
            )
        )
    else:
        verdict = topo["verdict"]
        pairs = list(topo.get("pcie_pairs", []))
        text = topo.get("explanation", verdict)
        measured_kind = {"nvlink-all": "nvlink", "pcie-only": "pcie"}.get(verdict)
        if verdict == "not-judged":
            checks.append(_check("intra_node.kind", kind, None, "unverified", text, provenance=prov))
        elif verdict == "single-gpu":
            checks.append(
                _check(
                    "intra_node.kind",
                    kind,
                    verdict,
                    "unverified",
                    _("one GPU: no pair to judge"),
                    provenance=prov,
                )
            )
        elif kind is None and derived in ("nvlink", "nvswitch") and verdict in SHAPES:
            checks.append(
                _check(
                    "intra_node.kind",
                    derived,
                    verdict,
                    "contradicted",
                    _(
                        "the catalog does not say, and the GPU ({gpu}) implies {kind}; the server shows {shape}: "
                        "{topology}; through PCIe: {pairs}"
                    ).format(
                        gpu=offering.gpu,
                        kind=intra_node_name(derived),
                        shape=_(SHAPES[verdict]),
                        topology=text,
                        pairs=_pairs_text(pairs),
                    ),
                    value=measured_kind,
                )
            )
        elif kind is None:
            checks.append(
                _check(
                    "intra_node.kind",
                    None,
                    verdict,
                    "unverified",
                    _unstated(text),
                    value=measured_kind,
                )
            )
        elif kind in ("nvlink", "nvswitch"):
            if verdict == "nvlink-all":
                checks.append(
                    _check(
                        "intra_node.kind",
                        kind,
                        verdict,
                        "confirmed",
                        _switch_note(facts, text) if kind == "nvswitch" else text,
                        value=kind,
                        provenance=prov,
                    )
                )
            else:
                shape = _(SHAPES[verdict])
                checks.append(
                    _check(
                        "intra_node.kind",
                        kind,
                        verdict,
                        "contradicted",
                        _("{shape}: {topology}; through PCIe: {pairs}").format(
                            shape=shape, topology=text, pairs=_pairs_text(pairs)
                        ),
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
                    _("PCIe is there ({topology})").format(topology=text),
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
                    _("{kind} is not read by nvidia-smi; {topology}").format(kind=kind, topology=text),
                    provenance=prov,
                )
            )
    checks.append(_nvlink_bandwidth(report, offering))
    return checks


# Twice the fastest single NVLink's rate each way (NVLink 5: 18 links, 900 GB/s one way, 50 GB/s a link,
# stas00/ml-engineering@744d01e:network/README.md; nvidia-smi prints a little more, e.g. 26.562 for NVLink 4's
# 25), with room for signalling: a link speed above it is not a reading.
MAX_NVLINK_LINK_GBYTES_S = 110.0


def _derived_kind(offering: Offering, gpus: GpuReference | None) -> str | None:
    """The link scoring derives for an offering that states none: its GPU's in the reference (e.g. NVLink
    for an SXM part), as `catalogs.scoring.criteria.compute.intra_node_kind` takes it."""
    if gpus is None or not offering.gpu:
        return None
    match = gpus.get(offering.gpu, offering.gpu_memory_gb)
    exact = match.exact if match is not None and not match.by_family else None
    return exact.intra_node_kind if exact is not None else None


SHAPES = {  # a topology verdict that contradicts an NVLink claim, in words
    "nvlink-islands": N_("NVLink islands, not a full NVLink node"),
    "nvlink-partial": N_("not every pair over NVLink"),
    "pcie-only": N_("PCIe only"),
}


def _switch_note(facts: Mapping[str, Any], topology: str) -> str:
    """The topology's words, and what they say of an NVSwitch claim."""
    remotes = {
        link.get("remote") for g in (facts.get("gpus") or {}).get("gpus", []) for link in g.get("nvlinks", [])
    }
    if "switch" in remotes:
        return _("{topology}; NVML reports the NVLinks ending at an NVSwitch").format(topology=topology)
    return _(
        "{topology}; the matrix cannot tell NVSwitch from a full NVLink mesh (NVML's link ends can)"
    ).format(topology=topology)


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
    too_fast = [
        (gpu.get("index"), link.get("link"), link.get("speed_gbytes_s"))
        for gpu in gpus
        for link in gpu.get("nvlinks", [])
        if isinstance(link.get("speed_gbytes_s"), int | float)
        and not 0 <= link["speed_gbytes_s"] <= MAX_NVLINK_LINK_GBYTES_S
    ]
    if too_fast:
        gpu_index, link_index, speed = too_fast[0]
        return _check(
            "intra_node.bandwidth_gbytes_s",
            claimed,
            None,
            "unverified",
            _(
                "could not judge: GPU {gpu} link {link} reads {speed:g} GB/s, not a speed one NVLink has "
                "(at most {most:g} GB/s)"
            ).format(gpu=gpu_index, link=link_index, speed=speed, most=MAX_NVLINK_LINK_GBYTES_S),
            provenance=prov,
        )
    if (
        topo is not None
        and topo.get("verdict") != "not-judged"
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
            _("{claimed:g} GB/s per GPU needs NVLink to every peer; through PCIe only: {pairs}").format(
                claimed=claimed, pairs=_pairs_text(topo["pcie_pairs"])
            ),
            provenance=prov,
        )
    if measured is None:
        return _check(
            "intra_node.bandwidth_gbytes_s",
            claimed,
            None,
            "unverified",
            _("NVLink link speeds not read ({reason})").format(reason=_not_read(report, "nvlink")),
            provenance=prov,
        )
    links = min(len([x for x in g.get("nvlinks", []) if x.get("active")]) for g in gpus)
    text = _(
        "{links} active NVLinks per GPU, {measured:g} GB/s both directions together (nvidia-smi nvlink -s)"
    ).format(links=links, measured=measured)
    if not claimed:
        return _check(
            "intra_node.bandwidth_gbytes_s",
            None,
            measured,
            "unverified",
            _unstated(text),
            value=measured,
        )
    ok = measured >= BANDWIDTH_TOLERANCE * claimed
    return _check(
        "intra_node.bandwidth_gbytes_s",
        claimed,
        measured,
        "confirmed" if ok else "contradicted",
        text
        if ok
        else _("{seen}, under {share:.0%} of {claimed:g}").format(
            seen=text, share=BANDWIDTH_TOLERANCE, claimed=claimed
        ),
        value=claimed if ok else measured,
        provenance=prov,
    )
