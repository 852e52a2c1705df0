"""How far a measured line's figures are trusted, how long they were measured, and how many more peak
evenings would settle them.

A peak figure rests on the evenings it was measured on: a congested evening moves all of its samples
together, so ten thousand samples from one evening are one draw. At peak, with the evenings known, the trust
is the smaller of evenings / `full_confidence_evenings` and samples / `full_confidence_samples` (checklist
`[evidence]`); otherwise (off-peak, or a summary that does not count evenings) the smaller of the hours
measured / `full_confidence_hours` and the samples share. The hours measured are the minutes measured when
known: a 15-minute peak window measured once is 15 minutes, not an hour.
"""

from __future__ import annotations

import math

from catalogs.checklist import Evidence
from catalogs.i18n import _, ngettext
from catalogs.link_quality import LinkSummary, PeriodStats


def evidence_confidence(
    stats: PeriodStats, full_hours: float, full_samples: float, full_evenings: float | None = None
) -> float:
    """How far to trust a period's figures, 0..1 (see the module docstring): with `full_evenings` (a peak
    period) and the evenings known, by evenings and samples; else by the hours measured and samples, whichever
    are known; 0.5 when none is stated."""
    shares = []
    if full_evenings is not None and stats.evenings is not None:
        shares.append(min(1.0, stats.evenings / full_evenings))
    else:
        hours = stats.measured_hours
        if hours is not None:
            shares.append(min(1.0, hours / full_hours))
    if stats.samples is not None:
        shares.append(min(1.0, stats.samples / full_samples))
    return min(shares) if shares else 0.5


def peak_evenings_needed(link: LinkSummary | None, evidence: Evidence) -> int | None:
    """How many more peak evenings until the line's peak figures are fully trusted (0: settled), measuring
    as many samples an evening as the schedule plans (`Evidence.planned_peak_samples`, an evaluation's), else
    as many as so far (one round at peak is not an evening's worth); None when nothing was measured, or the
    summary does not count its evenings."""
    if link is None:
        return None
    peak = link.peak
    full = evidence.full_confidence_evenings
    if peak is None or not peak.measured:
        return math.ceil(full) if link.offpeak is not None and link.offpeak.measured else None
    if peak.evenings is None:
        return None
    needed = full
    samples = peak.samples or 0
    rate = evidence.planned_peak_samples or (samples / peak.evenings if samples and peak.evenings else None)
    if rate:  # the evenings so far, and those that measure the samples still missing
        needed = max(needed, peak.evenings + max(0.0, evidence.full_confidence_samples - samples) / rate)
    return max(0, math.ceil(needed - peak.evenings - 1e-9))


def duration_text(stats: PeriodStats) -> str | None:
    """How long a period was measured in words ("15 min", "3 h", "2 h 15 min"); None when not stated."""
    if stats.minutes is not None:
        minutes = round(stats.minutes)
        hours, rest = divmod(minutes, 60)
        if not hours:
            return _("{minutes} min").format(minutes=rest)
        if not rest:
            return _("{hours} h").format(hours=hours)
        return _("{hours} h {minutes} min").format(hours=hours, minutes=rest)
    if stats.hours is not None:
        return _("{hours:g} h").format(hours=stats.hours)
    return None


def evenings_text(evenings: int) -> str:
    """ "on 3 evenings"."""
    return ngettext("on {n} evening", "on {n} evenings", evenings).format(n=evenings)


def settle_text(more: int) -> str:
    """ "2 more peak evenings would settle it"."""
    return ngettext(
        "{n} more peak evening would settle it", "{n} more peak evenings would settle it", more
    ).format(n=more)
