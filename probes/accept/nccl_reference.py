"""The bundled NCCL reference table (`nccl_reference.toml`: per GPU and node type the figure a healthy run
reaches, each with its source or "none" where none is known, and each GPU's fastest link) and the
judgement of a measured all_reduce peak against it.

A figure is judged only when it is possible: the run carries no doubt (`NcclRun.doubts`), the side of the
row passes the row's own checks (`nccl.side_problem`), its bus bandwidth is under twice the GPU's fastest
link per direction (both directions of every link together) and under `ceiling` × the matching reference.
Otherwise the judgement is `not-judged` with "could not judge: …" and the reason."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from probes.accept.errors import ReadError
from probes.accept.nccl import GIB, NcclRow, NcclRun, NcclSide, side_problem
from probes.files.inputfile import parse_toml, read_text
from probes.i18n import _, clauses, ngettext

REFERENCE_PATH = Path(__file__).with_name("nccl_reference.toml")
ReferenceVerdict = Literal["at-reference", "below-reference", "no-reference", "not-judged"]


def _matches_names(keys: Sequence[str], names: Sequence[str]) -> bool:
    lowered = [n.lower() for n in names]
    return bool(lowered) and all(any(key.lower() in name for key in keys) for name in lowered)


@dataclass(frozen=True, slots=True)
class Reference:
    id: str
    gpu_names: tuple[str, ...]
    ranks: int
    nodes: int
    interconnect: str
    busbw_gbytes_s: float | None  # None: kind "none", no public figure known
    kind: str
    source: str

    def matches(self, names: Sequence[str], ranks: int | None, nodes: int | None) -> bool:
        if ranks != self.ranks or (nodes or 1) != self.nodes:
            return False
        return _matches_names(self.gpu_names, names)


@dataclass(frozen=True, slots=True)
class Limit:
    """The fastest GPU-to-GPU link a GPU can have, GB/s per direction, with its source."""

    gpu_names: tuple[str, ...]
    link: str
    gbytes_s_per_direction: float
    source: str


@dataclass(frozen=True, slots=True)
class ReferenceTable:
    tolerance: float
    references: tuple[Reference, ...]
    ceiling: float = 1.5
    limits: tuple[Limit, ...] = ()

    def limit_for(self, names: Sequence[str]) -> Limit | None:
        """The fastest link any of `names` can have (the first limit naming each; the fastest listed for a
        name none names); None when the table lists no limit at all."""
        found: list[Limit] = []
        for name in names or [""]:
            lowered = name.lower()
            match = next(
                (lim for lim in self.limits if any(k.lower() in lowered for k in lim.gpu_names)), None
            )
            if match is None:
                match = max(self.limits, key=lambda lim: lim.gbytes_s_per_direction, default=None)
            if match is not None:
                found.append(match)
        return max(found, key=lambda lim: lim.gbytes_s_per_direction, default=None)


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
            busbw_gbytes_s=float(r["busbw_gbytes_s"]) if "busbw_gbytes_s" in r else None,
            kind=r["kind"],
            source=r["source"],
        )
        for r in data["reference"]
    )
    limits = tuple(
        Limit(tuple(x["gpu_names"]), x["link"], float(x["gbytes_s_per_direction"]), x["source"])
        for x in data.get("limit", [])
    )
    return ReferenceTable(float(data["tolerance"]), refs, float(data.get("ceiling", 1.5)), limits)


def _side_name(row: NcclRow, side: NcclSide) -> str:
    return _("out-of-place") if side is row.out else _("in-place")


def judge(run: NcclRun, gpu_names: Sequence[str], table: ReferenceTable | None = None) -> dict[str, Any]:
    """The run's peak (≥ 1 GiB) against the matching reference. `gpu_names`: the GPUs read on this machine,
    else the run's own device names."""
    table = table or reference_table()
    names = list(gpu_names) or sorted(set(run.devices))
    result: dict[str, Any] = {
        "peak_busbw_gbytes_s": None,
        "peak_at_bytes": None,
        "avg_busbw_gbytes_s_footer": run.avg_busbw_gbytes_s,
        "reference": None,
        "ratio": None,
        "not_used": [],
    }

    def not_judged(reason: str) -> dict[str, Any]:
        result["judgement"] = "not-judged"
        result["explanation"] = _("could not judge: {reason}").format(reason=reason)
        return result

    if run.doubts:
        return not_judged(clauses(run.doubts))
    big = [row for row in run.rows if row.size_bytes >= GIB]
    if not big:
        largest = max((row.size_bytes for row in run.rows), default=0)
        return not_judged(
            _(
                "no message of 1 GiB or more (largest {largest} bytes): the peak is judged at ≥ 1 GiB only"
            ).format(largest=largest)
        )
    ref = next((r for r in table.references if r.matches(names, run.ranks, run.nodes)), None)
    usable, not_used = _sort_readings(big, run, names, table, ref)
    result["not_used"] = not_used
    set_aside = _set_aside(not_used)
    if not usable:
        return not_judged(set_aside)
    peak_busbw, peak = max(usable, key=lambda pair: pair[0])
    result["peak_busbw_gbytes_s"] = peak_busbw
    result["peak_at_bytes"] = peak.size_bytes
    if ref is None or ref.busbw_gbytes_s is None:
        result["judgement"] = "no-reference"
        text = _(
            "peak {peak} GB/s at {size} bytes; no reference for {ranks} × {gpus} on {nodes} node(s)"
        ).format(
            peak=f"{peak_busbw:g}",
            size=peak.size_bytes,
            ranks=run.ranks or "?",
            gpus=", ".join(names) or _("unknown GPU"),
            nodes=run.nodes or 1,
        )
        if ref is not None:
            result["reference"] = {"id": ref.id, "kind": ref.kind, "source": ref.source}
            text = _("{explanation} ({source})").format(explanation=text, source=ref.source)
        result["explanation"] = _notes(text, run, set_aside)
        return result
    ratio = peak_busbw / ref.busbw_gbytes_s
    below = ratio < table.tolerance
    result.update(
        reference={
            "id": ref.id,
            "busbw_gbytes_s": ref.busbw_gbytes_s,
            "interconnect": ref.interconnect,
            "kind": ref.kind,
            "source": ref.source,
            "tolerance": table.tolerance,
            "ceiling": table.ceiling,
        },
        ratio=ratio,
        judgement="below-reference" if below else "at-reference",
    )
    result["explanation"] = _notes(_against_reference(peak_busbw, peak, ratio, ref, table), run, set_aside)
    return result


