"""The measurement sheets: Link quality (per region: peak and off-peak figures, verdict, samples, period,
vantage point) and Hour-of-day (per region and local hour, with a native chart per region)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from desktop.export.model import Column, LineChart, Sheet
from desktop.i18n import _, vantage_name
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
from probes.timestamps import utc_seconds

RouteChecks = Callable[[Scope], Mapping[tuple[str, str], Mapping[str, Any]]]  # a scope's route checks


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

    def only(
        self, regions: frozenset[tuple[str, str]] | None, offices: frozenset[str] | None
    ) -> Measurements:
        """The measurements of these regions (provider, region) from these offices (vantage points) alone."""
        from dataclasses import replace

        def wanted(provider: object, region: object, vantage: object) -> bool:
            return (regions is None or (str(provider), str(region)) in regions) and (
                offices is None
                or vantage in offices
                or vantage_name(str(vantage)) in {vantage_name(o) for o in offices}
            )

        kept = [r for r in self.regions if wanted(r.link.provider, r.link.region, r.link.vantage)]
        profile = self.profile
        if not profile.empty:
            keep = [
                wanted(p, g, v)
                for p, g, v in zip(profile["provider"], profile["region"], profile["vantage"], strict=True)
            ]
            profile = profile[keep].reset_index(drop=True)
        vantages = [v for v in self.vantages if offices is None or v in offices]
        return replace(self, regions=kept, profile=profile, vantages=vantages)

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
    `link_summaries` of each region that vantage point measured, with intervals and breach shares, and the
    `hour_of_day` profile of those regions. `routes` gives a vantage point's scope its route checks; by
    default those of the traces stored from there for each region (`probes.analysis.route_verdicts`, which
    loads the network table where there are traces), against the targets' line-type labels, else `claims`
    (what the catalogs claim per provider and region)."""
    base = Scope(by="region", since_us=options.since_us, until_us=options.until_us, vantage=options.vantage)
    if routes is None:

        def routes(scope: Scope) -> Mapping[tuple[str, str], Mapping[str, Any]]:
            return route_verdicts(store, scope, claims=claims)

    claimed: dict[tuple[str, str], set[str]] = {}
    for t in store.series():
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
        profiles.append(
            _measured(hour_of_day(store, scope, options.tz)).assign(vantage=vantage_name(vantage))
        )
    profile = pd.concat(profiles, ignore_index=True) if profiles else pd.DataFrame()
    timed_by = store.timed_by(since_us=options.since_us, until_us=options.until_us)
    return Measurements(regions, profile, options, [v for v, _ in scopes], timed_by)


def _measured(profile: pd.DataFrame) -> pd.DataFrame:
    """The hour-of-day rows of the regions with samples or transfers (from the profile's vantage point)."""
    if profile.empty:
        return profile
    amount = profile["sent"].fillna(0) + profile["transfers"].fillna(0)
    measured = amount.groupby([profile["provider"], profile["region"]]).transform("sum") > 0
    return profile[measured.to_numpy()].reset_index(drop=True)


# -- Link quality --------------------------------------------------------------------------------------------


def _side_columns(prefix: str, period: str) -> list[Column]:
    """A period's columns ("Peak samples" …), `period` already in words."""
    return [
        Column(
            f"{prefix}_samples",
            _("{period} samples").format(period=period),
            "int",
            note=_("attempts sent (lost ones included)"),
        ),
        Column(
            f"{prefix}_hours",
            _("{period} hours").format(period=period),
            "int",
            note=_("distinct clock hours measured"),
        ),
        Column(f"{prefix}_rtt_median_ms", _("{period} median RTT").format(period=period), "ms"),
        Column(f"{prefix}_rtt_p95_ms", _("{period} p95 RTT").format(period=period), "ms"),
        Column(
            f"{prefix}_loss",
            _("{period} loss").format(period=period),
            "percent",
            decimals=2,
            colour_scale="low-good",
        ),
        Column(f"{prefix}_jitter_ms", _("{period} jitter").format(period=period), "ms"),
        Column(
            f"{prefix}_throughput_mbps",
            _("{period} throughput").format(period=period),
            "mbps",
            note=_("median over transfers"),
        ),
        Column(
            f"{prefix}_loaded_rtt_increase_ms",
            _("{period} delay added under load").format(period=period),
            "ms",
            colour_scale="low-good",
            note=_("median over responsiveness tests: loaded minus idle RTT"),
        ),
        Column(
            f"{prefix}_rpm",
            _("{period} RPM under load").format(period=period),
            "float",
            decimals=0,
            note=_("round trips per minute"),
        ),
        Column(f"{prefix}_load_tests", _("{period} load tests").format(period=period), "int"),
    ]


