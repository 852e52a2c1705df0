"""Explanations, built on demand for the entries someone reads: every checklist item's judgement (the
numbers from the ranking's `ScoreTable`, the reasons and sources from the same judging functions called with
`explain=True`), and a rank in plain words."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from catalogs.i18n import _
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Judgement, Source
from catalogs.scoring.scaling import scaling_reason
from catalogs.scoring.standing import CRITERION_FACTS, candidate_facts
from catalogs.scoring.table import ScoreTable

if TYPE_CHECKING:
    from catalogs.scoring.results import RankedOffering


def judgements(facts: CandidateFacts, table: ScoreTable, row: int) -> tuple[Judgement, ...]:
    """Every checklist item for the candidate in `row` of `table`, gates first, each with its reason and
    source: the table's judging functions called again with `explain=True` for the words, the statuses,
    scores and counted values read from the table (the explanation computes no number)."""
    judged: list[Judgement] = []
    for (gate, judge_gate, gate_params), status in zip(table.gate_functions, table.gates[row], strict=True):
        _, reason, source = judge_gate(facts, gate_params, True)
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
                reason += f"; counted {count:.2f}, not {unknown:g}: {why}"
            else:
                reason += f"; counted {count:.2f} of {own:.2f}: {why}"
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


def explain(entry: RankedOffering) -> str:
    """The rank in plain words: gates, strongest and weakest points, unknowns, and what puts it ahead of the
    next one."""
    all_judged = entry.judgements
    weighted = [j for j in all_judged if j.kind == "weighted"]
    total_weight = sum(j.weight for j in weighted) or 1.0
    head = f"#{entry.rank} {entry.label}"
    if entry.gpu:
        head += f" — {entry.gpus_per_node or '?'} × {entry.gpu}"
    score = f"score {entry.total:.3f}" + (f", TOPSIS {entry.topsis:.3f}" if entry.topsis is not None else "")
    bounds = _(
        "between {low:.3f} and {high:.3f} whatever the unknowns are, {coverage:.0%} of the weight known"
    ).format(low=entry.score_min, high=entry.score_max, coverage=entry.coverage)
    lines = [f"{head}: {score} ({bounds})."]
    failed = entry.failed_gates
    if failed:
        lines.append("Fails: " + "; ".join(f"{g.criterion} ({g.reason})" for g in failed) + ".")
    else:
        unchecked = [g for g in all_judged if g.kind == "gate" and g.status == "unknown"]
        text = "Passes every gate"
        if unchecked:
            text += " it could check; unchecked: " + "; ".join(
                f"{g.criterion} ({g.reason})" for g in unchecked
            )
        lines.append(text + ".")
    known = [j for j in weighted if j.score is not None and j.weight > 0]
    good = (j for j in known if (j.score or 0.0) >= 0.5)
    strong = sorted(good, key=lambda j: (-(j.weight * (j.score or 0.0)), j.criterion))[:3]
    if strong:
        lines.append(
            "Strongest: " + "; ".join(f"{j.criterion} = {j.score:.2f} ({j.reason})" for j in strong) + "."
        )
    weak = sorted(
        (j for j in known if (j.score or 0.0) < 0.5), key=lambda j: ((j.score or 0.0) - 1) * j.weight
    )[:3]
    if weak:
        lines.append(
            "Weakest: " + "; ".join(f"{j.criterion} = {j.score:.2f} ({j.reason})" for j in weak) + "."
        )
    unknown = [j for j in weighted if j.score is None]
    if unknown:
        share = sum(j.weight for j in unknown) / total_weight
        values = [j.counted or 0.0 for j in unknown]
        how_often = Counter(j.counted for j in unknown)
        usual = max(values, key=lambda c: how_often[c])  # the most common counted value (first of a tie)
        lines.append(
            f"Unknown ({share:.0%} of the weight, counted as {usual:.2f} each unless said): "
            + ", ".join(
                j.criterion
                + (
                    ""
                    if j.counted == usual
                    else f" ({j.counted or 0.0:.2f}" + (f", {entry.nodes} nodes)" if entry.nodes else ")")
                )
                for j in unknown
            )
            + "."
        )
    if entry.next_rank is not None:
        if entry.margins:
            ahead = ", ".join(f"{name} (+{diff:.2g})" for name, diff in entry.margins)
            lines.append(f"Ahead of #{entry.next_rank} on: {ahead}.")
        else:
            lines.append(
                f"Level with #{entry.next_rank} on every criterion; ordered by provider, offering, region."
            )
        lines.append(place_text(entry))
    if entry.ask_next:
        asked = ", ".join(f"{s.criterion} (±{s.swing:.2f})" for s in entry.ask_next)
        lines.append(_("Ask next: {criteria}.").format(criteria=asked))
    for fact in entry.settled_facts:
        lines.append(
            _("{standing} fact: {fact} = {value} ({source}).").format(
                standing=fact.provenance.standing.capitalize(),
                fact=fact.key,
                value=_value(fact.value),
                source=fact.provenance.describe(),
            )
        )
    checks = entry.acceptance_checks
    if checks:
        counts = Counter(str(c.get("verdict")) for c in checks)
        lines.append(
            _(
                "Acceptance checks: {confirmed} confirmed, {contradicted} contradicted, {unverified} unverified "
                "({hosts})."
            ).format(
                confirmed=counts["confirmed"],
                contradicted=counts["contradicted"],
                unverified=counts["unverified"],
                hosts=", ".join(sorted({f"{c.get('host')} at {c.get('created_at')}" for c in checks})),
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
    return " ".join(lines)


def _value(value: object) -> str:
    if isinstance(value, tuple | list):
        return ", ".join(str(v) for v in value)
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
    return _("Place not decided: the unknowns that decide it are {unknowns}.").format(
        unknowns=", ".join(parts)
    )
