"""The measurement sheets: Link quality (per region: peak and off-peak figures, verdict, samples, period,
vantage point) and Hour-of-day (per region and local hour, with a native chart per region)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from desktop.export.model import Column, LineChart, Sheet
from desktop.usecases.links import utc_seconds
from probes.analysis import (
    MeasuredLink,
    Scope,
    Thresholds,
    hour_of_day,
    link_summaries,
    route_verdicts,
    vantage_scopes,
)
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store import Store

RouteChecks = Mapping[tuple[str, str], Mapping[str, Any]]  # (provider, region) → its route check dict


@dataclass(frozen=True)
class MeasureOptions:
    tz: str = "Asia/Shanghai"
    windows: tuple[PeakWindow, ...] = DEFAULT_PEAK_WINDOWS
    since_us: int | None = None
    until_us: int | None = None
    vantage: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    confidence: float = 0.95
    replicates: int = 1000
    max_charts: int = 60  # hour-of-day charts beyond this many regions are left out (the table has them all)


@dataclass
class RegionQuality:
    """One region's (and vantage point's) measured line (with confidence intervals and breach shares) and
    the line types its targets are labelled with."""

    link: MeasuredLink
    line_types: list[str]

    @property
    def key(self) -> tuple[str, str]:
        return (self.link.provider, self.link.region)


@dataclass
class Measurements:
    regions: list[RegionQuality]
    profile: pd.DataFrame  # hour_of_day rows with a `vantage` column
    options: MeasureOptions
    vantages: list[str | None]
    timed_by: list[tuple[str, int]] = field(default_factory=list)  # `Store.timed_by` over the period

    def links(self) -> list[MeasuredLink]:
        return [r.link for r in self.regions]

    @classmethod
    def nothing(cls, options: MeasureOptions) -> Measurements:
        """No measurements at all (no result store yet): the measurement sheets are written empty."""
        return cls([], pd.DataFrame(), options, [])


def measure(
    store: Store,
    options: MeasureOptions,
    routes: RouteChecks | None = None,
    claims: Mapping[tuple[str, str], str] | None = None,
) -> Measurements:
    """Everything the measurement sheets show, from one store, per vantage point (`vantage_scopes`): the
    regions' `link_summaries` with intervals and breach shares, and the `hour_of_day` profile. `routes`
    defaults to the route checks of the traces stored for each region (`probes.analysis.route_verdicts`,
    which loads the network table), against the targets' line-type labels, else `claims` (what the catalogs
    claim per provider and region)."""
    base = Scope(by="region", since_us=options.since_us, until_us=options.until_us, vantage=options.vantage)
    if routes is None:
        routes = route_verdicts(store, base, claims=claims)
    claimed: dict[tuple[str, str], set[str]] = {}
    for t in store.targets():
        if t.provider and t.region and t.line_type:
            claimed.setdefault((t.provider, t.region), set()).add(t.line_type)
    regions: list[RegionQuality] = []
    profiles = []
    scopes = vantage_scopes(store, base)
    for vantage, scope in scopes:
        links = link_summaries(
            store,
            scope,
            options.windows,
            routes=routes,
            intervals=True,
            confidence=options.confidence,
            replicates=options.replicates,
            thresholds=options.thresholds,
        )
        for link in links:
            regions.append(RegionQuality(link, sorted(claimed.get((link.provider, link.region), ()))))
        profiles.append(hour_of_day(store, scope, options.tz).assign(vantage=vantage))
    profile = pd.concat(profiles, ignore_index=True) if profiles else pd.DataFrame()
    timed_by = store.timed_by(since_us=options.since_us, until_us=options.until_us)
    return Measurements(regions, profile, options, [v for v, _ in scopes], timed_by)


# -- Link quality --------------------------------------------------------------------------------------------


def _side_columns(prefix: str, title: str) -> list[Column]:
    return [
        Column(f"{prefix}_samples", f"{title} samples", "int", note="attempts sent (lost ones included)"),
        Column(f"{prefix}_hours", f"{title} hours", "int", note="distinct clock hours measured"),
        Column(f"{prefix}_rtt_median_ms", f"{title} median RTT", "ms"),
        Column(f"{prefix}_rtt_p95_ms", f"{title} p95 RTT", "ms"),
        Column(f"{prefix}_loss", f"{title} loss", "percent", decimals=2, colour_scale="low-good"),
        Column(f"{prefix}_jitter_ms", f"{title} jitter", "ms"),
        Column(f"{prefix}_throughput_mbps", f"{title} throughput", "mbps", note="median over transfers"),
    ]


LINK_QUALITY_COLUMNS: tuple[Column, ...] = (
    Column("provider", "Provider"),
    Column("region", "Region"),
    Column("vantage", "Vantage point"),
    Column("claimed_line_types", "Claimed line type"),
    *_side_columns("peak", "Peak"),
    *_side_columns("offpeak", "Off-peak"),
    Column("p95_diff_ms", "p95 change at peak", "ms", note="peak minus off-peak"),
    Column("p95_diff_ci_low", "p95 change, CI low", "ms", note="cluster bootstrap over hours"),
    Column("p95_diff_ci_high", "p95 change, CI high", "ms"),
    Column("median_diff_ms", "Median change at peak", "ms"),
    Column("loss_diff", "Loss change at peak", "percent", decimals=2, note="percentage points"),
    Column("loss_diff_ci_low", "Loss change, CI low", "percent", decimals=2, note="Newcombe (Wilson)"),
    Column("loss_diff_ci_high", "Loss change, CI high", "percent", decimals=2),
    Column(
        "breach_share_peak",
        "Peak hours breaching",
        "percent",
        colour_scale="low-good",
        note="hours with loss over the threshold or p95 spiking over the off-peak p95",
    ),
    Column("breach_share_offpeak", "Off-peak hours breaching", "percent", colour_scale="low-good"),
    Column("verdict", "Verdict", width=58, wrap=True),
    Column("period_start", "Period start", "datetime", width=20),
    Column("period_end", "Period end", "datetime", width=20),
    Column("route_claimed", "Route: claimed line type"),
    Column("route_measured_class", "Route: traced class", note="from the stored traceroutes' hops"),
    Column(
        "route_agrees",
        "Route agrees with claim",
        "bool",
        note="empty: no traces, or a claim no trace can check",
    ),
    Column("route_traces", "Route: traces", "int"),
    Column("route_agreeing_traces", "Route: traces agreeing", "int"),
    Column("route_evidence", "Route evidence", width=60, wrap=True),
)


def link_quality_rows(measurements: Measurements) -> list[dict[str, Any]]:
    rows = []
    for region in measurements.regions:
        link = region.link
        c = link.comparison
        row: dict[str, Any] = {
            "provider": link.provider,
            "region": link.region,
            "vantage": link.vantage,
            "claimed_line_types": ", ".join(region.line_types) or None,
            "p95_diff_ms": c.p95_diff_ms,
            "p95_diff_ci_low": None if c.p95_diff_ci is None else c.p95_diff_ci[0],
            "p95_diff_ci_high": None if c.p95_diff_ci is None else c.p95_diff_ci[1],
            "median_diff_ms": c.median_diff_ms,
            "loss_diff": c.loss_diff,
            "loss_diff_ci_low": None if c.loss_diff_ci is None else c.loss_diff_ci[0],
            "loss_diff_ci_high": None if c.loss_diff_ci is None else c.loss_diff_ci[1],
            "breach_share_peak": link.breach_share_peak,
            "breach_share_offpeak": link.breach_share_offpeak,
            "verdict": c.verdict,
            "period_start": utc_seconds(link.period_start_us),
            "period_end": utc_seconds(link.period_end_us),
        }
        for prefix, side in (("peak", link.peak), ("offpeak", link.offpeak)):
            for key, value in side.as_dict().items():
                row[f"{prefix}_{key}"] = value
        route = link.route or {}
        for key in ("measured_class", "agrees", "traces", "agreeing_traces", "evidence"):
            row[f"route_{key}"] = route.get(key)
        row["route_claimed"] = route.get("claimed_line_type")
        rows.append(row)
    return rows


def link_quality_sheet(measurements: Measurements) -> Sheet:
    return Sheet("Link quality", LINK_QUALITY_COLUMNS, link_quality_rows(measurements), freeze_columns=2)


# -- Hour-of-day ----------------------------------------------------------------------------------------------


def hour_of_day_columns(tz: str) -> tuple[Column, ...]:
    return (
        Column("provider", "Provider"),
        Column("region", "Region"),
        Column("vantage", "Vantage point"),
        Column("hour", f"Hour ({tz})", "int", width=12),
        Column("sent", "Samples", "int"),
        Column("loss", "Loss", "percent", decimals=2, colour_scale="low-good"),
        Column("rtt_median_ms", "Median RTT", "ms"),
        Column("rtt_p95_ms", "p95 RTT", "ms", colour_scale="low-good"),
        Column("rtt_mean_ms", "Mean RTT", "ms"),
        Column("jitter_ms", "Jitter", "ms"),
        Column("throughput_mbps", "Throughput", "mbps", note="median over transfers started in this hour"),
        Column("transfers", "Transfers", "int"),
        Column("hours", "Days measured", "int", note="how many times this clock hour was measured"),
    )


def hour_of_day_sheet(measurements: Measurements) -> Sheet:
    options = measurements.options
    frame = measurements.profile
    rows = [] if frame.empty else [dict(r) for r in frame.to_dict("records")]
    charts: list[LineChart] = []
    for start in range(0, len(rows), 24):
        if len(charts) >= options.max_charts:
            break
        block = rows[start]
        if not any(r["sent"] for r in rows[start : start + 24]):
            continue
        where = f"{block['provider']}/{block['region']}"
        if block.get("vantage"):
            where += f" from {block['vantage']}"
        charts.append(
            LineChart(
                title=f"{where}: RTT by hour",
                x_column="hour",
                y_columns=("rtt_median_ms", "rtt_p95_ms"),
                first_row=start,
                last_row=start + 23,
                y_title="ms",
                x_title=f"hour ({options.tz})",
            )
        )
    return Sheet("Hour-of-day", hour_of_day_columns(options.tz), rows, charts=charts, freeze_columns=2)