def link_quality_columns() -> tuple[Column, ...]:
    """The Link quality sheet's columns, worded in the current language."""
    return (
        Column("provider", _("Provider")),
        Column("region", _("Region")),
        Column("vantage", _("Vantage point")),
        Column("claimed_line_types", _("Claimed line type")),
        *_side_columns("peak", _("Peak")),
        *_side_columns("offpeak", _("Off-peak")),
        Column("p95_diff_ms", _("p95 change at peak"), "ms", note=_("peak minus off-peak")),
        Column("p95_diff_ci_low", _("p95 change, CI low"), "ms", note=_("cluster bootstrap over hours")),
        Column("p95_diff_ci_high", _("p95 change, CI high"), "ms"),
        Column("median_diff_ms", _("Median change at peak"), "ms"),
        Column("loss_diff", _("Loss change at peak"), "percent", decimals=2, note=_("percentage points")),
        Column(
            "loss_diff_ci_low",
            _("Loss change, CI low"),
            "percent",
            decimals=2,
            note=_("Newcombe (Wilson)"),
        ),
        Column("loss_diff_ci_high", _("Loss change, CI high"), "percent", decimals=2),
        Column(
            "breach_share_peak",
            _("Peak hours breaching"),
            "percent",
            colour_scale="low-good",
            note=_("hours with loss over the threshold or p95 spiking over the off-peak p95"),
        ),
        Column("breach_share_offpeak", _("Off-peak hours breaching"), "percent", colour_scale="low-good"),
        Column("verdict", _("Verdict"), width=58, wrap=True),
        Column("period_start", _("Period start"), "datetime", width=20),
        Column("period_end", _("Period end"), "datetime", width=20),
        Column("route_claimed", _("Route: claimed line type")),
        Column("route_measured_class", _("Route: traced class"), note=_("from the stored traceroutes' hops")),
        Column(
            "route_agrees",
            _("Route agrees with claim"),
            "bool",
            note=_("empty: no traces, or a claim no trace can check"),
        ),
        Column("route_traces", _("Route: traces"), "int"),
        Column("route_agreeing_traces", _("Route: traces agreeing"), "int"),
        Column("route_evidence", _("Route evidence"), width=60, wrap=True),
    )


def link_quality_rows(measurements: Measurements) -> list[dict[str, Any]]:
    rows = []
    for region in measurements.regions:
        link = region.link
        c = link.comparison
        row: dict[str, Any] = {
            "provider": link.provider,
            "region": link.region,
            "vantage": vantage_name(link.vantage),
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
    return Sheet(
        "Link quality",
        link_quality_columns(),
        link_quality_rows(measurements),
        freeze_columns=2,
        title=_("Link quality"),
    )


# -- Hour-of-day ----------------------------------------------------------------------------------------------


def hour_of_day_columns(tz: str) -> tuple[Column, ...]:
    return (
        Column("provider", _("Provider")),
        Column("region", _("Region")),
        Column("vantage", _("Vantage point")),
        Column("hour", _("Hour ({tz})").format(tz=tz), "int", width=12),
        Column("sent", _("Samples"), "int"),
        Column("loss", _("Loss"), "percent", decimals=2, colour_scale="low-good"),
        Column("rtt_median_ms", _("Median RTT"), "ms"),
        Column("rtt_p95_ms", _("p95 RTT"), "ms", colour_scale="low-good"),
        Column("rtt_mean_ms", _("Mean RTT"), "ms"),
        Column("jitter_ms", _("Jitter"), "ms"),
        Column(
            "throughput_mbps",
            _("Throughput"),
            "mbps",
            note=_("median over transfers started in this hour"),
        ),
        Column("transfers", _("Transfers"), "int"),
        Column(
            "loaded_rtt_increase_ms",
            _("Delay added under load"),
            "ms",
            colour_scale="low-good",
            note=_("median over responsiveness tests started in this hour"),
        ),
        Column("rpm", _("RPM under load"), "float", decimals=0),
        Column("load_tests", _("Load tests"), "int"),
        Column("hours", _("Days measured"), "int", note=_("how many times this clock hour was measured")),
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
        values = {"provider": block["provider"], "region": block["region"], "vantage": block.get("vantage")}
        if values["vantage"]:
            title = _("{provider}/{region} from {vantage}: RTT by hour").format(**values)
        else:
            title = _("{provider}/{region}: RTT by hour").format(**values)
        charts.append(
            LineChart(
                title=title,
                x_column="hour",
                y_columns=("rtt_median_ms", "rtt_p95_ms"),
                first_row=start,
                last_row=start + 23,
                y_title="ms",
                x_title=_("hour ({tz})").format(tz=options.tz),
            )
        )
    return Sheet(
        "Hour-of-day",
        hour_of_day_columns(options.tz),
        rows,
        charts=charts,
        freeze_columns=2,
        title=_("Hour-of-day"),
    )
