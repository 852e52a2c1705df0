"""Arrays for the charts, computed on a worker thread from the store's query results (no Qt here).

- `timeline` (in `timeline_data`, re-exported here): raw samples (NaN where lost) plus, per time bin, the
  median, the p5–p95 and min–max "smoke" and the share lost, each box covering only the time of its data.
- `hour_profile`, `day_hour_grid`: the analysis's own hour-of-day profile and day × hour matrix
  (`probes.analysis`, the figures `linkvet export` writes), per target, as arrays for the plots.
- `rtt_cdf`: from the store's hourly rollups, merging their RTT histograms with `probes.histogram`
  (within ±1 % of exact), so a month costs a few thousand rows.
- `peak_spans`: the configured peak windows as hour-of-day spans in the charts' time zone.

The charts list targets (`ChartTarget`: a target as it was measured, under one name and labels, with its
series from every vantage point). A `VantageChoice` narrows every chart to the series of one vantage point
(office): each series is measured from one place and has its own samples and rollups.

Times are UTC epoch seconds; hours of the day are in the time zone the caller names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt
import pandas as pd

from desktop.app.timeline_data import Timeline as Timeline  # re-exported: the bundle's timeline
from desktop.app.timeline_data import timeline as timeline
from probes import histogram
from probes.analysis import Scope, hour_of_day, pivot_matrix
from probes.analysis import day_hour_matrix as analysis_matrix
from probes.analysis.scope import RTT_METHODS, THROUGHPUT_METHODS
from probes.peak import PeakWindow
from probes.store import Store, StoredSeries
from probes.store_location import StoreLocation, exists

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class VantageChoice:
    """Which series the charts draw: every vantage point's (`all`), or one's (`vantage`; `THIS_MACHINE` for
    the rounds that named none)."""

    all: bool = True
    vantage: str | None = None

    def takes(self, vantage: str) -> bool:
        """Whether a series measured from `vantage` is drawn."""
        return self.all or vantage == self.vantage


EVERY_VANTAGE = VantageChoice()


@dataclass(frozen=True, slots=True)
class ChartTarget:
    """A target the charts list: what was measured (`key`) under one name and labels, with its series from
    every vantage point that measured it (`series`, each its own); `id` is its first series' (stable while
    the store keeps it)."""

    id: int
    key: str
    name: str
    method: str
    provider: str | None
    region: str | None
    line_type: str | None
    series: tuple[StoredSeries, ...]

    def series_ids(self, choice: VantageChoice = EVERY_VANTAGE) -> list[int]:
        """The ids of its series that `choice` draws."""
        return [s.id for s in self.series if choice.takes(s.vantage)]


def chart_targets(series: Sequence[StoredSeries]) -> list[ChartTarget]:
    """The series grouped into the targets the charts list (by name, method and labels)."""
    lines: dict[tuple[object, ...], list[StoredSeries]] = {}
    for s in series:
        lines.setdefault((s.key, s.name, s.provider, s.region, s.line_type), []).append(s)
    targets = []
    for mine in lines.values():
        first = min(mine, key=lambda s: s.id)
        targets.append(
            ChartTarget(
                first.id,
                first.key,
                first.name,
                first.method,
                first.provider,
                first.region,
                first.line_type,
                tuple(mine),
            )
        )
    return sorted(targets, key=lambda t: (t.name, t.method, t.id))


def target_scope(
    target: ChartTarget,
    since_us: int | None = None,
    until_us: int | None = None,
    choice: VantageChoice = EVERY_VANTAGE,
) -> Scope:
    """The analysis scope of one chart target: its series that `choice` draws, as one group. Its RTTs are
    its own method's (the analysis counts only ICMP and TCP by default; a chart of an HTTP target shows its
    request times)."""
    methods = RTT_METHODS if target.method in THROUGHPUT_METHODS else (target.method,)
    return Scope(
        by="target",
        series_ids=tuple(target.series_ids(choice)),
        since_us=since_us,
        until_us=until_us,
        rtt_methods=methods,
    )


@dataclass(frozen=True, slots=True)
class HourProfile:
    """Per hour of the day (0-23, in `tz`): RTT median and p95, loss, jitter, attempts, replies, and on how
    many days the hour was measured."""

    tz: str
    median_ms: FloatArray
    p95_ms: FloatArray
    loss: FloatArray
    jitter_ms: FloatArray
    sent: IntArray
    received: IntArray
    days: IntArray


def hour_profile(frame: pd.DataFrame, tz: str) -> HourProfile:
    """One target's rows of `probes.analysis.hour_of_day` as arrays indexed by hour."""
    table = frame.set_index("hour").reindex(range(24)) if not frame.empty else pd.DataFrame(index=range(24))

    def column(name: str) -> FloatArray:
        return table[name].to_numpy(dtype=np.float64) if name in table else np.full(24, np.nan)

    def count(name: str) -> IntArray:
        return np.nan_to_num(column(name), nan=0).astype(np.int64)

    return HourProfile(
        tz,
        column("rtt_median_ms"),
        column("rtt_p95_ms"),
        column("loss"),
        column("jitter_ms"),
        count("sent"),
        count("received"),
        count("hours"),
    )


