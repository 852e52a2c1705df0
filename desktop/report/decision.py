"""The decision in words, from a ranking (`catalogs.scoring.Ranking`): the recommended candidate, whether its
place is decided (its `decided`, `challenger_rank`, `swayed_by`, `deciding`), and the questions to ask. The
report's first page and the workbook's Summary sheet say the same sentences. Imports only `catalogs` and the
messages: the workbook's sheets may use it."""

from __future__ import annotations

from dataclasses import dataclass, field

from catalogs.scoring import RankedOffering, Ranking
from desktop.i18n import _


@dataclass(frozen=True)
class Decision:
    headline: str  # "Recommended: …" or "No candidate passes every gate."
    standing: str  # decided, or who could overtake it and what decides it
    decided: bool | None  # None: the only candidate passing every gate, or none passes
    questions: tuple[str, ...] = field(default=())
    winner: RankedOffering | None = None

    def lines(self) -> list[str]:
        out = [self.headline, self.standing]
        if self.questions:
            out.append(_("What decides it, and the questions to ask:"))
            out += [f"• {q}" for q in self.questions]
        return [line for line in out if line]


def winner_of(ranking: Ranking) -> RankedOffering | None:
    """The first candidate that passes every gate."""
    return next((entry for entry in ranking.entries if entry.eligible), None)


def decide(ranking: Ranking, limit: int = 6) -> Decision:
    """The decision a ranking supports, in the current language."""
    winner = winner_of(ranking)
    if winner is None:
        failing = "; ".join(
            _("{candidate}: {gates}").format(
                candidate=entry.label, gates=", ".join(entry.title(j.criterion) for j in entry.failed_gates)
            )
            for entry in ranking.entries[:5]
        )
        return Decision(
            _("No candidate passes every gate."),
            failing or _("No offering of the candidates is in the catalogs."),
            None,
        )
    headline = _(
        "Recommended: {candidate} — {gpus} × {gpu}, score {total:.2f} (from {low:.2f} to {high:.2f})"
    ).format(
        candidate=winner.label,
        gpus=winner.gpus_per_node or "?",
        gpu=winner.gpu or "?",
        total=winner.total,
        low=winner.score_min,
        high=winner.score_max,
    )
    if winner.decided is True:
        return Decision(
            headline,
            _(
                "Its place is decided: its worst case is above the best case of every other candidate, and no "
                "single weight moved ±20 % changes that."
            ),
            True,
            winner=winner,
        )
    if winner.decided is None:
        return Decision(headline, _("It is the only candidate that passes every gate."), None, winner=winner)
    entries = {entry.rank: entry for entry in ranking.entries}
    challenger = entries.get(winner.challenger_rank or -1)
    rival = challenger.label if challenger is not None else f"#{winner.challenger_rank}"
    standing = _("Not decided yet: {rival} could still overtake it.").format(rival=rival)
    if winner.swayed_by is not None:
        criterion, factor = winner.swayed_by
        standing += " " + _("A weight decides it: {criterion} ×{factor:g} puts {rival} first.").format(
            criterion=winner.title(criterion), factor=factor, rival=rival
        )
    questions = []
    for swing in winner.deciding or winner.ask_next:
        whose = winner if swing.whose == "this" else challenger
        vendor = whose.provider_name if whose is not None else rival
        questions.append(
            _("Ask {vendor}: {criterion} (could move the score by {swing:.2f})").format(
                vendor=vendor, criterion=winner.title(swing.criterion), swing=swing.swing
            )
        )
    return Decision(headline, standing, False, tuple(questions[:limit]), winner)
