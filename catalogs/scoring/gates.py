"""The gates: does the job fit in the GPUs' memory (and the offload in the node), can the provider rent out
enough GPUs, is it within budget. A gate passes, fails (the candidate ranks after every passing one) or is
unknown (flagged, never failed); each is `gate(facts, params, explain) -> (status, reason, source)`."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from catalogs.prices import cost_per_month
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import GateResult, Status
from catalogs.scoring.judgement import fmt as _fmt

GIB = 1024**3 / 1e9  # GB per GiB


def vram_fits(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> GateResult:
    sizing = facts.sizing
    if facts.gpu_memory_gb is None:
        return "unknown", "GPU memory not stated (GPU model unknown)", None
    fits = sizing is not None and sizing.per_gpu is not None and sizing.planned_gpus is not None
    short = _offload_shortfall(facts)
    if fits and short:
        return "fail", (short if explain else ""), facts.offering.fact("ram_gib")
    if not explain:
        return ("pass" if fits else "fail"), "", None
    offering = facts.offering
    source = offering.fact("gpu_memory_gb") if offering.gpu_memory_gb else facts.gpu_source()
    strategy = facts.needs.training.strategy
    if sizing is None or sizing.per_gpu is None or sizing.planned_gpus is None:
        return (
            "fail",
            f"does not fit {_fmt(facts.gpu_memory_gb)} GB GPUs at any GPU count with {strategy} "
            f"(usable {_fmt(facts.usable_gb())} GB per GPU)",
            source,
        )
    text = (
        f"{_fmt(sizing.per_gpu.total_gb)} GB per GPU at {sizing.planned_gpus} GPUs with {strategy} ≤ "
        f"{_fmt(sizing.usable_gb)} GB usable of {_fmt(facts.gpu_memory_gb)} GB (fits from {sizing.min_gpus} GPUs)"
    )
    return "pass", text + _offload_text(facts), source


def _offload_shortfall(facts: CandidateFacts) -> str:
    """Why the node cannot hold what the offload puts in host RAM or on NVMe ("" when it can, or when the
    node's RAM/NVMe is not stated)."""
    sizing = facts.sizing
    if sizing is None:
        return ""
    ram = facts.offering.ram_gib
    host = sizing.host_offload_gb_per_node
    if host is not None and ram is not None and host > ram * GIB:
        return (
            f"the offload keeps {_fmt(host)} GB per node in host RAM; the node has "
            f"{_fmt(ram)} GiB ({_fmt(ram * GIB)} GB)"
        )
    storage = facts.offering.storage
    nvme = storage.local_nvme_tb if storage is not None else None
    on_nvme = sizing.nvme_offload_gb_per_node
    if on_nvme is not None and nvme is not None and on_nvme > nvme * 1000:
        return f"the offload keeps {_fmt(on_nvme)} GB per node on NVMe; the node has {nvme:g} TB"
    return ""


def _offload_text(facts: CandidateFacts) -> str:
    sizing = facts.sizing
    if sizing is None:
        return ""
    parts = []
    if sizing.host_offload_gb_per_node is not None:
        ram = facts.offering.ram_gib
        have = f"of {_fmt(ram)} GiB" if ram is not None else "(node RAM not stated)"
        parts.append(f"{_fmt(sizing.host_offload_gb_per_node)} GB host RAM per node {have}")
    if sizing.nvme_offload_gb_per_node is not None:
        storage = facts.offering.storage
        nvme = storage.local_nvme_tb if storage is not None else None
        have = f"of {nvme:g} TB" if nvme is not None else "(local NVMe not stated)"
        parts.append(f"{_fmt(sizing.nvme_offload_gb_per_node)} GB NVMe per node {have}")
    return f"; offloaded: {', '.join(parts)}" if parts else ""


def enough_gpus(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> GateResult:
    sizing = facts.sizing
    if sizing is None or sizing.planned_gpus is None:
        return "unknown", "the GPU count cannot be planned (GPU memory unknown or the job does not fit)", None
    planned = sizing.planned_gpus
    if facts.capacity is not None:
        status: Status = "pass" if facts.capacity >= planned else "fail"
        if not explain:
            return status, "", None
        sign = "≥" if status == "pass" else "<"
        return status, f"{facts.capacity_note} {sign} {planned} planned", facts.offering.fact("max_nodes")
    per_node = facts.gpus_per_node
    if per_node and planned <= per_node:
        return "pass", (f"{planned} GPUs fit in one node of {per_node}" if explain else ""), None
    if not explain:
        return "unknown", "", None
    nodes = f"{sizing.nodes} nodes of {per_node}" if sizing.nodes and per_node else "several nodes"
    return "unknown", f"needs {planned} GPUs ({nodes}); how many the provider rents out is not stated", None


def budget(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> GateResult:
    limits = facts.needs.budget
    if limits.gpu_hour_max is None and limits.month_max is None:
        return "n/a", "no budget set", None
    if facts.price_gpu_hour is None:
        return "unknown", "price not stated", None
    price = facts.compare_gpu_hour
    if price is None and facts.lower_bound_gpu_hour is not None:
        return _budget_lower_bound(facts, facts.lower_bound_gpu_hour, explain)
    if price is None:
        return "unknown", f"price {facts.compare_note}; budget in {limits.currency}", facts.price_source
    shown = f"{price:.2f} {limits.currency}/GPU-hour" + (
        f" ({facts.compare_note})" if facts.compare_note else ""
    )
    if limits.gpu_hour_max is not None and price > limits.gpu_hour_max:
        text = f"{shown} > budget {limits.gpu_hour_max:.2f}" if explain else ""
        return "fail", text, facts.price_source
    planned = facts.planned_gpus
    if limits.month_max is not None:
        if planned is None:
            return "unknown", "monthly cost unknown: the GPU count cannot be planned", facts.price_source
        month = cost_per_month(price, planned)
        if month > limits.month_max:
            text = f"{month:,.0f} {limits.currency}/month for {planned} GPUs > budget" if explain else ""
            return "fail", text, facts.price_source
    return "pass", (f"{shown} within budget" if explain else ""), facts.price_source


def _budget_lower_bound(facts: CandidateFacts, bound: float, explain: bool) -> GateResult:
    """A GPUs-only price: over budget when even the GPUs alone are; otherwise unknown (the host is extra)."""
    limits = facts.needs.budget
    shown = f"at least {bound:.2f} {limits.currency}/GPU-hour (GPUs only, host billed on top)"
    if limits.gpu_hour_max is not None and bound > limits.gpu_hour_max:
        return "fail", (f"{shown} > budget {limits.gpu_hour_max:.2f}" if explain else ""), facts.price_source
    planned = facts.planned_gpus
    if limits.month_max is not None and planned is not None:
        month = cost_per_month(bound, planned)
        if month > limits.month_max:
            text = (
                f"at least {month:,.0f} {limits.currency}/month for {planned} GPUs > budget"
                if explain
                else ""
            )
            return "fail", text, facts.price_source
    return "unknown", (f"{shown}: the whole price is not known" if explain else ""), facts.price_source


GateFunction = Callable[[CandidateFacts, Mapping[str, float], bool], GateResult]
GATES: dict[str, GateFunction] = {"vram_fits": vram_fits, "enough_gpus": enough_gpus, "budget": budget}
