"""`nvidia-smi topo -m`: the path between every pair of GPUs, and what it makes of the node.

Cells: `X` (self), `NV#` (a bonded set of # NVLinks), `PIX`, `PXB`, `PHB`, `NODE`, `SYS` (PCIe paths,
from the nearest to across the CPU interconnect; old drivers print `SOC` for `SYS`). The header may carry
ANSI escape codes (a terminal's underline), NIC columns and rows (`NIC0`, `mlx5_0`) and a `NIC Legend`
may be mixed in; only GPU×GPU cells decide.

Verdict per node:
    nvlink-all       every pair of GPUs over NVLink (an NVSwitch node, or a full NVLink mesh)
    nvlink-islands   groups of GPUs joined by NVLink, the groups joined only over PCIe (e.g. 2 × 4)
    nvlink-partial   NVLink joins them all, but some pairs only through PCIe (e.g. a hybrid cube mesh)
    pcie-only        no pair over NVLink
    single-gpu       one GPU: nothing to judge
    not-judged       a matrix that cannot be a node's: not square (a GPU row without its column), not
                     symmetric (GPU0→GPU1 NVLink but GPU1→GPU0 PCIe), more bonded NVLinks than a GPU has,
                     or not as many GPUs as the GPU query (`nvidia-smi -q`, NVML) reports; `doubts` says why
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from probes.accept.errors import ReadError
from probes.accept.machine import Machine, Reading
from probes.errors import Unavailable
from probes.i18n import _, clauses, items

TOPO_FILE = "nvidia-smi-topo-m.txt"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_PCIE_PATHS = ("PIX", "PXB", "PHB", "NODE", "SYS", "SOC")
_GPU = re.compile(r"^GPU\d+$")
# The most NVLinks one GPU has (NVLink 4 and 5: 18 per GPU, stas00/ml-engineering@744d01e:network/README.md):
# a pair cannot be bonded by more.
MAX_BONDED_NVLINKS = 18
MAX_GPUS = 1024  # far more than one operating system's PCIe holds; a larger header is not a node's matrix

Verdict = Literal["nvlink-all", "nvlink-islands", "nvlink-partial", "pcie-only", "single-gpu", "not-judged"]
VERDICT_WORDS: dict[str, str] = {
    "nvlink-all": "every GPU pair over NVLink",
    "nvlink-islands": "NVLink islands joined only over PCIe",
    "nvlink-partial": "NVLink, but some GPU pairs only through PCIe",
    "pcie-only": "no GPU pair over NVLink (PCIe only)",
    "single-gpu": "a single GPU",
    "not-judged": "a matrix that cannot be judged",
}


@dataclass(frozen=True, slots=True)
class Pair:
    a: str
    b: str
    path: str  # "NV18", "SYS", ...

    @property
    def nvlink(self) -> bool:
        return self.path.startswith("NV")

    @property
    def nvlinks(self) -> int | None:
        return int(self.path[2:]) if self.nvlink else None

    def describe(self) -> str:
        return f"{self.a}–{self.b} {self.path}"


@dataclass(frozen=True, slots=True)
class Topology:
    gpus: tuple[str, ...]
    pairs: tuple[Pair, ...]
    nics: tuple[str, ...] = ()
    nic_names: tuple[tuple[str, str], ...] = ()  # NIC legend: ("NIC0", "mlx5_0")
    doubts: tuple[str, ...] = ()  # why the matrix cannot be a node's (see the module docstring)

    @property
    def islands(self) -> tuple[tuple[str, ...], ...]:
        """Groups of GPUs connected through NVLink (connected components), largest first."""
        parent = {gpu: gpu for gpu in self.gpus}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for pair in self.pairs:
            if pair.nvlink:
                parent[find(pair.a)] = find(pair.b)
        groups: dict[str, list[str]] = {}
        for gpu in self.gpus:
            groups.setdefault(find(gpu), []).append(gpu)
        return tuple(
            sorted((tuple(g) for g in groups.values()), key=lambda g: (-len(g), self.gpus.index(g[0])))
        )

    @property
    def verdict(self) -> Verdict:
        if self.doubts:
            return "not-judged"
        if len(self.gpus) < 2:
            return "single-gpu"
        nv = [p for p in self.pairs if p.nvlink]
        if len(nv) == len(self.pairs):
            return "nvlink-all"
        if not nv:
            return "pcie-only"
        islands = self.islands
        if len(islands) > 1:
            inside = {frozenset((p.a, p.b)) for p in nv}
            complete = all(
                frozenset((x, y)) in inside
                for group in islands
                for i, x in enumerate(group)
                for y in group[i + 1 :]
            )
            if complete:
                return "nvlink-islands"
        return "nvlink-partial"

    @property
    def pcie_pairs(self) -> tuple[Pair, ...]:
        return tuple(p for p in self.pairs if not p.nvlink)

    def explain(self) -> str:
        n = len(self.gpus)
        verdict = self.verdict
        if verdict == "not-judged":
            return _("could not judge: {reason}").format(reason=clauses(self.doubts))
        if verdict == "single-gpu":
            return _("one GPU: no GPU pair to judge")
        counts = sorted({p.nvlinks for p in self.pairs if p.nvlinks is not None})
        bonded = "/".join(f"NV{c}" for c in counts)
        if verdict == "nvlink-all":
            return _("all {pairs} pairs of the {gpus} GPUs over NVLink ({bonded})").format(
                pairs=len(self.pairs), gpus=n, bonded=bonded
            )
        if verdict == "pcie-only":
            kinds = sorted({p.path for p in self.pairs})
            return _("none of the {pairs} pairs of the {gpus} GPUs over NVLink (paths: {paths})").format(
                pairs=len(self.pairs), gpus=n, paths=items(kinds)
            )
        groups = " | ".join(",".join(g) for g in self.islands)
        return _("{pcie} of {pairs} GPU pairs only through PCIe; NVLink groups: {groups}").format(
            pcie=len(self.pcie_pairs), pairs=len(self.pairs), groups=groups
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "explanation": self.explain(),
            "gpus": list(self.gpus),
            "pairs": [{"a": p.a, "b": p.b, "path": p.path} for p in self.pairs],
            "pcie_pairs": [p.describe() for p in self.pcie_pairs],
            "islands": [list(g) for g in self.islands],
            "nics": list(self.nics),
            "nic_legend": dict(self.nic_names),
            "doubts": list(self.doubts),
        }

    def against_gpu_query(self, count: int | None) -> Topology:
        """The matrix held to the GPU query's count (None: the query was not read): a matrix of another
        number of GPUs is not this machine's."""
        if count is None:
            doubt = _(
                "the GPU query (nvidia-smi -q, NVML) was not read, so the matrix's {gpus} GPUs cannot be "
                "held to it"
            ).format(gpus=len(self.gpus))
        elif count != len(self.gpus):
            doubt = _("the matrix has {matrix} GPUs but the GPU query reports {count}").format(
                matrix=len(self.gpus), count=count
            )
        else:
            return self
        return replace(self, doubts=(*self.doubts, doubt))


