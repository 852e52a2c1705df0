"""Candidates (an offering in one region) and the facts scoring derives once for each: the GPU it matches,
the sizing of the job on it, capacity, the price per GPU-hour (`catalogs.prices`) and the measured line."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from catalogs.checklist import Checklist, ScaleRow
from catalogs.facts import Provenance
from catalogs.gpus import GpuMatch, GpuReference
from catalogs.i18n import _, items, per_language
from catalogs.link_quality import LinkSummary, vantage_text
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.needs import NeedsProfile
from catalogs.prices import in_budget_currency, offering_price
from catalogs.schema import Offering, Region, Service
from catalogs.scoring.judgement import Source
from catalogs.sizing import SizingResult, size
from probes.vantage import THIS_MACHINE, vantage_of


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
        return offering_label(
            self.catalog.provider.id, self.offering.id, self.region.id if self.region else None
        )


def offering_label(provider: str, offering: str, region: str | None) -> str:
    """ "aws/p5.48xlarge in us-east-1", or "(region not stated)"."""
    if region:
        return _("{provider}/{offering} in {region}").format(
            provider=provider, offering=offering, region=region
        )
    return _("{provider}/{offering} (region not stated)").format(provider=provider, offering=offering)


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


@dataclass(slots=True)
class CandidateFacts:
    """What scoring derives once per candidate, and the checklist it is judged against."""

    candidate: Candidate
    offering: Offering  # the candidate's (a field, not a property: the criteria read it on every call)
    service: Service | None  # the provider's service terms
    needs: NeedsProfile
    checklist: Checklist
    gpu: GpuMatch | None
    gpu_memory_gb: float | None
    gpus_per_node: int | None
    sizing: SizingResult | None
    planned_gpus: int | None  # what the sizing plans (None: the job does not fit, or GPU memory unknown)
    nodes: int | None
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
    references: ReferencePlans  # the needs profile sized on reference nodes (shared by the ranking)
    needs_fabric: bool = True  # the plan spans nodes (or cannot be shown to fit in one)

    @property
    def capacity_note(self) -> str:
        offering = self.offering
        if offering.max_gpus is not None:
            return _("clusters of up to {gpus} GPUs").format(gpus=offering.max_gpus)
        return _("{nodes} nodes × {gpus} GPUs").format(nodes=offering.max_nodes, gpus=self.gpus_per_node)

    def usable_gb(self) -> float:
        if self.sizing is not None:
            return self.sizing.usable_gb
        return (self.gpu_memory_gb or 0.0) * (1 - self.needs.cluster.memory_reserve)

    def gpu_source(self) -> Provenance | None:
        """Where the GPU reference's figures for this GPU come from (None: no exact match)."""
        return self.gpu.exact.provenance if self.gpu and self.gpu.exact else None


@per_language(maxsize=8192)  # a sizing holds words (its assumptions)
def _sizing(needs: NeedsProfile, memory: float, per_node: int, tflops: float | None) -> SizingResult:
    return size(needs, memory, per_node, tflops)


class ReferencePlans:
    """The GPUs the sizing plans for one needs profile on a reference node (`per_node` GPUs of `memory_gb`
    GB), None when the job does not fit such GPUs at any count: the fixed yardstick the price criterion is
    scored against. One per ranking, shared by its candidates, so it sizes each reference once."""

    def __init__(self, needs: NeedsProfile) -> None:
        self.needs = needs
        self._planned: dict[tuple[float, int], int | None] = {}

    def planned(self, memory_gb: float, per_node: int) -> int | None:
        key = (memory_gb, per_node)
        if key not in self._planned:
            self._planned[key] = _sizing(self.needs, memory_gb, per_node, None).planned_gpus
        return self._planned[key]


