"""Score and rank offerings against the checklist, explainably.

`rank_offerings(needs, catalogs, link_summaries)` is the one call: it pairs every offering with each region
it is offered in (a *candidate*), sizes the job on the offering's GPU, judges every checklist item — gates
pass/fail/unknown with a reason, weighted criteria a score in 0..1 or unknown with a reason and the fact's
source — and ranks: passing candidates by their worst case (the normalised weighted sum with every unknown
at 0, `score_min`; `order="total"` ranks by the total, TOPSIS by its closeness), then those that fail a gate.
Every entry carries its `score_min`, `score_max` and `coverage`, the figure that orders it (`ordered_by`,
`rating`), whether its place is decided (against every entry below it, whatever the unknowns and with any one
weight moved ±20 %; else who could overtake it), what to ask next, and how many more peak evenings would
settle its line (`peak_evenings_needed`). A sensitivity check re-ranks with each weight moved ±20 % and says
whether the first place survives the unknowns. A criterion resting on a fact an acceptance check
contradicted counts 0.

Every criterion is scored on a fixed scale (the checklist's params, the needs profile, physical and
published references: prices against a reference price, line quality against fixed RTT/loss/jitter
thresholds), never relative to the candidates loaded: a candidate's score and bounds are the same alone,
among three, or among every bundled offering; only its rank (and TOPSIS's closeness) depend on the others.
Every sentence names criteria by their titles in the current language; the JSON keeps the ids.

One path for every number: the ranking judges each candidate once, numbers only, into a `ScoreTable`; an
entry's judgements (built when someone reads them) show the table's numbers, with the reasons from the same
judging functions. So every entry's `total` is the weighted sum of its own judgements' counted scores.

Pure and deterministic: same inputs, same output (ties break on provider, offering and region ids).

Where things are:
    ranking.py        `rank_offerings`: candidates → facts → table → order, margins, sensitivity, notes
    candidates.py     `Candidate` (an offering in a region) and the `CandidateFacts` derived once for each
    gates.py          the gates: memory fits (and the offload), enough GPUs, budget
    criteria/         the weighted criteria, grouped as the checklist groups them (compute, storage,
                      operations, line, service, price), the registry by checklist id, and trust.py: how
                      far measured line figures are trusted (peak evenings, minutes measured)
    scaling.py        the unknown score, node-shape scaling: a criterion's score → what it counts
    table.py          `ScoreTable`: every candidate judged, numbers only (the one path), with each
                      criterion's worst and best case
    bounds.py         score_min/score_max/coverage read from the table: the order, decided places (and who
                      could still overtake), ask next
    standing.py       which facts each criterion rests on; contradicted facts count 0; verified facts
    methods.py        the ranking methods: weighted sum and TOPSIS (`RankingMethod`)
    sensitivity.py    ±20 % on each weight: does the first place change?
    explanation.py    an entry's judgements (reasons) and its rank in plain words
    results.py        `Ranking`, `RankedOffering`
    judgement.py      `Judgement` and the shapes every judging function returns
"""

from __future__ import annotations

from catalogs.scoring.bounds import RANK_ORDERS, RankOrder, Swing, order_title
from catalogs.scoring.candidates import Candidate, CandidateFacts, candidates
from catalogs.scoring.criteria import check_checklist
from catalogs.scoring.criteria.line import line_claim_score, line_period_score
from catalogs.scoring.criteria.price import reference_score
from catalogs.scoring.criteria.trust import evidence_confidence, peak_evenings_needed
from catalogs.scoring.judgement import Judgement
from catalogs.scoring.methods import RANKING_METHODS, RankingMethod, method_title, topsis, weighted_sums
from catalogs.scoring.ranking import rank_offerings
from catalogs.scoring.results import RankedOffering, Ranking
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
    "method_title",
    "order_title",
    "peak_evenings_needed",
    "rank_offerings",
    "reference_score",
    "topsis",
    "weighted_sums",
]
