"""Score and rank offerings against the checklist, explainably.

`rank_offerings(needs, catalogs, link_summaries)` is the one call: it pairs every offering with each region
it is offered in (a *candidate*), sizes the job on the offering's GPU, judges every checklist item — gates
pass/fail/unknown with a reason, weighted criteria a score in 0..1 or unknown with a reason and the fact's
source — and ranks: passing candidates by total (normalised weighted sum by default, TOPSIS as an option),
then those that fail a gate. A sensitivity check re-ranks with each weight moved ±20 %.

Pure and deterministic: same inputs, same output (ties break on provider, offering and region ids).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, NamedTuple, get_args

import numpy as np

from catalogs.checklist import Checklist, ScaleRow, default_checklist
from catalogs.errors import ChecklistError
from catalogs.facts import Provenance
from catalogs.gpus import GpuMatch, GpuReference, default_gpu_reference
from catalogs.link_quality import LinkSummary, PeriodStats
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.needs import NeedsProfile
from catalogs.prices import cost_per_month, in_budget_currency, offering_price
from catalogs.schema import Offering, Region, Service
from catalogs.sizing import SizingResult, size

RankingMethod = Literal["weighted-sum", "topsis"]  # `--method`; the JSON value of `Ranking.method`
RANKING_METHODS: tuple[RankingMethod, ...] = get_args(RankingMethod)
Status = Literal["pass", "fail", "unknown", "n/a"]


class Judgement(NamedTuple):
    """One checklist item for one candidate. Gates have `status`; weighted criteria have `score` (None =
    unknown) and `counted` (the value used in the total: the score, or the checklist's unknown score).
    (A NamedTuple rather than a frozen dataclass: ranking builds one per item per candidate.)"""

    criterion: str
    kind: Literal["gate", "weighted"]
    reason: str
    status: Status = "n/a"
    score: float | None = None
    counted: float | None = None
    weight: float = 0.0
    source: Source = None

    @property
    def source_text(self) -> str | None:
        return self.source.describe() if isinstance(self.source, Provenance) else self.source

    @property
    def unknown(self) -> bool:
        return self.status == "unknown" if self.kind == "gate" else self.score is None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"criterion": self.criterion, "kind": self.kind, "reason": self.reason}
        if self.kind == "gate":
            data["status"] = self.status
        else:
            data.update(
                score=self.score, counted=self.counted, weight=self.weight, unknown=self.score is None
            )
        data["source"] = self.source_text
        return data


@dataclass(frozen=True, slots=True)
class Candidate:
    """An offering in one region (region None: the catalog does not say where it is offered)."""

    catalog: ProviderCatalog
    offering: Offering
    region: Region | None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.catalog.provider.id, self.offering.id, self.region.id if self.region else "")

    @property
    def label(self) -> str:
        where = f"in {self.region.id}" if self.region else "(region not stated)"
        return f"{self.catalog.provider.id}/{self.offering.id} {where}"


@dataclass(slots=True)
class _Facts:
    """What scoring derives once per candidate."""

    candidate: Candidate
    needs: NeedsProfile
    gpu: GpuMatch | None
    gpu_memory_gb: float | None
    gpus_per_node: int | None
    sizing: SizingResult | None
    capacity: int | None
    price_gpu_hour: float | None  # as listed, in price_currency
    price_currency: str | None
    price_note: str
    price_source: Source
    compare_gpu_hour: float | None  # in the budget currency; None: not comparable (compare_note says why)
    compare_note: str  # the conversion used, or why the price is not compared
    lower_bound_gpu_hour: float | None  # a GPUs-only price in the budget currency (the node costs more)
    tflops: float | None
    link: LinkSummary | None
    link_note: str
    scale: ScaleRow | None
    needs_fabric: bool = True  # the plan spans nodes (or cannot be shown to fit in one)

    @property
    def capacity_note(self) -> str:
        offering = self.offering
        if offering.max_gpus is not None:
            return f"clusters of up to {offering.max_gpus} GPUs"
        return f"{offering.max_nodes} nodes × {self.gpus_per_node} GPUs"

    @property
    def service(self) -> Service | None:
        return self.candidate.catalog.service

    @property
    def offering(self) -> Offering:
        return self.candidate.offering

    @property
    def single_node(self) -> bool:
        return self.sizing is not None and self.sizing.spans_nodes is False and self.fits_one_node

    def usable_gb(self) -> float:
        if self.sizing is not None:
            return self.sizing.usable_gb
        return (self.gpu_memory_gb or 0.0) * (1 - self.needs.cluster.memory_reserve)

    @property
    def fits_one_node(self) -> bool:
        planned = self.sizing.planned_gpus if self.sizing else None
        return bool(planned and self.gpus_per_node and planned <= self.gpus_per_node)


Source = Provenance | str | None
Result = tuple[float | None, str, Source]  # score, reason, source
GateResult = tuple[Status, str, Source]


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _linear(value: float, good: float, bad: float) -> float:
    """1 at `good`, 0 at `bad`, linear between (works for either direction)."""
    if good == bad:
        return 1.0 if value == good else 0.0
    return max(0.0, min(1.0, (value - bad) / (good - bad)))


# --- gates ---------------------------------------------------------------------------------------------
#
# Every judging function takes the candidate's facts, the criterion's parameters and `x` (explain). Ranking
# first calls them with x=False, when only the score or status matters and no text is built; the reasons
# and sources are built (x=True) only for the entries someone reads.

_QUIET: tuple[str, None] = ("", None)


def _gate_vram(f: _Facts, p: Mapping[str, float], x: bool) -> GateResult:
    s = f.sizing
    if f.gpu_memory_gb is None:
        return "unknown", "GPU memory not stated (GPU model unknown)", None
    status: Status = "fail" if s is None or s.per_gpu is None or s.planned_gpus is None else "pass"
    short = _offload_shortfall(f)
    if status == "pass" and short:
        return "fail", (short if x else ""), f.offering.fact("ram_gib")
    if not x:
        return status, "", None
    src = f.offering.fact("gpu_memory_gb") if f.offering.gpu_memory_gb else _gpu_source(f)
    strategy = f.needs.training.strategy
    if s is None or s.per_gpu is None or s.planned_gpus is None:
        return (
            "fail",
            f"does not fit {_fmt(f.gpu_memory_gb)} GB GPUs at any GPU count with {strategy} "
            f"(usable {_fmt(f.usable_gb())} GB per GPU)",
            src,
        )
    text = (
        f"{_fmt(s.per_gpu.total_gb)} GB per GPU at {s.planned_gpus} GPUs with {strategy} ≤ "
        f"{_fmt(s.usable_gb)} GB usable of {_fmt(f.gpu_memory_gb)} GB (fits from {s.min_gpus} GPUs)"
    )
    return "pass", text + _offload_text(f), src


GIB = 1024**3 / 1e9  # GB per GiB


def _offload_shortfall(f: _Facts) -> str:
    """Why the node cannot hold what the offload puts in host RAM or on NVMe ("" when it can, or when the
    node's RAM/NVMe is not stated)."""
    s = f.sizing
    if s is None:
        return ""
    ram = f.offering.ram_gib
    if s.host_offload_gb_per_node is not None and ram is not None and s.host_offload_gb_per_node > ram * GIB:
        return (
            f"the offload keeps {_fmt(s.host_offload_gb_per_node)} GB per node in host RAM; the node has "
            f"{_fmt(ram)} GiB ({_fmt(ram * GIB)} GB)"
        )
    storage = f.offering.storage
    nvme = storage.local_nvme_tb if storage is not None else None
    if (
        s.nvme_offload_gb_per_node is not None
        and nvme is not None
        and s.nvme_offload_gb_per_node > nvme * 1000
    ):
        return f"the offload keeps {_fmt(s.nvme_offload_gb_per_node)} GB per node on NVMe; the node has {nvme:g} TB"
    return ""


def _offload_text(f: _Facts) -> str:
    s = f.sizing
    if s is None:
        return ""
    parts = []
    if s.host_offload_gb_per_node is not None:
        ram = f.offering.ram_gib
        have = f"of {_fmt(ram)} GiB" if ram is not None else "(node RAM not stated)"
        parts.append(f"{_fmt(s.host_offload_gb_per_node)} GB host RAM per node {have}")
    if s.nvme_offload_gb_per_node is not None:
        storage = f.offering.storage
        nvme = storage.local_nvme_tb if storage is not None else None
        have = f"of {nvme:g} TB" if nvme is not None else "(local NVMe not stated)"
        parts.append(f"{_fmt(s.nvme_offload_gb_per_node)} GB NVMe per node {have}")
    return f"; offloaded: {', '.join(parts)}" if parts else ""


def _gate_capacity(f: _Facts, p: Mapping[str, float], x: bool) -> GateResult:
    s = f.sizing
    if s is None or s.planned_gpus is None:
        return "unknown", "the GPU count cannot be planned (GPU memory unknown or the job does not fit)", None
    if f.capacity is not None:
        status: Status = "pass" if f.capacity >= s.planned_gpus else "fail"
        if not x:
            return status, "", None
        sign = "≥" if status == "pass" else "<"
        return status, f"{f.capacity_note} {sign} {s.planned_gpus} planned", f.offering.fact("max_nodes")
    if f.gpus_per_node and s.planned_gpus <= f.gpus_per_node:
        return "pass", (f"{s.planned_gpus} GPUs fit in one node of {f.gpus_per_node}" if x else ""), None
    if not x:
        return "unknown", "", None
    nodes = f"{s.nodes} nodes of {f.gpus_per_node}" if s.nodes and f.gpus_per_node else "several nodes"
    return (
        "unknown",
        f"needs {s.planned_gpus} GPUs ({nodes}); how many the provider rents out is not stated",
        None,
    )


def _gate_budget(f: _Facts, p: Mapping[str, float], x: bool) -> GateResult:
    budget = f.needs.budget
    if budget.gpu_hour_max is None and budget.month_max is None:
        return "n/a", "no budget set", None
    if f.price_gpu_hour is None:
        return "unknown", "price not stated", None
    price = f.compare_gpu_hour
    if price is None and f.lower_bound_gpu_hour is not None:
        return _gate_budget_lower_bound(f, f.lower_bound_gpu_hour, x)
    if price is None:
        return "unknown", f"price {f.compare_note}; budget in {budget.currency}", f.price_source
    shown = f"{price:.2f} {budget.currency}/GPU-hour" + (f" ({f.compare_note})" if f.compare_note else "")
    if budget.gpu_hour_max is not None and price > budget.gpu_hour_max:
        text = f"{shown} > budget {budget.gpu_hour_max:.2f}" if x else ""
        return "fail", text, f.price_source
    planned = f.sizing.planned_gpus if f.sizing else None
    if budget.month_max is not None:
        if planned is None:
            return "unknown", "monthly cost unknown: the GPU count cannot be planned", f.price_source
        month = cost_per_month(price, planned)
        if month > budget.month_max:
            text = f"{month:,.0f} {budget.currency}/month for {planned} GPUs > budget" if x else ""
            return "fail", text, f.price_source
    text = f"{shown} within budget" if x else ""
    return "pass", text, f.price_source


def _gate_budget_lower_bound(f: _Facts, bound: float, x: bool) -> GateResult:
    """A GPUs-only price: over budget when even the GPUs alone are; otherwise unknown (the host is extra)."""
    budget = f.needs.budget
    shown = f"at least {bound:.2f} {budget.currency}/GPU-hour (GPUs only, host billed on top)"
    if budget.gpu_hour_max is not None and bound > budget.gpu_hour_max:
        return "fail", (f"{shown} > budget {budget.gpu_hour_max:.2f}" if x else ""), f.price_source
    planned = f.sizing.planned_gpus if f.sizing else None
    if budget.month_max is not None and planned is not None:
        month = cost_per_month(bound, planned)
        if month > budget.month_max:
            text = f"at least {month:,.0f} {budget.currency}/month for {planned} GPUs > budget" if x else ""
            return "fail", text, f.price_source
    return "unknown", (f"{shown}: the whole price is not known" if x else ""), f.price_source


# --- weighted criteria -------------------------------------------------------------------------------------


def _gpu_source(f: _Facts) -> Provenance | None:
    return f.gpu.exact.provenance if f.gpu and f.gpu.exact else None


def intra_node_kind(f: _Facts) -> tuple[str, float | None, bool] | None:
    """(kind, GB/s per GPU, derived from the GPU reference?) of the link between a node's GPUs, or None."""
    intra = f.offering.intra_node
    if intra is not None:
        return intra.kind, intra.bandwidth_gbytes_s, False
    exact = f.gpu.exact if f.gpu and not f.gpu.by_family else None
    if exact is not None and exact.intra_node_kind:
        return exact.intra_node_kind, exact.interconnect_gbytes_s_bidir, True
    return None


def _intra_node(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    """The GPU link's own score; ranking then scales it by how many of a full node's GPUs it joins for this
    plan (`_scaling`)."""
    planned = f.sizing.planned_gpus if f.sizing else None
    if planned == 1:
        return 1.0, "not needed: the job fits on one GPU", None
    if f.gpus_per_node == 1:
        return (
            p["one_gpu_per_node"],
            "one GPU per node: no NVLink to speak of, all GPU-to-GPU traffic crosses the network",
            None,
        )
    found = intra_node_kind(f)
    if found is None:
        return None, "GPU interconnect not stated (NVLink or PCIe unknown)", None
    kind, bandwidth, derived = found
    if kind == "nvlink":
        score = (
            0.8 + 0.2 * min(1.0, bandwidth / p["nvlink_full_bandwidth_gbytes_s"])
            if bandwidth
            else p["nvlink"]
        )
    else:
        score = p.get(kind, 0.5)
    if not x:
        return score, "", None
    source: Source = f.offering.fact("intra_node.kind")
    if derived and f.gpu is not None and f.gpu.exact is not None:
        source = f.gpu.exact.provenance._replace(derived=True)
    shown = ("NVLink" if kind == "nvlink" else kind.upper()) + (
        f" {_fmt(bandwidth)} GB/s" if bandwidth else ""
    )
    if kind == "pcie":
        shown += ": PCIe only (the documents say to avoid PCIe GPUs for training)"
    return score, shown, source


def _needs_fabric(f: _Facts) -> bool:
    return f.needs_fabric


def _inter_node_bandwidth(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    if not _needs_fabric(f):
        return 1.0, (f"not needed: the job fits in one node of {f.gpus_per_node} GPUs" if x else ""), None
    implied = f.sizing.internode_gbit_s if f.sizing else None
    required = max(implied or 0.0, f.scale.min_gbit_s if f.scale else 0.0)
    preferred = max(required, f.scale.preferred_gbit_s if f.scale else 0.0)
    inter = f.offering.inter_node
    have = inter.bandwidth_gbit_s if inter is not None else None
    score = None if have is None else (min(1.0, have / preferred) if preferred > 0 else 1.0)
    if not x:
        return score, "", None
    why = []
    if implied:
        why.append(f"sizing needs {_fmt(implied)} Gbit/s per node")
    if f.scale:
        why.append(f"scale table {_fmt(f.scale.min_gbit_s)}–{_fmt(f.scale.preferred_gbit_s)} Gbit/s")
    need = "; ".join(why) or "need unknown"
    if have is None:
        return None, f"fabric bandwidth not stated ({need})", None
    flag = " — below the need" if have < required else ""
    return (
        score,
        f"{_fmt(have)} Gbit/s per node ({need}){flag}",
        f.offering.fact("inter_node.bandwidth_gbit_s"),
    )


_FABRIC_NAMES = {
    "infiniband": "InfiniBand",
    "roce": "RoCE",
    "ethernet": "Ethernet",
    "efa": "EFA",
    "other": "other",
}


def _inter_node_fabric(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    if not _needs_fabric(f):
        return 1.0, "not needed: the job fits in one node", None
    inter = f.offering.inter_node
    if inter is None:
        return None, "fabric between nodes not stated", None
    score = p.get(inter.fabric, 0.5)
    if not x:
        return score, "", None
    shown = _FABRIC_NAMES[inter.fabric] + (f" ({inter.note})" if inter.note else "")
    return score, shown, f.offering.fact("inter_node.fabric")


def _rdma(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    if not _needs_fabric(f):
        return 1.0, "not needed: the job fits in one node", None
    inter = f.offering.inter_node
    if inter is None:
        return None, "fabric not stated", None
    if inter.rdma is not None:
        if not x:
            return (1.0 if inter.rdma else 0.0), "", None
        return (
            (1.0 if inter.rdma else 0.0),
            ("RDMA" if inter.rdma else "no RDMA"),
            f.offering.fact("inter_node.rdma"),
        )
    if inter.fabric in ("infiniband", "roce"):
        return 1.0, f"RDMA ({_FABRIC_NAMES[inter.fabric]} is RDMA)", "derived from the fabric"
    return None, "RDMA not stated", None


def _lossless(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    if not _needs_fabric(f):
        return 1.0, "not needed: the job fits in one node", None
    inter = f.offering.inter_node
    if inter is None:
        return None, "fabric not stated", None
    if inter.fabric != "roce":
        return 1.0, (f"does not apply ({inter.fabric})" if x else ""), None
    if inter.lossless is None:
        return None, "RoCE without a word on lossless (PFC/ECN) configuration", None
    score = 1.0 if inter.lossless else 0.0
    if not x:
        return score, "", None
    text = "lossless RoCE" if inter.lossless else "RoCE not configured lossless"
    return score, text, f.offering.fact("inter_node.lossless")


def _local_nvme(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    storage = f.offering.storage
    if storage is None or storage.local_nvme_tb is None:
        return None, "local NVMe not stated", None
    tb = storage.local_nvme_tb
    if not x:
        return min(1.0, tb / p["good_tb"]), "", None
    return min(1.0, tb / p["good_tb"]), f"{_fmt(tb)} TB local NVMe", f.offering.fact("storage.local_nvme_tb")


def _shared_storage(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    storage = f.offering.storage
    if storage is None or (storage.parallel_fs is None and storage.shared_fs is None):
        return None, "shared file system not stated", None
    if storage.parallel_fs:
        score, text = p["parallel"], f"parallel file system ({storage.shared_fs or 'named'})"
    elif storage.shared_fs is None or storage.shared_fs.lower() == "none":
        score, text = p["none"], "no shared file system"
    else:
        score, text = p["nas"], f"{storage.shared_fs} (not a parallel file system)"
    return (score, text, f.offering.fact("storage.shared_fs")) if x else (score, "", None)


def _storage_network(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    storage = f.offering.storage
    if storage is None or storage.network_gbit_s is None:
        return None, "storage/management NIC speed not stated", None
    have = storage.network_gbit_s
    score = 1.0 if have >= p["min_gbit_s"] else have / p["min_gbit_s"]
    if not x:
        return score, "", None
    return score, f"{_fmt(have)} Gbit/s storage/management NIC", f.offering.fact("storage.network_gbit_s")


def _yes_no(
    value: bool | None, yes: str, no: str, unknown: str, source: Callable[[], Source], x: bool
) -> Result:
    if value is None:
        return None, unknown, None
    if not x:
        return (1.0 if value else 0.0), "", None
    return (1.0, yes, source()) if value else (0.0, no, source())


def _management_network(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    return _yes_no(
        f.offering.management_network_separate,
        "separate management network",
        "management shares the fabric",
        "separate management network not stated",
        lambda: f.offering.fact("management_network_separate"),
        x,
    )


def _bmc(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    if f.offering.bmc_ipmi is not None:
        return _yes_no(
            f.offering.bmc_ipmi,
            "BMC/IPMI available",
            "no BMC/IPMI",
            "",
            lambda: f.offering.fact("bmc_ipmi"),
            x,
        )
    service = f.service
    value = service.bmc_ipmi if service is not None else None
    return _yes_no(
        value,
        "BMC/IPMI available",
        "no BMC/IPMI",
        "BMC/IPMI not stated",
        lambda: service.provenance("bmc_ipmi") if service is not None else None,
        x,
    )


def _power(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    value = f.offering.power_redundancy
    if value is None:
        return None, "power redundancy not stated", None
    return (
        (p.get(value, 0.3), f"power {value}", f.offering.fact("power_redundancy"))
        if x
        else (p.get(value, 0.3), "", None)
    )


def _cooling(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    value = f.offering.cooling
    if value is None:
        return None, "cooling not stated", None
    if value == "air" and f.needs.model.params >= 100e9:
        score, text = p["air_for_100b_plus"], "air cooling (100B+ models may call for liquid)"
    else:
        score, text = p.get(value, 0.5), f"{value} cooling"
    return (score, text, f.offering.fact("cooling")) if x else (score, "", None)


def _describe_period(stats: PeriodStats, label: str) -> str:
    parts = []
    if stats.rtt_median_ms is not None:
        parts.append(f"median {stats.rtt_median_ms:.0f} ms")
    if stats.rtt_p95_ms is not None:
        parts.append(f"p95 {stats.rtt_p95_ms:.0f} ms")
    if stats.loss is not None:
        parts.append(f"loss {stats.loss:.2%}")
    if stats.jitter_ms is not None:
        parts.append(f"jitter {stats.jitter_ms:.1f} ms")
    if stats.throughput_mbps is not None:
        parts.append(f"{stats.throughput_mbps:.0f} Mbit/s")
    amount = []
    if stats.hours is not None:
        amount.append(f"{stats.hours:g} h")
    if stats.samples is not None:
        amount.append(f"{stats.samples:,} samples")
    return f"{label}: " + ", ".join(parts) + (f" over {' / '.join(amount)}" if amount else "")


def line_period_score(stats: PeriodStats, p: Mapping[str, float]) -> float | None:
    """Score a period's line statistics in 0..1 (weights: RTT .35, loss .35, jitter .2, throughput .1, over
    what was measured); None when nothing was measured."""
    parts: list[tuple[float, float]] = []
    if stats.rtt_median_ms is not None:
        parts.append((0.35, _linear(stats.rtt_median_ms, p["good_rtt_ms"], p["bad_rtt_ms"])))
    if stats.loss is not None:
        parts.append((0.35, _linear(stats.loss, p["good_loss"], p["bad_loss"])))
    if stats.jitter_ms is not None:
        parts.append((0.2, _linear(stats.jitter_ms, p["good_jitter_ms"], p["bad_jitter_ms"])))
    if stats.throughput_mbps is not None:
        parts.append(
            (0.1, _linear(stats.throughput_mbps, p["good_throughput_mbps"], p["bad_throughput_mbps"]))
        )
    if not parts:
        return None
    return sum(w * s for w, s in parts) / sum(w for w, _ in parts)


def evidence_confidence(stats: PeriodStats, full_hours: float, full_samples: float) -> float:
    """How far to trust a period's figures, 0..1: the smaller of hours/full_hours and samples/full_samples
    (whichever are known); 0.5 when neither is stated."""
    shares = []
    if stats.hours is not None:
        shares.append(min(1.0, stats.hours / full_hours))
    if stats.samples is not None:
        shares.append(min(1.0, stats.samples / full_samples))
    return min(shares) if shares else 0.5


def _line_quality(f: _Facts, p: Mapping[str, float], x: bool, checklist: Checklist) -> Result:
    link = f.link
    if link is None:
        return None, (f"not measured ({f.link_note})" if x else ""), None
    period, label, penalty = link.peak, "peak", 1.0
    if period is None or not period.measured:
        period, label, penalty = link.offpeak, "off-peak only (no peak-hour data)", 0.5
    if period is None or not period.measured:
        return None, "not measured (summary has no figures)", None
    raw = line_period_score(period, p)
    if raw is None:
        return None, "not measured", None
    ev = checklist.evidence
    confidence = evidence_confidence(period, ev.full_confidence_hours, ev.full_confidence_samples) * penalty
    # Thin evidence is pulled toward what an unmeasured region counts, so that a few minutes of bad figures
    # never rank a region above one nobody measured (and a few minutes of good ones never far above).
    unknown = checklist.unknown_score
    score = confidence * raw + (1 - confidence) * unknown
    if not x:
        return score, "", None
    text = _describe_period(period, label)
    if confidence < 1:
        text += (
            f"; thin evidence: trusted {confidence:.0%}, measured {raw:.2f} pulled toward the unknown "
            f"score {unknown:g}"
        )
    if link.route is not None and link.route.agrees is False:
        text += f"; route contradicts the claimed {link.route.claimed_line_type}"
    source = f"measured from {link.vantage or 'an unnamed vantage'}"
    if link.period_start and link.period_end:
        source += f", {link.period_start:%Y-%m-%d} to {link.period_end:%Y-%m-%d}"
    return score, text, source


def line_claim_score(agrees: bool, confidence: float, unknown: float) -> float:
    """A route check's score: from the unknown score (an untraced claim) toward 1 when the route agrees with
    the claim, toward 0 when it contradicts it, as far as `confidence` (0..1, from the trace count) goes. A
    contradicted claim therefore never scores above an untraced one."""
    return unknown + (1 - unknown) * confidence if agrees else unknown * (1 - confidence)


def _line_claim(f: _Facts, p: Mapping[str, float], x: bool, checklist: Checklist) -> Result:
    region = f.candidate.region
    if region is None:
        return None, "region not stated", None
    claimed = region.line_types[0] if region.line_types else None
    route = f.link.route if f.link else None
    if route is None or route.agrees is None:
        # unverified either way: a claim is not held against a region before its route was traced
        return None, ((f"claims {claimed}; " if claimed else "") + "route not traced" if x else ""), None
    if claimed is None and route.claimed_line_type is None:
        return 1.0, "no line type claimed", "measured route"
    traces = route.traces or 0
    confidence = min(1.0, traces / p["full_confidence_traces"]) if traces else 0.5
    unknown = checklist.unknown_score
    score = line_claim_score(route.agrees, confidence, unknown)
    if not x:
        return score, "", None
    claim = route.claimed_line_type or claimed or "?"
    counts = f" ({route.agreeing_traces} of {route.traces} traces)" if route.traces else ""
    if route.agrees:
        return score, f"route agrees with the claimed {claim}{counts}", "measured route"
    evidence = f": {route.evidence}" if route.evidence else ""
    measured = route.measured_class or "another class"
    return (
        score,
        f"claims {claim} but the route measured as {measured}{counts}{evidence} — scored below an untraced "
        f"claim ({unknown:g})",
        "measured route",
    )


def _ddos(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    service = f.service
    if service is None or service.ddos_protection_gbit_s is None:
        return None, "DDoS protection not stated", None
    value = service.ddos_protection_gbit_s
    score = min(1.0, value / p["full_gbit_s"])
    if not x:
        return score, "", None
    return score, f"DDoS protection {_fmt(value)} Gbit/s", service.provenance("ddos_protection_gbit_s")


def _elasticity(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    parts: list[float] = []
    text: list[str] = []
    planned = f.sizing.planned_gpus if f.sizing else None
    if f.capacity is not None and planned:
        headroom = f.capacity / planned
        parts.append(min(1.0, headroom / p["full_headroom"]))
        if x:
            text.append(f"{headroom:.1f}× the planned GPUs available")
    inter = f.offering.inter_node
    if inter is not None and inter.upgrade_path:
        parts.append(1.0)
        if x:
            text.append(f"fabric upgrade path {inter.upgrade_path}")
    if parts:
        return sum(parts) / len(parts), "; ".join(text), None
    service = f.service
    if service is not None and service.scale_out:
        source = service.provenance("scale_out") if x else None
        return p["claimed_only"], "scale-out on demand claimed, not quantified", source
    return None, "scale-out headroom and upgrade path not stated", None


def _delivery(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    service = f.service
    if service is None or service.delivery_days is None:
        return None, "delivery time not stated", None
    days = service.delivery_days
    score = _linear(days, p["good_days"], p["bad_days"])
    return (
        (score, f"delivered in {days:g} days", service.provenance("delivery_days"))
        if x
        else (score, "", None)
    )


def _support(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    service = f.service
    if service is None or (service.support_24x7 is None and service.sla_uptime_percent is None):
        return None, "support hours and SLA not stated", None
    parts: list[float] = []
    text: list[str] = []
    if service.support_24x7 is not None:
        parts.append(1.0 if service.support_24x7 else 0.4)
        text.append("24/7 support" if service.support_24x7 else "support not 24/7")
    if service.sla_uptime_percent is not None:
        sla, good = service.sla_uptime_percent, p["good_sla_percent"]
        parts.append(1.0 if sla >= good else max(0.0, 1 - (good - sla)))
        text.append(f"SLA {sla:g} %")
    score = sum(parts) / len(parts)
    return (score, ", ".join(text), service.provenance("support_24x7")) if x else (score, "", None)


# Relative criteria return a raw value (lower is better); ranking turns it into best/value, the best being
# the lowest among the candidates that pass every gate. Prices are compared in the needs profile's budget
# currency only (`f.compare_gpu_hour`); a price that cannot be compared is unknown, and says why.
def _not_compared(f: _Facts) -> str:
    if f.lower_bound_gpu_hour is not None:
        return f"price {f.compare_note}{f.price_note}"
    listed = f"{f.price_gpu_hour:.2f} {f.price_currency or '(currency not stated)'}/GPU-hour"
    return f"price {f.compare_note}: {listed}{f.price_note}"


def _price(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    """The hourly cost of the planned cluster: price per GPU-hour × the GPUs of the whole nodes rented."""
    if f.price_gpu_hour is None:
        return None, (f"price not stated{f.price_note}" if x else ""), None
    if f.compare_gpu_hour is None:
        return None, (_not_compared(f) if x else ""), f.price_source
    currency = f.needs.budget.currency
    planned = f.sizing.planned_gpus if f.sizing else None
    if not planned:
        return None, f"{f.compare_gpu_hour:.2f} {currency}/GPU-hour, GPU count unknown", f.price_source
    rented = planned  # whole nodes are rented: a 1-GPU job on 2-GPU nodes pays for 2
    if f.gpus_per_node:
        rented = -(-planned // f.gpus_per_node) * f.gpus_per_node
    hourly = f.compare_gpu_hour * rented
    if not x:
        return hourly, "", None
    per_gpu = f"{f.compare_gpu_hour:.2f} {currency}/GPU-hour"
    if f.compare_note:
        per_gpu += f" ({f.compare_note})"
    whole = f" (whole nodes for {planned} planned)" if rented != planned else ""
    text = f"{per_gpu} × {rented} GPUs{whole} = {hourly:,.2f} {currency}/hour{f.price_note}"
    return hourly, text, f.price_source


def _price_per_tflop(f: _Facts, p: Mapping[str, float], x: bool) -> Result:
    if f.price_gpu_hour is None:
        return None, "price not stated", None
    if f.compare_gpu_hour is None:
        return None, (_not_compared(f) if x else ""), f.price_source
    if f.tflops is None:
        return None, "BF16 TFLOPS of this GPU not in the reference", None
    value = f.compare_gpu_hour / f.tflops
    if not x:
        return value, "", None
    currency = f.needs.budget.currency
    shown = f"{value * 1000:.2f} {currency} per 1000 TFLOP-hours ({_fmt(f.tflops)} BF16 TFLOPS)"
    return value, shown, _gpu_source(f)


GATES: dict[str, Callable[[_Facts, Mapping[str, float], bool], GateResult]] = {
    "vram_fits": _gate_vram,
    "enough_gpus": _gate_capacity,
    "budget": _gate_budget,
}
CRITERIA: dict[str, Callable[[_Facts, Mapping[str, float], bool], Result]] = {
    "intra_node": _intra_node,
    "inter_node_bandwidth": _inter_node_bandwidth,
    "inter_node_fabric": _inter_node_fabric,
    "rdma": _rdma,
    "lossless_ethernet": _lossless,
    "local_nvme": _local_nvme,
    "shared_storage": _shared_storage,
    "storage_network": _storage_network,
    "management_network": _management_network,
    "bmc_ipmi": _bmc,
    "power_redundancy": _power,
    "cooling": _cooling,
    "ddos_protection": _ddos,
    "elasticity": _elasticity,
    "delivery_time": _delivery,
    "support": _support,
    "price": _price,
    "price_per_tflop": _price_per_tflop,
}
# These also need the checklist (its unknown score and evidence settings).
SPECIAL: dict[str, Callable[[_Facts, Mapping[str, float], bool, Checklist], Result]] = {
    "line_quality": _line_quality,
    "line_claim": _line_claim,
}
RELATIVE = {"price", "price_per_tflop"}  # lower raw value is better; scored against the best candidate


def relative_score(value: float, best: float | None) -> float | None:
    """best / value, at most 1, for a criterion where lower is better; None (unknown) when either is not a
    positive number (a price of 0 is not a price: it must not make every other offering score 1)."""
    if best is None or not best > 0 or not value > 0:
        return None
    return min(1.0, best / value)


# --- plans that span nodes ---------------------------------------------------------------------------------
#
# Some scores depend on the plan's shape, not only on the offering: the GPU link inside a node is worth what
# it joins (2 GPUs per node for a 32-GPU job join little), and the fabric between nodes weighs more the more
# nodes lean on it. `_scaling` gives (m, r, why): a score s (or the unknown score) counts as m·s·r^(1−s).


class Scaling(NamedTuple):
    multiplier: float  # m: the share of the full score this plan's node shape can use
    ratio: float  # r: 1/nodes for the fabric criteria (a weak or unknown fabric loses more per node)
    why: str

    def apply(self, score: float) -> float:
        return float(self.multiplier * score * self.ratio ** (1.0 - score))


def _intra_reach(f: _Facts, full_node: int) -> tuple[float, int, int] | None:
    """(share, GPUs per node used, GPUs a full node would join) for the intra-node link, when under 1."""
    planned = f.sizing.planned_gpus if f.sizing else None
    per_node = f.gpus_per_node
    if not planned or planned <= 1 or not per_node or per_node <= 1:
        return None
    used, full = min(planned, per_node), min(planned, full_node)
    return (used / full, used, full) if used < full else None


def _scaling(f: _Facts, criterion: str, checklist: Checklist, x: bool) -> Scaling | None:
    multi = checklist.multi_node
    if criterion == "intra_node":
        reach = _intra_reach(f, multi.full_node_gpus)
        if reach is None:
            return None
        share, used, full = reach
        nodes = f.sizing.nodes if f.sizing else None
        why = (
            f"it joins {used} GPUs per node of the {full} a full node would"
            + (f" (the plan needs {nodes} nodes of {used})" if nodes else "")
            if x
            else ""
        )
        return Scaling(share, 1.0, why)
    if criterion in multi.criteria and _needs_fabric(f):
        nodes = f.sizing.nodes if f.sizing else None
        if nodes and nodes > 1:
            why = (
                f"the plan spans {nodes} nodes, and a weak or unknown fabric weighs more with every node"
                if x
                else ""
            )
            return Scaling(1.0, 1.0 / nodes, why)
    return None


def _criterion(
    criterion_id: str, checklist: Checklist
) -> Callable[[_Facts, Mapping[str, float], bool], Result]:
    """The scoring function of a weighted criterion, with the checklist bound where it needs it."""
    special = SPECIAL.get(criterion_id)
    if special is None:
        return CRITERIA[criterion_id]
    return lambda f, p, x: special(f, p, x, checklist)


def check_checklist(checklist: Checklist) -> None:
    """The checklist and the scoring code must name the same items."""
    in_file = {c.id for c in checklist.criterion}
    in_code = set(GATES) | set(CRITERIA) | set(SPECIAL)
    missing, extra = sorted(in_code - in_file), sorted(in_file - in_code)
    if missing or extra:
        raise ChecklistError(
            "checklist and scoring code disagree"
            + (f"; missing from the checklist: {', '.join(missing)}" if missing else "")
            + (f"; no scoring function for: {', '.join(extra)}" if extra else ""),
            expected="one [[criterion]] per scoring function",
        )
    for item in checklist.criterion:
        expected_kind = "gate" if item.id in GATES else "weighted"
        if item.kind != expected_kind:
            raise ChecklistError(f"criterion {item.id!r} must be a {expected_kind}", field=f"{item.id}.kind")


# --- ranking ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankedOffering:
    rank: int
    provider: str
    provider_name: str
    offering: str
    offering_name: str | None
    region: str | None
    gpu: str | None
    gpus_per_node: int | None
    eligible: bool
    total: float
    topsis: float | None
    planned_gpus: int | None
    nodes: int | None
    price_gpu_hour: float | None  # as listed, in `currency`
    currency: str | None
    # against the next entry (same eligibility): its rank and the criteria that put this one ahead
    next_rank: int | None = None
    margins: tuple[tuple[str, float], ...] = ()
    _facts: _Facts | None = field(default=None, repr=False, compare=False)
    _judge: _Judge | None = field(default=None, repr=False, compare=False)
    _judged: list[tuple[Judgement, ...]] = field(default_factory=list, repr=False, compare=False)

    @property
    def judgements(self) -> tuple[Judgement, ...]:
        """Every checklist item for this entry, gates first, each with its reason and source (built on
        first use: ranking itself only needs the numbers)."""
        if not self._judged and self._facts is not None and self._judge is not None:
            self._judged.append(self._judge(self._facts))
        return self._judged[0] if self._judged else ()

    @property
    def explanation(self) -> str:
        """This rank in plain words (built on demand: gates, strongest and weakest points, unknowns, and
        what puts it ahead of the next one)."""
        return _explain(self)

    @property
    def label(self) -> str:
        where = f"in {self.region}" if self.region else "(region not stated)"
        return f"{self.provider}/{self.offering} {where}"

    @property
    def unknowns(self) -> tuple[str, ...]:
        return tuple(j.criterion for j in self.judgements if j.unknown)

    @property
    def failed_gates(self) -> tuple[Judgement, ...]:
        return tuple(j for j in self.judgements if j.kind == "gate" and j.status == "fail")

    @property
    def intra_node_kind(self) -> str | None:
        """How the node's GPUs are linked ("nvlink", "nvswitch", "pcie", "xgmi"), None when not stated."""
        found = intra_node_kind(self._facts) if self._facts is not None else None
        return found[0] if found else None

    @property
    def price_is_lower_bound(self) -> bool:
        """The price covers the GPUs only (the host is billed on top): a lower bound, not ranked on price."""
        return self._facts is not None and self._facts.lower_bound_gpu_hour is not None

    @property
    def price_compared(self) -> float | None:
        """The price per GPU-hour as ranked, in the needs profile's budget currency (None: not compared)."""
        return self._facts.compare_gpu_hour if self._facts is not None else None

    def judgement(self, criterion: str) -> Judgement:
        return next(j for j in self.judgements if j.criterion == criterion)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "provider": self.provider,
            "provider_name": self.provider_name,
            "offering": self.offering,
            "offering_name": self.offering_name,
            "region": self.region,
            "gpu": self.gpu,
            "gpus_per_node": self.gpus_per_node,
            "eligible": self.eligible,
            "total": self.total,
            "topsis": self.topsis,
            "planned_gpus": self.planned_gpus,
            "nodes": self.nodes,
            "price_gpu_hour": self.price_gpu_hour,
            "currency": self.currency,
            "price_is_lower_bound": self.price_is_lower_bound,
            "price_compared": self.price_compared,
            "unknowns": list(self.unknowns),
            "failed_gates": [j.criterion for j in self.failed_gates],
            "judgements": [j.as_dict() for j in self.judgements],
            "explanation": self.explanation,
        }


@dataclass(frozen=True, slots=True)
class WeightChange:
    criterion: str
    factor: float
    new_top: str


@dataclass(frozen=True, slots=True)
class Sensitivity:
    """Does the top of the ranking change when any one weight moves ±20 %?"""

    top: str | None
    changes: tuple[WeightChange, ...]

    @property
    def stable(self) -> bool:
        return not self.changes

    def describe(self) -> str:
        if self.top is None:
            return "no offering passes every gate"
        if self.stable:
            return f"stable: {self.top} stays first when any single weight moves ±20%"
        moved = ", ".join(f"{c.criterion} ×{c.factor:g} → {c.new_top}" for c in self.changes)
        return f"sensitive: the first place changes when {moved}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "top": self.top,
            "stable": self.stable,
            "changes": [
                {"criterion": c.criterion, "factor": c.factor, "new_top": c.new_top} for c in self.changes
            ],
            "summary": self.describe(),
        }


@dataclass(frozen=True)
class Ranking:
    entries: tuple[RankedOffering, ...]
    method: RankingMethod
    weights: Mapping[str, float]
    sensitivity: Sensitivity
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "weights": dict(self.weights),
            "sensitivity": self.sensitivity.as_dict(),
            "notes": list(self.notes),
            "entries": [e.as_dict() for e in self.entries],
        }


@lru_cache(maxsize=8192)
def _sizing(needs: NeedsProfile, memory: float, per_node: int, tflops: float | None) -> SizingResult:
    return size(needs, memory, per_node, tflops)


def candidates(catalogs: CatalogSet | Iterable[ProviderCatalog]) -> list[Candidate]:
    """Every (offering, region) pair; an offering with no regions stated is one candidate without region."""
    providers = catalogs.providers if isinstance(catalogs, CatalogSet) else tuple(catalogs)
    found: list[Candidate] = []
    for catalog in providers:
        regions = {r.id: r for r in catalog.regions}
        for offering in catalog.offerings:
            if offering.regions:
                found.extend(Candidate(catalog, offering, regions.get(r)) for r in offering.regions)
            else:
                found.append(Candidate(catalog, offering, None))
    return found


def _pick_link(
    summaries: Mapping[tuple[str, str], list[LinkSummary]], candidate: Candidate, vantage: str | None
) -> tuple[LinkSummary | None, str]:
    if candidate.region is None:
        return None, "the offering's regions are not stated"
    found = summaries.get((candidate.catalog.provider.id, candidate.region.id), [])
    if not found:
        return None, "no link summary for this region"
    if vantage is not None:
        mine = [s for s in found if s.vantage == vantage]
        if not mine:
            others = ", ".join(sorted({s.vantage or "unnamed" for s in found}))
            return None, f"measured only from {others}, not from {vantage}"
        return mine[0], ""
    ordered = sorted(found, key=lambda s: (s.vantage is not None, s.vantage or ""))
    return ordered[0], ""


def _facts(
    candidate: Candidate,
    needs: NeedsProfile,
    gpus: GpuReference,
    scale: ScaleRow | None,
    link: LinkSummary | None,
    link_note: str,
    gpu_cache: dict[tuple[str, float | None], GpuMatch | None],
    sizing_cache: dict[tuple[float, int, float | None], SizingResult],
) -> _Facts:
    offering = candidate.offering
    match = None
    if offering.gpu:
        key = (offering.gpu, offering.gpu_memory_gb)
        if key not in gpu_cache:
            gpu_cache[key] = gpus.get(offering.gpu, offering.gpu_memory_gb)
        match = gpu_cache[key]
    memory = offering.gpu_memory_gb or (match.memory_gb if match else None)
    per_node = offering.gpus_per_node
    tflops = match.bf16_dense_tflops if match else None
    sizing = None
    if memory:
        shape = (memory, per_node or 8, tflops)
        sizing = sizing_cache.get(shape)
        if sizing is None:
            sizing = sizing_cache[shape] = _sizing(needs, *shape)
    if offering.max_gpus is not None:
        capacity: int | None = offering.max_gpus
    elif offering.max_nodes is not None and per_node:
        capacity = offering.max_nodes * per_node
    else:
        capacity = None
    planned = sizing.planned_gpus if sizing is not None else None
    fits_one_node = bool(planned and per_node and planned <= per_node)
    price, currency, price_note, price_source, gpus_only = offering_price(
        offering, candidate.region.id if candidate.region else None, per_node
    )
    compare, compare_note = in_budget_currency(needs.budget, price, currency)
    lower_bound = None
    if gpus_only and compare is not None:
        # A GPUs-only price is a lower bound of what the node costs: ranking it against whole-node prices
        # would make it the cheapest by leaving the host out. Not ranked on price; the budget gate still
        # fails it when even the lower bound is over budget.
        lower_bound, compare = compare, None
        compare_note = (
            f"unknown for ranking: {lower_bound:.2f} {needs.budget.currency}/GPU-hour covers the GPUs only (the "
            "host VM is billed on top), a lower bound not compared with whole-node prices"
        )
    return _Facts(
        candidate=candidate,
        needs=needs,
        gpu=match,
        gpu_memory_gb=memory,
        gpus_per_node=per_node,
        sizing=sizing,
        capacity=capacity,
        price_gpu_hour=price,
        price_currency=currency,
        price_note=price_note,
        price_source=price_source,
        compare_gpu_hour=compare,
        compare_note=compare_note,
        lower_bound_gpu_hour=lower_bound,
        tflops=tflops,
        link=link,
        link_note=link_note,
        scale=scale,
        needs_fabric=not (sizing is not None and fits_one_node),
    )


class _Judge:
    """Builds an entry's judgements with reasons (x=True), scoring exactly as the ranking did."""

    def __init__(self, checklist: Checklist, weights: Mapping[str, float], best: Mapping[str, float]) -> None:
        self.checklist, self.weights, self.best = checklist, weights, best

    def __call__(self, facts: _Facts) -> tuple[Judgement, ...]:
        judged: list[Judgement] = []
        for gate in self.checklist.gates:
            status, reason, source = GATES[gate.id](facts, gate.params, True)
            judged.append(Judgement(gate.id, "gate", reason, status=status, source=source))
        unknown = self.checklist.unknown_score
        for item in self.checklist.weighted:
            value, reason, source = _criterion(item.id, self.checklist)(facts, item.params, True)
            score = value
            if item.id in RELATIVE and value is not None:
                score = relative_score(value, self.best.get(item.id))
            counted = unknown if score is None else score
            scaling = _scaling(facts, item.id, self.checklist, True)
            if scaling is not None:
                scaled = scaling.apply(counted)
                if abs(scaled - counted) > 1e-12:
                    if score is None:
                        reason += f"; counted {scaled:.2f}, not {unknown:g}: {scaling.why}"
                    else:
                        reason += f"; counted {scaled:.2f} of {score:.2f}: {scaling.why}"
                counted = scaled
                score = None if score is None else scaled
            weight = self.weights[item.id]
            judged.append(
                Judgement(
                    item.id, "weighted", reason, score=score, counted=counted, weight=weight, source=source
                )
            )
        return tuple(judged)


def rank_offerings(
    needs: NeedsProfile,
    catalogs: CatalogSet | Iterable[ProviderCatalog],
    link_summaries: Iterable[LinkSummary] = (),
    *,
    checklist: Checklist | None = None,
    weights: Mapping[str, float] | None = None,
    method: RankingMethod = "weighted-sum",
    gpus: GpuReference | None = None,
) -> Ranking:
    """Rank every offering (in each of its regions) for `needs`, using measured line quality where a
    `LinkSummary` exists for the region. `weights` override the checklist's default weights by id."""
    checklist = checklist or default_checklist()
    check_checklist(checklist)
    gpus = gpus or default_gpu_reference()
    weighted = checklist.weighted
    weight_of = {c.id: c.weight for c in weighted}
    for key, value in (weights or {}).items():
        if key not in weight_of:
            raise ChecklistError(
                f"no weighted criterion {key!r}", field="weights", expected="one of " + ", ".join(weight_of)
            )
        if value < 0 or not math.isfinite(value):
            raise ChecklistError(f"weight of {key!r} must be 0 or more, not {value}", field="weights")
        weight_of[key] = float(value)
    if sum(weight_of.values()) <= 0:
        raise ChecklistError("all weights are zero", field="weights", expected="at least one weight > 0")

    summaries: dict[tuple[str, str], list[LinkSummary]] = {}
    for summary in link_summaries:
        summaries.setdefault((summary.provider, summary.region), []).append(summary)

    gates = checklist.gates
    gate_fns = [(GATES[g.id], g.params) for g in gates]
    ids = [c.id for c in weighted]
    criterion_fns = [(_criterion(c.id, checklist), c.params) for c in weighted]
    keyed = sorted(((c.key, c) for c in candidates(catalogs)), key=lambda kc: kc[0])
    pool = [c for _, c in keyed]
    keys = [k for k, _ in keyed]
    gpu_cache: dict[tuple[str, float | None], GpuMatch | None] = {}
    sizing_cache: dict[tuple[float, int, float | None], SizingResult] = {}
    scale = checklist.scale_row(needs.model.params)
    full_node = checklist.multi_node.full_node_gpus
    facts_of: list[_Facts] = []
    raw_rows: list[list[float | None]] = []
    eligible: list[bool] = []
    intra_col = ids.index("intra_node") if "intra_node" in ids else None
    fabric_cols = [j for j, i in enumerate(ids) if i in checklist.multi_node.criteria]
    scaled_cols = ([intra_col] if intra_col is not None else []) + fabric_cols
    multipliers = np.ones((len(pool), len(ids)))
    ratios = np.ones((len(pool), len(ids)))
    vantage = needs.location.vantage
    for n, candidate in enumerate(pool):  # the hot path: numbers only, no text (x=False)
        link, link_note = _pick_link(summaries, candidate, vantage)
        facts = _facts(candidate, needs, gpus, scale, link, link_note, gpu_cache, sizing_cache)
        facts_of.append(facts)
        eligible.append(all(fn(facts, params, False)[0] != "fail" for fn, params in gate_fns))
        raw_rows.append([fn(facts, params, False)[0] for fn, params in criterion_fns])
        # as _scaling, numbers only
        if intra_col is not None:
            reach = _intra_reach(facts, full_node)
            if reach is not None:
                multipliers[n, intra_col] = reach[0]
        nodes = facts.sizing.nodes if facts.sizing is not None else None
        if facts.needs_fabric and nodes and nodes > 1:
            for j in fabric_cols:
                ratios[n, j] = 1.0 / nodes

    best_relative: dict[str, float] = {}
    passing = [row for row, ok in zip(raw_rows, eligible, strict=True) if ok]
    for j, item in enumerate(weighted):
        if item.id in RELATIVE:
            # the best among those that pass every gate (else among all); only positive values count
            values = [v for row in passing if (v := row[j]) is not None and v > 0] or [
                v for row in raw_rows if (v := row[j]) is not None and v > 0
            ]
            if values:
                best_relative[item.id] = min(values)

    unknown = checklist.unknown_score
    w = [weight_of[i] for i in ids]
    relative_cols = [j for j, i in enumerate(ids) if i in RELATIVE]
    raw = np.array(raw_rows, dtype=float).reshape(len(raw_rows), len(ids))  # None → nan
    scores = raw.copy()
    for j in relative_cols:
        best = best_relative.get(ids[j])
        column = raw[:, j]
        # as relative_score: best / value, at most 1; unknown (nan) unless both are positive
        with np.errstate(divide="ignore", invalid="ignore"):
            scores[:, j] = np.where(column > 0, np.minimum(1.0, (best or np.nan) / column), np.nan)
    counted = np.where(np.isnan(scores), unknown, scores)
    if scaled_cols:  # as Scaling.apply: m·s·r^(1−s), for known scores and the unknown score alike
        cols = np.array(scaled_cols)
        part = counted[:, cols]
        counted[:, cols] = multipliers[:, cols] * part * ratios[:, cols] ** (1.0 - part)
        scores[:, cols] = np.where(np.isnan(scores[:, cols]), np.nan, counted[:, cols])
    weight_vector = np.array(w, dtype=float)
    totals = [float(t) for t in _weighted_sums(counted, weight_vector)]
    eligible_idx = [i for i, ok in enumerate(eligible) if ok]
    eligible_scores = counted[eligible_idx] if eligible_idx else np.zeros((0, len(w)))
    topsis_of: dict[int, float] = {}
    if method == "topsis":
        closeness = _topsis(eligible_scores, weight_vector)
        topsis_of = {i: float(c) for i, c in zip(eligible_idx, closeness, strict=True)}

    def order_key(i: int) -> tuple[int, float, tuple[str, str, str]]:
        primary = topsis_of[i] if method == "topsis" and i in topsis_of else totals[i]
        return (0 if eligible[i] else 1, -primary, keys[i])

    order = sorted(range(len(pool)), key=order_key)
    margins = _margins(counted, weight_vector, order, eligible, ids)
    judge = _Judge(checklist, dict(zip(ids, w, strict=True)), best_relative)
    entries: list[RankedOffering] = []
    for rank, i in enumerate(order, start=1):
        candidate, facts = pool[i], facts_of[i]
        entries.append(
            RankedOffering(
                rank=rank,
                provider=candidate.catalog.provider.id,
                provider_name=candidate.catalog.provider.name,
                offering=candidate.offering.id,
                offering_name=candidate.offering.name,
                region=candidate.region.id if candidate.region else None,
                gpu=facts.gpu.describe() if facts.gpu else None,
                gpus_per_node=facts.gpus_per_node,
                eligible=eligible[i],
                total=totals[i],
                topsis=topsis_of.get(i),
                planned_gpus=facts.sizing.planned_gpus if facts.sizing else None,
                nodes=facts.sizing.nodes if facts.sizing else None,
                price_gpu_hour=facts.price_gpu_hour,
                currency=facts.price_currency,
                next_rank=rank + 1 if margins[rank - 1] is not None else None,
                margins=margins[rank - 1] or (),
                _facts=facts,
                _judge=judge,
            )
        )
    labels = [pool[i].label for i in eligible_idx]
    sensitivity = _sensitivity(eligible_scores, weight_vector, ids, labels, method)
    notes = []
    if not summaries:
        notes.append("no link summaries given: line quality is 'not measured' for every region")
    unconverted: dict[str, int] = {}
    for facts in facts_of:
        if (
            facts.price_gpu_hour is not None
            and facts.compare_gpu_hour is None
            and "exchange rate" in facts.compare_note
        ):
            unconverted[facts.price_currency or "?"] = unconverted.get(facts.price_currency or "?", 0) + 1
    if unconverted:
        listed = ", ".join(f"{code} ({count})" for code, count in sorted(unconverted.items()))
        notes.append(
            f"prices in {listed} are not compared with {needs.budget.currency} prices: no exchange rate given "
            "(add them under [budget.exchange_rates] in the needs profile, e.g. CNY = 0.14)"
        )
    return Ranking(tuple(entries), method, dict(zip(ids, w, strict=True)), sensitivity, tuple(notes))


def _margins(
    scores: np.ndarray,
    weights: np.ndarray,
    order: Sequence[int],
    eligible: Sequence[bool],
    ids: Sequence[str],
) -> list[tuple[tuple[str, float], ...] | None]:
    """For each ranked position: the (up to) three criteria on which it leads the next position most, by
    weighted score difference; None for the last position of its group (passing / failing)."""
    result: list[tuple[tuple[str, float], ...] | None] = [None] * len(order)
    if len(order) < 2:
        return result
    ordered = scores[list(order)] * (weights / weights.sum())
    differences = ordered[:-1] - ordered[1:]
    top = np.argsort(-differences, axis=1, kind="stable")[:, :3]
    for position in range(len(order) - 1):
        if eligible[order[position]] != eligible[order[position + 1]]:
            continue
        result[position] = tuple(
            (ids[j], float(differences[position, j]))
            for j in top[position]
            if differences[position, j] > 1e-9
        )
    return result


def _weighted_sums(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Normalised weighted sum: Σ wᵢ·sᵢ / Σ wᵢ for each row (each column of `weights` is one weighting)."""
    if matrix.size == 0:
        return np.zeros((0, *weights.shape[1:]))
    return np.asarray(matrix @ weights / weights.sum(axis=0))


def _topsis(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """TOPSIS closeness (Hwang & Yoon 1981) on the criterion scores (all benefit-type, 0..1): vector-normalise
    each column, weight it, and rate each row by d⁻/(d⁺ + d⁻) to the ideal best and worst rows."""
    if matrix.size == 0:
        return np.zeros(0)
    norms = np.sqrt((matrix**2).sum(axis=0))
    normalised = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    weighted = normalised * (weights / weights.sum())
    d_best = np.sqrt(((weighted - weighted.max(axis=0)) ** 2).sum(axis=1))
    d_worst = np.sqrt(((weighted - weighted.min(axis=0)) ** 2).sum(axis=1))
    denominator = d_best + d_worst
    return np.asarray(np.where(d_best == 0, 1.0, d_worst / np.where(denominator == 0, 1.0, denominator)))


def _sensitivity(
    matrix: np.ndarray,
    weights: np.ndarray,
    ids: Sequence[str],
    labels: Sequence[str],
    method: RankingMethod,
) -> Sensitivity:
    """Move each weight by ×0.8 and ×1.2 alone and see whether the first place changes. Rows are in key
    order, so the first of equal scores (argmax) is the tie-break winner."""
    if matrix.shape[0] == 0:
        return Sensitivity(None, ())

    def top(ws: np.ndarray) -> int:
        scores = _topsis(matrix, ws) if method == "topsis" else _weighted_sums(matrix, ws)
        return int(np.argmax(np.round(scores, 12)))

    first = top(weights)
    trials = [
        (criterion, factor) for j, criterion in enumerate(ids) if weights[j] > 0 for factor in (0.8, 1.2)
    ]
    changes = []
    if method == "topsis":
        winners = []
        for criterion, factor in trials:
            moved = weights.copy()
            moved[ids.index(criterion)] *= factor
            winners.append(top(moved))
    else:
        columns = np.repeat(weights[:, None], len(trials), axis=1)
        for t, (criterion, factor) in enumerate(trials):
            columns[ids.index(criterion), t] *= factor
        winners = [int(i) for i in np.argmax(np.round(_weighted_sums(matrix, columns), 12), axis=0)]
    for (criterion, factor), winner in zip(trials, winners, strict=True):
        if winner != first:
            changes.append(WeightChange(criterion, factor, labels[winner]))
    return Sensitivity(labels[first], tuple(changes))


def _explain(entry: RankedOffering) -> str:
    weighted = [j for j in entry.judgements if j.kind == "weighted"]
    total_weight = sum(j.weight for j in weighted) or 1.0
    head = f"#{entry.rank} {entry.label}"
    if entry.gpu:
        head += f" — {entry.gpus_per_node or '?'} × {entry.gpu}"
    score = f"score {entry.total:.3f}" + (f", TOPSIS {entry.topsis:.3f}" if entry.topsis is not None else "")
    lines = [f"{head}: {score}."]
    failed = entry.failed_gates
    if failed:
        lines.append("Fails: " + "; ".join(f"{g.criterion} ({g.reason})" for g in failed) + ".")
    else:
        unchecked = [g for g in entry.judgements if g.kind == "gate" and g.status == "unknown"]
        text = "Passes every gate"
        if unchecked:
            text += " it could check; unchecked: " + "; ".join(
                f"{g.criterion} ({g.reason})" for g in unchecked
            )
        lines.append(text + ".")
    known = [j for j in weighted if j.score is not None and j.weight > 0]
    good = (j for j in known if (j.score or 0.0) >= 0.5)
    strong = sorted(good, key=lambda j: (-(j.weight * (j.score or 0.0)), j.criterion))[:3]
    if strong:
        lines.append(
            "Strongest: " + "; ".join(f"{j.criterion} = {j.score:.2f} ({j.reason})" for j in strong) + "."
        )
    weak = sorted(
        (j for j in known if (j.score or 0.0) < 0.5), key=lambda j: ((j.score or 0.0) - 1) * j.weight
    )[:3]
    if weak:
        lines.append(
            "Weakest: " + "; ".join(f"{j.criterion} = {j.score:.2f} ({j.reason})" for j in weak) + "."
        )
    unknown = [j for j in weighted if j.score is None]
    if unknown:
        share = sum(j.weight for j in unknown) / total_weight
        usual = max(
            (j.counted or 0.0 for j in unknown), key=lambda c: sum(1 for j in unknown if j.counted == c)
        )
        lines.append(
            f"Unknown ({share:.0%} of the weight, counted as {usual:.2f} each unless said): "
            + ", ".join(
                j.criterion
                + (
                    ""
                    if j.counted == usual
                    else f" ({j.counted or 0.0:.2f}" + (f", {entry.nodes} nodes)" if entry.nodes else ")")
                )
                for j in unknown
            )
            + "."
        )
    if entry.next_rank is not None:
        if entry.margins:
            ahead = ", ".join(f"{name} (+{diff:.2g})" for name, diff in entry.margins)
            lines.append(f"Ahead of #{entry.next_rank} on: {ahead}.")
        else:
            lines.append(
                f"Level with #{entry.next_rank} on every criterion; ordered by provider, offering, region."
            )
    return " ".join(lines)
