"""Ranking offerings for a training-needs profile with the measured line quality (`linkvet score`, the Needs
& score screen's scorecard): `catalogs.scoring.rank_offerings`, the one scoring path."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from catalogs.checklist import Checklist
from catalogs.link_quality import LinkSummary
from catalogs.loader import CatalogSet
from catalogs.needs import NeedsProfile
from catalogs.scoring import Ranking, RankingMethod, RankOrder, rank_offerings


@dataclass(frozen=True)
class ScoreRequest:
    """What to rank for: the needs, the weights that override the checklist's (by criterion id), the
    ranking method, the measured lines (`desktop.usecases.links`), the checklist (default: bundled) and
    the order (by the worst case, or by the total)."""

    needs: NeedsProfile
    weights: Mapping[str, float] = field(default_factory=dict)
    method: RankingMethod = "weighted-sum"
    summaries: Sequence[LinkSummary] = ()
    checklist: Checklist | None = None
    order: RankOrder = "score-min"  # unknowns at their worst (`catalogs.scoring.bounds`); "total": counted


def rank(catalogs: CatalogSet, request: ScoreRequest) -> Ranking:
    """Every offering of `catalogs` (in each of its regions) ranked for `request`."""
    return rank_offerings(
        request.needs,
        catalogs,
        request.summaries,
        checklist=request.checklist,
        weights=dict(request.weights),
        method=request.method,
        order=request.order,
    )
