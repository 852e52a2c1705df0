"""Labels derived from a sample's time: the local hour and day in a time zone, inside a peak window or not.

The store's rollups are per UTC hour and per UTC quarter hour. A rollup can be labelled only if every moment
of its period gets the same label: for an hour, true for the local hour of a zone whose UTC offset is a whole
number of hours (Asia/Shanghai, Europe/Berlin in summer and winter alike), false for Asia/Kolkata (+05:30) or
Asia/Kathmandu (+05:45) and for the hour in which a window such as "20:30-23:00" starts; for a quarter hour,
true for every zone in use (all offsets are multiples of 15 minutes) and every window on a quarter hour.
Offsets and window edges fall on whole minutes, so a label is constant within each UTC minute; checking the
minute starts of a period decides exactly whether it is uniform. Periods that are not (a window edge at
20:10) are answered from the raw samples.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from probes.peak import PeakWindow, mask_any
from probes.peak import check_zone as check_zone  # re-exported: the CLI checks --tz with it

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

US_PER_MINUTE = 60_000_000
US_PER_HOUR = 3_600_000_000
US_PER_DAY = 86_400_000_000


@dataclass(frozen=True, slots=True)
class Labeler:
    """A named function from UTC microsecond timestamps to integer labels."""

    name: str
    func: Callable[[IntArray], IntArray]

    def __call__(self, ts_us: IntArray) -> IntArray:
        return self.func(np.asarray(ts_us, dtype=np.int64))


def local_wall_us(ts_us: IntArray, tz: str) -> IntArray:
    """Local wall-clock time in `tz` as microseconds since 1970-01-01 00:00 (local), for each UTC stamp."""
    stamps = pd.DatetimeIndex(pd.to_datetime(ts_us, unit="us", utc=True)).tz_convert(tz).tz_localize(None)
    return np.asarray(stamps.as_unit("us").asi8, dtype=np.int64)


def local_hour(tz: str) -> Labeler:
    """Hour of the day (0-23) in `tz`."""
    check_zone(tz)
    return Labeler("hour", lambda ts: (local_wall_us(ts, tz) // US_PER_HOUR) % 24)


def local_day(tz: str) -> Labeler:
    """The local date in `tz`, as days since 1970-01-01."""
    check_zone(tz)
    return Labeler("day", lambda ts: local_wall_us(ts, tz) // US_PER_DAY)


def in_peak(windows: Sequence[PeakWindow]) -> Labeler:
    """1 inside any of the peak windows, 0 outside."""
    chosen = tuple(windows)
    return Labeler("peak", lambda ts: mask_any(chosen, ts).astype(np.int64))


def label_periods(
    starts_s: IntArray, period_s: int, labelers: Sequence[Labeler]
) -> tuple[dict[str, IntArray], BoolArray]:
    """Each labeler's label for each UTC period of `period_s` seconds (whole minutes) starting at `starts_s`
    (at its start), and whether every labeler's label is the same throughout the period."""
    starts = np.asarray(starts_s, dtype=np.int64)
    minutes = period_s // 60
    grid = (starts[:, None] * 1_000_000 + np.arange(minutes, dtype=np.int64)[None, :] * US_PER_MINUTE).ravel()
    uniform = np.ones(starts.shape, dtype=np.bool_)
    labels: dict[str, IntArray] = {}
    for labeler in labelers:
        values = labeler(grid).reshape(starts.size, minutes)
        labels[labeler.name] = values[:, 0].copy()
        uniform &= (values == values[:, :1]).all(axis=1)
    return labels, uniform