def parse_topo_matrix(text: str, where: str = TOPO_FILE) -> Topology:
    """Parse `nvidia-smi topo -m`. A missing header, a missing or short GPU row or an unknown cell is a
    ReadError naming the line."""
    lines = [_ANSI.sub("", line).rstrip() for line in text.splitlines()]
    header_at = _header_at(lines, where)
    columns = _header_columns(lines[header_at])
    gpus = _header_gpus(columns, header_at, where)
    rows, extra_rows, nic_names = _body(lines, header_at, columns)
    pairs, paths = _gpu_pairs(gpus, columns, rows, header_at, where)
    nics = tuple(c for c in columns if not _GPU.match(c))
    return Topology(
        gpus=gpus,
        pairs=tuple(pairs),
        nics=nics,
        nic_names=tuple(nic_names),
        doubts=tuple(_matrix_doubts(pairs, paths, extra_rows, header_at)),
    )


def _header_at(lines: list[str], where: str) -> int:
    """The index of the header line: the first naming GPU0 that is not GPU0's own row."""
    header_at = next(
        (
            i
            for i, line in enumerate(lines)
            if (t := line.split()) and t[0] == "GPU0" and (len(t) == 1 or t[1] != "X")
        ),
        None,
    )
    if header_at is None:
        raise ReadError(
            where,
            _("no matrix header (a line naming GPU0, GPU1, …)"),
            expected=_("nvidia-smi topo -m output"),
        )
    return header_at


def _header_columns(header: str) -> list[str]:
    """The header's GPU and NIC columns, up to the affinity columns (CPU, NUMA, GPU NUMA ID)."""
    columns: list[str] = []
    for token in header.split():
        if token in ("CPU", "NUMA", "GPU") and columns:
            break
        columns.append(token)
    return columns


def _header_gpus(columns: list[str], header_at: int, where: str) -> tuple[str, ...]:
    gpus = tuple(c for c in columns if _GPU.match(c))
    if not gpus:
        raise ReadError(where, _("the header names no GPU column"), line=header_at + 1, expected="GPU0 …")
    if len(gpus) > MAX_GPUS:
        raise ReadError(
            where,
            _("the header names {count} GPUs, more than one machine holds").format(count=len(gpus)),
            line=header_at + 1,
            expected=_("at most {most} GPU columns").format(most=MAX_GPUS),
        )
    return gpus


