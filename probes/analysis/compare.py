"""Peak versus off-peak: each group's figures inside the peak windows and outside them, the differences
with confidence intervals, and a verdict a person reads in one glance ("p95 +84 ms at peak, loss 0.2% →
6.1%")."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from probes import histogram
from probes.analysis.cells import merge_cells
from probes.analysis.clock import in_peak
from probes.analysis.confidence import (
    Interval,
    bootstrap_quantile_difference,
    newcombe_interval,
    wilson_interval,
)
from probes.analysis.coverage import Coverage, side_coverage
from probes.analysis.data import Prepared, prepare
from probes.analysis.loads import summarise
from probes.analysis.scope import Scope
from probes.histogram import Hist
from probes.i18n import _
from probes.loaded_latency import grade
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store import Store


@dataclass(frozen=True, slots=True)
class Side:
    """One side of the comparison (the peak windows, or the rest of the day). None = no data."""

    sent: int
    received: int
    loss: float | None
    loss_ci: Interval | None
    rtt_median_ms: float | None
    rtt_p95_ms: float | None
    rtt_mean_ms: float | None
    jitter_ms: float | None
    throughput_mbps: float | None  # median over transfers
    transfers: int
    hours: int  # distinct UTC hours with attempts on this side
    loaded_rtt_increase_ms: float | None = None  # median over responsiveness tests (`probes.analysis.loads`)
    rpm: float | None = None  # their median RPM
    load_tests: int = 0
    minutes: float | None = None  # the time measured on this side (`probes.analysis.coverage`)
    evenings: int | None = None  # at peak: the distinct window occurrences (evenings) measured
    # Most of its transfers ended before leaving TCP slow start: `throughput_mbps` is a lower bound
    throughput_lower_bound: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        """The `peak` / `offpeak` part of a LinkSummary (`catalogs.link_quality.LinkSummary.as_dict`)."""
        return {
            "rtt_median_ms": self.rtt_median_ms,
            "rtt_p95_ms": self.rtt_p95_ms,
            "loss": self.loss,
            "jitter_ms": self.jitter_ms,
            "throughput_mbps": self.throughput_mbps,
            "samples": self.sent,
            "hours": self.hours,
            "loaded_rtt_increase_ms": self.loaded_rtt_increase_ms,
            "rpm": self.rpm,
            "load_tests": self.load_tests,
            "minutes": self.minutes,
            "evenings": self.evenings,
            "throughput_lower_bound": self.throughput_lower_bound,
        }


@dataclass(frozen=True, slots=True)
class PeakComparison:
    """One group's peak versus off-peak figures. Differences are peak minus off-peak."""

    labels: dict[str, Any]
    peak: Side
    offpeak: Side
    windows: tuple[PeakWindow, ...]
    confidence: float
    median_diff_ci: Interval | None = None  # cluster bootstrap over hours
    p95_diff_ci: Interval | None = None
    loss_diff_ci: Interval | None = field(default=None)  # Newcombe

    @property
    def median_diff_ms(self) -> float | None:
        return _minus(self.peak.rtt_median_ms, self.offpeak.rtt_median_ms)

    @property
    def p95_diff_ms(self) -> float | None:
        return _minus(self.peak.rtt_p95_ms, self.offpeak.rtt_p95_ms)

    @property
    def loss_diff(self) -> float | None:
        return _minus(self.peak.loss, self.offpeak.loss)

    @property
    def verdict(self) -> str:
        return verdict(self)


def compare_peak(
    store: Store,
    scope: Scope | None = None,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
    *,
    confidence: float = 0.95,
    replicates: int = 1000,
    seed: int = 0,
    intervals: bool = True,
) -> list[PeakComparison]:
    """Peak versus off-peak for every group in the scope. With `intervals=False` no confidence intervals
    are computed (faster; the figures are the same)."""
    prepared = prepare(store, scope or Scope(), [in_peak(windows)])
    return compare_peak_from(
        prepared, windows, confidence=confidence, replicates=replicates, seed=seed, intervals=intervals
    )


