"""The Sizing sheet: the needs profile and what sizing derived on each GPU configuration offered (the GPU
counts, the memory per GPU, the sync per step, the bandwidth between nodes), with the assumptions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.loader import ProviderCatalog
from catalogs.schema import Offering
from catalogs.sizing import scale_table_note, size
from desktop.export.model import FORMATS, Column, Sheet
from desktop.export.procurement import Procurement
from desktop.i18n import _, ngettext, npgettext


def sizing_columns() -> tuple[Column, ...]:
    return (
        Column("section", _("Section"), width=52),
        Column("item", _("Item"), width=30),
        Column("value", _("Value"), "auto", width=16),
        Column("unit", _("Unit"), width=10),
    )


def sizing_sheet(p: Procurement, gpus: GpuReference | None = None) -> Sheet:
    rows: list[dict[str, Any]] = []
    named = _("Needs profile ({file})").format(file=p.needs_path.name) if p.needs_path else None
    where = named or _("Needs profile")
    rows.append({"section": where, "item": "name", "value": p.needs.name})
    for table, values in p.needs.model_dump(mode="json", exclude={"name", "format_version"}).items():
        if isinstance(values, dict):
            for key, value in values.items():
                if value is not None and value != {}:
                    rows.append({"section": where, "item": f"{table}.{key}", "value": _plain(value)})
        elif values is not None:
            rows.append({"section": where, "item": table, "value": _plain(values)})
    assumptions: list[str] = []
    for label, memory, per_node, tflops in gpu_configurations(
        p.catalogs.offerings(), gpus or default_gpu_reference()
    ):
        result = size(p.needs, memory, per_node, tflops)
        section = _("On {gpu}, {per_node} per node").format(gpu=label, per_node=per_node)
        gb_per_node = _("GB per node")
        derived: list[tuple[str, Any, str]] = [
            (_("GPU memory usable"), result.usable_gb, "GB"),
            (_("fewest GPUs that fit"), result.min_gpus, _unit_gpus(result.min_gpus)),
            (_("planned GPUs"), result.planned_gpus, _unit_gpus(result.planned_gpus)),
            (_("nodes"), result.nodes, ngettext("node", "nodes", result.nodes or 2)),
            (_("spans nodes"), result.spans_nodes, ""),
            (_("weights alone"), result.weights_gb, "GB"),
            (_("model states before sharding"), result.model_states_gb, "GB"),
            (_("per GPU: total"), None if result.per_gpu is None else result.per_gpu.total_gb, "GB"),
            (_("gradient sync per step"), result.sync_gb_per_step, "GB"),
            (_("step time"), result.step_seconds, "s"),
            (_("inter-node bandwidth needed"), result.internode_gbit_s, _("Gbit/s per node")),
        ]
        if result.host_offload_gb_per_node is not None:
            derived.append((_("offloaded to host RAM"), result.host_offload_gb_per_node, gb_per_node))
        if result.nvme_offload_gb_per_node is not None:
            derived.append((_("offloaded to local NVMe"), result.nvme_offload_gb_per_node, gb_per_node))
        note = scale_table_note(result, p.checklist.scale_row(p.needs.model.params))
        if note is not None:
            derived.append((_("against the documents' scale table"), note, ""))
        rows.extend(
            {
                "section": section,
                "item": item,
                "value": value,
                "unit": unit,
                FORMATS: {"value": _shown(value)},
            }
            for item, value, unit in derived
        )
        assumptions.extend(a for a in result.assumptions if a not in assumptions)
    rows.extend(
        {"section": _("Assumptions"), "item": f"#{n}", "value": text} for n, text in enumerate(assumptions, 1)
    )
    return Sheet("Sizing", sizing_columns(), rows, freeze_columns=2, title=_("Sizing"))


def _unit_gpus(count: int | None) -> str:
    """The unit of a GPU count: "GPUs" (a measure word in Chinese)."""
    return npgettext("unit of a count", "GPU", "GPUs", count or 2)


def gpu_configurations(
    offerings: Iterable[tuple[ProviderCatalog, Offering]], gpus: GpuReference
) -> list[tuple[str, float, int, float | None]]:
    """Distinct (GPU label, memory GB, GPUs per node, BF16 TFLOPS) among the offerings whose GPU memory is
    known, as scoring sizes them (8 per node when the catalog does not say)."""
    seen: dict[tuple[str, float, int], float | None] = {}
    for _catalog, offering in offerings:
        match = gpus.get(offering.gpu, offering.gpu_memory_gb) if offering.gpu else None
        memory = offering.gpu_memory_gb or (match.memory_gb if match else None)
        if memory is None:
            continue
        label = match.describe() if match else (offering.gpu or _("{memory:g} GB GPU").format(memory=memory))
        key = (label, memory, offering.gpus_per_node or 8)
        seen.setdefault(key, match.bf16_dense_tflops if match else None)
    return [(label, memory, per_node, tflops) for (label, memory, per_node), tflops in sorted(seen.items())]


def _shown(value: Any) -> str:
    """A number format for one sizing figure: whole numbers as such, others with one decimal."""
    if isinstance(value, float) and not value.is_integer():
        return "#,##0.0" if abs(value) >= 1 else "0.000"
    return "#,##0" if isinstance(value, int | float) and not isinstance(value, bool) else "General"


def _plain(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):  # e.g. budget.exchange_rates
        return ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}" for k, v in value.items())
    return value
