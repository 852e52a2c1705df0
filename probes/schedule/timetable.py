"""A plan's timetable: the slots its rounds start on (multiples of the cadence counted from the Unix epoch,
denser inside its peak windows), the cadence in force at a moment, the slots a long round skipped, and the
name of the store lock its scheduler holds. Pure functions of the plan and the time."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from probes.peak import in_any
from probes.schedule.plan import Plan


def next_slot(plan: Plan, after_s: float) -> float:
    """The first round start strictly after `after_s` (Unix seconds): the next multiple of the off-peak
    cadence, or an earlier multiple of the peak cadence that falls inside a peak window."""
    off_peak = (math.floor(after_s / plan.every_s) + 1) * plan.every_s
    if plan.peak_every_s >= plan.every_s:
        return off_peak
    slot = (math.floor(after_s / plan.peak_every_s) + 1) * plan.peak_every_s
    while slot < off_peak:
        if in_any(plan.peak_windows, datetime.fromtimestamp(slot, tz=UTC)):
            return slot
        slot += plan.peak_every_s
    return off_peak


def cadence_at(plan: Plan, moment_s: float) -> float:
    """The cadence in force at a moment."""
    return (
        plan.peak_every_s
        if in_any(plan.peak_windows, datetime.fromtimestamp(moment_s, tz=UTC))
        else plan.every_s
    )


def current_slot(plan: Plan, moment_s: float) -> float:
    """The slot a round started at `moment_s` off the timetable belongs to (the last one not after it)."""
    cadence = cadence_at(plan, moment_s)
    return math.floor(moment_s / cadence) * cadence


def skipped_slots(plan: Plan, planned_s: float, next_s: float) -> list[float]:
    """The slots after `planned_s` and before `next_s` that no round will measure (a round ran past them)."""
    skipped: list[float] = []
    slot = next_slot(plan, planned_s)
    while slot < next_s and len(skipped) <= 100_000:
        skipped.append(slot)
        slot = next_slot(plan, slot)
    return skipped


def lock_name(plan: Plan) -> str:
    """The store lock a plan's scheduler holds: one per plan and vantage point."""
    return f"schedule {plan.name} @ {plan.vantage or '-'}"
