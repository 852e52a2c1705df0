"""Which catalog facts each weighted criterion rests on, and what a fact's standing does to its score.

A fact is claimed (the catalog's or the vendor's word), verified (an acceptance report measured it: its
value is the measured one, so scoring uses it like any other fact) or contradicted (an acceptance report
measured otherwise and could not say what the value is). Scoring reads the standing, never guesses: a
criterion resting on a contradicted fact scores 0, so a contradicted claim never scores above an unverified
one, nor above an unknown (which counts the checklist's unknown score).

`CRITERION_FACTS` is also the questionnaire's map from a criterion to the questions that answer it
(`catalogs.questionnaire`), and the order of "what to ask next".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from catalogs.facts import Provenance, Sourced
from catalogs.schema import Offering, Region, Service

# criterion id → the fact keys it rests on (`offering.*`, `service.*` and `region.*` paths, without ids)
CRITERION_FACTS: dict[str, tuple[str, ...]] = {
    "intra_node": ("offering.intra_node.kind", "offering.intra_node.bandwidth_gbytes_s"),
    "inter_node_bandwidth": ("offering.inter_node.bandwidth_gbit_s", "offering.inter_node.rails"),
    "inter_node_fabric": ("offering.inter_node.fabric",),
    "rdma": ("offering.inter_node.rdma",),
    "lossless_ethernet": ("offering.inter_node.lossless",),
    "local_nvme": ("offering.storage.local_nvme_tb",),
    "shared_storage": ("offering.storage.shared_fs", "offering.storage.parallel_fs"),
    "storage_network": ("offering.storage.network_gbit_s",),
    "management_network": ("offering.management_network_separate",),
    "bmc_ipmi": ("offering.bmc_ipmi", "service.bmc_ipmi"),
    "power_redundancy": ("offering.power_redundancy",),
    "cooling": ("offering.cooling",),
    "line_quality": ("region.endpoints",),
    "line_claim": ("region.line_types",),
    "ddos_protection": ("service.ddos_protection_gbit_s",),
    "elasticity": ("offering.max_gpus", "offering.max_nodes", "offering.inter_node.upgrade_path"),
    "delivery_time": ("service.delivery_days",),
    "support": ("service.support_24x7", "service.sla_uptime_percent"),
    "price": ("offering.price.gpu_hour", "offering.price.node_month", "offering.gpus_per_node"),
    "price_per_tflop": ("offering.price.gpu_hour", "offering.gpu"),
}
_CRITERIA_OF: dict[str, tuple[str, ...]] = {}
for _criterion, _keys in CRITERION_FACTS.items():
    for _key in _keys:
        _CRITERIA_OF[_key] = (*_CRITERIA_OF.get(_key, ()), _criterion)

_TABLES = ("intra_node", "inter_node", "storage")


def criteria_resting_on(fact: str, scope: str | None = None) -> tuple[str, ...]:
    """The criteria that rest on a fact: its full key (`offering.bmc_ipmi`), or a catalog field with the
    scope it is in (`intra_node.kind`, `offering`; any scope when None)."""
    if scope is not None:
        return _CRITERIA_OF.get(f"{scope}.{fact}", ())
    found = _CRITERIA_OF.get(fact, ())
    for prefix in ("offering", "service", "region"):
        found = found or _CRITERIA_OF.get(f"{prefix}.{fact}", ())
    return found


@dataclass(frozen=True, slots=True)
class StandingFact:
    """A fact of a candidate with its own provenance: where it is (`key`, e.g. `offering.bmc_ipmi`), its
    value and provenance (standing, source, as of, file)."""

    key: str
    value: object
    provenance: Provenance

    def as_dict(self) -> dict[str, object]:
        p = self.provenance
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {
            "fact": self.key,
            "value": value,
            "standing": p.standing,
            "source": p.source,
            "as_of": p.as_of,
            "file": p.file,
        }


def _own_facts(prefix: str, table: Sourced | None) -> Iterator[StandingFact]:
    if table is None:
        return
    for field, provenance in table.facts.items():
        yield StandingFact(f"{prefix}.{field}", getattr(table, field, None), provenance)


def candidate_facts(
    offering: Offering, service: Service | None, region: Region | None
) -> Iterator[StandingFact]:
    """Every fact of an offering in a region that carries its own provenance (keys without ids)."""
    yield from _own_facts("offering", offering)
    for name in _TABLES:
        table = getattr(offering, name)
        yield from _own_facts(f"offering.{name}", table)
    for price in offering.prices:
        if region is None or price.region in (None, region.id):
            yield from _own_facts("offering.price", price)
    yield from _own_facts("service", service)
    yield from _own_facts("region", region)


def contradicted_criteria(
    offering: Offering, service: Service | None, region: Region | None
) -> frozenset[str]:
    """The criteria that rest on a contradicted fact of this candidate (empty almost always: cheap)."""
    if not _any_standing(offering, service, region):
        return frozenset()
    found: set[str] = set()
    for fact in candidate_facts(offering, service, region):
        if fact.provenance.standing == "contradicted":
            found.update(_CRITERIA_OF.get(fact.key, ()))
    return frozenset(found)


def _any_standing(offering: Offering, service: Service | None, region: Region | None) -> bool:
    """Whether any table of the candidate carries per-fact provenance at all (the common case: none)."""
    tables: list[Sourced | None] = [offering, service, region, *(getattr(offering, n) for n in _TABLES)]
    tables.extend(offering.prices)
    return any(t is not None and t.facts for t in tables)


def settled_facts(offering: Offering, service: Service | None, region: Region | None) -> list[StandingFact]:
    """The candidate's verified and contradicted facts (what an acceptance report settled)."""
    if not _any_standing(offering, service, region):
        return []
    return [
        f
        for f in candidate_facts(offering, service, region)
        if f.provenance.standing in ("verified", "contradicted")
    ]