def compare_peak_from(
    prepared: Prepared,
    windows: Sequence[PeakWindow],
    *,
    confidence: float = 0.95,
    replicates: int = 1000,
    seed: int = 0,
    intervals: bool = True,
) -> list[PeakComparison]:
    groups = prepared.groups
    sides = merge_cells(prepared.cells, ["group", "peak"]).frame.set_index(["group", "peak"])
    transfers = prepared.transfers.groupby(["group", "peak"])
    medians, counts = transfers["throughput_mbps"].median(), transfers["throughput_mbps"].size()
    floors = transfers["lower_bound"].mean() > 0.5  # most transfers too short to leave slow start
    units = None
    if intervals:
        merged_units = merge_cells(prepared.cells, ["group", "peak", "hour_s"], quantiles=())
        units = _UnitsByGroup(merged_units.frame, merged_units.hist, len(groups))
    loads = summarise(prepared.loads, ["group", "peak"])
    covered = side_coverage(prepared.cells.frame, windows)
    out = []
    for number in range(len(groups)):
        labels = {k: _plain(v) for k, v in groups.iloc[number].items()}
        peak = _with_loads(_side(sides, medians, counts, floors, number, 1, confidence), loads, (number, 1))
        offpeak = _with_loads(
            _side(sides, medians, counts, floors, number, 0, confidence), loads, (number, 0)
        )
        peak, offpeak = _covered(peak, covered, (number, 1)), _covered(offpeak, covered, (number, 0))
        rtt_ci: dict[float, Interval | None] = {0.5: None, 0.95: None}
        loss_ci = None
        if intervals and units is not None:
            rtt_ci = units.intervals(number, confidence, replicates, seed)
            loss_ci = newcombe_interval(
                peak.sent - peak.received,
                peak.sent,
                offpeak.sent - offpeak.received,
                offpeak.sent,
                confidence,
            )
        out.append(
            PeakComparison(
                labels=labels,
                peak=peak,
                offpeak=offpeak,
                windows=tuple(windows),
                confidence=confidence,
                median_diff_ci=rtt_ci[0.5],
                p95_diff_ci=rtt_ci[0.95],
                loss_diff_ci=loss_ci,
            )
        )
    return out


def comparisons_frame(comparisons: Sequence[PeakComparison]) -> pd.DataFrame:
    """One row per group: labels, both sides' figures, differences, intervals and the verdict."""
    rows = []
    for c in comparisons:
        row: dict[str, Any] = dict(c.labels)
        for name, side in (("peak", c.peak), ("offpeak", c.offpeak)):
            for key, value in (
                ("sent", side.sent),
                ("loss", side.loss),
                ("loss_ci_low", None if side.loss_ci is None else side.loss_ci[0]),
                ("loss_ci_high", None if side.loss_ci is None else side.loss_ci[1]),
                ("rtt_median_ms", side.rtt_median_ms),
                ("rtt_p95_ms", side.rtt_p95_ms),
                ("jitter_ms", side.jitter_ms),
                ("throughput_mbps", side.throughput_mbps),
                ("hours", side.hours),
                ("loaded_rtt_increase_ms", side.loaded_rtt_increase_ms),
                ("rpm", side.rpm),
                ("load_tests", side.load_tests),
            ):
                row[f"{name}_{key}"] = value
        row["p95_diff_ms"] = c.p95_diff_ms
        row["p95_diff_ci_low"], row["p95_diff_ci_high"] = c.p95_diff_ci or (None, None)
        row["median_diff_ms"] = c.median_diff_ms
        row["median_diff_ci_low"], row["median_diff_ci_high"] = c.median_diff_ci or (None, None)
        row["loss_diff"] = c.loss_diff
        row["loss_diff_ci_low"], row["loss_diff_ci_high"] = c.loss_diff_ci or (None, None)
        row["verdict"] = c.verdict
        rows.append(row)
    return pd.DataFrame(rows)


