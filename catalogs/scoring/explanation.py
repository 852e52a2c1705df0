"""Explanations, built on demand for the entries someone reads: every checklist item's judgement (the
numbers from the ranking's `ScoreTable`, the reasons and sources from the same judging functions called with
`explain=True`), and a rank in plain words.

Every sentence names a criterion by its title in the current language (`Checklist.shown_title`), never by its
id; the JSON keeps the ids. `explain` strings the sentences together, one small function each: the headline
(what orders the entry, its score and bounds), the gates, the strongest and weakest points, the unknowns, the
place against the entries below it, what to ask next, the line's evidence, and the acceptance checks."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from catalogs.i18n import _, clauses, items, ngettext, sentences
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Judgement, Source
from catalogs.scoring.scaling import scaling_reason
from catalogs.scoring.standing import CRITERION_FACTS, StandingFact, candidate_facts, criteria_resting_on
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
    """ "#1 aws/p5.48xlarge in us-east-1 — 8 × H100 SXM: ranked by its score at worst 0.532 (…)." The figure
    that orders the ranking comes first, so the order and the figure shown agree."""
    values = {
        "low": entry.score_min,
        "high": entry.score_max,
        "score": entry.total,
        "topsis": entry.topsis,
        "coverage": entry.coverage,
    }
    if entry.ordered_by == "topsis":
        ranked = _(
            "ranked by its TOPSIS closeness {topsis:.3f} (score {score:.3f}, between {low:.3f} and {high:.3f} "
            "whatever the unknowns are, {coverage:.0%} of the weight known)"
        )
    elif entry.ordered_by == "score-min":
        ranked = _(
            "ranked by its score at worst {low:.3f} (score {score:.3f}, at best {high:.3f}, {coverage:.0%} "
            "of the weight known)"
        )
    else:
        ranked = _(
            "ranked by its score {score:.3f} (between {low:.3f} and {high:.3f} whatever the unknowns are, "
            "{coverage:.0%} of the weight known)"
        )
    offering = entry.label
    if entry.gpu:
        offering = _("{offering} — {per_node} × {gpu}").format(
            offering=offering, per_node=entry.gpus_per_node or "?", gpu=entry.gpu
        )
    return _("#{rank} {offering}: {ranked}.").format(
        rank=entry.rank, offering=offering, ranked=ranked.format(**values)
    )


def _gates_sentence(entry: RankedOffering) -> str:
    """Which gates it fails, or that it passes every gate (it could check)."""
    failed = entry.failed_gates
    if failed:
        return _("Fails: {gates}.").format(gates=clauses(_gate_text(entry, g) for g in failed))
    unchecked = [g for g in entry.judgements if g.kind == "gate" and g.status == "unknown"]
    if unchecked:
        gates = clauses(_gate_text(entry, g) for g in unchecked)
        return _("Passes every gate it could check; unchecked: {gates}.").format(gates=gates)
    return _("Passes every gate.")


def _known_points(entry: RankedOffering) -> list[Judgement]:
    """Its weighted criteria that count and are known."""
    return [j for j in entry.judgements if j.kind == "weighted" and j.score is not None and j.weight > 0]


def _score(judged: Judgement) -> float:
    return judged.score or 0.0


def _points_sentences(entry: RankedOffering) -> list[str]:
    """Its strongest and weakest known criteria (up to three each, by weighted score)."""
    known = _known_points(entry)
    strong = sorted(
        (j for j in known if _score(j) >= 0.5), key=lambda j: (-j.weight * _score(j), j.criterion)
    )
    weak = sorted((j for j in known if _score(j) < 0.5), key=lambda j: (_score(j) - 1) * j.weight)
    lines = []
    if strong:
        points = clauses(_point_text(entry, j) for j in strong[:3])
        lines.append(_("Strongest: {criteria}.").format(criteria=points))
    if weak:
        lines.append(
            _("Weakest: {criteria}.").format(criteria=clauses(_point_text(entry, j) for j in weak[:3]))
        )
    return lines


def _unknown_text(entry: RankedOffering, unknown: list[Judgement], total_weight: float) -> str:
    """The unknown criteria, their share of the weight and what each counts as."""
    share = sum(j.weight for j in unknown) / total_weight
    how_often = Counter(j.counted for j in unknown)
    usual = max((j.counted or 0.0 for j in unknown), key=lambda c: how_often[c])  # the most common (first)
    named = []
    for j in unknown:
        title = entry.title(j.criterion)
        if j.counted == usual:
            named.append(title)
        elif entry.nodes:
            named.append(
                _("{criterion} ({counted:.2f}, {nodes} nodes)").format(
                    criterion=title, counted=j.counted or 0.0, nodes=entry.nodes
                )
            )
        else:
            named.append(_("{criterion} ({counted:.2f})").format(criterion=title, counted=j.counted or 0.0))
    return _(
        "Unknown ({share:.0%} of the weight, counted as {usual:.2f} each unless said): {criteria}."
    ).format(share=share, usual=usual, criteria=items(named))


def _unknowns_sentences(entry: RankedOffering) -> list[str]:
    weighted = [j for j in entry.judgements if j.kind == "weighted"]
    unknown = [j for j in weighted if j.score is None]
    if not unknown:
        return []
    return [_unknown_text(entry, unknown, sum(j.weight for j in weighted) or 1.0)]


def _next_sentences(entry: RankedOffering) -> list[str]:
    """What puts it ahead of the next entry, and whether its place is decided (none for the last)."""
    if entry.next_rank is None:
        return []
    if entry.margins:
        ahead = items(
            _("{criterion} (+{difference:.2g})").format(criterion=entry.title(name), difference=diff)
            for name, diff in entry.margins
        )
        lead = _("Ahead of #{rank} on: {criteria}.").format(rank=entry.next_rank, criteria=ahead)
    else:
        lead = _("Level with #{rank} on every criterion; ordered by provider, offering, region.").format(
            rank=entry.next_rank
        )
    return [lead, place_text(entry)]


def _ask_next_sentences(entry: RankedOffering) -> list[str]:
    if not entry.ask_next:
        return []
    asked = items(
        _("{criterion} (±{swing:.2f})").format(criterion=entry.title(s.criterion), swing=s.swing)
        for s in entry.ask_next
    )
    return [_("Ask next: {criteria}.").format(criteria=asked)]


def _line_evidence_sentences(entry: RankedOffering) -> list[str]:
    """How many more peak evenings would settle the line's figures, when that is known and not yet so."""
    more = entry.peak_evenings_needed
    if not more:
        return []
    evenings = entry.peak_evenings
    if evenings:
        text = ngettext(
            "The line was measured at peak on {n} evening, which counts little: {more} more would settle it.",
            "The line was measured at peak on {n} evenings, which counts little: {more} more would settle it.",
            evenings,
        )
    else:
        text = _("The line was not measured at peak: {more} peak evenings would settle it.")
    return [text.format(n=evenings, more=more)]


