"""Hardware inside and between the nodes: the GPU link inside a node (NVLink, NVSwitch or PCIe), and the
fabric between nodes (bandwidth, kind, RDMA, lossless RoCE), which a job that fits in one node does not need.

A plan's node shape scales some of these scores further (`catalogs.scoring.scaling`)."""

from __future__ import annotations

from collections.abc import Mapping

from catalogs.i18n import _, clauses
from catalogs.interconnects import fabric_name, intra_node_name
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Result, Source
from catalogs.scoring.judgement import fmt as _fmt


def intra_node_kind(facts: CandidateFacts) -> tuple[str, float | None, bool] | None:
    """(kind, GB/s per GPU, derived from the GPU reference?) of the link between a node's GPUs, or None."""
    intra = facts.offering.intra_node
    if intra is not None:
        return intra.kind, intra.bandwidth_gbytes_s, False
    exact = facts.gpu.exact if facts.gpu and not facts.gpu.by_family else None
    if exact is not None and exact.intra_node_kind:
        return exact.intra_node_kind, exact.interconnect_gbytes_s_bidir, True
    return None


def intra_node(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    """The GPU link's own score; the ranking then scales it by how many of a full node's GPUs it joins for
    this plan (`catalogs.scoring.scaling`)."""
    if facts.planned_gpus == 1:
        return 1.0, _("not needed: the job fits on one GPU"), None
    if facts.gpus_per_node == 1:
        return (
            params["one_gpu_per_node"],
            _("one GPU per node: no NVLink to speak of, all GPU-to-GPU traffic crosses the network"),
            None,
        )
    found = intra_node_kind(facts)
    if found is None:
        return None, _("GPU interconnect not stated (NVLink or PCIe unknown)"), None
    kind, bandwidth, derived = found
    if kind == "nvlink":
        score = (
            0.8 + 0.2 * min(1.0, bandwidth / params["nvlink_full_bandwidth_gbytes_s"])
            if bandwidth
            else params["nvlink"]
        )
    else:
        score = params.get(kind, 0.5)
    if not explain:
        return score, "", None
    source: Source = facts.offering.fact("intra_node.kind")
    if derived and facts.gpu is not None and facts.gpu.exact is not None:
        source = facts.gpu.exact.provenance._replace(derived=True)
    name = intra_node_name(kind)
    if kind == "pcie":
        shown = (
            _("PCIe {bandwidth} GB/s: PCIe only (the documents say to avoid PCIe GPUs for training)")
            if bandwidth
            else _("PCIe: PCIe only (the documents say to avoid PCIe GPUs for training)")
        )
    else:
        shown = _("{link} {bandwidth} GB/s") if bandwidth else "{link}"
    return score, shown.format(link=name, bandwidth=_fmt(bandwidth) if bandwidth else ""), source


def inter_node_bandwidth(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    if not facts.needs_fabric:
        text = (
            _("not needed: the job fits in one node of {gpus} GPUs").format(gpus=facts.gpus_per_node)
            if explain
            else ""
        )
        return 1.0, text, None
    scale = facts.scale
    implied = facts.sizing.internode_gbit_s if facts.sizing else None
    required = max(implied or 0.0, scale.min_gbit_s if scale else 0.0)
    preferred = max(required, scale.preferred_gbit_s if scale else 0.0)
    inter = facts.offering.inter_node
    have = inter.bandwidth_gbit_s if inter is not None else None
    score = None if have is None else (min(1.0, have / preferred) if preferred > 0 else 1.0)
    if not explain:
        return score, "", None
    why = []
    if implied:
        why.append(_("sizing needs {gbit} Gbit/s per node").format(gbit=_fmt(implied)))
    if scale:
        why.append(
            _("scale table {low}–{high} Gbit/s").format(
                low=_fmt(scale.min_gbit_s), high=_fmt(scale.preferred_gbit_s)
            )
        )
    need = clauses(why) or _("need unknown")
    if have is None:
        return None, _("fabric bandwidth not stated ({need})").format(need=need), None
    if have < required:
        text = _("{gbit} Gbit/s per node ({need}) — below the need")
    else:
        text = _("{gbit} Gbit/s per node ({need})")
    return (
        score,
        text.format(gbit=_fmt(have), need=need),
        facts.offering.fact("inter_node.bandwidth_gbit_s"),
    )


def inter_node_fabric(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    if not facts.needs_fabric:
        return 1.0, _("not needed: the job fits in one node"), None
    inter = facts.offering.inter_node
    if inter is None:
        return None, _("fabric between nodes not stated"), None
    score = params.get(inter.fabric, 0.5)
    if not explain:
        return score, "", None
    shown = fabric_name(inter.fabric)
    if inter.note:
        shown = _("{fabric} ({note})").format(fabric=shown, note=inter.note)
    return score, shown, facts.offering.fact("inter_node.fabric")


def rdma(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    if not facts.needs_fabric:
        return 1.0, _("not needed: the job fits in one node"), None
    inter = facts.offering.inter_node
    if inter is None:
        return None, _("fabric not stated"), None
    if inter.rdma is not None:
        score = 1.0 if inter.rdma else 0.0
        if not explain:
            return score, "", None
        return score, (_("RDMA") if inter.rdma else _("no RDMA")), facts.offering.fact("inter_node.rdma")
    if inter.fabric in ("infiniband", "roce"):
        return (
            1.0,
            _("RDMA ({fabric} is RDMA)").format(fabric=fabric_name(inter.fabric)),
            _("derived from the fabric"),
        )
    return None, _("RDMA not stated"), None


def lossless_ethernet(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    if not facts.needs_fabric:
        return 1.0, _("not needed: the job fits in one node"), None
    inter = facts.offering.inter_node
    if inter is None:
        return None, _("fabric not stated"), None
    if inter.fabric != "roce":
        return 1.0, (_("does not apply ({fabric})").format(fabric=inter.fabric) if explain else ""), None
    if inter.lossless is None:
        return None, _("RoCE without a word on lossless (PFC/ECN) configuration"), None
    score = 1.0 if inter.lossless else 0.0
    if not explain:
        return score, "", None
    text = _("lossless RoCE") if inter.lossless else _("RoCE not configured lossless")
    return score, text, facts.offering.fact("inter_node.lossless")