# -- the verdict -------------------------------------------------------------------------------------------


def verdict(c: PeakComparison) -> str:
    """A plain sentence: how much worse (or better) the line is at peak, e.g. "p95 +84 ms at peak, loss
    0.2% → 6.1%". A change whose confidence interval includes zero, or an RTT change no larger than one
    histogram bucket (2%), is marked "(within noise)". In the current language, each clause one message."""
    parts = []
    if c.peak.sent == 0 and c.offpeak.sent > 0:
        parts.append(_("no peak-hour samples"))
    elif c.offpeak.sent == 0 and c.peak.sent > 0:
        parts.append(_("no off-peak samples"))
    elif c.peak.sent > 0:
        parts.extend(_rtt_and_loss(c))
    if c.peak.throughput_mbps is not None and c.offpeak.throughput_mbps is not None:
        parts.append(
            _("throughput {offpeak} → {peak} Mbit/s").format(
                offpeak=_mbps(c.offpeak.throughput_mbps), peak=_mbps(c.peak.throughput_mbps)
            )
        )
    if c.peak.loaded_rtt_increase_ms is not None and c.offpeak.loaded_rtt_increase_ms is not None:
        before, after = c.offpeak.loaded_rtt_increase_ms, c.peak.loaded_rtt_increase_ms
        parts.append(
            _("under load {offpeak} → {peak} (grade {offpeak_grade} → {peak_grade})").format(
                offpeak=_signed_ms(before),
                peak=_signed_ms(after),
                offpeak_grade=grade(before),
                peak_grade=grade(after),
            )
        )
    if not parts:
        return _("no samples")
    verdict = parts[0]
    for clause in parts[1:]:
        # TRANSLATORS: two clauses of a peak verdict ("p95 +84 ms at peak" and "loss 0.2% → 6.1%")
        verdict = _("{clauses}, {clause}").format(clauses=verdict, clause=clause)
    return verdict


def _rtt_and_loss(c: PeakComparison) -> list[str]:
    parts = []
    if c.peak.received == 0:
        parts.append(_("no replies at peak"))
    elif c.offpeak.received == 0:
        parts.append(_("no replies off-peak"))
    else:
        diff = c.p95_diff_ms
        assert diff is not None
        resolution = (histogram.GROWTH - 1) * max(c.peak.rtt_p95_ms or 0.0, c.offpeak.rtt_p95_ms or 0.0)
        if _straddles(c.p95_diff_ci) or abs(diff) <= resolution:
            parts.append(_("p95 {change} at peak (within noise)").format(change=_signed_ms(diff)))
        else:
            parts.append(_("p95 {change} at peak").format(change=_signed_ms(diff)))
    values = {"offpeak": _percent(c.offpeak.loss), "peak": _percent(c.peak.loss)}
    if c.peak.loss != c.offpeak.loss and _straddles(c.loss_diff_ci):
        parts.append(_("loss {offpeak} → {peak} (within noise)").format(**values))
    else:
        parts.append(_("loss {offpeak} → {peak}").format(**values))
    return parts


def _signed_ms(value: float) -> str:
    """A change in ms with the digits its size needs: a sub-millisecond line's change is not '±0'."""
    size = abs(value)
    if size < 0.0005:
        return "±0 ms"
    digits = 0 if size >= 10 else 1 if size >= 0.1 else 3
    return f"{value:+.{digits}f} ms"


def _percent(fraction: float | None) -> str:
    if fraction is None:
        return "-"
    value = fraction * 100
    if value == 0:
        return "0%"
    if value < 0.1:
        return f"{value:.2f}%"
    return f"{value:.1f}%"


