"""Explanations, built on demand for the entries someone reads: every checklist item's judgement (the
numbers from the ranking's `ScoreTable`, the reasons and sources from the same judging functions called with
`explain=True`), and a rank in plain words."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Judgement
from catalogs.scoring.scaling import scaling_reason
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
    weights = table.weights.tolist()
    for j, (criterion, judge, params) in enumerate(table.criterion_functions):
        _, reason, source = judge(facts, params, True)
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
            )
        )
    return tuple(judged)


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
    lines = [f"{head}: {score}."]
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
    return " ".join(lines)