def _body(
    lines: list[str], header_at: int, columns: list[str]
) -> tuple[dict[str, tuple[int, list[str]]], list[str], list[tuple[str, str]]]:
    """The lines under the header: the rows of the header's columns (line number, cells), the GPU rows
    without a column, and the NIC legend."""
    rows: dict[str, tuple[int, list[str]]] = {}
    extra_rows: list[str] = []
    nic_names: list[tuple[str, str]] = []
    in_nic_legend = False
    for number, line in enumerate(lines[header_at + 1 :], start=header_at + 2):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("NIC Legend"):
            in_nic_legend = True
            continue
        if in_nic_legend:
            match = re.match(r"^(NIC\d+):\s*(\S+)$", stripped)
            if match:
                nic_names.append((match.group(1), match.group(2)))
            continue
        if stripped.startswith("Legend") or "=" in stripped:
            continue
        cells = stripped.split()
        if cells[0] in columns:
            rows[cells[0]] = (number, cells[1:])
        elif _GPU.match(cells[0]):
            extra_rows.append(cells[0])
    return rows, extra_rows, nic_names


def _gpu_row(
    gpu: str,
    gpus: tuple[str, ...],
    columns: list[str],
    rows: dict[str, tuple[int, list[str]]],
    header_at: int,
    where: str,
) -> tuple[int, list[str]]:
    """A GPU's row (line number, one cell per column); a missing or short row is a ReadError."""
    if gpu not in rows:
        raise ReadError(
            where,
            _(
                "the matrix has no {gpu} row (the header at line {line} names {count} GPUs): truncated?"
            ).format(gpu=gpu, line=header_at + 1, count=len(gpus)),
            expected=_("a row for each of {gpus}").format(gpus=", ".join(gpus)),
        )
    number, cells = rows[gpu]
    gpu_cells = cells[: len(columns)]
    if len(gpu_cells) < len(columns):
        raise ReadError(
            where,
            _("the {gpu} row has {cells} of {columns} cells: truncated?").format(
                gpu=gpu, cells=len(gpu_cells), columns=len(columns)
            ),
            line=number,
        )
    return number, gpu_cells


def _check_cell(gpu: str, other: str, cell: str, number: int, where: str) -> None:
    if other == gpu:
        if cell != "X":
            raise ReadError(where, f"{gpu}×{gpu} is {cell!r}", line=number, expected=_("X (self)"))
        return
    if not (cell in _PCIE_PATHS or re.fullmatch(r"NV\d+", cell)):
        raise ReadError(
            where,
            f"{gpu}×{other} is {cell!r}",
            line=number,
            expected=_("X, NV#, PIX, PXB, PHB, NODE, SYS or SOC"),
        )


def _gpu_pairs(
    gpus: tuple[str, ...],
    columns: list[str],
    rows: dict[str, tuple[int, list[str]]],
    header_at: int,
    where: str,
) -> tuple[list[Pair], dict[tuple[str, str], str]]:
    """Each GPU pair once (the upper triangle) and every GPU×GPU path as printed (both triangles)."""
    position = {gpu: i for i, gpu in enumerate(gpus)}
    pairs: list[Pair] = []
    paths: dict[tuple[str, str], str] = {}
    for i, gpu in enumerate(gpus):
        number, gpu_cells = _gpu_row(gpu, gpus, columns, rows, header_at, where)
        for other, cell in zip(columns, gpu_cells, strict=True):
            _check_cell(gpu, other, cell, number, where)
            if other != gpu and _GPU.match(other):
                paths[(gpu, other)] = cell
                if position[other] > i:
                    pairs.append(Pair(gpu, other, cell))
    return pairs, paths


def _matrix_doubts(
    pairs: list[Pair], paths: dict[tuple[str, str], str], extra_rows: list[str], header_at: int
) -> list[str]:
    """Why the matrix cannot be a node's: not square, not symmetric, more bonded NVLinks than a GPU has."""
    doubts: list[str] = []
    if extra_rows:
        doubts.append(
            _("not square: {rows} without a column in the header at line {line}").format(
                rows=", ".join(dict.fromkeys(extra_rows[:5])), line=header_at + 1
            )
        )
    unequal = [p for p in pairs if paths[(p.b, p.a)] != p.path]
    if unequal:
        first = unequal[0]
        doubts.append(
            _("not symmetric: {a}→{b} is {ab} but {b}→{a} is {ba} ({count} such pairs)").format(
                a=first.a, b=first.b, ab=first.path, ba=paths[(first.b, first.a)], count=len(unequal)
            )
        )
    bonded = [p for p in pairs if (p.nvlinks or 0) > MAX_BONDED_NVLINKS]
    if bonded:
        doubts.append(
            _("{pair}: more NVLinks than a GPU has (at most {most})").format(
                pair=bonded[0].describe(), most=MAX_BONDED_NVLINKS
            )
        )
    return doubts


def read_topology(machine: Machine) -> tuple[Topology | None, Reading]:
    try:
        text = machine.run(["nvidia-smi", "topo", "-m"], record_as=TOPO_FILE)
    except Unavailable as exc:
        return None, Reading("topology", "nvidia-smi topo -m", "command", "not read", reason=str(exc))
    topology = parse_topo_matrix(text, machine.shown(TOPO_FILE))
    path = None if machine.live else machine.shown(TOPO_FILE)
    return topology, Reading("topology", "nvidia-smi topo -m", "command", "read", path=path)
