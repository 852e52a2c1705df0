"""The procurement sheets: Ranking (one row per offering in each region), Score breakdown (criteria ×
offerings, with the weights) and GPU offerings (the catalog rows used); the Sizing sheet is
`desktop/export/sizing.py`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalogs.checklist import Checklist
from catalogs.interconnects import fabric_name, intra_node_name
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.needs import NeedsProfile
from catalogs.prices import HOURS_PER_MONTH, cost_per_month, lowest_gpu_hour
from catalogs.schema import Offering, Price
from catalogs.scoring import Judgement, RankedOffering, Ranking
from desktop.export.acceptance import fact_sources_text, honest_columns
from desktop.export.model import Column, Sheet
from desktop.i18n import N_, _, ngettext


@dataclass
class Procurement:
    """What the procurement sheets show: the needs, the catalogs, the checklist and the ranking."""

    needs: NeedsProfile
    needs_path: Path | None
    catalogs: CatalogSet
    checklist: Checklist
    ranking: Ranking


# -- Ranking -------------------------------------------------------------------------------------------------


GATE_STATUS = {"pass": N_("pass"), "fail": N_("fail"), "unknown": N_("unknown")}


def gate_status(status: str) -> str:
    """A gate's status in words ("pass" in English): the Score breakdown's gate cells."""
    return _(GATE_STATUS.get(status, status))


def gates_text(entry: RankedOffering) -> str:
    """ "pass", "fail: Within budget, GPU memory fits the job", or "pass (unchecked: Enough GPUs)": the gates
    named by their titles."""
    gates = [j for j in entry.judgements if j.kind == "gate"]
    failed = [entry.title(g.criterion) for g in gates if g.status == "fail"]
    if failed:
        return _("fail: {gates}").format(gates=", ".join(failed))
    unchecked = [entry.title(g.criterion) for g in gates if g.status == "unknown"]
    if unchecked:
        return _("pass (unchecked: {gates})").format(gates=", ".join(unchecked))
    return _("pass")


def one_line_reason(entry: RankedOffering, titles: dict[str, str]) -> str:
    """Why this rank, in one line: the failed gates with why, else the strongest and weakest weighted points
    (their reasons are in the Score breakdown's notes and in `linkvet score`)."""
    failed = entry.failed_gates
    if failed:
        gates = "; ".join(
            _("{criterion}: {reason}").format(criterion=titles.get(g.criterion, g.criterion), reason=g.reason)
            for g in failed
        )
        return _("fails {gates}").format(gates=gates)
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
        parts.append(_("strong: {points}").format(points=", ".join(_point(j, titles) for j in strong)))
    if weak:
        parts.append(_("weak: {points}").format(points=", ".join(_point(j, titles) for j in weak)))
    unknown = len(weighted) - len(known)
    if unknown:
        parts.append(ngettext("{n} criterion unknown", "{n} criteria unknown", unknown).format(n=unknown))
    return "; ".join(parts) or _("no weighted criterion could be judged")


def _point(j: Judgement, titles: dict[str, str]) -> str:
    return _("{criterion} {score:.2f}").format(criterion=titles.get(j.criterion, j.criterion), score=j.score)


ORDERING_COLUMN = {"score-min": "score_min", "total": "score", "topsis": "topsis"}


def ranking_columns(ordered_by: str = "score-min") -> tuple[Column, ...]:
    """The Ranking sheet's columns, worded in the current language; the figure that orders the ranking
    (`ordered_by`, `Ranking.ordered_by`) comes right after the rank and says so, so that the order and the
    figure beside the rank agree."""
    figures: list[Column] = [
        Column(
            "score",
            _("Score"),
            "score",
            decimals=3,
            colour_scale="high-good",
            note=_("normalised weighted sum, 0-1, with every unknown at the checklist's unknown score"),
        ),
        Column(
            "score_min",
            _("Score at worst"),
            "score",
            decimals=3,
            colour_scale="high-good",
            note=_("the score with every unknown at its worst (0)"),
        ),
        Column(
            "score_max",
            _("Score at best"),
            "score",
            decimals=3,
            note=_("the score with every unknown at its best (1)"),
        ),
        Column("topsis", "TOPSIS", "score", decimals=3, note=_("only with --method topsis")),
    ]
    key = ORDERING_COLUMN.get(ordered_by, "score")
    figures.sort(key=lambda c: c.key != key)  # the ordering figure first, the others as they were
    figures[0] = dataclasses.replace(
        figures[0],
        header=_("{title} (orders the ranking)").format(title=figures[0].header),
        note=_("{note}; the ranking is ordered by this figure").format(note=figures[0].note),
    )
    return (
        Column("rank", _("Rank"), "int", width=7),
        *figures,
        Column(
            "coverage",
            _("Known"),
            "percent",
            decimals=0,
            note=_("the share of the checklist's weight that is known"),
        ),
        Column(
            "place",
            _("Place"),
            width=30,
            wrap=True,
            note=_(
                "decided: its worst case is above the next one's best case; else the unknowns that decide it"
            ),
        ),
        Column(
            "ask_next",
            _("Ask next"),
            width=30,
            wrap=True,
            note=_("the unknowns whose answers could move it most"),
        ),
        # "pass", "fail: Within budget" or "pass (unchecked: …)": as wide as the longest, wrapped past 40.
        Column("gates", _("Gates"), wrap=True, max_width=40),
        Column("provider", _("Provider")),
        Column("provider_name", _("Provider name")),
        Column("offering", _("Offering")),
        Column("region", _("Region")),
        Column("gpu", "GPU"),
        Column("gpus_per_node", _("GPUs per node"), "int"),
        Column("planned_gpus", _("Planned GPUs"), "int", note=_("what sizing plans for the needs profile")),
        Column("nodes", _("Nodes"), "int"),
        Column("price_gpu_hour", _("Price per GPU-hour"), "money", decimals=2),
        Column("currency", _("Currency"), width=9),
        Column(
            "price_basis",
            _("Price covers"),
            width=18,
            note=_(
                "whole node, or GPUs only (a lower bound: the host is billed on top, so not ranked on price)"
            ),
        ),
        Column(
            "month_cost",
            _("Cost per month"),
            "money",
            decimals=0,
            note=_("planned GPUs × price × {hours} h").format(hours=HOURS_PER_MONTH),
        ),
        Column("line_quality", _("Line quality score"), "score", decimals=2, colour_scale="high-good"),
        Column(
            "line_quality_why",
            _("Line quality: measured, or why not"),
            width=48,
            wrap=True,
            note=_(
                "the peak-hour figures scored, or why there are none: not measured, or measured only from "
                "another vantage point than the needs profile's"
            ),
        ),
        Column("unknowns", _("Unknown facts"), "int", note=_("criteria the catalog leaves unknown")),
        Column("reason", _("Reason"), width=70, wrap=True),
    )


def ranking_sheet(p: Procurement) -> Sheet:
    titles = {c.id: c.shown_title for c in p.checklist.criterion}
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
                else (_("GPUs only (lower bound)") if e.price_is_lower_bound else _("whole node")),
                "month_cost": None
                if e.price_gpu_hour is None or e.planned_gpus is None
                else cost_per_month(e.price_gpu_hour, e.planned_gpus),
                "line_quality": None if line is None else line.score,
                "line_quality_why": None if line is None else line.reason,
                "unknowns": len(e.unknowns),
                "reason": one_line_reason(e, titles),
            }
        )
    columns = ranking_columns(p.ranking.ordered_by)
    if p.ranking.method != "topsis":
        columns = tuple(c for c in columns if c.key != "topsis")
    return Sheet("Ranking", columns, rows, freeze_columns=2, title=_("Ranking"))


