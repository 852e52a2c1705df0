"""The timeline's arrays (no Qt here): per-attempt samples binned in time, with per bin the median, the
p5–p95 and min–max "smoke" (as SmokePing draws it), the share lost, and the stretch of time each bin's box
covers. Percentiles follow `probes.stats.percentile` (linear between closest ranks), vectorised over all bins
at once. Times are UTC epoch seconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# Bin widths a reader can reason about ("each box is 5 minutes").
NICE_BIN_SECONDS = (
    1,
    2,
    5,
    10,
    15,
    30,
    60,
    120,
    300,
    600,
    900,
    1800,
    3600,
    7200,
    10800,
    21600,
    43200,
    86400,
    172800,
    604800,
)


def nice_bin_seconds(span_s: float, max_bins: int) -> int:
    """The smallest nice width that covers `span_s` in at most `max_bins` bins."""
    for width in NICE_BIN_SECONDS:
        if span_s / width <= max_bins:
            return width
    return int(math.ceil(span_s / max_bins / 86400) * 86400)


# A box needs enough replies to mean something: min–max two, p5–p95 twenty (with fewer, p5 and p95 lie
# between the two lowest and the two highest replies, so the box would only repeat the min–max box).
MIN_REPLIES_FOR_RANGE = 2
MIN_REPLIES_FOR_P5_P95 = 20


@dataclass(frozen=True, slots=True)
class Timeline:
    """Per time bin the statistics of the attempts in it, and the stretch of time its box covers.

    A box covers its bin's first to last attempt; where the next bin holds attempts too, the two boxes meet
    halfway between their data, so a continuous series draws as continuous smoke, while a short run, a single
    round or the edges of a gap cover only the time their attempts were sent.
    """

    t_s: FloatArray  # every attempt's send time, oldest first
    rtt_ms: FloatArray  # its RTT, NaN where lost
    bin_start_s: FloatArray  # left edge of each bin
    bin_width_s: int
    first_s: FloatArray  # the bin's first and last attempt (NaN where the bin is empty)
    last_s: FloatArray
    cover_start_s: FloatArray  # what the bin's box covers (NaN where the bin is empty)
    cover_end_s: FloatArray
    median_ms: FloatArray  # NaN where nothing came back in the bin
    p5_ms: FloatArray
    p95_ms: FloatArray
    min_ms: FloatArray
    max_ms: FloatArray
    sent: IntArray
    received: IntArray
    loss: FloatArray  # lost / sent, NaN where nothing was sent
    rounds: int  # measuring runs among the attempts (0 where the caller did not say)

    @property
    def bin_centre_s(self) -> FloatArray:
        """The middle of each bin's box (of the bin itself where it is empty)."""
        middle = (self.cover_start_s + self.cover_end_s) / 2
        return np.where(np.isnan(middle), self.bin_start_s + self.bin_width_s / 2, middle)

    @property
    def range_box(self) -> npt.NDArray[np.bool_]:
        """Bins with enough replies for a min–max box."""
        return self.received >= MIN_REPLIES_FOR_RANGE

    @property
    def p5_p95_box(self) -> npt.NDArray[np.bool_]:
        """Bins with enough replies for a p5–p95 box."""
        return self.received >= MIN_REPLIES_FOR_P5_P95

    @property
    def isolated(self) -> npt.NDArray[np.bool_]:
        """Bins with attempts whose neighbours have none (their box stands alone)."""
        has = self.sent > 0
        before = np.concatenate(([False], has[:-1]))
        after = np.concatenate((has[1:], [False]))
        return has & ~before & ~after

    def span_s(self) -> tuple[float, float] | None:
        """First and last attempt, or None without attempts."""
        if self.t_s.size == 0:
            return None
        return float(self.t_s[0]), float(self.t_s[-1])

    def bin_at(self, t_s: float, tolerance_s: float = 0.0) -> int | None:
        """The bin whose box covers time `t_s` (within `tolerance_s`), else the bin containing `t_s`, or None
        outside the timeline."""
        if self.bin_start_s.size == 0:
            return None
        with np.errstate(invalid="ignore"):
            distance = np.maximum(self.cover_start_s - t_s, t_s - self.cover_end_s)
        distance = np.where(np.isnan(distance), np.inf, np.maximum(distance, 0.0))
        nearest = int(np.argmin(distance))
        if distance[nearest] <= tolerance_s:
            return nearest
        index = int((t_s - self.bin_start_s[0]) // self.bin_width_s)
        return index if 0 <= index < self.bin_start_s.size else None

    def median_steps(self) -> tuple[FloatArray, FloatArray]:
        """The median as a step line over each box, broken between boxes that do not meet (a NaN value at a
        real time: the plot's clip-to-view needs x sorted and finite)."""
        has = np.flatnonzero(self.sent > 0)
        if has.size == 0:
            return np.empty(0), np.empty(0)
        start, end, median = self.cover_start_s[has], self.cover_end_s[has], self.median_ms[has]
        meets = np.concatenate((np.diff(has) == 1, [False]))
        x = np.column_stack((start, end, end)).ravel()
        y = np.column_stack((median, median, np.where(meets, median, np.nan))).ravel()
        return x, y

    def trace(self) -> tuple[FloatArray, FloatArray]:
        """The raw attempts as a line: NaN where lost, and a break wherever boxes do not meet (a gap)."""
        if self.t_s.size < 2:
            return self.t_s, self.rtt_ms
        gaps = np.flatnonzero(np.diff(self.bin_of_attempt()) > 1) + 1
        between = (self.t_s[gaps - 1] + self.t_s[gaps]) / 2
        return np.insert(self.t_s, gaps, between), np.insert(self.rtt_ms, gaps, np.nan)

    def bin_of_attempt(self) -> IntArray:
        """Each attempt's bin (attempts are sorted, so this is non-decreasing)."""
        return np.repeat(np.arange(self.sent.size, dtype=np.int64), self.sent)


def _nice_at_least(seconds: float) -> int:
    for width in NICE_BIN_SECONDS:
        if width >= seconds:
            return width
    return int(math.ceil(seconds / 86400) * 86400)


def _empty_timeline(t_s: FloatArray, rtt: FloatArray) -> Timeline:
    empty = np.empty(0)
    none = np.empty(0, np.int64)
    return Timeline(t_s, rtt, empty, 60, *(empty,) * 4, *(empty,) * 5, none, none, empty, 0)


def timeline(
    ts_us: npt.ArrayLike,
    rtt_ms: npt.ArrayLike,
    run_ids: npt.ArrayLike | None = None,
    *,
    max_bins: int = 600,
) -> Timeline:
    """Bin per-attempt samples (send time in UTC µs, RTT in ms or NaN when lost) for the smoke chart.

    The bins span the attempts, not the period asked for. With `run_ids` (which measuring run each attempt
    belongs to, e.g. the store's result ids) the bins are also sized to the measurements: wide enough for
    `MIN_REPLIES_FOR_P5_P95` attempts of a run, at least one round's cadence wide when there is a series
    of rounds (so each bin holds a round), with edges halfway between rounds, and a round no longer than a
    bin falls whole into the bin it starts in.
    """
    ts = np.asarray(ts_us, dtype=np.int64)
    rtt = np.asarray(rtt_ms, dtype=np.float64)
    if ts.shape != rtt.shape:
        raise ValueError("timestamps and RTTs differ in length")
    order = np.argsort(ts, kind="stable")
    ts, rtt = ts[order], rtt[order]
    t_s = ts / 1e6
    if ts.size == 0:
        return _empty_timeline(t_s, rtt)
    first_s, last_s = float(t_s[0]), float(t_s[-1])
    width = nice_bin_seconds(max(last_s - first_s, 1.0), max_bins)
    origin = first_s
    run_start = run_end = None
    rounds = 0
    if run_ids is not None:
        runs = np.asarray(run_ids, dtype=np.int64)[order]
        _, run_of = np.unique(runs, return_inverse=True)
        rounds = int(run_of.max()) + 1
        run_start = np.full(rounds, np.inf)
        run_end = np.full(rounds, -np.inf)
        np.minimum.at(run_start, run_of, t_s)
        np.maximum.at(run_end, run_of, t_s)
        same_run = run_of[1:] == run_of[:-1]
        steps = np.diff(t_s)[same_run]
        steps = steps[steps > 0]
        if steps.size:  # room for a p5–p95 box where the attempts are dense
            width = max(width, _nice_at_least(MIN_REPLIES_FOR_P5_P95 * float(np.median(steps))))
        starts = np.sort(run_start)
        if rounds >= 8:  # a series of rounds: a bin holds at least one, its edges fall between rounds
            cadence = float(np.median(np.diff(starts)))
            if cadence > 0:
                width = max(width, _nice_at_least(cadence * (1 - 1 / (4 * rounds))))
                origin = float(starts[0]) - cadence / 2
        whole = (run_end - run_start) <= width
        bin_time = np.where(whole[run_of], run_start[run_of], t_s)
    else:
        bin_time = t_s
    n_bins = max(1, math.floor((last_s - origin) / width) + 1)
    bin_of = np.clip(np.floor((bin_time - origin) / width).astype(np.int64), 0, n_bins - 1)
    bin_of = np.maximum.accumulate(bin_of)  # sorted attempts, non-decreasing bins
    sent = np.bincount(bin_of, minlength=n_bins).astype(np.int64)
    has = sent > 0
    first_in = np.full(n_bins, np.nan)
    last_in = np.full(n_bins, np.nan)
    begin = np.concatenate(([0], np.cumsum(sent)[:-1]))
    first_in[has] = t_s[begin[has]]
    last_in[has] = t_s[begin[has] + sent[has] - 1]
    cover_start, cover_end = first_in.copy(), last_in.copy()
    meets = has[:-1] & has[1:]
    halfway = (last_in[:-1] + first_in[1:]) / 2
    cover_end[:-1][meets] = halfway[meets]
    cover_start[1:][meets] = halfway[meets]

    got = ~np.isnan(rtt)
    b, v = bin_of[got], rtt[got]
    order = np.lexsort((v, b))
    b, v = b[order], v[order]
    received = np.bincount(b, minlength=n_bins).astype(np.int64)
    starts_v = np.concatenate(([0], np.cumsum(received)[:-1]))

    def percentile(q: float) -> FloatArray:
        out = np.full(n_bins, np.nan)
        full = received > 0
        position = (received[full] - 1) * q / 100.0
        low = np.floor(position).astype(np.int64)
        high = np.minimum(low + 1, received[full] - 1)
        fraction = position - low
        lo_v = v[starts_v[full] + low]
        hi_v = v[starts_v[full] + high]
        out[full] = lo_v + (hi_v - lo_v) * fraction
        return out

    with np.errstate(invalid="ignore", divide="ignore"):
        loss = np.where(has, 1.0 - received / np.maximum(sent, 1), np.nan)
    return Timeline(
        t_s=t_s,
        rtt_ms=rtt,
        bin_start_s=origin + np.arange(n_bins, dtype=np.float64) * width,
        bin_width_s=width,
        first_s=first_in,
        last_s=last_in,
        cover_start_s=cover_start,
        cover_end_s=cover_end,
        median_ms=percentile(50),
        p5_ms=percentile(5),
        p95_ms=percentile(95),
        min_ms=percentile(0),
        max_ms=percentile(100),
        sent=sent,
        received=received,
        loss=loss,
        rounds=rounds,
    )


def duration_text(seconds: float, units: Sequence[str] = ("d", "h", "min", "s")) -> str:
    """A short duration for people: 9 s, 30 s, 5 min, 2 h, 1 d, 3.5 d (`units`: the window's words for
    day, hour, minute, second)."""
    day, hour, minute, second = units
    for unit, size in ((day, 86400), (hour, 3600), (minute, 60)):
        if seconds >= size:
            value = seconds / size
            return f"{value:.0f} {unit}" if abs(value - round(value)) < 0.05 else f"{value:.1f} {unit}"
    return f"{seconds:.0f} {second}" if seconds >= 1 else f"{seconds:.2f} {second}"
