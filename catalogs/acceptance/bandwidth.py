"""Acceptance checks on measured bandwidth (see `catalogs.acceptance` for the check shape): the NCCL
all_reduce peak against the reference the readers judged it by, and against the inter-node bandwidth the
needs profile requires (`catalogs.sizing`).

A run whose ranks are all on one host says nothing about the link between nodes: against the needs it is
unverified, and the node's fabric line rate (sysfs) is the most that can be said — a line rate under the
need is already a contradiction, since no measurement can beat it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catalogs.acceptance.check import Check, _check, reference_id_for
from catalogs.gpus import GpuReference
from catalogs.i18n import _, clauses
from catalogs.needs import NeedsProfile
from catalogs.schema import Offering
from catalogs.sizing import size


def _runs(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The runs that could be judged (their judgement's peak passed the physical bounds), each with its
    judged peak as `peak_busbw_gbytes_s`."""
    nccl = report.get("facts", {}).get("nccl") or {}
    judged: list[Mapping[str, Any]] = []
    for run in nccl.get("runs", []):
        judgement = run.get("judgement") or {}
        peak = judgement.get("peak_busbw_gbytes_s")
        if judgement.get("judgement") != "not-judged" and isinstance(peak, int | float):
            judged.append({**run, "peak_busbw_gbytes_s": peak})
    return judged


def nccl_reference_check(report: Mapping[str, Any]) -> Check:
    fact = "nccl.allreduce_busbw_gbytes_s"
    runs = _runs(report)
    if not runs:
        every = (report.get("facts", {}).get("nccl") or {}).get("runs", [])
        why = (
            clauses(
                _("{log}: {judgement}").format(log=r["source"], judgement=r["judgement"]["explanation"])
                for r in every[:3]
            )
            if every
            else _("no all_reduce_perf log read (--nccl-log FILE or --nccl-tests DIR)")
        )
        return _check(fact, None, None, "unverified", why, scope="measurement")
    best = max(runs, key=lambda r: r["peak_busbw_gbytes_s"])
    judgement = best["judgement"]
    reference = judgement.get("reference")
    claimed = None if reference is None else reference.get("busbw_gbytes_s")
    verdict = {"at-reference": "confirmed", "below-reference": "contradicted"}.get(
        judgement["judgement"], "unverified"
    )
    values = {"log": best["source"], "judgement": judgement["explanation"]}
    if reference:
        evidence = _("{log}: {judgement}; reference source: {reference}").format(
            **values, reference=reference["source"]
        )
    else:
        evidence = _("{log}: {judgement}").format(**values)
    return _check(
        fact,
        claimed,
        best["peak_busbw_gbytes_s"],
        verdict,  # type: ignore[arg-type]
        evidence,
        scope="measurement",
    )


def needs_check(
    report: Mapping[str, Any], needs: NeedsProfile, offering: Offering, gpus: GpuReference
) -> Check:
    fact = "needs.internode_gbit_s"
    facts = report.get("facts", {})
    inventory = facts.get("gpus") or {}
    names = inventory.get("models") or []
    ref_id = reference_id_for(names[0], gpus) if names else None
    spec = gpus.get(ref_id).exact if ref_id and gpus.get(ref_id) else None  # type: ignore[union-attr]
    memory = spec.memory_gb if spec else offering.gpu_memory_gb
    per_node = inventory.get("count") or offering.gpus_per_node
    if memory is None or not per_node:
        return _check(
            fact,
            None,
            None,
            "unverified",
            _("GPU model or count not known: the needs profile cannot be sized"),
            scope="measurement",
        )
    sizing = size(needs, memory, per_node, spec.bf16_dense_tflops if spec else None)
    need = sizing.internode_gbit_s
    if need is None:
        return _check(
            fact,
            None,
            None,
            "unverified",
            _("{needs}: {gpus} GPUs in {nodes} nodes; no inter-node bandwidth to check").format(
                needs=needs.name, gpus=sizing.planned_gpus or "?", nodes=sizing.nodes or "?"
            ),
            scope="measurement",
        )
    multi = [r for r in _runs(report) if (r.get("nodes") or 1) > 1]
    rdma = facts.get("rdma") or {}
    line_rate = (
        max((rdma.get(k) or {}).get("total_gbit_s") or 0.0 for k in ("infiniband", "roce")) if rdma else 0.0
    )
    head = _("{needs} needs ≥ {need:.0f} Gbit/s per node between nodes ({gpus} GPUs, {nodes} nodes)").format(
        needs=needs.name, need=need, gpus=sizing.planned_gpus, nodes=sizing.nodes
    )
    if multi:
        best = max(multi, key=lambda r: r["peak_busbw_gbytes_s"])
        measured = best["peak_busbw_gbytes_s"] * 8
        ok = measured >= need
        return _check(
            fact,
            round(need, 1),
            round(measured, 1),
            "confirmed" if ok else "contradicted",
            _(
                "{need}; measured across {nodes} nodes: peak busbw {busbw:g} GB/s = {measured:.0f} Gbit/s"
            ).format(need=head, nodes=best["nodes"], busbw=best["peak_busbw_gbytes_s"], measured=measured),
            scope="measurement",
        )
    if line_rate and line_rate < need:
        return _check(
            fact,
            round(need, 1),
            line_rate,
            "contradicted",
            _(
                "{need}; the fabric's line rate is {rate:g} Gbit/s (sysfs), below the need even before measuring"
            ).format(need=head, rate=line_rate),
            scope="measurement",
        )
    if line_rate:
        evidence = _(
            "{need}; no NCCL run across nodes was read (a run inside one node does not test the link between "
            "nodes); the fabric's line rate is {rate:g} Gbit/s (sysfs)"
        ).format(need=head, rate=line_rate)
    else:
        evidence = _(
            "{need}; no NCCL run across nodes was read (a run inside one node does not test the link between "
            "nodes)"
        ).format(need=head)
    return _check(fact, round(need, 1), None, "unverified", evidence, scope="measurement")