# -- Score breakdown -----------------------------------------------------------------------------------------


def score_breakdown_sheet(p: Procurement) -> Sheet:
    weights = dict(p.ranking.weights)
    total_weight = sum(weights.values()) or 1.0
    columns: list[Column] = [
        Column("rank", _("Rank"), "int", width=7),
        Column("provider", _("Provider")),
        Column("offering", _("Offering")),
        Column("region", _("Region")),
    ]
    ordering = ranking_columns(p.ranking.ordered_by)[1]  # the figure that orders the ranking, named so
    if ordering.key != "score":
        columns.append(ordering)
    columns.append(Column("score", _("Score"), "score", decimals=3, colour_scale="high-good"))
    for criterion in p.checklist.criterion:
        if criterion.kind == "gate":
            columns.append(
                Column(
                    f"gate:{criterion.id}",
                    _("Gate: {title}").format(title=criterion.shown_title),
                    width=14,
                    note=criterion.shown_what,
                )
            )
    for criterion in p.checklist.criterion:
        if criterion.kind == "weighted":
            share = weights.get(criterion.id, 0.0) / total_weight
            columns.append(
                Column(
                    f"score:{criterion.id}",
                    _("{title} (weight {share:.0%})").format(title=criterion.shown_title, share=share),
                    "score",
                    decimals=2,
                    width=14,
                    colour_scale="high-good",
                    note=_("{what} Empty: not known (counted as {unknown:g}).").format(
                        what=criterion.shown_what, unknown=p.checklist.unknown_score
                    ),
                )
            )
    columns.append(
        Column(
            "unknown_why",
            _("Unknown or not measured: why"),
            width=90,
            note=_(
                "for every criterion left empty above (and every gate that could not be checked): why, "
                "e.g. 'not measured (measured only from frankfurt-box, not from shanghai-office)'"
            ),
        )
    )
    titles = {c.id: c.shown_title for c in p.checklist.criterion}
    rows = []
    for e in p.ranking.entries:
        row: dict[str, Any] = {
            "rank": e.rank,
            "provider": e.provider,
            "offering": e.offering,
            "region": e.region,
            "score": e.total,
            ordering.key: e.rating,
        }
        why: list[str] = []
        for j in e.judgements:
            if j.kind == "gate":
                row[f"gate:{j.criterion}"] = gate_status(j.status or "unknown")
            else:
                row[f"score:{j.criterion}"] = j.score
            if j.unknown:
                why.append(
                    _("{criterion}: {reason}").format(
                        criterion=titles.get(j.criterion, j.criterion), reason=j.reason
                    )
                )
        row["unknown_why"] = "; ".join(why) or None
        rows.append(row)
    return Sheet("Score breakdown", columns, rows, freeze_columns=4, title=_("Score breakdown"))


