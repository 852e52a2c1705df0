"""The checklist (`catalogs/checklist.toml`): the documents' items, each a gate or a weighted criterion with
a default weight and the parameters of its scoring function. Read with `load_checklist`."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from catalogs import _toml
from catalogs.errors import ChecklistError, UnknownCriterionError
from catalogs.i18n import _
from probes.files.filemodel import FileModel

CHECKLIST_PATH = Path(__file__).with_name("checklist.toml")


class Criterion(FileModel):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    kind: Literal["gate", "weighted"]
    weight: float = Field(default=0.0, ge=0, le=1000)
    title: str
    what: str
    documents: str
    params: dict[str, float] = Field(default_factory=dict)

    @property
    def shown_title(self) -> str:
        """The title in the current language (the bundled checklist's titles are `catalogs` messages; a
        title of the user's own checklist reads as written)."""
        return _(self.title)

    @property
    def shown_what(self) -> str:
        """What the criterion asks, in the current language (like `shown_title`)."""
        return _(self.what)

    @model_validator(mode="after")
    def _weight_fits_kind(self) -> Criterion:
        if self.kind == "weighted" and self.weight <= 0:
            raise ValueError(_("weighted criterion {id!r} needs a weight above 0").format(id=self.id))
        if self.kind == "gate" and self.weight:
            raise ValueError(_("gate {id!r} takes no weight").format(id=self.id))
        return self


class ScaleRow(FileModel):
    min_params_b: float = Field(ge=0)
    max_params_b: float = Field(gt=0)
    gpus: str
    min_gpus: int | None = Field(default=None, ge=1)  # the table's GPU range as numbers (e.g. 4 and 8)
    max_gpus: int | None = Field(default=None, ge=1)
    intra_node: str
    min_gbit_s: float = Field(gt=0)
    preferred_gbit_s: float = Field(gt=0)
    documents: str


class Evidence(FileModel):
    full_confidence_hours: float = Field(default=24, gt=0)
    full_confidence_samples: float = Field(default=1000, gt=0)
    full_confidence_evenings: float = Field(default=7, gt=0)  # a peak figure: the evenings it rests on
    # The peak samples an evening the schedule measures from now on (an evaluation sets it from its plan:
    # its peak windows at its peak cadence); None: as many as were measured an evening so far.
    planned_peak_samples: float | None = Field(default=None, gt=0)


class MultiNode(FileModel):
    """How a plan that spans nodes weighs the fabric between them (see checklist.toml)."""

    criteria: tuple[str, ...] = ("inter_node_bandwidth", "inter_node_fabric", "rdma", "lossless_ethernet")
    full_node_gpus: int = Field(default=8, ge=1, le=72)


class Checklist(FileModel):
    format_version: Literal[1]
    unknown_score: float = Field(default=0.25, ge=0, le=1)
    evidence: Evidence = Evidence()
    multi_node: MultiNode = MultiNode()
    scale_table: tuple[ScaleRow, ...] = ()
    criterion: tuple[Criterion, ...]

    @model_validator(mode="after")
    def _unique_ids(self) -> Checklist:
        seen: set[str] = set()
        for item in self.criterion:
            if item.id in seen:
                raise ValueError(_("criterion id {id!r} appears twice").format(id=item.id))
            seen.add(item.id)
        return self

    @property
    def gates(self) -> tuple[Criterion, ...]:
        return tuple(c for c in self.criterion if c.kind == "gate")

    @property
    def weighted(self) -> tuple[Criterion, ...]:
        return tuple(c for c in self.criterion if c.kind == "weighted")

    def shown_title(self, criterion_id: str) -> str:
        """The item's title in the current language (`Criterion.shown_title`): how every human sentence names
        a criterion; an id the checklist lacks reads as itself."""
        for item in self.criterion:
            if item.id == criterion_id:
                return item.shown_title
        return criterion_id

    def get(self, criterion_id: str) -> Criterion:
        for item in self.criterion:
            if item.id == criterion_id:
                return item
        raise UnknownCriterionError(_("no checklist item {id!r}").format(id=criterion_id))

    def scale_row(self, params: float) -> ScaleRow | None:
        """The scale-table row for a model of `params` parameters (the first whose range holds it)."""
        billions = params / 1e9
        return next((r for r in self.scale_table if r.min_params_b <= billions <= r.max_params_b), None)


def parse_checklist_text(text: str, path: Path | None = None) -> Checklist:
    """Validate a checklist's TOML text; the first problem raises `ChecklistError` (file, line, field)."""
    raw = _toml.parse(text, path, ChecklistError)
    try:
        return Checklist.model_validate(raw)
    except ValidationError as exc:
        lines = _toml.LineFinder(text)
        raise _toml.validation_errors(exc, path, raw, lines, Checklist, ChecklistError)[0] from exc


def load_checklist(path: Path | None = None) -> Checklist:
    """Read a checklist file (default: the bundled one)."""
    if path is None:
        return default_checklist()
    return parse_checklist_text(_toml.read_text(path, ChecklistError, ChecklistError), path)


@cache
def default_checklist() -> Checklist:
    return load_checklist(CHECKLIST_PATH)
