"""How much time each side of a peak comparison covers: the minutes measured and, at peak, on how many
evenings.

A side's cells name the UTC hours they lie in (`probes.analysis.cells`). An hour measured at peak counts the
minutes of it that lie inside the peak windows, an hour measured off-peak the minutes outside them: a
15-minute peak window measured once is 15 minutes, not an hour. The peak's evenings are the distinct
occurrences of a window the peak hours fall in, named by the local date the occurrence starts on (a window
that crosses midnight, "22:00-02:00", is one evening): the independent draws a peak figure rests on, since a
congested evening moves all of its samples together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from probes.analysis.clock import US_PER_MINUTE, local_wall_us
from probes.peak import PeakWindow

IntArray = npt.NDArray[np.int64]

_MINUTES_PER_DAY = 24 * 60


@dataclass(frozen=True, slots=True)
class Coverage:
    """One side's measured time: minutes, and (at peak) the evenings; None where it has no hours."""

    minutes: float | None
    evenings: int | None


def _hour_minutes(hours_s: IntArray, windows: Sequence[PeakWindow]) -> tuple[IntArray, IntArray]:
    """For each UTC hour (start in seconds): how many of its minutes lie inside a peak window, and for each
    of its minutes the local day the window occurrence it lies in started on (−1 outside every window)."""
    grid = (hours_s[:, None] * 1_000_000 + np.arange(60, dtype=np.int64)[None, :] * US_PER_MINUTE).ravel()
    inside = np.zeros(grid.size, dtype=np.bool_)
    evening = np.full(grid.size, -1, dtype=np.int64)
    for window in windows:
        mask = window.mask(grid)
        start = window.start.hour * 60 + window.start.minute
        wall_minute = local_wall_us(grid, window.tz) // US_PER_MINUTE
        occurrence = (wall_minute - start) // _MINUTES_PER_DAY  # the local day this occurrence started on
        evening = np.where(mask & (evening < 0), occurrence, evening)
        inside |= mask
    inside_minutes = inside.reshape(hours_s.size, 60).sum(axis=1).astype(np.int64)
    return inside_minutes, evening.reshape(hours_s.size, 60)


def side_coverage(frame: pd.DataFrame, windows: Sequence[PeakWindow]) -> dict[tuple[int, int], Coverage]:
    """(group, peak) → the side's `Coverage`, from cells with `group`, `peak` and `hour_s` columns."""
    if frame.empty:
        return {}
    keys = frame[["group", "peak", "hour_s"]].drop_duplicates()
    hours, where = np.unique(keys["hour_s"].to_numpy(dtype=np.int64), return_inverse=True)
    inside, evenings = _hour_minutes(hours, windows)
    groups = keys["group"].to_numpy(dtype=np.int64)
    peaks = keys["peak"].to_numpy(dtype=np.int64)
    found: dict[tuple[int, int], Coverage] = {}
    for group, peak in sorted(set(zip(groups.tolist(), peaks.tolist(), strict=True))):
        mine = where[(groups == group) & (peaks == peak)]
        if peak:
            days = np.unique(evenings[mine])
            found[(group, peak)] = Coverage(float(inside[mine].sum()), int((days >= 0).sum()))
        else:
            found[(group, peak)] = Coverage(float((60 - inside[mine]).sum()), None)
    return found