# -- GPU offerings --------------------------------------------------------------------------------------------


def offering_columns() -> tuple[Column, ...]:
    """The GPU offerings sheet's columns, worded in the current language."""
    return (
        Column("provider", _("Provider")),
        Column("offering", _("Offering")),
        Column("name", _("Name")),
        Column("gpu", "GPU"),
        Column("gpu_memory_gb", _("GPU memory"), "float", decimals=0, unit="GB"),
        Column("gpus_per_node", _("GPUs per node"), "int"),
        Column("intra_node", _("Inside the node")),
        Column("intra_node_gbytes_s", _("GPU link"), "float", decimals=0, unit="GB/s"),
        Column("fabric", _("Between nodes")),
        Column("fabric_gbit_s", _("Fabric"), "float", decimals=0, unit="Gbit/s"),
        Column("rdma", "RDMA", "bool"),
        Column("local_nvme_tb", _("Local NVMe"), "float", decimals=2, unit="TB"),
        Column("shared_fs", _("Shared file system")),
        Column("storage_gbit_s", _("Storage network"), "float", decimals=0, unit="Gbit/s"),
        Column("vcpus", "vCPUs", "int"),
        Column("ram_gib", _("RAM"), "float", decimals=0, unit="GiB"),
        Column("max_nodes", _("Max nodes"), "int"),
        Column("bmc_ipmi", "BMC/IPMI", "bool"),
        Column("lowest_gpu_hour", _("Lowest price per GPU-hour"), "money", decimals=2),
        Column("currency", _("Currency"), width=9),
        Column("prices", _("Prices"), width=40),
        Column("regions", _("Regions"), width=30),
        Column("source", _("Source"), width=40),
        Column("as_of", _("As of"), width=10),
        Column(
            "fact_sources",
            _("Facts with their own source"),
            width=60,
            wrap=True,
            note=_(
                "each fact that carries its own provenance (a vendor's answer, a verified measurement): its "
                "value, standing, source, date and file"
            ),
        ),
    )


def offerings_sheet(catalogs: CatalogSet) -> Sheet:
    rows = [offering_row(c, o) for c, o in catalogs.offerings()]
    return Sheet("GPU offerings", offering_columns(), rows, freeze_columns=2, title=_("GPU offerings"))


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
        "intra_node": None if o.intra_node is None else intra_node_name(o.intra_node.kind),
        "intra_node_gbytes_s": None if o.intra_node is None else o.intra_node.bandwidth_gbytes_s,
        "fabric": None if o.inter_node is None else fabric_name(o.inter_node.fabric),
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
    """ "us-east-1: 2.5/GPU-hour, 20/node-hour USD (GPUs only)"."""
    parts = []
    for value, per in (
        (price.gpu_hour, _("{price:g}/GPU-hour")),
        (price.node_hour, _("{price:g}/node-hour")),
        (price.node_month, _("{price:g}/node-month")),
        (price.spot_node_hour, _("{price:g}/spot node-hour")),
    ):
        if value is not None:
            parts.append(per.format(price=value))
    text = ", ".join(parts)
    if price.currency:
        text = _("{prices} {currency}").format(prices=text, currency=price.currency)
    if price.covers == "gpus-only":
        text = _("{prices} (GPUs only)").format(prices=text)
    if price.region:
        text = _("{region}: {prices}").format(region=price.region, prices=text)
    return text
