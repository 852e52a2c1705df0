"""The one validation of every count, duration, time and size linkvet's measuring takes from a person, with
the same limits whether it comes from a flag or a file: the CLI's argparse types are built from these
(`desktop.cli._common.flag`), and so are the plan's fields (`probes.schedule.plan`), `ProbeOptions` and
`TraceOptions`. NaN and infinities are refused everywhere; so is a number out of range, rather than
overflowing later (`--since 9999999d`, `every = inf`).

    Limit                 a range, whole or not, with its unit; `check(value)` and `parse(text)`
    COUNT, INTERVAL, …    the limits themselves (below)
    parse_duration(v)     seconds from a number or text such as 90s, 5m, 1h30m, 7d, 2w; format_duration
    parse_time(text)      an aware UTC datetime from ISO 8601 text or an age (24h = 24 hours ago),
                          between EARLIEST and LATEST

Every refusal is a `ValueError` whose text says what was given and what was expected; the callers add
where (the flag, the file and line).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from probes.i18n import _

Unit = Literal["seconds", "milliseconds", "bytes"]

# Times linkvet reads: none before the epoch (the store's µs timestamps start there), none past 2200.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)


def _unit_word(unit: Unit) -> str:
    if unit == "seconds":
        return _("seconds")
    if unit == "milliseconds":
        return _("milliseconds")
    return _("bytes")


def _clip(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"


def _shown(number: float) -> str:
    return f"{number:,.0f}".replace(",", "") if float(number).is_integer() else f"{number:g}"


@dataclass(frozen=True, slots=True)
class Limit:
    """`low` ≤ value ≤ `high` (`low` itself refused when `low_open`), a whole number when `integer`."""

    low: float
    high: float
    integer: bool = False
    low_open: bool = False
    unit: Unit | None = None

    def expected(self) -> str:
        """What a valid value is, in words ("a whole number from 1 to 100000")."""
        low, high = _shown(self.low), _shown(self.high)
        if self.unit is not None:
            unit = _unit_word(self.unit)
            if self.low_open:
                return _("a number of {unit} above {low}, at most {high}").format(
                    unit=unit, low=low, high=high
                )
            if self.integer:
                return _("a whole number of {unit} from {low} to {high}").format(
                    unit=unit, low=low, high=high
                )
            return _("a number of {unit} from {low} to {high}").format(unit=unit, low=low, high=high)
        if self.integer:
            return _("a whole number from {low} to {high}").format(low=low, high=high)
        if self.low_open:
            return _("a number above {low}, at most {high}").format(low=low, high=high)
        return _("a number from {low} to {high}").format(low=low, high=high)

    def refusal(self, given: object) -> ValueError:
        return ValueError(_("{value} is not {expected}").format(value=given, expected=self.expected()))

    def check(self, value: object, shown: str | None = None) -> float:
        """`value` when it is within the limit (an int stays an int), else ValueError (naming `shown`, the
        text it came from, when given)."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.refusal(shown or _clip(repr(value)))
        if isinstance(value, float) and not math.isfinite(value):
            raise self.refusal(shown or value)
        if self.integer and not float(value).is_integer():
            raise self.refusal(shown or value)
        if value < self.low or value > self.high or (self.low_open and value == self.low):
            raise self.refusal(shown or _clip(str(value)))
        return int(value) if self.integer else value

    def parse(self, text: str) -> float:
        """A flag's text as a number within the limit (at most 40 characters, so no huge number is ever
        converted), else ValueError."""
        cleaned, shown = text.strip(), _clip(repr(text))
        if self.integer:
            if not re.fullmatch(r"[+-]?[0-9]{1,40}", cleaned):
                raise self.refusal(shown)
            return self.check(int(cleaned), shown)
        if len(cleaned) > 40:
            raise self.refusal(shown)
        try:
            number = float(cleaned)
        except ValueError:
            raise self.refusal(shown) from None
        return self.check(number, shown)


DAY_S = 86_400.0

