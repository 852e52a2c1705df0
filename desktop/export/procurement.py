"""The procurement sheets: Ranking (one row per offering in each region), Score breakdown (criteria ×
offerings, with the weights), GPU offerings (the catalog rows used) and Sizing (the needs profile and what
sizing derived on each GPU configuration offered)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalogs.checklist import Checklist
from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.needs import NeedsProfile
from catalogs.prices import HOURS_PER_MONTH, cost_per_month, lowest_gpu_hour
from catalogs.schema import Offering, Price
from catalogs.scoring import Judgement, RankedOffering, Ranking
from catalogs.sizing import scale_table_note, size
from desktop.export.acceptance import fact_sources_text, honest_columns
from desktop.export.model import FORMATS, Column, Sheet


@dataclass
class Procurement:
    """What the procurement sheets show: the needs, the catalogs, the checklist and the ranking."""

    needs: NeedsProfile
    needs_path: Path | None
    catalogs: CatalogSet
    checklist: Checklist
    ranking: Ranking


# -- Ranking -------------------------------------------------------------------------------------------------


def gates_text(entry: RankedOffering) -> str:
    """ "pass", "fail: budget, vram_fits", or "pass (unchecked: capacity)"."""
    gates = [j for j in entry.judgements if j.kind == "gate"]
    failed = [g.criterion for g in gates if g.status == "fail"]
    if failed:
        return "fail: " + ", ".join(failed)
    unchecked = [g.criterion for g in gates if g.status == "unknown"]
    return "pass" + (f" (unchecked: {', '.join(unchecked)})" if unchecked else "")


def one_line_reason(entry: RankedOffering, titles: dict[str, str]) -> str:
    """Why this rank, in one line: the failed gates with why, else the strongest and weakest weighted points
    (their reasons are in the Score breakdown's notes and in `linkvet score`)."""
    failed = entry.failed_gates
    if failed:
        return "fails " + "; ".join(f"{titles.get(g.criterion, g.criterion)}: {g.reason}" for g in failed)
    weighted = [j for j in entry.judgements if j.kind == "weighted" and j.weight > 0]
    known = [j for j in weighted if j.score is not None]
    strong = sorted(
        (j for j in known if (j.score or 0) >= 0.5), key=lambda j: (-(j.weight * (j.score or 0)), j.criterion)
    )[:2]
    weak = sorted(
        (j for j in known if (j.score or 0) < 0.5),
        key=lambda j: (((j.score or 0) - 1) * j.weight, j.criterion),
    )[:2]
    parts = []
    if strong:
        parts.append("strong: " + ", ".join(_point(j, titles) for j in strong))
    if weak:
        parts.append("weak: " + ", ".join(_point(j, titles) for j in weak))
    unknown = len(weighted) - len(known)
    if unknown:
        parts.append(f"{unknown} criteria unknown")
    return "; ".join(parts) or "no weighted criterion could be judged"


def _point(j: Judgement, titles: dict[str, str]) -> str:
    return f"{titles.get(j.criterion, j.criterion)} {j.score:.2f}"


RANKING_COLUMNS = (
    Column("rank", "Rank", "int", width=7),
    Column(
        "score", "Score", "score", decimals=3, colour_scale="high-good", note="normalised weighted sum, 0-1"
    ),
    Column(
        "score_min",
        "Score at worst",
        "score",
        decimals=3,
        colour_scale="high-good",
        note="the score with every unknown at its worst (0); the weighted sum ranks by it",
    ),
    Column(
        "score_max", "Score at best", "score", decimals=3, note="the score with every unknown at its best (1)"
    ),
    Column(
        "coverage", "Known", "percent", decimals=0, note="the share of the checklist's weight that is known"
    ),
    Column(
        "place",
        "Place",
        width=30,
        wrap=True,
        note="decided: its worst case is above the next one's best case; else the unknowns that decide it",
    ),
    Column("ask_next", "Ask next", width=30, wrap=True, note="the unknowns whose answers could move it most"),
    Column("topsis", "TOPSIS", "score", decimals=3, note="only with --method topsis"),
    # "pass", "fail: budget, vram_fits" or "pass (unchecked: …)": as wide as the longest, wrapped past 40.
    Column("gates", "Gates", wrap=True, max_width=40),
    Column("provider", "Provider"),
    Column("provider_name", "Provider name"),
    Column("offering", "Offering"),
    Column("region", "Region"),
    Column("gpu", "GPU"),
    Column("gpus_per_node", "GPUs per node", "int"),
    Column("planned_gpus", "Planned GPUs", "int", note="what sizing plans for the needs profile"),
    Column("nodes", "Nodes", "int"),
    Column("price_gpu_hour", "Price per GPU-hour", "money", decimals=2),
    Column("currency", "Currency", width=9),
    Column(
        "price_basis",
        "Price covers",
        width=18,
        note="whole node, or GPUs only (a lower bound: the host is billed on top, so not ranked on price)",
    ),
    Column(
        "month_cost",
        "Cost per month",
        "money",
        decimals=0,
        note=f"planned GPUs × price × {HOURS_PER_MONTH} h",
    ),
    Column("line_quality", "Line quality score", "score", decimals=2, colour_scale="high-good"),
    Column(
        "line_quality_why",
        "Line quality: measured, or why not",
        width=48,
        wrap=True,
        note="the peak-hour figures scored, or why there are none: not measured, or measured only from "
        "another vantage point than the needs profile's",
    ),
    Column("unknowns", "Unknown facts", "int", note="criteria the catalog leaves unknown"),
    Column("reason", "Reason", width=70, wrap=True),
)


def ranking_sheet(p: Procurement) -> Sheet:
    titles = {c.id: c.title for c in p.checklist.criterion}
    rows = []
    for e in p.ranking.entries:
        line = next((j for j in e.judgements if j.criterion == "line_quality"), None)
        rows.append(
            {
                "rank": e.rank,
                "score": e.total,
                **honest_columns(e),
                "topsis": e.topsis,
                "gates": gates_text(e),
                "provider": e.provider,
                "provider_name": e.provider_name,
                "offering": e.offering_name or e.offering,
                "region": e.region,
                "gpu": e.gpu,
                "gpus_per_node": e.gpus_per_node,
                "planned_gpus": e.planned_gpus,
                "nodes": e.nodes,
                "price_gpu_hour": e.price_gpu_hour,
                "currency": e.currency,
                "price_basis": None
                if e.price_gpu_hour is None
                else ("GPUs only (lower bound)" if e.price_is_lower_bound else "whole node"),
                "month_cost": None
                if e.price_gpu_hour is None or e.planned_gpus is None
                else cost_per_month(e.price_gpu_hour, e.planned_gpus),
                "line_quality": None if line is None else line.score,
                "line_quality_why": None if line is None else line.reason,
                "unknowns": len(e.unknowns),
                "reason": one_line_reason(e, titles),
            }
        )
    columns = (
        RANKING_COLUMNS
        if p.ranking.method == "topsis"
        else tuple(c for c in RANKING_COLUMNS if c.key != "topsis")
    )
    return Sheet("Ranking", columns, rows, freeze_columns=2)


# -- Score breakdown -----------------------------------------------------------------------------------------


def score_breakdown_sheet(p: Procurement) -> Sheet:
    weights = dict(p.ranking.weights)
    total_weight = sum(weights.values()) or 1.0
    columns: list[Column] = [
        Column("rank", "Rank", "int", width=7),
        Column("provider", "Provider"),
        Column("offering", "Offering"),
        Column("region", "Region"),
        Column("score", "Score", "score", decimals=3, colour_scale="high-good"),
    ]
    for criterion in p.checklist.criterion:
        if criterion.kind == "gate":
            columns.append(
                Column(f"gate:{criterion.id}", f"Gate: {criterion.title}", width=14, note=criterion.what)
            )
    for criterion in p.checklist.criterion:
        if criterion.kind == "weighted":
            share = weights.get(criterion.id, 0.0) / total_weight
            columns.append(
                Column(
                    f"score:{criterion.id}",
                    f"{criterion.title} (weight {share:.0%})",
                    "score",
                    decimals=2,
                    width=14,
                    colour_scale="high-good",
                    note=f"{criterion.what} Empty: not known (counted as {p.checklist.unknown_score:g}).",
                )
            )
    columns.append(
        Column(
            "unknown_why",
            "Unknown or not measured: why",
            width=90,
            note="for every criterion left empty above (and every gate that could not be checked): why, "
            "e.g. 'not measured (measured only from frankfurt-box, not from shanghai-office)'",
        )
    )
    titles = {c.id: c.title for c in p.checklist.criterion}
    rows = []
    for e in p.ranking.entries:
        row: dict[str, Any] = {
            "rank": e.rank,
            "provider": e.provider,
            "offering": e.offering,
            "region": e.region,
            "score": e.total,
        }
        why: list[str] = []
        for j in e.judgements:
            if j.kind == "gate":
                row[f"gate:{j.criterion}"] = j.status
            else:
                row[f"score:{j.criterion}"] = j.score
            if j.unknown:
                why.append(f"{titles.get(j.criterion, j.criterion)}: {j.reason}")
        row["unknown_why"] = "; ".join(why) or None
        rows.append(row)
    return Sheet("Score breakdown", columns, rows, freeze_columns=4)


# -- GPU offerings --------------------------------------------------------------------------------------------

OFFERING_COLUMNS = (
    Column("provider", "Provider"),
    Column("offering", "Offering"),
    Column("name", "Name"),
    Column("gpu", "GPU"),
    Column("gpu_memory_gb", "GPU memory", "float", decimals=0, unit="GB"),
    Column("gpus_per_node", "GPUs per node", "int"),
    Column("intra_node", "Inside the node"),
    Column("intra_node_gbytes_s", "GPU link", "float", decimals=0, unit="GB/s"),
    Column("fabric", "Between nodes"),
    Column("fabric_gbit_s", "Fabric", "float", decimals=0, unit="Gbit/s"),
    Column("rdma", "RDMA", "bool"),
    Column("local_nvme_tb", "Local NVMe", "float", decimals=2, unit="TB"),
    Column("shared_fs", "Shared file system"),
    Column("storage_gbit_s", "Storage network", "float", decimals=0, unit="Gbit/s"),
    Column("vcpus", "vCPUs", "int"),
    Column("ram_gib", "RAM", "float", decimals=0, unit="GiB"),
    Column("max_nodes", "Max nodes", "int"),
    Column("bmc_ipmi", "BMC/IPMI", "bool"),
    Column("lowest_gpu_hour", "Lowest price per GPU-hour", "money", decimals=2),
    Column("currency", "Currency", width=9),
    Column("prices", "Prices", width=40),
    Column("regions", "Regions", width=30),
    Column("source", "Source", width=40),
    Column("as_of", "As of", width=10),
    Column(
        "fact_sources",
        "Facts with their own source",
        width=60,
        wrap=True,
        note="each fact that carries its own provenance (a vendor's answer, a verified measurement): its "
        "value, standing, source, date and file",
    ),
)


def offerings_sheet(catalogs: CatalogSet) -> Sheet:
    rows = [offering_row(c, o) for c, o in catalogs.offerings()]
    return Sheet("GPU offerings", OFFERING_COLUMNS, rows, freeze_columns=2)


def offering_row(catalog: ProviderCatalog, o: Offering) -> dict[str, Any]:
    provenance = o.provenance("gpu")
    per_node = o.gpus_per_node
    return {
        "provider": catalog.provider.id,
        "offering": o.id,
        "name": o.name,
        "gpu": o.gpu,
        "gpu_memory_gb": o.gpu_memory_gb,
        "gpus_per_node": per_node,
        "intra_node": None if o.intra_node is None else o.intra_node.kind,
        "intra_node_gbytes_s": None if o.intra_node is None else o.intra_node.bandwidth_gbytes_s,
        "fabric": None if o.inter_node is None else o.inter_node.fabric,
        "fabric_gbit_s": None if o.inter_node is None else o.inter_node.bandwidth_gbit_s,
        "rdma": None if o.inter_node is None else o.inter_node.rdma,
        "local_nvme_tb": None if o.storage is None else o.storage.local_nvme_tb,
        "shared_fs": None if o.storage is None else o.storage.shared_fs,
        "storage_gbit_s": None if o.storage is None else o.storage.network_gbit_s,
        "vcpus": o.vcpus,
        "ram_gib": o.ram_gib,
        "max_nodes": o.max_nodes,
        "bmc_ipmi": o.bmc_ipmi,
        "lowest_gpu_hour": lowest_gpu_hour(o),
        "currency": o.currency or next((p.currency for p in o.prices if p.currency), None),
        "prices": "; ".join(_price_text(p) for p in o.prices) or None,
        "regions": ", ".join(o.regions) or None,
        "source": provenance.source,
        "as_of": provenance.as_of,
        "fact_sources": fact_sources_text(catalog, o),
    }


def _price_text(price: Price) -> str:
    parts = []
    for value, unit in (
        (price.gpu_hour, "GPU-hour"),
        (price.node_hour, "node-hour"),
        (price.node_month, "node-month"),
        (price.spot_node_hour, "spot node-hour"),
    ):
        if value is not None:
            parts.append(f"{value:g}/{unit}")
    where = f"{price.region}: " if price.region else ""
    currency = f" {price.currency}" if price.currency else ""
    covers = " (GPUs only)" if price.covers == "gpus-only" else ""
    return where + ", ".join(parts) + currency + covers


# -- Sizing ----------------------------------------------------------------------------------------------------

SIZING_COLUMNS = (
    Column("section", "Section", width=52),
    Column("item", "Item", width=30),
    Column("value", "Value", "auto", width=16),
    Column("unit", "Unit", width=10),
)


def sizing_sheet(p: Procurement, gpus: GpuReference | None = None) -> Sheet:
    rows: list[dict[str, Any]] = []
    where = f"Needs profile ({p.needs_path.name})" if p.needs_path else "Needs profile"
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
        section = f"On {label}, {per_node} per node"
        derived: list[tuple[str, Any, str]] = [
            ("GPU memory usable", result.usable_gb, "GB"),
            ("fewest GPUs that fit", result.min_gpus, "GPUs"),
            ("planned GPUs", result.planned_gpus, "GPUs"),
            ("nodes", result.nodes, "nodes"),
            ("spans nodes", result.spans_nodes, ""),
            ("weights alone", result.weights_gb, "GB"),
            ("model states before sharding", result.model_states_gb, "GB"),
            ("per GPU: total", None if result.per_gpu is None else result.per_gpu.total_gb, "GB"),
            ("gradient sync per step", result.sync_gb_per_step, "GB"),
            ("step time", result.step_seconds, "s"),
            ("inter-node bandwidth needed", result.internode_gbit_s, "Gbit/s per node"),
        ]
        if result.host_offload_gb_per_node is not None:
            derived.append(("offloaded to host RAM", result.host_offload_gb_per_node, "GB per node"))
        if result.nvme_offload_gb_per_node is not None:
            derived.append(("offloaded to local NVMe", result.nvme_offload_gb_per_node, "GB per node"))
        note = scale_table_note(result, p.checklist.scale_row(p.needs.model.params))
        if note is not None:
            derived.append(("against the documents' scale table", note, ""))
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
        {"section": "Assumptions", "item": f"#{n}", "value": text} for n, text in enumerate(assumptions, 1)
    )
    return Sheet("Sizing", SIZING_COLUMNS, rows, freeze_columns=2)


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
        label = match.describe() if match else (offering.gpu or f"{memory:g} GB GPU")
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
