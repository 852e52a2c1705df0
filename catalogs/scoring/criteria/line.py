"""The line to the team: measured line quality (from the region's `LinkSummary`, peak hours first, thin
evidence pulled toward the unknown score), its latency under load (responsiveness tests: the delay a busy
line adds), and whether the traced route bears out the claimed line type.

Each is partly known when the evidence is thin: a score is `confidence × measured + (1 − confidence) ×
unknown score`. `line_quality_evidence`, `line_responsiveness_evidence` and `line_claim_evidence` give
(measured, confidence), from which the score table also takes their worst and best cases (the untrusted share
at 0 and at 1). How far measured figures are trusted (the evenings a peak rests on, the time measured) is
`catalogs.scoring.criteria.trust`. Line quality is scored on fixed thresholds (the checklist's good and bad
RTT, loss, jitter and throughput), never against the other regions measured."""

from __future__ import annotations

from collections.abc import Mapping

from catalogs.i18n import _, clauses, items, ngettext
from catalogs.link_quality import PeriodStats, vantage_text
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.criteria.trust import (
    duration_text,
    evenings_text,
    evidence_confidence,
    peak_evenings_needed,
    settle_text,
)
from catalogs.scoring.judgement import Result
from catalogs.scoring.judgement import linear as _linear


def _describe_period(stats: PeriodStats, peak: bool) -> str:
    """ "peak: median 160 ms, p95 210 ms, loss 0.50%, … over 3 h / on 2 evenings / 1,000 samples"."""
    parts = []
    if stats.rtt_median_ms is not None:
        parts.append(_("median {ms:.0f} ms").format(ms=stats.rtt_median_ms))
    if stats.rtt_p95_ms is not None:
        parts.append(_("p95 {ms:.0f} ms").format(ms=stats.rtt_p95_ms))
    if stats.loss is not None:
        parts.append(_("loss {loss:.2%}").format(loss=stats.loss))
    if stats.jitter_ms is not None:
        parts.append(_("jitter {ms:.1f} ms").format(ms=stats.jitter_ms))
    if stats.throughput_mbps is not None and stats.throughput_lower_bound:
        parts.append(
            _(
                "at least {mbps:.0f} Mbit/s (the test transfers ended before leaving TCP slow start: a lower "
                "bound, counted only where it is good enough)"
            ).format(mbps=stats.throughput_mbps)
        )
    elif stats.throughput_mbps is not None:
        parts.append(_("{mbps:.0f} Mbit/s").format(mbps=stats.throughput_mbps))
    amount = []
    duration = duration_text(stats)
    if duration is not None:
        amount.append(duration)
    if peak and stats.evenings is not None:
        amount.append(evenings_text(stats.evenings))
    if stats.samples is not None:
        amount.append(ngettext("{n} sample", "{n} samples", stats.samples).format(n=f"{stats.samples:,}"))
    figures, over = items(parts), " / ".join(amount)
    if peak:
        text = _("peak: {figures} over {amount}") if amount else _("peak: {figures}")
    else:
        text = (
            _("off-peak only (no peak-hour data): {figures} over {amount}")
            if amount
            else _("off-peak only (no peak-hour data): {figures}")
        )
    return text.format(figures=figures, amount=over)


def line_period_score(stats: PeriodStats, params: Mapping[str, float]) -> float | None:
    """Score a period's line statistics in 0..1 (weights: RTT .35, loss .35, jitter .2, throughput .1, over
    what was measured); None when nothing was measured."""
    parts: list[tuple[float, float]] = []
    if stats.rtt_median_ms is not None:
        parts.append((0.35, _linear(stats.rtt_median_ms, params["good_rtt_ms"], params["bad_rtt_ms"])))
    if stats.loss is not None:
        parts.append((0.35, _linear(stats.loss, params["good_loss"], params["bad_loss"])))
    if stats.jitter_ms is not None:
        parts.append((0.2, _linear(stats.jitter_ms, params["good_jitter_ms"], params["bad_jitter_ms"])))
    if stats.throughput_mbps is not None:
        good, bad = params["good_throughput_mbps"], params["bad_throughput_mbps"]
        score = _linear(stats.throughput_mbps, good, bad)
        # A lower bound (transfers too short to leave slow start) says the line carries at least that much:
        # it counts where it already scores full marks, and says nothing against the line below that.
        if not stats.throughput_lower_bound or score >= 1.0:
            parts.append((0.1, score))
    if not parts:
        return None
    return sum(w * s for w, s in parts) / sum(w for w, _ in parts)


def _measured_period(facts: CandidateFacts) -> tuple[PeriodStats, bool, float] | None:
    """The period line quality is judged on (peak hours, else off-peak at half trust), whether it is the
    peak, and the trust factor; None when nothing was measured."""
    link = facts.link
    if link is None:
        return None
    period, peak, penalty = link.peak, True, 1.0
    if period is None or not period.measured:
        period, peak, penalty = link.offpeak, False, 0.5
    if period is None or not period.measured:
        return None
    return period, peak, penalty


