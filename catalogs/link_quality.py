"""`LinkSummary`: what scoring needs to know about the line from the office to a region.

Scoring's view of a measured line: `to_link_summary` builds it field by field from what the analysis in
`probes` measured (`probes.analysis.MeasuredLink`), `LinkSummary.from_dict` from a `--links` file. Any number
may be `None` (not measured). `catalog_claims`: the line type each catalog region claims, for route checks.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from catalogs.errors import LinkSummaryError
from catalogs.i18n import _, ngettext
from probes.timestamps import utc_seconds
from probes.vantage import THIS_MACHINE

if TYPE_CHECKING:
    from catalogs.loader import CatalogSet
    from probes.analysis import MeasuredLink, Side

_PERIOD_KEYS = (
    "rtt_median_ms",
    "rtt_p95_ms",
    "loss",
    "jitter_ms",
    "throughput_mbps",
    "samples",
    "hours",
    "loaded_rtt_increase_ms",
    "rpm",
    "load_tests",
    "minutes",
    "evenings",
    "throughput_lower_bound",
)
_MEASURED_KEYS = _PERIOD_KEYS[:5]  # the figures of the line itself: some of them make a period measured
_ROUTE_KEYS = ("claimed_line_type", "measured_class", "agrees", "traces", "agreeing_traces", "evidence")
_TOP_KEYS = (
    "provider",
    "region",
    "vantage",
    "period_start",
    "period_end",
    "peak_windows",
    "peak",
    "offpeak",
    "route",
)


# The times a summary may cover: those the measuring side reads (`probes.limits.EARLIEST` / `LATEST`;
# `catalogs` may not import `probes`, tests/catalogs/test_link_quality.py holds the two equal).
EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
LATEST = dt.datetime(2200, 1, 1, tzinfo=dt.UTC)


def _flag(value: Any, where: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise LinkSummaryError(
        _("{where}: expected true, false or null, got {value!r}").format(where=where, value=value)
    )


def _number(value: Any, where: str, *, integer: bool = False) -> Any:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LinkSummaryError(
            _("{where}: expected a number or null, got {value!r}").format(where=where, value=value)
        )
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        finite = False
    if not finite or value < 0:
        raise LinkSummaryError(
            _("{where}: expected a finite number ≥ 0, got {value!r}").format(where=where, value=value)
        )
    if integer:
        if value != int(value):
            raise LinkSummaryError(
                _("{where}: expected a whole number, got {value!r}").format(where=where, value=value)
            )
        return int(value)
    return float(value)


def _signed(value: Any, where: str) -> float | None:
    """A finite number that may be negative (a difference), or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LinkSummaryError(
            _("{where}: expected a finite number or null, got {value!r}").format(where=where, value=value)
        )
    return float(value)


def _text(value: Any, where: str, *, required: bool = False) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise LinkSummaryError(_("{where}: expected text, got {value!r}").format(where=where, value=value))
    return value


def _time(value: Any, where: str) -> dt.datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise LinkSummaryError(
            _("{where}: expected an ISO-8601 UTC time, got {value!r}").format(where=where, value=value)
        )
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise LinkSummaryError(
            _("{where}: expected an ISO-8601 UTC time, got {value!r}").format(where=where, value=value)
        ) from exc
    if parsed.tzinfo is None:
        raise LinkSummaryError(
            _("{where}: the time {value!r} has no time zone (expected UTC, e.g. …Z)").format(
                where=where, value=value
            )
        )
    try:
        utc = parsed.astimezone(dt.UTC)
    except OverflowError:  # 9999-12-31T23:59:59-14:00 is in the year 10000 in UTC
        utc = None
    if utc is None or not EARLIEST <= utc < LATEST:
        raise LinkSummaryError(
            _("{where}: {value!r} is outside the times linkvet reads ({earliest} to {latest})").format(
                where=where, value=value, earliest=EARLIEST.date(), latest=LATEST.date()
            )
        )
    return utc


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _mapping(value: Any, where: str, keys: tuple[str, ...]) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise LinkSummaryError(
            _("{where}: expected an object or null, got {kind}").format(
                where=where, kind=type(value).__name__
            )
        )
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise LinkSummaryError(
            ngettext(
                "{where}: unknown key {unknown} (expected {keys})",
                "{where}: unknown keys {unknown} (expected {keys})",
                len(unknown),
            ).format(where=where, unknown=", ".join(unknown), keys=", ".join(keys))
        )
    return value


