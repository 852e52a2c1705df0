"""The GPU reference table (`catalogs/gpus.toml`): what each GPU model has, with sources.

`GpuReference.resolve(name)` turns a catalog's GPU name (an id, alias or family such as "H100") into the
reference entries it may mean. A figure is known for a name only when every entry it may mean agrees.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from catalogs import _toml
from catalogs.errors import UnknownGpuError
from catalogs.facts import MAX_GPU_MEMORY_GB, AsOf, Provenance, Text
from catalogs.i18n import _

GPU_REFERENCE_PATH = Path(__file__).with_name("gpus.toml")
IntraNodeKind = Literal["nvswitch", "nvlink", "pcie", "xgmi"]


class GpuSpec(BaseModel):
    """One GPU model as the sources describe it. `None` = the sources do not give the figure."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    id: Text
    aliases: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    form_factor: str | None = None
    memory_gb: float = Field(gt=0, le=MAX_GPU_MEMORY_GB)
    memory_type: str | None = None
    memory_bandwidth_gbytes_s: float | None = Field(default=None, gt=0, le=100_000)
    interconnect: str | None = None
    intra_node_kind: IntraNodeKind | None = None
    interconnect_gbytes_s_unidir: float | None = Field(default=None, gt=0, le=10_000)
    interconnect_gbytes_s_bidir: float | None = Field(default=None, gt=0, le=10_000)
    bf16_dense_tflops: float | None = Field(default=None, gt=0, le=100_000)
    bf16_sparse_tflops: float | None = Field(default=None, gt=0, le=100_000)
    notes: str | None = None
    source: Text
    as_of: AsOf

    @property
    def provenance(self) -> Provenance:
        return Provenance(f"GPU reference '{self.id}': {self.source}", self.as_of)


class _GpuFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    format_version: Literal[1]
    gpu: tuple[GpuSpec, ...]


def normalise_gpu_name(name: str) -> str:
    """Compare GPU names ignoring case, spaces, dashes and underscores ("H100-SXM" == "h100 sxm")."""
    return re.sub(r"[\s_\-]+", "", name).lower()


@dataclass(frozen=True, slots=True)
class GpuMatch:
    """The reference entries a GPU name may mean. Figures are `None` unless every candidate agrees."""

    name: str
    candidates: tuple[GpuSpec, ...]
    by_family: bool = False  # the name is a family ("H100"), not a variant's id or alias

    def _agreed(self, attribute: str) -> float | str | None:
        values = {getattr(spec, attribute) for spec in self.candidates}
        return values.pop() if len(values) == 1 else None

    @property
    def exact(self) -> GpuSpec | None:
        return self.candidates[0] if len(self.candidates) == 1 else None

    @property
    def memory_gb(self) -> float | None:
        value = self._agreed("memory_gb")
        return float(value) if isinstance(value, int | float) else None

    @property
    def bf16_dense_tflops(self) -> float | None:
        value = self._agreed("bf16_dense_tflops")
        return float(value) if isinstance(value, int | float) else None

    @property
    def intra_node_kind(self) -> str | None:
        value = self._agreed("intra_node_kind")
        return value if isinstance(value, str) else None

    @property
    def interconnect_gbytes_s_bidir(self) -> float | None:
        value = self._agreed("interconnect_gbytes_s_bidir")
        return float(value) if isinstance(value, int | float) else None

    def describe(self) -> str:
        if self.exact is not None:
            return self.exact.id
        return f"{self.name} (one of: {', '.join(spec.id for spec in self.candidates)})"


class GpuReference:
    """The loaded GPU reference table."""

    def __init__(self, specs: Sequence[GpuSpec]) -> None:
        self.specs: tuple[GpuSpec, ...] = tuple(specs)
        self._exact: dict[str, GpuSpec] = {}
        self._family: dict[str, list[GpuSpec]] = {}
        for spec in self.specs:
            for name in (spec.id, *spec.aliases):
                self._exact[normalise_gpu_name(name)] = spec
            for family in spec.families:
                members = self._family.setdefault(normalise_gpu_name(family), [])
                if spec not in members:
                    members.append(spec)

    def __iter__(self) -> Iterator[GpuSpec]:
        return iter(self.specs)

    def names(self) -> list[str]:
        """Every id and family name, for error messages."""
        families = {family for spec in self.specs for family in spec.families}
        return sorted({spec.id for spec in self.specs} | families)

    def get(self, name: str, memory_gb: float | None = None) -> GpuMatch | None:
        """The entries `name` may mean (narrowed by per-GPU memory when given), or `None` if unknown."""
        key = normalise_gpu_name(name)
        by_family = False
        if key in self._exact:
            candidates = [self._exact[key]]
        elif key in self._family:
            candidates, by_family = list(self._family[key]), True
        else:
            return None
        if memory_gb is not None and len(candidates) > 1:
            near = [spec for spec in candidates if abs(spec.memory_gb - memory_gb) <= 0.1 * spec.memory_gb]
            candidates = near or candidates
        return GpuMatch(name, tuple(candidates), by_family)

    def resolve(self, name: str, memory_gb: float | None = None) -> GpuMatch:
        """Like `get`, but an unknown name raises `UnknownGpuError` listing the names we know."""
        match = self.get(name, memory_gb)
        if match is None:
            raise UnknownGpuError(
                _("unknown GPU model {name!r}").format(name=name),
                field="gpu",
                expected=_("one of {names} (or leave `gpu` out if the source does not say)").format(
                    names=", ".join(self.names())
                ),
            )
        return match


def load_gpu_reference(path: Path = GPU_REFERENCE_PATH) -> GpuReference:
    """Read and validate a GPU reference file; the first problem raises (file, line, field)."""
    text = _toml.read_text(path)
    data = _toml.parse(text, path)
    try:
        return GpuReference(_GpuFile.model_validate(data).gpu)
    except ValidationError as exc:
        raise _toml.validation_errors(exc, path, data, _toml.LineFinder(text), _GpuFile)[0] from exc


@cache
def default_gpu_reference() -> GpuReference:
    """The bundled GPU reference (read once)."""
    return load_gpu_reference()
