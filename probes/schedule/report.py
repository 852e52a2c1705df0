"""What one round of the scheduler did (`RoundReport`), for logs, metrics, alerts, the CLI and the window;
`RoundHook`, what is called with it after each round."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from probes.i18n import _, ngettext
from probes.results import Outcome, ProbeResult
from probes.timestamps import iso_utc

RoundHook = Callable[["RoundReport"], None]


@dataclass(frozen=True, slots=True)
class RoundReport:
    """What one round did (for logs, the CLI and the GUI)."""

    round_id: int | None  # None when nothing was due, or the store did not take it (see store_error)
    started_us: int
    finished_us: int
    peak: bool
    results: tuple[ProbeResult, ...]
    store_error: str | None = None  # why the store did not take the round (it is in the spool unless lost)
    outcome: str | None = None  # probes.results.Outcome's value; None when nothing was measured
    slot_us: int | None = None

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results if not r.ok)

    def store_note(self) -> str | None:
        """For a person, in the current language: why the store does not hold this measured round (kept in
        the spool, lost, or its slot taken by another round); None when it does, or nothing was measured."""
        outcome = self.outcome
        if outcome == Outcome.SPOOLED:
            return _(
                "could not store the round (kept in the spool, stored when the store takes rounds again): {reason}"
            ).format(reason=self.store_error)
        if outcome == Outcome.LOST:
            return _("could not store the round, nor keep it in the spool: it is lost ({reason})").format(
                reason=self.store_error
            )
        if outcome == Outcome.SLOT_TAKEN:
            return _(
                "the store already holds round {round} for this plan's slot {slot}: this round is not stored"
            ).format(round=self.round_id, slot=iso_utc(self.slot_us or 0))
        return None

    def describe(self) -> str:
        """One line on the round for a person, in the current language."""
        if not self.results:
            return _("nothing was due this round")
        lossy = sum(1 for r in self.results if r.loss)
        values = {
            "round": self.round_id,
            "n": len(self.results),
            "seconds": f"{(self.finished_us - self.started_us) / 1e6:.1f}",
            "failed": self.failed,
            "lossy": lossy,
        }
        n = len(self.results)
        if self.peak:
            return ngettext(
                "round {round} (peak): {n} target in {seconds} s, {failed} failed, {lossy} with loss",
                "round {round} (peak): {n} targets in {seconds} s, {failed} failed, {lossy} with loss",
                n,
            ).format(**values)
        return ngettext(
            "round {round} (off-peak): {n} target in {seconds} s, {failed} failed, {lossy} with loss",
            "round {round} (off-peak): {n} targets in {seconds} s, {failed} failed, {lossy} with loss",
            n,
        ).format(**values)