@dataclass(frozen=True, slots=True)
class PeriodStats:
    """Line statistics over the peak or off-peak hours of the period."""

    rtt_median_ms: float | None = None
    rtt_p95_ms: float | None = None
    loss: float | None = None  # 0..1
    jitter_ms: float | None = None
    throughput_mbps: float | None = None
    samples: int | None = None
    hours: float | None = None
    # Latency under load (responsiveness tests): the median RTT added while the line is loaded (may be
    # slightly negative: no queue, and noise), the median round trips per minute under load, how many tests.
    loaded_rtt_increase_ms: float | None = None
    rpm: float | None = None
    load_tests: int | None = None
    # The time measured: minutes (an hour at peak counts only its minutes inside the peak windows) and, at
    # peak, on how many evenings (window occurrences): what the trust in a peak figure rests on.
    minutes: float | None = None
    evenings: int | None = None
    # Most of the transfers ended before leaving TCP slow start: `throughput_mbps` is a lower bound.
    throughput_lower_bound: bool | None = None

    @property
    def measured_hours(self) -> float | None:
        """The time measured in hours: the minutes when known, else the hours with samples."""
        return self.minutes / 60 if self.minutes is not None else self.hours

    @classmethod
    def from_dict(cls, data: Any, where: str) -> PeriodStats | None:
        mapping = _mapping(data, where, _PERIOD_KEYS)
        if mapping is None:
            return None
        loss = _number(mapping.get("loss"), f"{where}.loss")
        if loss is not None and loss > 1:
            raise LinkSummaryError(
                _("{where}.loss: expected a fraction 0..1, got {value!r} (percent?)").format(
                    where=where, value=loss
                )
            )
        return cls(
            rtt_median_ms=_number(mapping.get("rtt_median_ms"), f"{where}.rtt_median_ms"),
            rtt_p95_ms=_number(mapping.get("rtt_p95_ms"), f"{where}.rtt_p95_ms"),
            loss=loss,
            jitter_ms=_number(mapping.get("jitter_ms"), f"{where}.jitter_ms"),
            throughput_mbps=_number(mapping.get("throughput_mbps"), f"{where}.throughput_mbps"),
            samples=_number(mapping.get("samples"), f"{where}.samples", integer=True),
            hours=_number(mapping.get("hours"), f"{where}.hours"),
            loaded_rtt_increase_ms=_signed(
                mapping.get("loaded_rtt_increase_ms"), f"{where}.loaded_rtt_increase_ms"
            ),
            rpm=_number(mapping.get("rpm"), f"{where}.rpm"),
            load_tests=_number(mapping.get("load_tests"), f"{where}.load_tests", integer=True),
            minutes=_number(mapping.get("minutes"), f"{where}.minutes"),
            evenings=_number(mapping.get("evenings"), f"{where}.evenings", integer=True),
            throughput_lower_bound=_flag(
                mapping.get("throughput_lower_bound"), f"{where}.throughput_lower_bound"
            ),
        )

    def as_dict(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in _PERIOD_KEYS}

    @property
    def measured(self) -> bool:
        return any(getattr(self, key) is not None for key in _MEASURED_KEYS)


@dataclass(frozen=True, slots=True)
class RouteCheck:
    """The route part of a `LinkSummary`: whether the traced routes match the line type the vendor claims.
    (Not `probes.routes.RouteCheck`, one trace's classification: this is the check of a claim over every
    stored trace of the region, the JSON key `route`.)"""

    claimed_line_type: str | None = None
    measured_class: str | None = None
    agrees: bool | None = None
    traces: int | None = None
    agreeing_traces: int | None = None
    evidence: str | None = None

    @classmethod
    def from_dict(cls, data: Any, where: str) -> RouteCheck | None:
        mapping = _mapping(data, where, _ROUTE_KEYS)
        if mapping is None:
            return None
        agrees = mapping.get("agrees")
        if agrees is not None and not isinstance(agrees, bool):
            raise LinkSummaryError(
                _("{where}.agrees: expected true, false or null, got {value!r}").format(
                    where=where, value=agrees
                )
            )
        return cls(
            claimed_line_type=_text(mapping.get("claimed_line_type"), f"{where}.claimed_line_type"),
            measured_class=_text(mapping.get("measured_class"), f"{where}.measured_class"),
            agrees=agrees,
            traces=_number(mapping.get("traces"), f"{where}.traces", integer=True),
            agreeing_traces=_number(mapping.get("agreeing_traces"), f"{where}.agreeing_traces", integer=True),
            evidence=_text(mapping.get("evidence"), f"{where}.evidence"),
        )

    def as_dict(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in _ROUTE_KEYS}


