"""The weighted criteria, grouped as the checklist (`catalogs/checklist.toml`) groups them, and the registry
that names each one's judging function by its checklist id.

    compute.py      the GPU link inside a node, the fabric between nodes (bandwidth, kind, RDMA, lossless)
    storage.py      local NVMe, shared file system, storage network
    operations.py   management network, BMC/IPMI, power redundancy, cooling
    line.py         measured line quality, latency under load, the route check of the claimed line type
    service.py      DDoS protection, elasticity, delivery time, support
    price.py        the cluster's hourly price, price per TFLOP (against fixed reference prices)

Each is `criterion(facts, params, explain) -> (score, reason, source)`; a score is 0..1 or None (unknown),
on a fixed scale of its own (params, the needs profile, references): never relative to other candidates. `check_checklist` makes sure the checklist file and this registry name the same items.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from catalogs.checklist import Checklist
from catalogs.errors import ChecklistError
from catalogs.i18n import _
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.criteria import compute, line, operations, price, service, storage
from catalogs.scoring.gates import GATES
from catalogs.scoring.judgement import Result

CriterionFunction = Callable[[CandidateFacts, Mapping[str, float], bool], Result]

CRITERIA: dict[str, CriterionFunction] = {
    "intra_node": compute.intra_node,
    "inter_node_bandwidth": compute.inter_node_bandwidth,
    "inter_node_fabric": compute.inter_node_fabric,
    "rdma": compute.rdma,
    "lossless_ethernet": compute.lossless_ethernet,
    "local_nvme": storage.local_nvme,
    "shared_storage": storage.shared_storage,
    "storage_network": storage.storage_network,
    "management_network": operations.management_network,
    "bmc_ipmi": operations.bmc_ipmi,
    "power_redundancy": operations.power_redundancy,
    "cooling": operations.cooling,
    "line_quality": line.line_quality,
    "line_responsiveness": line.line_responsiveness,
    "line_claim": line.line_claim,
    "ddos_protection": service.ddos_protection,
    "elasticity": service.elasticity,
    "delivery_time": service.delivery_time,
    "support": service.support,
    "price": price.price,
    "price_per_tflop": price.price_per_tflop,
}

EvidenceFunction = Callable[[CandidateFacts, Mapping[str, float]], tuple[float, float] | None]
# Partly known on thin evidence: (measured, confidence); the untrusted share is unknown (worst 0, best 1).
PARTIAL: dict[str, EvidenceFunction] = {
    "line_quality": line.line_quality_evidence,
    "line_responsiveness": line.line_responsiveness_evidence,
    "line_claim": line.line_claim_evidence,
}


def check_checklist(checklist: Checklist) -> None:
    """The checklist and the scoring code must name the same items, each of the right kind."""
    in_file = {c.id for c in checklist.criterion}
    in_code = set(GATES) | set(CRITERIA)
    missing, extra = sorted(in_code - in_file), sorted(in_file - in_code)
    if missing or extra:
        if missing and extra:
            message = _(
                "checklist and scoring code disagree; missing from the checklist: {missing}; no scoring function "
                "for: {extra}"
            )
        elif missing:
            message = _("checklist and scoring code disagree; missing from the checklist: {missing}")
        else:
            message = _("checklist and scoring code disagree; no scoring function for: {extra}")
        raise ChecklistError(
            message.format(missing=", ".join(missing), extra=", ".join(extra)),
            expected=_("one [[criterion]] per scoring function"),
        )
    for item in checklist.criterion:
        expected_kind = "gate" if item.id in GATES else "weighted"
        if item.kind != expected_kind:
            raise ChecklistError(
                _("criterion {id!r} must be of kind {kind!r}").format(id=item.id, kind=expected_kind),
                field=f"{item.id}.kind",
            )
