"""The bundled NCCL reference table (`nccl_reference.toml`, every figure with its source) and the judgement
of a measured all_reduce peak against it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from probes.accept.errors import ReadError
from probes.accept.nccl import NcclRun
from probes.i18n import _
from probes.inputfile import parse_toml, read_text

REFERENCE_PATH = Path(__file__).with_name("nccl_reference.toml")
Judgement = Literal["at-reference", "below-reference", "no-reference", "not-judged"]


@dataclass(frozen=True, slots=True)
class Reference:
    id: str
    gpu_names: tuple[str, ...]
    ranks: int
    nodes: int
    interconnect: str
    busbw_gbytes_s: float
    kind: str
    source: str

    def matches(self, names: Sequence[str], ranks: int | None, nodes: int | None) -> bool:
        if ranks != self.ranks or (nodes or 1) != self.nodes:
            return False
        lowered = [n.lower() for n in names]
        return bool(lowered) and all(any(key.lower() in name for key in self.gpu_names) for name in lowered)


@dataclass(frozen=True, slots=True)
class ReferenceTable:
    tolerance: float
    references: tuple[Reference, ...]


@cache
def reference_table(path: Path = REFERENCE_PATH) -> ReferenceTable:
    def error(message: str, line: int | None) -> ReadError:
        return ReadError(str(path), message, line=line)

    data = parse_toml(read_text(path, error), error)
    refs = tuple(
        Reference(
            id=r["id"],
            gpu_names=tuple(r["gpu_names"]),
            ranks=int(r["ranks"]),
            nodes=int(r["nodes"]),
            interconnect=r["interconnect"],
            busbw_gbytes_s=float(r["busbw_gbytes_s"]),
            kind=r["kind"],
            source=r["source"],
        )
        for r in data["reference"]
    )
    return ReferenceTable(float(data["tolerance"]), refs)


def judge(run: NcclRun, gpu_names: Sequence[str], table: ReferenceTable | None = None) -> dict[str, Any]:
    """The run's peak (≥ 1 GiB) against the matching reference. `gpu_names`: the GPUs read on this machine,
    else the run's own device names."""
    table = table or reference_table()
    peak = run.peak()
    names = list(gpu_names) or sorted(set(run.devices))
    result: dict[str, Any] = {
        "peak_busbw_gbytes_s": None if peak is None else peak.busbw_gbytes_s,
        "peak_at_bytes": None if peak is None else peak.size_bytes,
        "avg_busbw_gbytes_s_footer": run.avg_busbw_gbytes_s,
        "reference": None,
        "ratio": None,
    }
    if peak is None:
        largest = max((row.size_bytes for row in run.rows), default=0)
        result["judgement"] = "not-judged"
        result["explanation"] = _(
            "no message of 1 GiB or more (largest {largest} bytes): the peak is judged at ≥ 1 GiB only"
        ).format(largest=largest)
        return result
    ref = next((r for r in table.references if r.matches(names, run.ranks, run.nodes)), None)
    if ref is None:
        result["judgement"] = "no-reference"
        result["explanation"] = _(
            "peak {peak} GB/s at {size} bytes; no reference for {ranks} × {gpus} on {nodes} node(s)"
        ).format(
            peak=f"{peak.busbw_gbytes_s:g}",
            size=peak.size_bytes,
            ranks=run.ranks or "?",
            gpus=", ".join(names) or _("unknown GPU"),
            nodes=run.nodes or 1,
        )
        return result
    ratio = peak.busbw_gbytes_s / ref.busbw_gbytes_s
    below = ratio < table.tolerance
    result.update(
        reference={
            "id": ref.id,
            "busbw_gbytes_s": ref.busbw_gbytes_s,
            "interconnect": ref.interconnect,
            "kind": ref.kind,
            "source": ref.source,
            "tolerance": table.tolerance,
        },
        ratio=ratio,
        judgement="below-reference" if below else "at-reference",
    )
    words = {
        "peak": f"{peak.busbw_gbytes_s:g}",
        "size": peak.size_bytes,
        "ratio": f"{ratio:.0%}",
        "reference": f"{ref.busbw_gbytes_s:g}",
        "id": ref.id,
        "kind": ref.kind,
        "tolerance": f"{table.tolerance:.0%}",
    }
    if below:
        text = _(
            "peak {peak} GB/s at {size} bytes is {ratio} of the reference {reference} GB/s ({id}, {kind}), "
            "under {tolerance}"
        )
    else:
        text = _(
            "peak {peak} GB/s at {size} bytes is {ratio} of the reference {reference} GB/s ({id}, {kind})"
        )
    explanation = text.format(**words)
    if run.avg_busbw_gbytes_s is not None:
        explanation = _(
            "{explanation}; the footer's average over all sizes reads {average} GB/s and is not judged"
        ).format(explanation=explanation, average=f"{run.avg_busbw_gbytes_s:g}")
    result["explanation"] = explanation
    return result