@dataclass(frozen=True, slots=True)
class LinkSummary:
    """The measured line from one vantage point to one provider region over a period."""

    provider: str
    region: str
    vantage: str | None = None
    period_start: dt.datetime | None = None
    period_end: dt.datetime | None = None
    peak_windows: tuple[str, ...] = ()
    peak: PeriodStats | None = None
    offpeak: PeriodStats | None = None
    route: RouteCheck | None = None

    @classmethod
    def from_dict(cls, data: Any, where: str = "summary") -> LinkSummary:
        """Build from the agreed plain-dict shape; a wrong shape raises `LinkSummaryError` naming the key."""
        mapping = _mapping(data, where, _TOP_KEYS)
        if mapping is None:
            raise LinkSummaryError(_("{where}: expected an object, got null").format(where=where))
        windows = mapping.get("peak_windows") or []
        if not isinstance(windows, list | tuple) or not all(isinstance(w, str) for w in windows):
            raise LinkSummaryError(
                _("{where}.peak_windows: expected a list of text, got {value!r}").format(
                    where=where, value=windows
                )
            )
        start = _time(mapping.get("period_start"), f"{where}.period_start")
        end = _time(mapping.get("period_end"), f"{where}.period_end")
        if start is not None and end is not None and end < start:
            raise LinkSummaryError(
                _("{where}: period_end {end} is before period_start {start}").format(
                    where=where, end=_iso(end), start=_iso(start)
                )
            )
        return cls(
            provider=str(_text(mapping.get("provider"), f"{where}.provider", required=True)),
            region=str(_text(mapping.get("region"), f"{where}.region", required=True)),
            vantage=_text(mapping.get("vantage"), f"{where}.vantage"),
            period_start=start,
            period_end=end,
            peak_windows=tuple(windows),
            peak=PeriodStats.from_dict(mapping.get("peak"), f"{where}.peak"),
            offpeak=PeriodStats.from_dict(mapping.get("offpeak"), f"{where}.offpeak"),
            route=RouteCheck.from_dict(mapping.get("route"), f"{where}.route"),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "region": self.region,
            "vantage": self.vantage,
            "period_start": _iso(self.period_start),
            "period_end": _iso(self.period_end),
            "peak_windows": list(self.peak_windows),
            "peak": self.peak.as_dict() if self.peak else None,
            "offpeak": self.offpeak.as_dict() if self.offpeak else None,
            "route": self.route.as_dict() if self.route else None,
        }


# -- from what the analysis measured, and what the catalogs claim ------------------------------------

# When a region claims several line types ("cn2-gia" and "bgp"), the one a trace can check and the buyer pays
# for: the most specific backbone first (every one of them is in `probes.routes.EXPECTED_CLASS`).
_CLAIM_ORDER = ("cn2-gia", "cn2-gt", "cu-9929", "cmi", "cu-4837", "163")


def catalog_claims(catalogs: CatalogSet) -> dict[tuple[str, str], str]:
    """(provider, region) → the line type the catalog claims for the region, for the route check of traces
    whose targets carry no `line_type` label: the most specific backbone a trace can check, else the first
    claim (`bgp`, which no trace can check). Regions that claim nothing are left out."""
    claims: dict[tuple[str, str], str] = {}
    for catalog in catalogs.providers:
        for region in catalog.regions:
            if not region.line_types:
                continue
            checkable = (t for t in _CLAIM_ORDER if t in region.line_types)
            claims[(catalog.provider.id, region.id)] = next(checkable, region.line_types[0])
    return claims


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def _period(side: Side) -> PeriodStats:
    return PeriodStats(
        rtt_median_ms=_float(side.rtt_median_ms),
        rtt_p95_ms=_float(side.rtt_p95_ms),
        loss=_float(side.loss),
        jitter_ms=_float(side.jitter_ms),
        throughput_mbps=_float(side.throughput_mbps),
        samples=int(side.sent),
        hours=float(side.hours),
        loaded_rtt_increase_ms=_float(side.loaded_rtt_increase_ms),
        rpm=_float(side.rpm),
        load_tests=int(side.load_tests),
        minutes=_float(side.minutes),
        evenings=None if side.evenings is None else int(side.evenings),
        throughput_lower_bound=side.throughput_lower_bound,
    )


def to_link_summary(link: MeasuredLink) -> LinkSummary:
    """The LinkSummary scoring reads, built from the analysis's result field by field (the same object
    `LinkSummary.from_dict(link.as_dict())` gives)."""
    route = link.route
    return LinkSummary(
        provider=link.provider,
        region=link.region,
        vantage=link.vantage,
        period_start=utc_seconds(link.period_start_us),
        period_end=utc_seconds(link.period_end_us),
        peak_windows=tuple(str(w) for w in link.windows),
        peak=_period(link.peak),
        offpeak=_period(link.offpeak),
        route=None
        if route is None
        else RouteCheck(
            claimed_line_type=route.get("claimed_line_type"),
            measured_class=route.get("measured_class"),
            agrees=route.get("agrees"),
            traces=route.get("traces"),
            agreeing_traces=route.get("agreeing_traces"),
            evidence=route.get("evidence"),
        ),
    )


def to_link_summaries(links: Iterable[MeasuredLink]) -> list[LinkSummary]:
    """Every measured line as the summary scoring reads."""
    return [to_link_summary(link) for link in links]


def vantage_text(vantage: str | None) -> str:
    """A summary's vantage point as people read it: its name; "this machine" for the rounds that named none
    (`probes.vantage.THIS_MACHINE`, or a summary that names none)."""
    if vantage is None or vantage == THIS_MACHINE:
        return _("this machine")
    return vantage
