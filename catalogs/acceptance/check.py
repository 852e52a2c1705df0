"""The acceptance check record, its verdicts and tolerances, and the helpers every check uses (see the
package docstring)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from catalogs.facts import Provenance
from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.i18n import _, clauses, items

Verdict = Literal["confirmed", "contradicted", "unverified"]
MEMORY_TOLERANCE = 0.95
BANDWIDTH_TOLERANCE = 0.9
MAX_PORT_GBIT_S = 800  # XDR, the fastest single InfiniBand port

# nvidia-smi product names → GPU reference ids, where the name is not itself an id or alias.
# Source: the names as recorded nvidia-smi/NVML outputs print them (superbenchmark's NCCL log
# "A100-SXM4-40GB"; thamada/nvidia-smi:nvsim/H100SXMx8_deviceQuery.py "NVIDIA H100 80GB HBM3" for an
# H100 SXM5 node; apache/hadoop's nvidia-smi sample "Tesla P100-PCIE-12GB").
SMI_NAMES: tuple[tuple[str, str], ...] = (
    (r"^H100 80GB HBM3$", "H100 SXM"),
    (r"^H100 PCIe$", "H100 PCIe"),
    (r"^H200$", "H200 SXM"),
    (r"^A100-SXM4-80GB$", "A100 80GB SXM"),
    (r"^A100-SXM4-40GB$", "A100 40GB SXM"),
    (r"^A100[- ]PCIE[- ]40GB$", "A100 40GB PCIe"),
    (r"^A100 80GB PCIe$", "A100 80GB PCIe"),
    (r"^A800-SXM4-80GB$", "A800 80GB SXM"),
    (r"^H800$", "H800"),
    (r"^B200$", "B200"),
    (r"^L40S$", "L40S"),
    (r"^L4$", "L4"),
    (r"^A10G$", "A10G"),
    (r"^GeForce RTX 4090$", "RTX 4090"),
)


@dataclass(frozen=True, slots=True)
class Check:
    fact: str
    scope: str
    claimed: Any
    measured: Any
    verdict: Verdict
    evidence: str
    catalog_value: Any = None
    claim_source: str | None = None
    claim_as_of: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "fact": self.fact,
            "scope": self.scope,
            "claimed": self.claimed,
            "measured": self.measured,
            "verdict": self.verdict,
            "evidence": self.evidence,
            "catalog_value": self.catalog_value,
            "claim_source": self.claim_source,
            "claim_as_of": self.claim_as_of,
        }


def _check(
    fact: str,
    claimed: Any,
    measured: Any,
    verdict: Verdict,
    evidence: str,
    *,
    scope: str = "offering",
    value: Any = None,
    provenance: Provenance | None = None,
) -> Check:
    return Check(
        fact,
        scope,
        claimed,
        measured,
        verdict,
        evidence,
        value,
        None if provenance is None else provenance.source,
        None if provenance is None else provenance.as_of,
    )


def reference_id_for(name: str, gpus: GpuReference | None = None) -> str | None:
    """The GPU reference id of an nvidia-smi product name, or None when linkvet does not know it."""
    gpus = gpus or default_gpu_reference()
    bare = re.sub(r"^(NVIDIA|Tesla)\s+", "", name.strip())
    match = gpus.get(bare)
    if match is not None and match.exact is not None and not match.by_family:
        return match.exact.id
    for pattern, ref in SMI_NAMES:
        if re.match(pattern, bare, flags=re.IGNORECASE):
            return ref
    return None


def _not_read(facts: Mapping[str, Any], reader: str) -> str:
    reasons = [
        r.get("reason")
        for r in facts.get("read", [])
        if r.get("reader") == reader and r.get("status") != "read"
    ]
    return clauses(str(r) for r in reasons if r) or _("not read")


def _unstated(seen: str) -> str:
    """What was seen, for a fact the catalog does not state."""
    return _("the catalog does not say; {seen}").format(seen=seen)


_FARTHEST_FIRST = {"SYS": 0, "SOC": 0, "NODE": 1, "PHB": 2, "PXB": 3, "PIX": 4}


def _pairs_text(pairs: Sequence[str], limit: int = 8) -> str:
    """GPU pairs joined only through PCIe, the farthest paths (across the CPU interconnect) first."""
    pairs = sorted(pairs, key=lambda p: _FARTHEST_FIRST.get(p.rsplit(" ", 1)[-1], 5))
    shown = items(pairs[:limit])
    if len(pairs) > limit:
        return _("{pairs} and {n} more").format(pairs=shown, n=len(pairs) - limit)
    return shown


def summarize(checks: Sequence[Check] | Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts = {"confirmed": 0, "contradicted": 0, "unverified": 0}
    for check in checks:
        verdict = check.verdict if isinstance(check, Check) else check["verdict"]
        counts[verdict] += 1
    return counts
