"""Acceptance checks: what a rented server showed (`linkvet accept`'s report facts, plain dicts) against
what its provider's catalog claims for the offering, fact by fact.

Each check is `{fact, scope, claimed, measured, verdict, evidence, catalog_value, claim_source, claim_as_of}`:

* `fact` is the catalog field it checks (`gpu`, `gpus_per_node`, `intra_node.kind`, `inter_node.bandwidth_gbit_s`,
  `storage.local_nvme_tb`, `bmc_ipmi`, `power_redundancy`, …) or, for figures no catalog field holds, a
  measurement name (`nccl.allreduce_busbw_gbytes_s`, `needs.internode_gbit_s`); `scope` says which
  (`offering`, `service`, `region`, `measurement`).
* `verdict`: `confirmed`, `contradicted`, or `unverified` (no claim, or nothing read that could decide).
* `catalog_value`: the measured value in the catalog field's own unit, when it can stand in the catalog as
  a verified fact (what `linkvet accept import` will write); None when it cannot.

Rules (tolerances are linkvet's, stated in the evidence):
* GPU model: nvidia-smi's product names mapped to the GPU reference (`SMI_NAMES`, with a source).
* NVLink: the topology verdict decides; a pair of GPUs joined only through PCIe contradicts an NVLink or
  NVSwitch claim, the pairs are the evidence. NVSwitch itself is not visible in the matrix (said so).
* Fabric bandwidth: with `rails`, each rail must reach bandwidth ÷ rails; without, a claim of at most 800
  Gbit/s (one XDR port) is read as the per-port speed vendors quote ("400G InfiniBand") and every active
  port must reach it; a larger one as the node's total.
* A BMC that is not visible from the OS (a VM) leaves a BMC claim unverified, never contradicted.

Imports no `probes`: the facts come in as the report's JSON-shaped dicts.

Where things are:
    check.py       the Check record, verdicts, tolerances, nvidia-smi names → GPU reference ids
    node.py        GPU model, count, memory; NVLink/NVSwitch and its bandwidth (the topology verdict)
    hardware.py    fabric (InfiniBand/RoCE, rails, RDMA), NVMe, BMC, power redundancy
    bandwidth.py   NCCL peak against its reference and against the needs profile's inter-node bandwidth
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalogs.acceptance.bandwidth import nccl_reference_check, needs_check
from catalogs.acceptance.check import SMI_NAMES, Check, Verdict, reference_id_for, summarize
from catalogs.acceptance.hardware import fabric_checks, management_checks, storage_checks
from catalogs.acceptance.node import gpu_checks, intra_node_checks
from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.loader import ProviderCatalog
from catalogs.needs import NeedsProfile
from catalogs.schema import Offering, Region


def check_offering(
    report: Mapping[str, Any],
    provider: ProviderCatalog,
    offering: Offering,
    region: Region | None = None,
    needs: NeedsProfile | None = None,
    gpus: GpuReference | None = None,
) -> list[Check]:
    """Every check of the report's facts against `offering`'s claims (route claims are checked by the
    caller, which has the route classifier: `desktop.usecases.accept`)."""
    gpus = gpus or default_gpu_reference()
    checks = [
        *gpu_checks(report, offering, gpus),
        *intra_node_checks(report, offering, gpus),
        *fabric_checks(report, offering),
        *storage_checks(report, offering),
        *management_checks(report, provider, offering),
        nccl_reference_check(report),
    ]
    if needs is not None:
        checks.append(needs_check(report, needs, offering, gpus))
    return checks


__all__ = ["SMI_NAMES", "Check", "Verdict", "check_offering", "reference_id_for", "summarize"]
