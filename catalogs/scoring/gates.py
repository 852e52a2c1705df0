"""The gates: does the job fit in the GPUs' memory (and the offload in the node), can the provider rent out
enough GPUs, is it within budget. A gate passes, fails (the candidate ranks after every passing one) or is
unknown (flagged, never failed); each is `gate(facts, params, explain) -> (status, reason, source)`."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from catalogs.i18n import _, items
from catalogs.prices import cost_per_month
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import GateResult, Status
from catalogs.scoring.judgement import fmt as _fmt

GIB = 1024**3 / 1e9  # GB per GiB


def vram_fits(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> GateResult:
    sizing = facts.sizing
    if facts.gpu_memory_gb is None:
        return "unknown", _("GPU memory not stated (GPU model unknown)"), None
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
            _(
                "does not fit {memory} GB GPUs at any GPU count with {strategy} (usable {usable} GB per GPU)"
            ).format(memory=_fmt(facts.gpu_memory_gb), strategy=strategy, usable=_fmt(facts.usable_gb())),
            source,
        )
    text = _(
        "{per_gpu} GB per GPU at {gpus} GPUs with {strategy} ≤ {usable} GB usable of {memory} GB (fits from "
        "{fewest} GPUs)"
    ).format(
        per_gpu=_fmt(sizing.per_gpu.total_gb),
        gpus=sizing.planned_gpus,
        strategy=strategy,
        usable=_fmt(sizing.usable_gb),
        memory=_fmt(facts.gpu_memory_gb),
        fewest=sizing.min_gpus,
    )
    offloaded = _offload_text(facts)
    if offloaded:
        text = _("{fits}; offloaded: {offloaded}").format(fits=text, offloaded=offloaded)
    return "pass", text, source


def _offload_shortfall(facts: CandidateFacts) -> str:
    """Why the node cannot hold what the offload puts in host RAM or on NVMe ("" when it can, or when the
    node's RAM/NVMe is not stated)."""
    sizing = facts.sizing
    if sizing is None:
        return ""
    ram = facts.offering.ram_gib
    host = sizing.host_offload_gb_per_node
    if host is not None and ram is not None and host > ram * GIB:
        return _(
            "the offload keeps {host} GB per node in host RAM; the node has {ram} GiB ({ram_gb} GB)"
        ).format(host=_fmt(host), ram=_fmt(ram), ram_gb=_fmt(ram * GIB))
    storage = facts.offering.storage
    nvme = storage.local_nvme_tb if storage is not None else None
    on_nvme = sizing.nvme_offload_gb_per_node
    if on_nvme is not None and nvme is not None and on_nvme > nvme * 1000:
        return _("the offload keeps {offload} GB per node on NVMe; the node has {nvme:g} TB").format(
            offload=_fmt(on_nvme), nvme=nvme
        )
    return ""


def _offload_text(facts: CandidateFacts) -> str:
    """What the offload puts in host RAM and on NVMe, against what the node has ("" without offload)."""
    sizing = facts.sizing
    if sizing is None:
        return ""
    parts = []
    if sizing.host_offload_gb_per_node is not None:
        ram = facts.offering.ram_gib
        offload = _fmt(sizing.host_offload_gb_per_node)
        if ram is not None:
            parts.append(
                _("{offload} GB host RAM per node of {ram} GiB").format(offload=offload, ram=_fmt(ram))
            )
        else:
            parts.append(_("{offload} GB host RAM per node (node RAM not stated)").format(offload=offload))
    if sizing.nvme_offload_gb_per_node is not None:
        storage = facts.offering.storage
        nvme = storage.local_nvme_tb if storage is not None else None
        offload = _fmt(sizing.nvme_offload_gb_per_node)
        if nvme is not None:
            parts.append(_("{offload} GB NVMe per node of {nvme:g} TB").format(offload=offload, nvme=nvme))
        else:
            parts.append(_("{offload} GB NVMe per node (local NVMe not stated)").format(offload=offload))
    return items(parts)


def enough_gpus(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> GateResult:
    sizing = facts.sizing
    if sizing is None or sizing.planned_gpus is None:
        return (
            "unknown",
            _("the GPU count cannot be planned (GPU memory unknown or the job does not fit)"),
            None,
        )
    planned = sizing.planned_gpus
    if facts.capacity is not None:
        status: Status = "pass" if facts.capacity >= planned else "fail"
        if not explain:
            return status, "", None
        text = (
            _("{capacity} ≥ {planned} planned") if status == "pass" else _("{capacity} < {planned} planned")
        )
        return (
            status,
            text.format(capacity=facts.capacity_note, planned=planned),
            facts.offering.fact("max_nodes"),
        )
    per_node = facts.gpus_per_node
    if per_node and planned <= per_node:
        text = _("{gpus} GPUs fit in one node of {per_node}").format(gpus=planned, per_node=per_node)
        return "pass", (text if explain else ""), None
    if not explain:
        return "unknown", "", None
    if sizing.nodes and per_node:
        text = _(
            "needs {gpus} GPUs ({nodes} nodes of {per_node}); how many the provider rents out is not stated"
        )
    else:
        text = _("needs {gpus} GPUs (several nodes); how many the provider rents out is not stated")
    return "unknown", text.format(gpus=planned, nodes=sizing.nodes, per_node=per_node), None


def budget(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> GateResult:
    limits = facts.needs.budget
    if limits.gpu_hour_max is None and limits.month_max is None:
        return "n/a", _("no budget set"), None
    if facts.price_gpu_hour is None:
        return "unknown", _("price not stated"), None
    price = facts.compare_gpu_hour
    if price is None and facts.lower_bound_gpu_hour is not None:
        return _budget_lower_bound(facts, facts.lower_bound_gpu_hour, explain)
    if price is None:
        text = _("price unknown ({why}); budget in {currency}").format(
            why=facts.compare_note, currency=limits.currency
        )
        return "unknown", text, facts.price_source
    if facts.compare_note:
        shown = _("{price:.2f} {currency}/GPU-hour ({conversion})").format(
            price=price, currency=limits.currency, conversion=facts.compare_note
        )
    else:
        shown = _("{price:.2f} {currency}/GPU-hour").format(price=price, currency=limits.currency)
    if limits.gpu_hour_max is not None and price > limits.gpu_hour_max:
        text = (
            _("{price} > budget {budget:.2f}").format(price=shown, budget=limits.gpu_hour_max)
            if explain
            else ""
        )
        return "fail", text, facts.price_source
    planned = facts.planned_gpus
    if limits.month_max is not None:
        if planned is None:
            return "unknown", _("monthly cost unknown: the GPU count cannot be planned"), facts.price_source
        month = cost_per_month(price, planned)
        if month > limits.month_max:
            text = (
                _("{month} {currency}/month for {gpus} GPUs > budget").format(
                    month=f"{month:,.0f}", currency=limits.currency, gpus=planned
                )
                if explain
                else ""
            )
            return "fail", text, facts.price_source
    return "pass", (_("{price} within budget").format(price=shown) if explain else ""), facts.price_source


def _budget_lower_bound(facts: CandidateFacts, bound: float, explain: bool) -> GateResult:
    """A GPUs-only price: over budget when even the GPUs alone are; otherwise unknown (the host is extra)."""
    limits = facts.needs.budget
    shown = _("at least {price:.2f} {currency}/GPU-hour (GPUs only, host billed on top)").format(
        price=bound, currency=limits.currency
    )
    if limits.gpu_hour_max is not None and bound > limits.gpu_hour_max:
        text = _("{price} > budget {budget:.2f}").format(price=shown, budget=limits.gpu_hour_max)
        return "fail", (text if explain else ""), facts.price_source
    planned = facts.planned_gpus
    if limits.month_max is not None and planned is not None:
        month = cost_per_month(bound, planned)
        if month > limits.month_max:
            text = (
                _("at least {month} {currency}/month for {gpus} GPUs > budget").format(
                    month=f"{month:,.0f}", currency=limits.currency, gpus=planned
                )
                if explain
                else ""
            )
            return "fail", text, facts.price_source
    text = _("{price}: the whole price is not known").format(price=shown)
    return "unknown", (text if explain else ""), facts.price_source


GateFunction = Callable[[CandidateFacts, Mapping[str, float], bool], GateResult]
GATES: dict[str, GateFunction] = {"vram_fits": vram_fits, "enough_gpus": enough_gpus, "budget": budget}
