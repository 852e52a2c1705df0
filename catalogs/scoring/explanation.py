"""Explanations, built on demand for the entries someone reads: every checklist item's judgement (the
numbers from the ranking's `ScoreTable`, the reasons and sources from the same judging functions called with
`explain=True`), and a rank in plain words."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from catalogs.i18n import _, clauses, items, sentences
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Judgement, Source
from catalogs.scoring.scaling import scaling_reason
from catalogs.scoring.standing import CRITERION_FACTS, StandingFact, candidate_facts
from catalogs.scoring.table import ScoreTable

if TYPE_CHECKING:
    from catalogs.scoring.results import RankedOffering


def judgements(facts: CandidateFacts, table: ScoreTable, row: int) -> tuple[Judgement, ...]:
    """Every checklist item for the candidate in `row` of `table`, gates first, each with its reason and
    source: the table's judging functions called again with `explain=True` for the words, the statuses,
    scores and counted values read from the table (the explanation computes no number)."""
    judged: list[Judgement] = []
    for (gate, judge_gate, gate_params), status in zip(table.gate_functions, table.gates[row], strict=True):
        _status, reason, source = judge_gate(facts, gate_params, True)
        judged.append(Judgement(gate, "gate", reason, status=status, source=source))
    unknown = table.unknown_score
    own_scores = table.unscaled[row].tolist()
    counted = table.counted[row].tolist()
    worst = table.counted_min[row].tolist()
    best = table.counted_max[row].tolist()
    weights = table.weights.tolist()
    for j, (criterion, judge, params) in enumerate(table.criterion_functions):
        _score, reason, source = judge(facts, params, True)
        if (row, j) in table.contradicted:
            reason, source = _contradicted(facts, criterion, reason, source)
        own = None if own_scores[j] != own_scores[j] else own_scores[j]  # NaN: unknown
        count = counted[j]
        if j in table.scaled_columns and abs(count - (unknown if own is None else own)) > 1e-12:
            why = scaling_reason(facts, criterion, table.checklist)
            if own is None:
                reason = _("{reason}; counted {count:.2f}, not {unknown:g}: {why}").format(
                    reason=reason, count=count, unknown=unknown, why=why
                )
            else:
                reason = _("{reason}; counted {count:.2f} of {own:.2f}: {why}").format(
                    reason=reason, count=count, own=own, why=why
                )
        judged.append(
            Judgement(
                criterion,
                "weighted",
                reason,
                score=None if own is None else count,
                counted=count,
                weight=weights[j],
                source=source,
                counted_min=worst[j],
                counted_max=best[j],
            )
        )
    return tuple(judged)


def _contradicted(facts: CandidateFacts, criterion: str, reason: str, source: Source) -> tuple[str, Source]:
    """The reason and source of a criterion resting on a fact an acceptance check contradicted."""
    keys = CRITERION_FACTS.get(criterion, ())
    candidate = facts.candidate
    for fact in candidate_facts(candidate.offering, candidate.catalog.service, candidate.region):
        if fact.key in keys and fact.provenance.standing == "contradicted":
            text = _("{reason}; contradicted by an acceptance check, so counted 0: {source}").format(
                reason=reason, source=fact.provenance.source or ""
            )
            return text, fact.provenance
    return reason, source


def _headline(entry: RankedOffering) -> str:
    """ "#1 aws/p5.48xlarge in us-east-1 — 8 × H100 SXM: score 0.712 (between … known)."."""
    bounds = _(
        "between {low:.3f} and {high:.3f} whatever the unknowns are, {coverage:.0%} of the weight known"
    ).format(low=entry.score_min, high=entry.score_max, coverage=entry.coverage)
    values = {
        "rank": entry.rank,
        "offering": entry.label,
        "per_node": entry.gpus_per_node or "?",
        "gpu": entry.gpu,
        "score": entry.total,
        "topsis": entry.topsis,
        "bounds": bounds,
    }
    if entry.topsis is not None:
        if entry.gpu:
            text = _(
                "#{rank} {offering} — {per_node} × {gpu}: score {score:.3f}, TOPSIS {topsis:.3f} ({bounds})."
            )
        else:
            text = _("#{rank} {offering}: score {score:.3f}, TOPSIS {topsis:.3f} ({bounds}).")
    elif entry.gpu:
        text = _("#{rank} {offering} — {per_node} × {gpu}: score {score:.3f} ({bounds}).")
    else:
        text = _("#{rank} {offering}: score {score:.3f} ({bounds}).")
    return text.format(**values)


def _unknown_text(entry: RankedOffering, unknown: list[Judgement], total_weight: float) -> str:
    """The unknown criteria, their share of the weight and what each counts as."""
    share = sum(j.weight for j in unknown) / total_weight
    values = [j.counted or 0.0 for j in unknown]
    how_often = Counter(j.counted for j in unknown)
    usual = max(values, key=lambda c: how_often[c])  # the most common counted value (first of a tie)
    named = []
    for j in unknown:
        if j.counted == usual:
            named.append(j.criterion)
        elif entry.nodes:
            named.append(
                _("{criterion} ({counted:.2f}, {nodes} nodes)").format(
                    criterion=j.criterion, counted=j.counted or 0.0, nodes=entry.nodes
                )
            )
        else:
            named.append(
                _("{criterion} ({counted:.2f})").format(criterion=j.criterion, counted=j.counted or 0.0)
            )
    return _(
        "Unknown ({share:.0%} of the weight, counted as {usual:.2f} each unless said): {criteria}."
    ).format(share=share, usual=usual, criteria=items(named))


def _standing_fact(fact: StandingFact) -> str:
    values = {
        "fact": fact.key,
        "value": _value(fact.value),
        "source": fact.provenance.describe(),
    }
    match fact.provenance.standing:
        case "verified":
            return _("Verified fact: {fact} = {value} ({source}).").format(**values)
        case "contradicted":
            return _("Contradicted fact: {fact} = {value} ({source}).").format(**values)
        case _standing:
            return _("Claimed fact: {fact} = {value} ({source}).").format(**values)


def explain(entry: RankedOffering) -> str:
    """The rank in plain words: gates, strongest and weakest points, unknowns, and what puts it ahead of the
    next one."""
    all_judged = entry.judgements
    weighted = [j for j in all_judged if j.kind == "weighted"]
    total_weight = sum(j.weight for j in weighted) or 1.0
    lines = [_headline(entry)]
    failed = entry.failed_gates
    if failed:
        gates = clauses(_gate_text(g) for g in failed)
        lines.append(_("Fails: {gates}.").format(gates=gates))
    else:
        unchecked = [g for g in all_judged if g.kind == "gate" and g.status == "unknown"]
        if unchecked:
            gates = clauses(_gate_text(g) for g in unchecked)
            lines.append(_("Passes every gate it could check; unchecked: {gates}.").format(gates=gates))
        else:
            lines.append(_("Passes every gate."))
    known = [j for j in weighted if j.score is not None and j.weight > 0]
    good = (j for j in known if (j.score or 0.0) >= 0.5)
    strong = sorted(good, key=lambda j: (-(j.weight * (j.score or 0.0)), j.criterion))[:3]
    if strong:
        points = clauses(_point_text(j) for j in strong)
        lines.append(_("Strongest: {criteria}.").format(criteria=points))
    weak = sorted(
        (j for j in known if (j.score or 0.0) < 0.5), key=lambda j: ((j.score or 0.0) - 1) * j.weight
    )[:3]
    if weak:
        points = clauses(_point_text(j) for j in weak)
        lines.append(_("Weakest: {criteria}.").format(criteria=points))
    unknown = [j for j in weighted if j.score is None]
    if unknown:
        lines.append(_unknown_text(entry, unknown, total_weight))
    if entry.next_rank is not None:
        if entry.margins:
            ahead = items(
                _("{criterion} (+{difference:.2g})").format(criterion=name, difference=diff)
                for name, diff in entry.margins
            )
            lines.append(_("Ahead of #{rank} on: {criteria}.").format(rank=entry.next_rank, criteria=ahead))
        else:
            lines.append(
                _("Level with #{rank} on every criterion; ordered by provider, offering, region.").format(
                    rank=entry.next_rank
                )
            )
        lines.append(place_text(entry))
    if entry.ask_next:
        asked = items(
            _("{criterion} (±{swing:.2f})").format(criterion=s.criterion, swing=s.swing)
            for s in entry.ask_next
        )
        lines.append(_("Ask next: {criteria}.").format(criteria=asked))
    lines.extend(_standing_fact(fact) for fact in entry.settled_facts)
    checks = entry.acceptance_checks
    if checks:
        counts = Counter(str(c.get("verdict")) for c in checks)
        hosts = sorted(
            {_("{host} at {time}").format(host=c.get("host"), time=c.get("created_at")) for c in checks}
        )
        lines.append(
            _(
                "Acceptance checks: {confirmed} confirmed, {contradicted} contradicted, {unverified} unverified "
                "({hosts})."
            ).format(
                confirmed=counts["confirmed"],
                contradicted=counts["contradicted"],
                unverified=counts["unverified"],
                hosts=items(hosts),
            )
        )
        for check in checks:
            if check.get("verdict") == "contradicted":
                lines.append(
                    _("Contradicted: {fact} (claimed {claimed}, measured {measured}): {evidence}.").format(
                        fact=check.get("fact"),
                        claimed=check.get("claimed", "?"),
                        measured=check.get("measured", "?"),
                        evidence=check.get("evidence", ""),
                    )
                )
    return sentences(lines)


def _gate_text(gate: Judgement) -> str:
    return _("{criterion} ({reason})").format(criterion=gate.criterion, reason=gate.reason)


def _point_text(judged: Judgement) -> str:
    return _("{criterion} = {score:.2f} ({reason})").format(
        criterion=judged.criterion, score=judged.score, reason=judged.reason
    )


def _value(value: object) -> str:
    if isinstance(value, tuple | list):
        return items(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def place_text(entry: RankedOffering) -> str:
    """Whether the entry's place against the next is decided, and by which unknowns if not."""
    if entry.decided:
        return _("Place decided: its worst case is above #{rank}'s best case.").format(rank=entry.next_rank)
    if not entry.deciding:
        return _("Place not decided: #{rank} is level with it.").format(rank=entry.next_rank)
    parts = []
    for swing in entry.deciding:
        if swing.whose == "this":
            parts.append(
                _("its own {criterion} (−{swing:.2f})").format(criterion=swing.criterion, swing=swing.swing)
            )
        else:
            parts.append(
                _("#{rank}'s {criterion} (+{swing:.2f})").format(
                    rank=entry.next_rank, criterion=swing.criterion, swing=swing.swing
                )
            )
    return _("Place not decided: the unknowns that decide it are {unknowns}.").format(unknowns=items(parts))
