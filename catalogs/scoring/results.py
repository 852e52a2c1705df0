"""What a ranking returns: the `Ranking`, one `RankedOffering` per candidate (its judgements and explanation
built on first use), JSON-ready through `as_dict`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from catalogs.errors import UnknownCriterionError
from catalogs.i18n import _, language_key
from catalogs.scoring.bounds import RankOrder, Swing, ask_next, deciding_unknowns
from catalogs.scoring.candidates import CandidateFacts, offering_label
from catalogs.scoring.criteria.compute import intra_node_kind
from catalogs.scoring.criteria.trust import peak_evenings_needed
from catalogs.scoring.explanation import explain, judgements
from catalogs.scoring.judgement import Judgement
from catalogs.scoring.methods import RankingMethod
from catalogs.scoring.sensitivity import Sensitivity
from catalogs.scoring.standing import StandingFact, settled_facts
from catalogs.scoring.table import ScoreTable


@dataclass(frozen=True)
class RankedOffering:
    """One candidate's place in the ranking. `total` is the weighted sum of its judgements' counted scores
    (whatever the method); `score_min` and `score_max` the same sums with every unknown at its worst and at
    its best, `coverage` the share of the weight that is known; `topsis` its TOPSIS closeness among the
    candidates that pass every gate (None unless ranked by TOPSIS, and for a candidate that fails a gate).
    `decided` says whether its place holds against every entry ranked below it, whatever the unknowns are and
    with any single weight moved ±20 % (None for the last of its group); otherwise `challenger_rank` is the
    entry that could still overtake it, `deciding` the unknowns that decide it (or `swayed_by` the weight
    move that would, when the unknowns alone cannot). `ask_next` lists its own unknowns whose answers could
    move it most."""

    rank: int
    provider: str
    provider_name: str
    offering: str
    offering_name: str | None
    region: str | None
    gpu: str | None
    gpus_per_node: int | None
    eligible: bool
    total: float
    topsis: float | None
    planned_gpus: int | None
    nodes: int | None
    price_gpu_hour: float | None  # as listed, in `currency`
    currency: str | None
    score_min: float = 0.0
    score_max: float = 1.0
    coverage: float = 0.0
    # against the next entry (same eligibility): its rank and the criteria that put this one ahead
    next_rank: int | None = None
    margins: tuple[tuple[str, float], ...] = ()
    decided: bool | None = None
    challenger_rank: int | None = None  # who could still overtake it (None: decided, or last of its group)
    swayed_by: tuple[str, float] | None = None  # (criterion, factor): a weight move that lets it overtake
    _facts: CandidateFacts | None = field(default=None, repr=False, compare=False)
    _table: ScoreTable | None = field(default=None, repr=False, compare=False)
    _row: int = field(default=0, repr=False, compare=False)
    # (language, judgements): built on first use, again when the language changes (their reasons are words)
    _judged: list[tuple[int, tuple[Judgement, ...]]] = field(default_factory=list, repr=False, compare=False)
    _challenger_row: int | None = field(default=None, repr=False, compare=False)
    _order: RankOrder = field(default="score-min", repr=False, compare=False)

    @property
    def deciding(self) -> tuple[Swing, ...]:
        """The unknowns that decide this place against the challenger (empty when decided, when only a weight
        move could reverse them, or for the last of its group); built on demand from the ranking's table."""
        if (
            self.decided is not False
            or self.swayed_by is not None
            or self._table is None
            or self._challenger_row is None
        ):
            return ()
        return deciding_unknowns(self._table, self._row, self._challenger_row, self._order)

    @property
    def ask_next(self) -> tuple[Swing, ...]:
        """This entry's unknowns whose answers could move it most (weight × swing), largest first."""
        return ask_next(self._table, self._row) if self._table is not None else ()

    @property
    def judgements(self) -> tuple[Judgement, ...]:
        """Every checklist item for this entry, gates first, each with its reason and source (built on
        first use: ranking itself only needs the numbers, and these are the ranking's numbers)."""
        if self._facts is None or self._table is None:
            return ()
        language = language_key()
        if not self._judged or self._judged[0][0] != language:
            self._judged[:] = [(language, judgements(self._facts, self._table, self._row))]
        return self._judged[0][1]

    @property
    def explanation(self) -> str:
        """This rank in plain words (built on demand: gates, strongest and weakest points, unknowns, and
        what puts it ahead of the next one)."""
        return explain(self)

    @property
    def label(self) -> str:
        return offering_label(self.provider, self.offering, self.region)

    @property
    def unknowns(self) -> tuple[str, ...]:
        return tuple(j.criterion for j in self.judgements if j.unknown)

    @property
    def failed_gates(self) -> tuple[Judgement, ...]:
        return tuple(j for j in self.judgements if j.kind == "gate" and j.status == "fail")

    @property
    def intra_node_kind(self) -> str | None:
        """How the node's GPUs are linked ("nvlink", "nvswitch", "pcie", "xgmi"), None when not stated."""
        found = intra_node_kind(self._facts) if self._facts is not None else None
        return found[0] if found else None

    @property
    def ordered_by(self) -> Literal["score-min", "total", "topsis"]:
        """What orders this entry in the ranking: its score at worst (`score_min`), its score (`total`) or its
        TOPSIS closeness; the faces show this figure first, so the order and the figure shown agree."""
        return "topsis" if self.topsis is not None else self._order

    @property
    def rating(self) -> float:
        """The figure `ordered_by` names: what the ranking orders this entry by."""
        if self.topsis is not None:
            return self.topsis
        return self.score_min if self._order == "score-min" else self.total

    def title(self, criterion: str) -> str:
        """A checklist item's title in the current language: how every sentence names a criterion."""
        return self._table.checklist.shown_title(criterion) if self._table is not None else criterion

    @property
    def peak_evenings(self) -> int | None:
        """On how many peak evenings the line to this candidate's region was measured (None: not measured at
        peak, or not counted by the summary)."""
        link = self._facts.link if self._facts is not None else None
        return link.peak.evenings if link is not None and link.peak is not None else None

    @property
    def peak_evenings_needed(self) -> int | None:
        """How many more peak evenings until the line's peak figures are fully trusted (0: settled; None:
        nothing measured, or evenings not counted): what the evidence table prints beside the line."""
        if self._facts is None:
            return None
        return peak_evenings_needed(self._facts.link, self._facts.checklist.evidence)

    @property
    def price_is_lower_bound(self) -> bool:
        """The price covers the GPUs only (the host is billed on top): a lower bound, not ranked on price."""
        return self._facts is not None and self._facts.lower_bound_gpu_hour is not None

    @property
    def price_compared(self) -> float | None:
        """The price per GPU-hour as ranked, in the needs profile's budget currency (None: not compared)."""
        return self._facts.compare_gpu_hour if self._facts is not None else None

    @property
    def settled_facts(self) -> list[StandingFact]:
        """The facts an acceptance report settled for this candidate: verified (the measured value, used by
        scoring) and contradicted (counted 0), each with its provenance."""
        if self._facts is None:
            return []
        candidate = self._facts.candidate
        return settled_facts(candidate.offering, candidate.catalog.service, candidate.region)

    @property
    def acceptance_checks(self) -> tuple[dict[str, Any], ...]:
        """The acceptance checks imported for this offering (in this region, or in none named)."""
        if self._facts is None:
            return ()
        candidate = self._facts.candidate
        region = candidate.region.id if candidate.region else None
        return tuple(
            c
            for c in candidate.catalog.checks
            if c.get("offering") == candidate.offering.id and c.get("region") in (None, region)
        )

    def judgement(self, criterion: str) -> Judgement:
        """The judgement of one checklist item; `UnknownCriterionError` when the checklist has no such id."""
        found = next((j for j in self.judgements if j.criterion == criterion), None)
        if found is None:
            raise UnknownCriterionError(
                _("no checklist item {criterion!r} in the judgements of {offering}").format(
                    criterion=criterion, offering=self.label
                )
            )
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "provider": self.provider,
            "provider_name": self.provider_name,
            "offering": self.offering,
            "offering_name": self.offering_name,
            "region": self.region,
            "gpu": self.gpu,
            "gpus_per_node": self.gpus_per_node,
            "eligible": self.eligible,
            "total": self.total,
            "score_min": self.score_min,
            "score_max": self.score_max,
            "coverage": self.coverage,
            "topsis": self.topsis,
            "planned_gpus": self.planned_gpus,
            "nodes": self.nodes,
            "price_gpu_hour": self.price_gpu_hour,
            "currency": self.currency,
            "price_is_lower_bound": self.price_is_lower_bound,
            "price_compared": self.price_compared,
            "peak_evenings": self.peak_evenings,
            "peak_evenings_needed": self.peak_evenings_needed,
            "ordered_by": self.ordered_by,
            "decided": self.decided,
            "challenger_rank": self.challenger_rank,
            "swayed_by": None
            if self.swayed_by is None
            else {"criterion": self.swayed_by[0], "factor": self.swayed_by[1]},
            "deciding_unknowns": [s.as_dict() for s in self.deciding],
            "ask_next": [s.as_dict() for s in self.ask_next],
            "verified_facts": [f.as_dict() for f in self.settled_facts],
            "acceptance_checks": list(self.acceptance_checks),
            "unknowns": list(self.unknowns),
            "failed_gates": [j.criterion for j in self.failed_gates],
            "judgements": [j.as_dict() for j in self.judgements],
            "explanation": self.explanation,
        }


@dataclass(frozen=True)
class Ranking:
    entries: tuple[RankedOffering, ...]
    method: RankingMethod
    weights: Mapping[str, float]
    sensitivity: Sensitivity
    notes: tuple[str, ...] = field(default=())
    order: RankOrder = "score-min"

    @property
    def ordered_by(self) -> Literal["score-min", "total", "topsis"]:
        """What orders the candidates that pass every gate (`RankedOffering.ordered_by`)."""
        return "topsis" if self.method == "topsis" else self.order

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "order": self.order,
            "ordered_by": self.ordered_by,
            "weights": dict(self.weights),
            "sensitivity": self.sensitivity.as_dict(),
            "notes": list(self.notes),
            "entries": [e.as_dict() for e in self.entries],
        }