@dataclass(frozen=True, slots=True)
class DayHourMatrix:
    """Rows are local days (oldest first, every day of the span), columns hours 0-23 in `tz`; NaN where
    nothing was measured."""

    tz: str
    days: list[date]
    median_ms: FloatArray  # shape (days, 24)
    p95_ms: FloatArray
    loss: FloatArray
    sent: IntArray


def day_hour_grid(frame: pd.DataFrame, tz: str) -> DayHourMatrix:
    """One target's rows of `probes.analysis.day_hour_matrix` as day × hour arrays."""
    if frame.empty:
        empty = np.empty((0, 24))
        return DayHourMatrix(tz, [], empty, empty.copy(), empty.copy(), np.empty((0, 24), np.int64))
    first, last = min(frame["date"]), max(frame["date"])
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]

    def grid(metric: str) -> FloatArray:
        values: FloatArray = pivot_matrix(frame, metric).reindex(days).to_numpy(dtype=np.float64)
        return values

    return DayHourMatrix(
        tz,
        days,
        grid("rtt_median_ms"),
        grid("rtt_p95_ms"),
        grid("loss"),
        np.nan_to_num(grid("sent"), nan=0).astype(np.int64),
    )


@dataclass(frozen=True, slots=True)
class Cdf:
    """The share of replies at or below each histogram bucket (`rtt_ms` is the bucket's midpoint)."""

    rtt_ms: FloatArray
    fraction: FloatArray
    received: int

    def curve(self) -> tuple[FloatArray, FloatArray]:
        """The CDF as drawn: flat where no reply fell, rising across each occupied bucket's width (the
        replies of a bucket spread over it: the ogive of grouped data). With few replies it is a staircase,
        with many a smooth curve; it never suggests replies between buckets that hold none."""
        half = math.sqrt(histogram.GROWTH)
        before = np.concatenate(([0.0], self.fraction[:-1]))
        x = np.column_stack((self.rtt_ms / half, self.rtt_ms * half)).ravel()
        y = np.column_stack((before, self.fraction)).ravel()
        return x, y

    def fraction_at(self, rtt_ms: float) -> float | None:
        if self.received == 0:
            return None
        x, y = self.curve()
        return float(np.interp(rtt_ms, x, y, left=0.0, right=1.0))


def rtt_cdf(hourly: pd.DataFrame) -> Cdf:
    if hourly.empty:
        return Cdf(np.empty(0), np.empty(0), 0)
    dense = histogram.merge(
        list(hourly["hist_index"]), list(hourly["hist_count"]), np.zeros(len(hourly), np.int64), 1
    )[0]
    return _cdf_of(dense)


def _cdf_of(dense: npt.NDArray[np.int64]) -> Cdf:
    used = np.flatnonzero(dense)
    total = int(dense.sum())
    if total == 0:
        return Cdf(np.empty(0), np.empty(0), 0)
    return Cdf(histogram.bucket_value(used), np.cumsum(dense[used]) / total, total)


