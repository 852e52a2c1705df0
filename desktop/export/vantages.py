"""The Vantage points sheet: each region measured from two or more offices, one row per office, side by side —
which office sees the worst peak, how far its peak p95 lies above the best office's, and whether the route
class differs by office (`probes.analysis.compare_vantages`). Written only when some region has two."""

from __future__ import annotations

from typing import Any

from desktop.export.measurements import Measurements
from desktop.export.model import Column, Sheet
from desktop.i18n import _, vantage_name
from probes.analysis import compare_vantages


def vantage_columns() -> tuple[Column, ...]:
    """The sheet's columns, their headers and notes in the current language."""
    return (
        Column("provider", _("Provider")),
        Column("region", _("Region")),
        Column("vantage", _("Vantage point")),
        Column(
            "worst_peak",
            _("Worst peak"),
            "bool",
            note=_("this office sees the highest peak-hour p95 RTT of the region"),
        ),
        Column(
            "above_best_ms",
            _("Peak p95 above the best office"),
            "ms",
            colour_scale="low-good",
            note=_("this office's peak p95 minus the lowest of the region's offices"),
        ),
        Column("peak_rtt_median_ms", _("Peak median RTT"), "ms"),
        Column("peak_rtt_p95_ms", _("Peak p95 RTT"), "ms", colour_scale="low-good"),
        Column("peak_loss", _("Peak loss"), "percent", decimals=2, colour_scale="low-good"),
        Column("peak_samples", _("Peak samples"), "int"),
        Column("offpeak_rtt_median_ms", _("Off-peak median RTT"), "ms"),
        Column("offpeak_rtt_p95_ms", _("Off-peak p95 RTT"), "ms"),
        Column("offpeak_loss", _("Off-peak loss"), "percent", decimals=2),
        Column("route_class", _("Route: traced class"), note=_("from this office's own traceroutes")),
        Column("route_agrees", _("Route agrees with claim"), "bool"),
        Column(
            "route_differs",
            _("Route class differs by office"),
            "bool",
            note=_("the region's offices traced different classes (e.g. CN2 from one, 163 from another)"),
        ),
    )


def vantage_rows(measurements: Measurements) -> list[dict[str, Any]]:
    rows = []
    for comparison in compare_vantages(measurements.links()):
        best = min(
            (v.peak_rtt_p95_ms for v in comparison.views if v.peak_rtt_p95_ms is not None), default=None
        )
        for view in comparison.views:
            rows.append(
                {
                    "provider": comparison.provider,
                    "region": comparison.region,
                    "vantage": vantage_name(view.vantage),
                    "worst_peak": comparison.judged > 0 and view.vantage == comparison.worst_peak,
                    "above_best_ms": None
                    if view.peak_rtt_p95_ms is None or best is None or comparison.judged < 2
                    else view.peak_rtt_p95_ms - best,
                    "peak_rtt_median_ms": view.peak_rtt_median_ms,
                    "peak_rtt_p95_ms": view.peak_rtt_p95_ms,
                    "peak_loss": view.peak_loss,
                    "peak_samples": view.peak_samples,
                    "offpeak_rtt_median_ms": view.offpeak_rtt_median_ms,
                    "offpeak_rtt_p95_ms": view.offpeak_rtt_p95_ms,
                    "offpeak_loss": view.offpeak_loss,
                    "route_class": view.route_class,
                    "route_agrees": view.route_agrees,
                    "route_differs": comparison.route_differs,
                }
            )
    return rows


def vantage_sheet(measurements: Measurements) -> Sheet | None:
    """The sheet, or None when no region was measured from two vantage points."""
    rows = vantage_rows(measurements)
    if not rows:
        return None
    return Sheet("Vantage points", vantage_columns(), rows, freeze_columns=3, title=_("Vantage points"))