def _reading_problem(
    row: NcclRow,
    side: NcclSide,
    run: NcclRun,
    names: Sequence[str],
    table: ReferenceTable,
    ref: Reference | None,
    limit: Limit | None,
) -> str | None:
    """Why one reading at ≥ 1 GiB cannot be judged: the row's own checks, more than the GPUs' fastest link
    carries, or over `ceiling` × the reference; None when it can."""
    problem = side_problem(row, side, run.ranks)
    if problem is not None:
        return problem
    busbw = side.busbw_gbytes_s
    if limit is not None and busbw > 2 * limit.gbytes_s_per_direction:
        return _(
            "{busbw} GB/s is more than {gpus}' fastest link ({link}, {rate} GB/s each way) carries both "
            "ways together"
        ).format(
            busbw=f"{busbw:g}",
            gpus=", ".join(names) or _("any GPU"),
            link=limit.link,
            rate=f"{limit.gbytes_s_per_direction:g}",
        )
    if ref is not None and ref.busbw_gbytes_s is not None and busbw > table.ceiling * ref.busbw_gbytes_s:
        return _(
            "{busbw} GB/s is {ratio} of the reference {reference} GB/s ({id}): over the {ceiling} a "
            "healthy run reaches"
        ).format(
            busbw=f"{busbw:g}",
            ratio=f"{busbw / ref.busbw_gbytes_s:.0%}",
            reference=f"{ref.busbw_gbytes_s:g}",
            id=ref.id,
            ceiling=f"{table.ceiling:.0%}",
        )
    return None


def _sort_readings(
    big: Sequence[NcclRow],
    run: NcclRun,
    names: Sequence[str],
    table: ReferenceTable,
    ref: Reference | None,
) -> tuple[list[tuple[float, NcclRow]], list[dict[str, Any]]]:
    """The readings at ≥ 1 GiB that can be judged (bus bandwidth, row), and those set aside with why."""
    usable: list[tuple[float, NcclRow]] = []
    not_used: list[dict[str, Any]] = []
    limit = table.limit_for(names)
    for row in big:
        for side in row.sides():
            problem = _reading_problem(row, side, run, names, table, ref, limit)
            if problem is None:
                usable.append((side.busbw_gbytes_s, row))
            else:
                not_used.append(
                    {
                        "size_bytes": row.size_bytes,
                        "side": _side_name(row, side),
                        "line": row.line,
                        "why": problem,
                    }
                )
    return usable, not_used


def _set_aside(not_used: Sequence[dict[str, Any]]) -> str:
    """The readings set aside, in words, with the first as the example; "" when none was."""
    if not not_used:
        return ""
    first = not_used[0]
    where = _("{size} bytes {side}").format(size=first["size_bytes"], side=first["side"])
    if first["line"] is not None:
        where = _("{where} (line {line})").format(where=where, line=first["line"])
    return ngettext(
        "{count} reading at ≥ 1 GiB set aside, e.g. {where}: {why}",
        "{count} readings at ≥ 1 GiB set aside, e.g. {where}: {why}",
        len(not_used),
    ).format(count=len(not_used), where=where, why=first["why"])


def _against_reference(
    peak_busbw: float, peak: NcclRow, ratio: float, ref: Reference, table: ReferenceTable
) -> str:
    words = {
        "peak": f"{peak_busbw:g}",
        "size": peak.size_bytes,
        "ratio": f"{ratio:.0%}",
        "reference": f"{ref.busbw_gbytes_s:g}",
        "id": ref.id,
        "kind": ref.kind,
        "tolerance": f"{table.tolerance:.0%}",
    }
    if ratio < table.tolerance:
        text = _(
            "peak {peak} GB/s at {size} bytes is {ratio} of the reference {reference} GB/s ({id}, {kind}), "
            "under {tolerance}"
        )
    else:
        text = _(
            "peak {peak} GB/s at {size} bytes is {ratio} of the reference {reference} GB/s ({id}, {kind})"
        )
    return text.format(**words)


def _notes(explanation: str, run: NcclRun, set_aside: str) -> str:
    """The judgement's words with what the reader should know: readings set aside, an unchecked run, the
    footer's average (never judged)."""
    if set_aside:
        explanation = _("{explanation}; {notes}").format(explanation=explanation, notes=set_aside)
    if not run.checked:
        explanation = _(
            "{explanation}; the run did not check its results (#wrong N/A: validation off)"
        ).format(explanation=explanation)
    if run.avg_busbw_gbytes_s is not None:
        explanation = _(
            "{explanation}; the footer's average over all sizes reads {average} GB/s and is not judged"
        ).format(explanation=explanation, average=f"{run.avg_busbw_gbytes_s:g}")
    return explanation