def line_quality_evidence(facts: CandidateFacts, params: Mapping[str, float]) -> tuple[float, float] | None:
    """(measured score, confidence) of the region's line quality; None when not measured."""
    found = _measured_period(facts)
    if found is None:
        return None
    period, peak, penalty = found
    raw = line_period_score(period, params)
    if raw is None:
        return None
    evidence = facts.checklist.evidence
    trust = evidence_confidence(
        period,
        evidence.full_confidence_hours,
        evidence.full_confidence_samples,
        evidence.full_confidence_evenings if peak else None,
    )
    return raw, trust * penalty


def line_quality(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    link = facts.link
    if link is None:
        return None, (_("not measured ({note})").format(note=facts.link_note) if explain else ""), None
    found = _measured_period(facts)
    if found is None:
        return None, _("not measured (summary has no figures)"), None
    period, peak, _penalty = found
    evidence_parts = line_quality_evidence(facts, params)
    if evidence_parts is None:
        return None, _("not measured"), None
    raw, confidence = evidence_parts
    checklist = facts.checklist
    # Thin evidence is pulled toward what an unmeasured region counts, so that a few minutes of bad figures
    # never rank a region above one nobody measured (and a few minutes of good ones never far above).
    unknown = checklist.unknown_score
    score = confidence * raw + (1 - confidence) * unknown
    if not explain:
        return score, "", None
    parts = [_describe_period(period, peak)]
    if confidence < 1:
        parts.append(_thin_evidence(confidence, raw, unknown))
        more = peak_evenings_needed(link, checklist.evidence)
        if more:
            parts.append(settle_text(more))
    if link.route is not None and link.route.agrees is False:
        parts.append(
            _("route contradicts the claimed {line_type}").format(
                line_type=_claim(link.route.claimed_line_type)
            )
        )
    vantage = vantage_text(link.vantage)
    if link.period_start and link.period_end:
        source = _("measured from {vantage}, {start} to {end}").format(
            vantage=vantage, start=f"{link.period_start:%Y-%m-%d}", end=f"{link.period_end:%Y-%m-%d}"
        )
    else:
        source = _("measured from {vantage}").format(vantage=vantage)
    return score, clauses(parts), source


def _thin_evidence(confidence: float, raw: float, unknown: float) -> str:
    return _(
        "thin evidence: trusted {confidence:.0%}, measured {raw:.2f} pulled toward the unknown score {unknown:g}"
    ).format(confidence=confidence, raw=raw, unknown=unknown)


def line_claim_score(agrees: bool, confidence: float, unknown: float) -> float:
    """A route check's score: from the unknown score (an untraced claim) toward 1 when the route agrees with
    the claim, toward 0 when it contradicts it, as far as `confidence` (0..1, from the trace count) goes. A
    contradicted claim therefore never scores above an untraced one."""
    return unknown + (1 - unknown) * confidence if agrees else unknown * (1 - confidence)


def line_claim_evidence(facts: CandidateFacts, params: Mapping[str, float]) -> tuple[float, float] | None:
    """(1 if the route agrees with the claim, 0 if it contradicts it; confidence from the trace count), or
    None when the route was not traced; (1, 1) when nothing is claimed."""
    region = facts.candidate.region
    route = facts.link.route if facts.link else None
    if region is None or route is None or route.agrees is None:
        return None
    if not region.line_types and route.claimed_line_type is None:
        return 1.0, 1.0
    traces = route.traces or 0
    confidence = min(1.0, traces / params["full_confidence_traces"]) if traces else 0.5
    return (1.0 if route.agrees else 0.0), confidence


def line_claim(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    region = facts.candidate.region
    if region is None:
        return None, _("region not stated"), None
    claimed = region.line_types[0] if region.line_types else None
    route = facts.link.route if facts.link else None
    if route is None or route.agrees is None:
        # unverified either way: a claim is not held against a region before its route was traced, nor one
        # that no route can show (BGP, "standard")
        if not explain:
            return None, "", None
        if route is not None and route.traces:
            return (
                None,
                _(
                    "claims {line_type}, which no route can confirm or contradict; traced as {measured} on "
                    "{traces} traces"
                ).format(
                    line_type=_claim(route.claimed_line_type or claimed),
                    measured=_class(route.measured_class),
                    traces=route.traces,
                ),
                _("measured route"),
            )
        if claimed:
            return None, _("claims {line_type}; route not traced").format(line_type=_claim(claimed)), None
        return None, _("route not traced"), None
    if claimed is None and route.claimed_line_type is None:
        return 1.0, _("no line type claimed"), _("measured route")
    parts = line_claim_evidence(facts, params)
    confidence = parts[1] if parts is not None else 0.5
    unknown = facts.checklist.unknown_score
    score = line_claim_score(route.agrees, confidence, unknown)
    if not explain:
        return score, "", None
    claim = route.claimed_line_type or claimed
    values = {
        "line_type": _claim(claim),
        "agreeing": route.agreeing_traces,
        "traces": route.traces,
        "measured": _class(route.measured_class) if route.measured_class else _("another class"),
        "evidence": route.evidence,
        "unknown": unknown,
    }
    if route.agrees:
        if route.traces:
            text = _("route agrees with the claimed {line_type} ({agreeing} of {traces} traces)")
        else:
            text = _("route agrees with the claimed {line_type}")
        return score, text.format(**values), _("measured route")
    if route.traces and route.evidence:
        text = _(
            "claims {line_type} but the route measured as {measured} ({agreeing} of {traces} traces agree "
            "with the claim): {evidence} — scored below an untraced claim ({unknown:g})"
        )
    elif route.traces:
        text = _(
            "claims {line_type} but the route measured as {measured} ({agreeing} of {traces} traces agree "
            "with the claim) — scored below an untraced claim ({unknown:g})"
        )
    elif route.evidence:
        text = _(
            "claims {line_type} but the route measured as {measured}: {evidence} — scored below an "
            "untraced claim ({unknown:g})"
        )
    else:
        text = _(
            "claims {line_type} but the route measured as {measured} — scored below an untraced claim "
            "({unknown:g})"
        )
    return score, text.format(**values), _("measured route")


def _claim(line_type: str | None) -> str:
    from probes.routes import claim_name

    return claim_name(line_type) if line_type else "?"


def _class(line_class: str | None) -> str:
    from probes.routes import class_name

    return class_name(line_class) if line_class else "?"


# DSLReports' bufferbloat grades (https://www.dslreports.com/faq/17930): the added delay below which each is
# given; 400 ms or more is an F. The same table as probes.loaded_latency.GRADES (catalogs may not import
# probes), said in the reasons so the score reads like the grade a user knows.
_GRADES = (("A+", 5.0), ("A", 30.0), ("B", 60.0), ("C", 200.0), ("D", 400.0))


def bufferbloat_grade(increase_ms: float) -> str:
    return next((name for name, below in _GRADES if increase_ms < below), "F")


def _loaded_period(facts: CandidateFacts) -> tuple[PeriodStats, bool] | None:
    """The period whose responsiveness tests count (peak hours first) and whether it is the peak."""
    link = facts.link
    if link is None:
        return None
    for period, peak in ((link.peak, True), (link.offpeak, False)):
        if period is not None and period.loaded_rtt_increase_ms is not None:
            return period, peak
    return None


def line_responsiveness_evidence(
    facts: CandidateFacts, params: Mapping[str, float]
) -> tuple[float, float] | None:
    """(measured score, confidence) of the delay the line adds under load; None when not measured."""
    found = _loaded_period(facts)
    if found is None:
        return None
    period, peak = found
    assert period.loaded_rtt_increase_ms is not None
    raw = _linear(period.loaded_rtt_increase_ms, params["good_increase_ms"], params["bad_increase_ms"])
    tests = period.load_tests or 0
    return raw, min(1.0, tests / params["full_confidence_tests"]) * (1.0 if peak else 0.5)


def line_responsiveness(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    """The delay the line adds under load, from the region's responsiveness tests (peak hours first): 1 at
    `good_increase_ms` or less, 0 at `bad_increase_ms` or more, linear between; pulled toward the unknown
    score when fewer than `full_confidence_tests` tests back it (an off-peak-only figure counts half)."""
    link = facts.link
    if link is None:
        return None, (_("not measured ({note})").format(note=facts.link_note) if explain else ""), None
    found = _loaded_period(facts)
    evidence = line_responsiveness_evidence(facts, params)
    if found is None or evidence is None:
        return None, (_("not measured (no responsiveness tests)") if explain else ""), None
    period, peak = found
    raw, confidence = evidence
    increase = period.loaded_rtt_increase_ms
    assert increase is not None
    tests = period.load_tests or 0
    unknown = facts.checklist.unknown_score
    score = confidence * raw + (1 - confidence) * unknown
    if not explain:
        return score, "", None
    values = {
        "increase": increase,
        "grade": bufferbloat_grade(increase),
        "tests": tests,
        "rpm": "-" if period.rpm is None else f"{period.rpm:.0f}",
    }
    if peak:
        text = _(
            "peak: the line adds {increase:.0f} ms under load (bufferbloat grade {grade}, {rpm} RPM) over "
            "{tests} test(s)"
        ).format(**values)
    else:
        text = _(
            "off-peak only (no peak-hour tests): the line adds {increase:.0f} ms under load (bufferbloat "
            "grade {grade}, {rpm} RPM) over {tests} test(s)"
        ).format(**values)
    if confidence < 1:
        text = clauses((text, _thin_evidence(confidence, raw, unknown)))
    source = _("responsiveness tests from {vantage}").format(vantage=vantage_text(link.vantage))
    return score, text, source