COUNT = Limit(1, 100_000, integer=True)  # attempts per target
INTERVAL = Limit(0, 3600, unit="seconds")  # between attempts to one target
TIMEOUT = Limit(0, 600, low_open=True, unit="seconds")  # for one reply
PAYLOAD = Limit(0, 65_000, integer=True, unit="bytes")  # ICMP echo payload
MAX_REDIRECTS = Limit(0, 50, integer=True)
DOWNLOAD_BYTES = Limit(1, 2**40, integer=True, unit="bytes")  # a download's byte cap (1 TiB)
DOWNLOAD_SECONDS = Limit(0, 3600, low_open=True, unit="seconds")
CONNECTIONS = Limit(1, 64, integer=True)  # parallel connections of a download
IPERF3_SECONDS = Limit(1, 3600, unit="seconds")
IPERF3_OMIT = Limit(0, 60, unit="seconds")
LOAD_IDLE = Limit(0.5, 600, unit="seconds")  # responsiveness: latency probes before the load
LOAD_PROBE_INTERVAL = Limit(0.01, 10, unit="seconds")  # responsiveness: between latency probes
MAX_HOPS = Limit(1, 255, integer=True)
PROBES_PER_HOP = Limit(1, 100, integer=True)
TRACES = Limit(1, 1000, integer=True)  # traces merged into one verdict
GAP_MS = Limit(0, 10_000, unit="milliseconds")  # between packets to different targets
CONCURRENCY = Limit(1, 10_000, integer=True)
PORT = Limit(1, 65_535, integer=True)
CADENCE = Limit(1, 31 * DAY_S, unit="seconds")  # a plan's every / peak_every / a target's every
GRACE = Limit(0, 3600, unit="seconds")  # for the round in flight when stopping
COMMAND_SECONDS = Limit(0, DAY_S, low_open=True, unit="seconds")  # a time cap on an external command
ROWS = Limit(1, 1_000_000_000, integer=True)  # rows of output (history --limit)
AGE = Limit(0, (LATEST - EARLIEST).total_seconds(), unit="seconds")  # --since 7d

_UNITS = {"w": 7 * DAY_S, "d": DAY_S, "h": 3600.0, "m": 60.0, "s": 1.0}
_PART = re.compile(r"\s*([0-9]{1,12}(?:\.[0-9]{1,9})?)\s*([wdhms])")


def parse_duration(value: object, limit: Limit = CADENCE) -> float:
    """Seconds within `limit`, from a number (seconds) or text such as "90s", "5m", "1h30m", "7d", "2w"
    (units largest first, each at most once). ValueError says what was expected."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise limit.refusal(_clip(repr(value)))
    if isinstance(value, int | float):
        return float(limit.check(value))
    return float(limit.check(_duration_seconds(value), _clip(repr(value))))


def _duration_seconds(value: str) -> float:
    text = value.strip()
    seconds, end, order = 0.0, 0, "wdhms"
    for match in _PART.finditer(text):
        unit = match.group(2)
        if match.start() != end or unit not in order:
            break
        seconds += float(match.group(1)) * _UNITS[unit]
        order = order[order.index(unit) + 1 :]
        end = match.end()
    if not text or end != len(text):
        raise ValueError(
            _("{value} is not a duration (expected e.g. 30s, 5m, 1h30m or 7d)").format(
                value=_clip(repr(value))
            )
        )
    return seconds


def format_duration(seconds: float) -> str:
    """`seconds` as the largest whole unit that divides it: 1h, 5m, 90s."""
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds % 60 == 0:
        return f"{seconds / 60:g}m"
    return f"{seconds:g}s"


def check_time(moment: datetime) -> datetime:
    """`moment` in UTC (naive: read as UTC) when it lies between EARLIEST and LATEST, else ValueError."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    try:
        utc: datetime | None = aware.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59:59-14:00 is in the year 10000 in UTC
        utc = None
    if utc is None or not EARLIEST <= utc < LATEST:
        raise ValueError(
            _("{value} is outside the times linkvet reads ({earliest} to {latest})").format(
                value=moment.isoformat(), earliest=EARLIEST.date(), latest=LATEST.date()
            )
        )
    return utc


def parse_time(text: str, now: datetime | None = None) -> datetime:
    """An aware UTC datetime from ISO 8601 text (UTC unless it says otherwise) or an age ("24h": 24 hours
    before `now`), between EARLIEST and LATEST; ValueError otherwise."""
    cleaned = text.strip()
    if cleaned[-1:] in _UNITS:
        try:
            age = _duration_seconds(cleaned)
        except ValueError:
            pass  # not an age: perhaps ISO text after all
        else:
            start = (now or datetime.now(UTC)).timestamp() - age
            if start < EARLIEST.timestamp():
                raise ValueError(
                    _("{value} reaches back before {earliest}").format(
                        value=_clip(repr(text)), earliest=EARLIEST.date()
                    )
                )
            return check_time(datetime.fromtimestamp(start, UTC))
    try:
        if len(cleaned) > 40:
            raise ValueError(cleaned)
        moment = datetime.fromisoformat(cleaned.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            _(
                "{value} is neither an ISO date/time (2026-11-30 or 2026-11-30T20:00+08:00) nor an age "
                "(24h, 7d)"
            ).format(value=_clip(repr(text)))
        ) from None
    return check_time(moment)
