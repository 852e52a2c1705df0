"""What a report shows, as plain data gathered once by the use-case (`desktop.usecases.report`) and drawn by
the renderers here: the evaluation, its ranking, its evidence table, and per candidate and office the
analysis' own frames (`probes.analysis.hour_of_day`, `day_hour_matrix`) and the measured line
(`catalogs.link_quality.LinkSummary`). Nothing here reads a store or computes a figure the analysis or the
scoring computes: the renderers only draw and word what they are given."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pandas as pd

from catalogs.evaluation.model import Candidate, Evaluation
from catalogs.link_quality import LinkSummary
from catalogs.scoring import RankedOffering
from desktop.usecases.evaluation_score import EvaluationRanking
from desktop.usecases.evidence import CandidateEvidence, EvidenceTable

REPORT_FORMAT_VERSION = 1  # the report's own version (in the method appendix and the evidence manifest)


@dataclass(frozen=True, slots=True)
class Hop:
    """One hop of a stored trace: its TTL, the addresses that answered, and the networks they belong to (the
    route table's words, e.g. `CN2 (AS4809, 59.43.0.0/16)`; empty where none is listed)."""

    ttl: int
    addresses: tuple[str, ...]
    networks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Route:
    """The last stored trace from an office to a candidate, and the route check over all its traces."""

    traced_at_us: int
    target: str
    measured_class: str | None
    hops: tuple[Hop, ...]


@dataclass(frozen=True)
class OfficeLine:
    """One office's line to one candidate: its summary (None: not measured from there), the hour-of-day
    profile (`hour_of_day` rows of the candidate's region), the peak evenings' day × hour cells
    (`day_hour_matrix` rows inside the peak hours) and the last traced route."""

    office: str
    carrier: str | None
    summary: LinkSummary | None
    profile: pd.DataFrame
    evenings: pd.DataFrame
    route: Route | None = None


@dataclass(frozen=True)
class Fact:
    """A fact the vendor answered or an acceptance check read: what, the value, and where it comes from."""

    key: str
    value: str
    source: str
    as_of: str | None = None


@dataclass(frozen=True)
class CandidateReport:
    candidate: Candidate
    evidence: CandidateEvidence
    entry: RankedOffering | None  # its best entry in the (first) ranking; None: not ranked (no offering)
    lines: tuple[OfficeLine, ...]
    claimed_line: str | None
    acceptance: tuple[Mapping[str, Any], ...] = ()
    answers: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class TransferSizes:
    """What the job moves over the line (GB, from `catalogs.sizing`): the dataset (None: the needs do not
    say), a checkpoint (weights and optimizer states), the weights alone."""

    dataset_gb: float | None
    checkpoint_gb: float | None
    weights_gb: float | None


@dataclass(frozen=True)
class ReportData:
    evaluation: Evaluation
    ranking: EvaluationRanking
    evidence: EvidenceTable
    candidates: tuple[CandidateReport, ...]
    sizes: TransferSizes
    made_at: datetime
    store: str
    since_us: int | None
    until_us: int | None
    tz: str  # the hour-of-day profiles' time zone (the first peak window's)
    peak_hours: tuple[int, ...]  # local hours (in `tz`) the peak windows touch: shaded in the charts
    backends: Sequence[tuple[str, int]] = ()  # `Store.timed_by`: results per probe backend
    commands: Sequence[tuple[str, str]] = field(default_factory=list)  # (what it reproduces, command)
    language: str = "en"

    @property
    def measured(self) -> bool:
        return any(line.summary is not None for c in self.candidates for line in c.lines)
