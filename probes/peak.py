"""Peak windows: the hours when the team uses the line most and carriers' international links congest.

A window is a time of day range in a named time zone (the zone is part of the window: "20:00-23:00
Asia/Shanghai" is the Shanghai evening wherever the probe runs), optionally on some weekdays only. A window
may cross midnight ("22:00-02:00"). The default is the documents' evening peak in China.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import numpy.typing as npt
import pandas as pd

from probes.errors import PeakWindowError as PeakWindowError  # re-exported: its callers catch it here
from probes.errors import ProbesError, TimeZoneError
from probes.i18n import _

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_PATTERN = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s+(\S+)\s*(?:\s(.+))?$")


def check_zone(tz: str, error: type[ProbesError] = TimeZoneError) -> str:
    """`tz` when it names an IANA time zone, else `error` saying so."""
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise error(
            _("unknown time zone {tz!r} (expected an IANA name such as Asia/Shanghai)").format(tz=tz)
        ) from None
    return tz


@dataclass(frozen=True, slots=True)
class PeakWindow:
    start: time
    end: time
    tz: str
    days: tuple[int, ...] = ()  # 0 = Monday … 6 = Sunday; empty = every day (of the window's start)

    def __post_init__(self) -> None:
        check_zone(self.tz, PeakWindowError)
        if self.start == self.end:
            raise PeakWindowError(_("a peak window must not start and end at the same time"))
        if any(d not in range(7) for d in self.days):
            raise PeakWindowError(_("days must be 0-6 (Monday-Sunday), got {days}").format(days=self.days))

    @classmethod
    def parse(cls, text: str) -> PeakWindow:
        """From "HH:MM-HH:MM Zone/Name [mon,tue,...]"."""
        match = _PATTERN.match(text)
        if not match:
            raise PeakWindowError(
                _("{text!r}: expected 'HH:MM-HH:MM Zone/Name', e.g. '20:00-23:00 Asia/Shanghai'").format(
                    text=text
                )
            )
        h1, m1, h2, m2, tz, days_text = match.groups()
        return cls(_clock(h1, m1, text), _clock(h2, m2, text), tz, parse_days(days_text or ""))

    def __str__(self) -> str:
        days = f" {','.join(DAY_NAMES[d] for d in self.days)}" if self.days else ""
        end = "24:00" if self.end == time(0) and self.start != time(0) else self.end.strftime("%H:%M")
        return f"{self.start:%H:%M}-{end} {self.tz}{days}"

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)

    def contains(self, moment: datetime) -> bool:
        """Whether an aware datetime falls inside the window."""
        if moment.tzinfo is None:
            raise ValueError("contains() needs an aware datetime (UTC)")
        local = moment.astimezone(self.zone)
        minute = local.hour * 60 + local.minute + local.second / 60
        start = self.start.hour * 60 + self.start.minute
        end = self.end.hour * 60 + self.end.minute
        if start < end:
            inside, day = start <= minute < end, local.weekday()
        else:  # crosses midnight: the part after midnight belongs to the previous day's window
            inside = minute >= start or minute < end
            day = local.weekday() if minute >= start else (local.weekday() - 1) % 7
        return inside and (not self.days or day in self.days)

    def mask(self, ts_us: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Vectorised `contains` over UTC microsecond timestamps."""
        stamps = pd.to_datetime(np.asarray(ts_us, dtype=np.int64), unit="us", utc=True).tz_convert(self.tz)
        minute = np.asarray(stamps.hour * 60 + stamps.minute + stamps.second / 60, dtype=np.float64)
        weekday = np.asarray(stamps.day_of_week, dtype=np.int64)
        start = self.start.hour * 60 + self.start.minute
        end = self.end.hour * 60 + self.end.minute
        if start < end:
            inside = (minute >= start) & (minute < end)
            day = weekday
        else:
            inside = (minute >= start) | (minute < end)
            day = np.where(minute >= start, weekday, (weekday - 1) % 7)
        if self.days:
            inside &= np.isin(day, self.days)
        return np.asarray(inside, dtype=np.bool_)


DEFAULT_PEAK_WINDOWS: tuple[PeakWindow, ...] = (PeakWindow(time(20), time(23), "Asia/Shanghai"),)


def in_any(windows: Sequence[PeakWindow], moment: datetime | None = None) -> bool:
    moment = moment or datetime.now(UTC)
    return any(w.contains(moment) for w in windows)


def mask_any(windows: Iterable[PeakWindow], ts_us: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    values = np.asarray(ts_us, dtype=np.int64)
    out = np.zeros(values.shape, dtype=np.bool_)
    for window in windows:
        out |= window.mask(values)
    return out


def parse_days(text: str) -> tuple[int, ...]:
    if not text.strip():
        return ()
    days = []
    for part in re.split(r"[,\s]+", text.strip().lower()):
        if part[:3] not in DAY_NAMES:
            raise PeakWindowError(
                _("unknown day {day!r} (expected mon, tue, wed, thu, fri, sat or sun)").format(day=part)
            )
        days.append(DAY_NAMES.index(part[:3]))
    return tuple(sorted(set(days)))


def _clock(hours: str, minutes: str, whole: str) -> time:
    h, m = int(hours), int(minutes)
    if h == 24 and m == 0:
        return time(0)
    if not (0 <= h <= 23 and 0 <= m <= 59):
        raise PeakWindowError(
            _("{text!r}: {hours}:{minutes} is not a time of day (00:00-24:00)").format(
                text=whole, hours=hours, minutes=minutes
            )
        )
    return time(h, m)
