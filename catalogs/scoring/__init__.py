"""Score and rank offerings against the checklist, explainably.

`rank_offerings(needs, catalogs, link_summaries)` is the one call: it pairs every offering with each region
it is offered in (a *candidate*), sizes the job on the offering's GPU, judges every checklist item — gates
pass/fail/unknown with a reason, weighted criteria a score in 0..1 or unknown with a reason and the fact's
source — and ranks: passing candidates by their worst case (the normalised weighted sum with every unknown
at 0, `score_min`; `order="total"` ranks by the total, TOPSIS by its closeness), then those that fail a gate.
Every entry carries its `score_min`, `score_max` and `coverage`, whether its place is decided, and what to
ask next. A sensitivity check re-ranks with each weight moved ±20 % and says whether the first place
survives the unknowns. A criterion resting on a fact an acceptance check contradicted counts 0.

One path for every number: the ranking judges each candidate once, numbers only, into a `ScoreTable`; an
entry's judgements (built when someone reads them) show the table's numbers, with the reasons from the same
judging functions. So every entry's `total` is the weighted sum of its own judgements' counted scores.

Pure and deterministic: same inputs, same output (ties break on provider, offering and region ids).

Where things are:
    ranking.py        `rank_offerings`: candidates → facts → table → order, margins, sensitivity, notes
    candidates.py     `Candidate` (an offering in a region) and the `CandidateFacts` derived once for each
    gates.py          the gates: memory fits (and the offload), enough GPUs, budget
    criteria/         the weighted criteria, grouped as the checklist groups them (compute, storage,
                      operations, line, service, price), and the registry by checklist id
    scaling.py        relative scores (price), the unknown score, node-shape scaling: raw value → counted
    table.py          `ScoreTable`: every candidate judged, numbers only (the one path), with each
                      criterion's worst and best case
    bounds.py         score_min/score_max/coverage read from the table: the order, decided places, ask next
    standing.py       which facts each criterion rests on; contradicted facts count 0; verified facts
    methods.py        the ranking methods: weighted sum and TOPSIS (`RankingMethod`)
    sensitivity.py    ±20 % on each weight: does the first place change?
    explanation.py    an entry's judgements (reasons) and its rank in plain words
    results.py        `Ranking`, `RankedOffering`
    judgement.py      `Judgement` and the shapes every judging function returns
"""

from __future__ import annotations

from catalogs.scoring.bounds import RANK_ORDERS, RankOrder, Swing
from catalogs.scoring.candidates import Candidate, CandidateFacts, candidates
from catalogs.scoring.criteria import check_checklist
from catalogs.scoring.criteria.line import evidence_confidence, line_claim_score, line_period_score
from catalogs.scoring.judgement import Judgement
from catalogs.scoring.methods import RANKING_METHODS, RankingMethod, topsis, weighted_sums
from catalogs.scoring.ranking import rank_offerings
from catalogs.scoring.results import RankedOffering, Ranking
from catalogs.scoring.scaling import relative_score
from catalogs.scoring.sensitivity import Sensitivity, WeightChange

__all__ = [
    "RANKING_METHODS",
    "RANK_ORDERS",
    "Candidate",
    "CandidateFacts",
    "Judgement",
    "RankOrder",
    "RankedOffering",
    "Ranking",
    "RankingMethod",
    "Sensitivity",
    "Swing",
    "WeightChange",
    "candidates",
    "check_checklist",
    "evidence_confidence",
    "line_claim_score",
    "line_period_score",
    "rank_offerings",
    "relative_score",
    "topsis",
    "weighted_sums",
]