def peak_spans(windows: Sequence[PeakWindow], tz: str, on: date | None = None) -> list[tuple[float, float]]:
    """Each peak window as (start hour, end hour) of the day in `tz` (fractions for minutes), split at
    midnight.

    Windows in another zone are converted for the day `on` (today by default), so daylight-saving shifts
    follow the calendar; weekday restrictions are not drawn.
    """
    day = on or datetime.now(UTC).date()
    zone = ZoneInfo(tz)
    spans: list[tuple[float, float]] = []
    for window in windows:
        start = datetime.combine(day, window.start, tzinfo=window.zone)
        end = datetime.combine(day, window.end, tzinfo=window.zone)
        if end <= start:
            end += timedelta(days=1)
        local_start = start.astimezone(zone)
        length_h = (end - start).total_seconds() / 3600
        begin = local_start.hour + local_start.minute / 60
        finish = begin + length_h
        if finish <= 24:
            spans.append((begin, finish))
        else:
            spans.append((begin, 24.0))
            spans.append((0.0, finish - 24))
    return spans


def utc_offset_s(tz: str, at_s: float) -> int:
    """Seconds east of UTC of zone `tz` at time `at_s` (for the date axis)."""
    offset = datetime.fromtimestamp(at_s, tz=ZoneInfo(tz)).utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


@dataclass(frozen=True, slots=True)
class ChartBundle:
    """Everything the Charts screen draws for one selection, computed in one worker call."""

    tz: str
    current: str | None  # the target the timeline and heatmap show
    timeline: Timeline | None
    matrix: DayHourMatrix | None
    profiles: list[tuple[str, HourProfile]]  # one per compared target
    cdfs: list[tuple[str, Cdf]]
    last_measured_us: int | None = None  # when the current target was last measured, if not in the period
    choice: VantageChoice = EVERY_VANTAGE  # whose rounds they are


def load_stored_targets(db_path: StoreLocation) -> list[ChartTarget]:
    """The targets with measurements in the store at `db_path` ([] when there is no store yet)."""
    if not exists(db_path):
        return []
    with Store(db_path, readonly=True) as store:
        return chart_targets(store.series())


def load_charts(
    db_path: StoreLocation,
    current: tuple[int, str] | None,
    compare: Sequence[tuple[int, str]],
    *,
    tz: str,
    since_us: int | None = None,
    until_us: int | None = None,
    max_bins: int = 600,
    choice: VantageChoice = EVERY_VANTAGE,
) -> ChartBundle:
    """Query the store at `db_path` and compute the charts: `current` and `compare` are (chart target id,
    name); `choice` narrows them to one vantage point's series."""
    wanted = {i for i, _ in compare} | ({current[0]} if current else set())
    with Store(db_path, readonly=True) as store:
        stored = {t.id: t for t in chart_targets(store.series()) if t.id in wanted}
        drawn = {i: stored[i].series_ids(choice) for i in stored}
        samples = store.samples_frame(drawn[current[0]], since_us, until_us) if current else None
        hourly = store.hourly_frame(sorted({s for i, _ in compare for s in drawn[i]}), since_us, until_us)
        latest = None
        if current is not None and samples is not None and samples.empty:
            vantage = None if choice.all else choice.vantage
            latest = store.last_measured_us(stored[current[0]].key, vantage=vantage)

        def scope(target_id: int) -> Scope:
            return target_scope(stored[target_id], since_us, until_us, choice)

        profiles = [(name, hour_profile(hour_of_day(store, scope(i), tz), tz)) for i, name in compare]
        matrix = day_hour_grid(analysis_matrix(store, scope(current[0]), tz), tz) if current else None
    line = None
    if current is not None and samples is not None:
        line = timeline(
            samples["ts_us"].to_numpy(),
            samples["rtt_ms"].to_numpy(),
            samples["result_id"].to_numpy(),
            max_bins=max_bins,
        )
    cdfs = [(name, rtt_cdf(hourly.loc[hourly["series_id"].isin(drawn[i])])) for i, name in compare]
    return ChartBundle(tz, current[1] if current else None, line, matrix, profiles, cdfs, latest, choice)
