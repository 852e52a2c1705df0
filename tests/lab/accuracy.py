"""Comparing a probing tool's per-attempt RTTs with the lab's truth for the same packets (used by the
accuracy tests and the side-by-side benchmark)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from tests.lab import truth

# A reply that reaches the office within this much of the tool's timeout may fall either side of it
# (the tool's clock and the log's differ by its own stack time): the one case where counts may differ by 1.
TIMEOUT_EDGE_MS = 5.0


@dataclass(frozen=True)
class Comparison:
    """A tool's view of a run against the truth of the same packets (paired in send order)."""

    tool: str
    measured: tuple[float | None, ...]
    true: tuple[truth.Exchange, ...]
    timeout_s: float

    @property
    def paired(self) -> list[tuple[float, float]]:
        return [
            (m, t.rtt_ms)
            for m, t in zip(self.measured, self.true, strict=False)
            if m is not None and t.rtt_ms is not None
        ]

    @property
    def sample_errors_ms(self) -> list[float]:
        """measured − true, per attempt both call received."""
        return [m - t for m, t in self.paired]

    @property
    def lost_measured(self) -> int:
        return sum(1 for m in self.measured if m is None)

    @property
    def lost_true(self) -> int:
        return truth.lost(self.true)

    @property
    def loss_disagreements(self) -> list[str]:
        """Attempts the tool and the truth disagree on (lost vs received), described."""
        out = []
        for seq, (m, t) in enumerate(zip(self.measured, self.true, strict=False)):
            if (m is None) != t.lost:
                seen = "lost" if m is None else f"{m:.3f} ms"
                out.append(f"#{seq}: tool {seen}, truth {t.fate} {t.rtt_ms}")
        return out

    @property
    def edge_cases(self) -> int:
        """Attempts whose true reply came within TIMEOUT_EDGE_MS of the timeout (either side)."""
        limit = self.timeout_s * 1000
        count = 0
        for t in self.true:
            near_below = t.rtt_ms is not None and t.rtt_ms > limit - TIMEOUT_EDGE_MS
            near_above = (
                t.fate.startswith("late (") and float(t.fate[6:].split()[0]) < limit + TIMEOUT_EDGE_MS
            )
            count += near_below or near_above
        return count

    @property
    def allowed_loss_difference(self) -> int:
        return min(1, self.edge_cases)

    def true_median(self) -> float | None:
        return truth.median(truth.rtts(self.true))

    def true_p95(self) -> float | None:
        return truth.percentile(truth.rtts(self.true), 95)

    def measured_median(self) -> float | None:
        values = [m for m in self.measured if m is not None]
        return statistics.median(values) if values else None

    def describe(self) -> str:
        errors = self.sample_errors_ms
        spread = (
            f"per-attempt error median {statistics.median(errors):+.3f} ms, "
            f"worst {max(errors, key=abs):+.3f} ms over {len(errors)}"
            if errors
            else "no paired attempts"
        )
        return (
            f"{self.tool}: {len(self.measured)} attempts, truth has {len(self.true)}; lost "
            f"{self.lost_measured} vs true {self.lost_true}; {spread}; "
            f"disagreements: {self.loss_disagreements[:5]}"
        )


def compare(
    tool: str, measured: Sequence[float | None], exchanges: Sequence[truth.Exchange], timeout_s: float
) -> Comparison:
    return Comparison(tool, tuple(measured), tuple(exchanges), timeout_s)