def _mbps(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def _straddles(interval: Interval | None) -> bool:
    return interval is not None and interval[0] <= 0 <= interval[1]


# -- helpers -----------------------------------------------------------------------------------------------


def _side(
    sides: pd.DataFrame,
    medians: pd.Series,
    counts: pd.Series,
    floors: pd.Series,
    group: int,
    peak: int,
    confidence: float,
) -> Side:
    key = (group, peak)
    floor = bool(floors.get(key)) if key in floors.index else None
    if key not in sides.index:
        throughput = _opt(medians.get(key))
        return Side(
            0,
            0,
            None,
            None,
            None,
            None,
            None,
            None,
            throughput,
            int(counts.get(key, 0)),
            0,
            throughput_lower_bound=floor,
        )
    row = sides.loc[key]
    sent, received = int(row["sent"]), int(row["received"])
    return Side(
        sent=sent,
        received=received,
        loss=_opt(row["loss"]),
        loss_ci=wilson_interval(sent - received, sent, confidence),
        rtt_median_ms=_opt(row["rtt_median_ms"]),
        rtt_p95_ms=_opt(row["rtt_p95_ms"]),
        rtt_mean_ms=_opt(row["rtt_mean_ms"]),
        jitter_ms=_opt(row["jitter_ms"]),
        throughput_mbps=_opt(medians.get(key)),
        transfers=int(counts.get(key, 0)),
        hours=int(row["hours"]),
        throughput_lower_bound=floor,
    )


def _covered(side: Side, covered: dict[tuple[int, int], Coverage], key: tuple[int, int]) -> Side:
    """The side with the time it covers (none without measured hours)."""
    found = covered.get(key)
    return side if found is None else replace(side, minutes=found.minutes, evenings=found.evenings)


def _with_loads(side: Side, loads: pd.DataFrame, key: tuple[int, int]) -> Side:
    """The side with its responsiveness tests' figures (`probes.analysis.loads.summarise` rows)."""
    if key not in loads.index:
        return side
    row = loads.loc[key]
    return replace(
        side,
        loaded_rtt_increase_ms=_opt(row["loaded_rtt_increase_ms"]),
        rpm=_opt(row["rpm"]),
        load_tests=int(row["load_tests"]),
    )


class _UnitsByGroup:
    """Hourly units (merged cells keyed by group, peak, hour) split by group once, for the bootstrap."""

    def __init__(self, units: pd.DataFrame, hist: Hist, n_groups: int) -> None:
        self.group = units["group"].to_numpy(dtype=np.int64)  # sorted: merge_cells sorts by its keys
        self.peak = units["peak"].to_numpy(dtype=np.int64)
        self.unit_bounds = np.searchsorted(self.group, np.arange(n_groups + 1))
        order = np.argsort(hist.row, kind="stable")
        self.row, self.bucket, self.count = hist.row[order], hist.bucket[order], hist.count[order]
        self.entry_bounds = np.searchsorted(self.row, self.unit_bounds)

    def intervals(
        self, group: int, confidence: float, replicates: int, seed: int
    ) -> dict[float, Interval | None]:
        """Bootstrap intervals of the peak − off-peak median and p95 for one group."""
        first, last = self.unit_bounds[group], self.unit_bounds[group + 1]
        if first == last:
            return {0.5: None, 0.95: None}
        begin, end = self.entry_bounds[group], self.entry_bounds[group + 1]
        buckets, columns = np.unique(self.bucket[begin:end], return_inverse=True)
        matrix = np.zeros((last - first, buckets.size), dtype=np.int64)
        np.add.at(matrix, (self.row[begin:end] - first, columns), self.count[begin:end])
        peak = self.peak[first:last]
        return bootstrap_quantile_difference(
            matrix[peak == 1],
            matrix[peak == 0],
            histogram.bucket_value(buckets),
            (0.5, 0.95),
            replicates=replicates,
            confidence=confidence,
            seed=seed,
        )


def _opt(value: object) -> float | None:
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return None if math.isnan(number) else number


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _plain(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
