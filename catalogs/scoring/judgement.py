"""A judgement: one checklist item for one candidate, and the shapes every judging function returns.

Every judging function (a gate in `gates`, a weighted criterion in `criteria`) is called as
`judge(facts, params, explain)`: the candidate's `CandidateFacts`, the checklist item's `params`, and whether
to build the reason text. The ranking calls them with `explain=False` (numbers only, no text); the
explanation calls the same functions with `explain=True` for the reasons and sources, and takes the numbers
from the ranking's table, so the two can never disagree.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from catalogs.facts import Provenance

Status = Literal["pass", "fail", "unknown", "n/a"]
Source = Provenance | str | None
Result = tuple[float | None, str, Source]  # a weighted criterion's: score (or raw value), reason, source
GateResult = tuple[Status, str, Source]  # a gate's: status, reason, source


class Judgement(NamedTuple):
    """One checklist item for one candidate. Gates have `status`; weighted criteria have `score` (None =
    unknown) and `counted` (the value used in the total: the score, or the checklist's unknown score, scaled
    for the plan's node shape), and what it would count at worst and at best (`counted_min`, `counted_max`:
    the score itself when known; for an unknown 0 and 1, scaled alike). (A NamedTuple rather than a frozen
    dataclass: one per item per candidate.)"""

    criterion: str
    kind: Literal["gate", "weighted"]
    reason: str
    status: Status = "n/a"
    score: float | None = None
    counted: float | None = None
    weight: float = 0.0
    source: Source = None
    counted_min: float | None = None
    counted_max: float | None = None

    @property
    def source_text(self) -> str | None:
        return self.source.describe() if isinstance(self.source, Provenance) else self.source

    @property
    def unknown(self) -> bool:
        return self.status == "unknown" if self.kind == "gate" else self.score is None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"criterion": self.criterion, "kind": self.kind, "reason": self.reason}
        if self.kind == "gate":
            data["status"] = self.status
        else:
            data.update(
                score=self.score,
                counted=self.counted,
                counted_min=self.counted_min,
                counted_max=self.counted_max,
                weight=self.weight,
                unknown=self.score is None,
            )
            if isinstance(self.source, Provenance) and self.source.standing != "claimed":
                data["standing"] = self.source.standing
        data["source"] = self.source_text
        return data


def fmt(value: float) -> str:
    """A figure for a reason: thousands separated from 100 up, else three significant digits."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def linear(value: float, good: float, bad: float) -> float:
    """1 at `good`, 0 at `bad`, linear between (works for either direction)."""
    if good == bad:
        return 1.0 if value == good else 0.0
    return max(0.0, min(1.0, (value - bad) / (good - bad)))