def _fact_name(entry: RankedOffering, key: str, scope: str | None = None) -> str:
    """A fact named by the criterion that rests on it ("Out-of-band management (BMC/IPMI)", "… (kind)"), or
    its key when no criterion does."""
    criteria = criteria_resting_on(key, scope)
    if not criteria:
        return key
    title = entry.title(criteria[0])
    field = key.rsplit(".", 1)[-1]
    return (
        title if field in CRITERION_FACTS else _("{criterion} ({field})").format(criterion=title, field=field)
    )


def _standing_fact(entry: RankedOffering, fact: StandingFact) -> str:
    values = {
        "fact": _fact_name(entry, fact.key),
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


def _acceptance_sentences(entry: RankedOffering) -> list[str]:
    """The acceptance checks imported for it: how many confirmed what, and each contradiction."""
    checks = entry.acceptance_checks
    if not checks:
        return []
    counts = Counter(str(c.get("verdict")) for c in checks)
    hosts = sorted(
        {_("{host} at {time}").format(host=c.get("host"), time=c.get("created_at")) for c in checks}
    )
    lines = [
        _(
            "Acceptance checks: {confirmed} confirmed, {contradicted} contradicted, {unverified} unverified "
            "({hosts})."
        ).format(
            confirmed=counts["confirmed"],
            contradicted=counts["contradicted"],
            unverified=counts["unverified"],
            hosts=items(hosts),
        )
    ]
    for check in checks:
        if check.get("verdict") == "contradicted":
            scope = check.get("scope")
            lines.append(
                _("Contradicted: {fact} (claimed {claimed}, measured {measured}): {evidence}.").format(
                    fact=_fact_name(entry, str(check.get("fact")), scope if isinstance(scope, str) else None),
                    claimed=check.get("claimed", "?"),
                    measured=check.get("measured", "?"),
                    evidence=check.get("evidence", ""),
                )
            )
    return lines


def explain(entry: RankedOffering) -> str:
    """The rank in plain words: what orders it, gates, strongest and weakest points, unknowns, its place
    against the entries below it, what to ask next, the line's evidence, and what acceptance settled."""
    lines = [_headline(entry), _gates_sentence(entry)]
    lines += _points_sentences(entry)
    lines += _unknowns_sentences(entry)
    lines += _next_sentences(entry)
    lines += _ask_next_sentences(entry)
    lines += _line_evidence_sentences(entry)
    lines += [_standing_fact(entry, fact) for fact in entry.settled_facts]
    lines += _acceptance_sentences(entry)
    return sentences(lines)


def _gate_text(entry: RankedOffering, gate: Judgement) -> str:
    return _("{criterion} ({reason})").format(criterion=entry.title(gate.criterion), reason=gate.reason)


def _point_text(entry: RankedOffering, judged: Judgement) -> str:
    return _("{criterion} = {score:.2f} ({reason})").format(
        criterion=entry.title(judged.criterion), score=judged.score, reason=judged.reason
    )


def _value(value: object) -> str:
    if isinstance(value, tuple | list):
        return items(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def place_text(entry: RankedOffering) -> str:
    """Whether the entry's place is decided against every entry below it, and if not, who could still
    overtake it and by which unknowns (or which weight move)."""
    if entry.decided:
        return _(
            "Place decided: its worst case is above the best case of every candidate ranked below it, and no "
            "single weight moved ±20% changes that."
        )
    rank = entry.challenger_rank or entry.next_rank
    if entry.swayed_by is not None:
        criterion, factor = entry.swayed_by
        return _(
            "Place not decided: with the weight of {criterion} ×{factor:g}, #{rank} would rank above it."
        ).format(criterion=entry.title(criterion), factor=factor, rank=rank)
    if not entry.deciding:
        return _("Place not decided: #{rank} is level with it.").format(rank=rank)
    parts = []
    for swing in entry.deciding:
        title = entry.title(swing.criterion)
        if swing.whose == "this":
            parts.append(_("its own {criterion} (−{swing:.2f})").format(criterion=title, swing=swing.swing))
        else:
            parts.append(
                _("#{rank}'s {criterion} (+{swing:.2f})").format(
                    rank=rank, criterion=title, swing=swing.swing
                )
            )
    return _(
        "Place not decided: #{rank} could still overtake it; the unknowns that decide it are {unknowns}."
    ).format(rank=rank, unknowns=items(parts))