class FactsBuilder:
    """Builds every candidate's facts for one ranking, with the GPU look-ups and sizings shared between
    candidates of the same GPU and node shape."""

    def __init__(
        self,
        needs: NeedsProfile,
        checklist: Checklist,
        gpus: GpuReference,
        summaries: Iterable[LinkSummary],
    ) -> None:
        self.needs, self.checklist, self.gpus = needs, checklist, gpus
        self.scale = checklist.scale_row(needs.model.params)
        self.summaries: dict[tuple[str, str], list[LinkSummary]] = {}
        for summary in summaries:
            self.summaries.setdefault((summary.provider, summary.region), []).append(summary)
        self.references = ReferencePlans(needs)
        self._gpu_cache: dict[tuple[str, float | None], GpuMatch | None] = {}
        self._sizing_cache: dict[tuple[float, int, float | None], SizingResult] = {}

    def link(self, candidate: Candidate) -> tuple[LinkSummary | None, str]:
        """The candidate region's link summary (from the needs profile's vantage when it names one), or None
        and why there is none."""
        if candidate.region is None:
            return None, _("the offering's regions are not stated")
        found = self.summaries.get((candidate.catalog.provider.id, candidate.region.id), [])
        if not found:
            return None, _("no link summary for this region")
        vantage = self.needs.location.vantage
        if vantage is not None:
            mine = [s for s in found if s.vantage == vantage]
            if not mine:
                others = items(sorted({vantage_text(s.vantage) for s in found}))
                return None, _("measured only from {others}, not from {vantage}").format(
                    others=others, vantage=vantage
                )
            return mine[0], ""
        # this machine's first (the rounds that named no vantage point), then by name
        ordered = sorted(found, key=lambda s: (vantage_of(s.vantage) != THIS_MACHINE, s.vantage or ""))
        return ordered[0], ""

    def _gpu(self, offering: Offering) -> GpuMatch | None:
        if not offering.gpu:
            return None
        key = (offering.gpu, offering.gpu_memory_gb)
        if key not in self._gpu_cache:
            self._gpu_cache[key] = self.gpus.get(offering.gpu, offering.gpu_memory_gb)
        return self._gpu_cache[key]

    def __call__(self, candidate: Candidate) -> CandidateFacts:
        needs, offering = self.needs, candidate.offering
        match = self._gpu(offering)
        memory = offering.gpu_memory_gb or (match.memory_gb if match else None)
        per_node = offering.gpus_per_node
        tflops = match.bf16_dense_tflops if match else None
        sizing = None
        if memory:
            shape = (memory, per_node or 8, tflops)
            sizing = self._sizing_cache.get(shape)
            if sizing is None:
                sizing = self._sizing_cache[shape] = _sizing(needs, *shape)
        if offering.max_gpus is not None:
            capacity: int | None = offering.max_gpus
        elif offering.max_nodes is not None and per_node:
            capacity = offering.max_nodes * per_node
        else:
            capacity = None
        planned = sizing.planned_gpus if sizing is not None else None
        fits_one_node = bool(planned and per_node and planned <= per_node)
        price = offering_price(offering, candidate.region.id if candidate.region else None, per_node)
        compare, compare_note = in_budget_currency(needs.budget, price.gpu_hour, price.currency)
        lower_bound = None
        if price.gpus_only and compare is not None:
            # A GPUs-only price is a lower bound of what the node costs: ranking it against whole-node prices
            # would make it the cheapest by leaving the host out. Not ranked on price; the budget gate still
            # fails it when even the lower bound is over budget.
            lower_bound, compare = compare, None
            compare_note = _(
                "{price:.2f} {currency}/GPU-hour covers the GPUs only (the host VM is billed on top), a lower "
                "bound not compared with whole-node prices"
            ).format(price=lower_bound, currency=needs.budget.currency)
        link, link_note = self.link(candidate)
        return CandidateFacts(
            candidate=candidate,
            offering=offering,
            service=candidate.catalog.service,
            needs=needs,
            checklist=self.checklist,
            gpu=match,
            gpu_memory_gb=memory,
            gpus_per_node=per_node,
            sizing=sizing,
            planned_gpus=planned,
            nodes=sizing.nodes if sizing is not None else None,
            capacity=capacity,
            price_gpu_hour=price.gpu_hour,
            price_currency=price.currency,
            price_note=price.note,
            price_source=price.source,
            compare_gpu_hour=compare,
            compare_note=compare_note,
            lower_bound_gpu_hour=lower_bound,
            tflops=tflops,
            link=link,
            link_note=link_note,
            scale=self.scale,
            references=self.references,
            needs_fabric=not (sizing is not None and fits_one_node),
        )
