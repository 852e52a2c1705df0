"""The same region seen from each office: the measured links of one region side by side, per vantage point,
with which office sees the worst peak and whether the route class differs by office.

A pure function over `link_summaries`' links (one per region and vantage point): no store, no SQL. Only
regions measured from at least two vantage points are compared. "Worst peak" is the highest peak-hour p95
RTT (ties: the higher peak loss, then the name); a vantage point without peak samples takes no part. An
office is called the worst (and another the best) only on a difference beyond the figures' own interval: its
peak p95 above every other's by more than the reading's resolution (a p95 is read from histogram buckets
`histogram.GROWTH` apart, so two readings within that ratio may be the same delay: 0.00 ms apart is never
"worse"), or, with p95s within it, its peak loss's Wilson interval wholly above every other's. Otherwise
`worst_peak` and `best_peak` are None and the spread says how close they are. The
route class of a vantage point is the class its own traces were classified as (`route["measured_class"]`);
it "differs by office" when two vantage points with route checks measured different classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from probes import histogram
from probes.analysis.summary import MeasuredLink
from probes.vantage import THIS_MACHINE


@dataclass(frozen=True, slots=True)
class VantageView:
    """One region as one vantage point sees it (None: not measured from there)."""

    vantage: str | None
    peak_rtt_median_ms: float | None
    peak_rtt_p95_ms: float | None
    peak_loss: float | None
    peak_samples: int
    peak_loss_ci: tuple[float, float] | None
    offpeak_rtt_median_ms: float | None
    offpeak_rtt_p95_ms: float | None
    offpeak_loss: float | None
    route_class: str | None  # what this vantage point's traces were classified as
    route_agrees: bool | None  # with the claimed line type


@dataclass(frozen=True, slots=True)
class VantageComparison:
    """One region from every vantage point that measured it, by vantage name (`THIS_MACHINE` last)."""

    provider: str
    region: str
    views: tuple[VantageView, ...]
    judged: int  # vantage points with peak figures (the worst and best are among them)
    worst_peak: (
        str | None
    )  # the office worse than every other beyond the interval (None: none is, or judged < 2)
    best_peak: str | None  # … and better than every other
    peak_p95_spread_ms: float | None  # worst minus best peak p95
    route_classes: tuple[str, ...]  # the distinct classes measured, sorted
    route_differs: bool  # two vantage points' traces measured different classes

    @property
    def vantages(self) -> tuple[str | None, ...]:
        return tuple(view.vantage for view in self.views)

    def as_dict(self) -> dict[str, object]:
        """Plain JSON (`linkvet vantages --json`)."""
        return {
            "provider": self.provider,
            "region": self.region,
            "judged": self.judged,
            "worst_peak": self.worst_peak,
            "best_peak": self.best_peak,
            "peak_p95_spread_ms": self.peak_p95_spread_ms,
            "route_classes": list(self.route_classes),
            "route_differs": self.route_differs,
            "vantages": [
                {
                    "vantage": v.vantage,
                    "peak": {
                        "rtt_median_ms": v.peak_rtt_median_ms,
                        "rtt_p95_ms": v.peak_rtt_p95_ms,
                        "loss": v.peak_loss,
                        "samples": v.peak_samples,
                    },
                    "offpeak": {
                        "rtt_median_ms": v.offpeak_rtt_median_ms,
                        "rtt_p95_ms": v.offpeak_rtt_p95_ms,
                        "loss": v.offpeak_loss,
                    },
                    "route_class": v.route_class,
                    "route_agrees": v.route_agrees,
                }
                for v in self.views
            ],
        }


def _view(link: MeasuredLink) -> VantageView:
    route = link.route or {}
    measured = route.get("measured_class")
    agrees = route.get("agrees")
    return VantageView(
        vantage=link.vantage,
        peak_rtt_median_ms=link.peak.rtt_median_ms,
        peak_rtt_p95_ms=link.peak.rtt_p95_ms,
        peak_loss=link.peak.loss,
        peak_samples=link.peak.sent,
        peak_loss_ci=link.peak.loss_ci,
        offpeak_rtt_median_ms=link.offpeak.rtt_median_ms,
        offpeak_rtt_p95_ms=link.offpeak.rtt_p95_ms,
        offpeak_loss=link.offpeak.loss,
        route_class=None if measured is None else str(measured),
        route_agrees=None if agrees is None else bool(agrees),
    )


def _apart(high: float, low: float) -> bool:
    """Whether two p95 readings differ beyond the histogram's resolution (buckets `GROWTH` apart)."""
    return high > low * histogram.GROWTH and high - low > 0


def _loss_above(view: VantageView, other: VantageView) -> bool:
    """Whether `view`'s peak loss interval lies wholly above `other`'s."""
    mine, theirs = view.peak_loss_ci, other.peak_loss_ci
    return mine is not None and theirs is not None and mine[0] > theirs[1]


def _beyond(worst: VantageView, others: Sequence[VantageView]) -> bool:
    """Whether the worst-looking office is worse than every other beyond the interval of its figures."""
    high = worst.peak_rtt_p95_ms or 0.0
    return all(_apart(high, other.peak_rtt_p95_ms or 0.0) or _loss_above(worst, other) for other in others)


def _beyond_below(best: VantageView, others: Sequence[VantageView]) -> bool:
    """Whether the best-looking office is better than every other beyond the interval of its figures."""
    low = best.peak_rtt_p95_ms or 0.0
    return all(_apart(other.peak_rtt_p95_ms or 0.0, low) or _loss_above(other, best) for other in others)


def _name_order(vantage: str | None) -> tuple[int, str]:
    """Named vantage points by name, then `THIS_MACHINE` (the rounds that named none)."""
    return (1, "") if vantage is None or vantage == THIS_MACHINE else (0, vantage)


def compare_vantages(links: Sequence[MeasuredLink]) -> list[VantageComparison]:
    """Per region measured from two or more vantage points, its links side by side (see the module
    docstring); by provider and region."""
    by_region: dict[tuple[str, str], list[MeasuredLink]] = {}
    for link in links:
        by_region.setdefault((link.provider, link.region), []).append(link)
    out = []
    for (provider, region), mine in sorted(by_region.items()):
        if len({link.vantage for link in mine}) < 2:
            continue
        views = tuple(sorted((_view(link) for link in mine), key=lambda v: _name_order(v.vantage)))
        judged = [v for v in views if v.peak_rtt_p95_ms is not None]
        ranked = sorted(
            judged,
            key=lambda v: (-(v.peak_rtt_p95_ms or 0.0), -(v.peak_loss or 0.0), _name_order(v.vantage)),
        )
        spread = None
        worst = best = None
        if len(ranked) > 1:
            spread = (ranked[0].peak_rtt_p95_ms or 0.0) - (ranked[-1].peak_rtt_p95_ms or 0.0)
            worst = ranked[0] if _beyond(ranked[0], ranked[1:]) else None
            best = ranked[-1] if _beyond_below(ranked[-1], ranked[:-1]) else None
        classes = tuple(sorted({v.route_class for v in views if v.route_class is not None}))
        out.append(
            VantageComparison(
                provider=provider,
                region=region,
                views=views,
                judged=len(ranked),
                worst_peak=None if worst is None else worst.vantage,
                best_peak=None if best is None else best.vantage,
                peak_p95_spread_ms=spread,
                route_classes=classes,
                route_differs=len(classes) > 1,
            )
        )
    return out
