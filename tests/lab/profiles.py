"""Link profiles: what the emulator applies to each direction of a link, and how that changes over time.

A `Profile` is a schedule of `Segment`s (e.g. 0–20 s off-peak, 20–40 s peak hour). Each segment says, for
the `up` direction (office → region) and the `down` direction (region → office): fixed one-way delay,
jitter, independent random loss, bursty loss (Gilbert–Elliott), a rate limit with a drop-tail queue, and
whether jitter may reorder packets. Profiles are plain data (JSON-able) so the test process can hand them to
the emulator process over its control socket.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any


class ProfileError(ValueError):
    """A profile given to the lab is malformed (names the field and what was expected)."""


@dataclass(frozen=True, slots=True)
class GilbertElliott:
    """Two-state bursty loss: Good and Bad states, moved between once per packet.

    `p_enter_bad`: P(Good → Bad) per packet; `p_leave_bad`: P(Bad → Good) per packet;
    `loss_in_bad` / `loss_in_good`: probability a packet is lost in that state.
    """

    p_enter_bad: float
    p_leave_bad: float
    loss_in_bad: float = 1.0
    loss_in_good: float = 0.0

    @classmethod
    def from_loss(cls, loss: float, mean_burst: float) -> GilbertElliott:
        """The simple Gilbert model with long-run loss `loss` and mean burst length `mean_burst` packets."""
        if not 0.0 <= loss < 1.0:
            raise ProfileError(f"burst loss must be in [0, 1), got {loss!r}")
        if mean_burst < 1.0:
            raise ProfileError(f"burst mean_burst must be >= 1 packet, got {mean_burst!r}")
        p_leave = 1.0 / mean_burst
        p_enter = loss * p_leave / (1.0 - loss)
        return cls(p_enter_bad=p_enter, p_leave_bad=p_leave)

    @property
    def mean_loss(self) -> float:
        """Long-run fraction of packets lost."""
        total = self.p_enter_bad + self.p_leave_bad
        if total == 0:
            return self.loss_in_good
        in_bad = self.p_enter_bad / total
        return in_bad * self.loss_in_bad + (1.0 - in_bad) * self.loss_in_good


@dataclass(frozen=True, slots=True)
class Direction:
    """What one direction of a link does to each packet.

    `rate_mbps` counts IP bytes (what the TUN device carries); `queue_ms` is the drop-tail limit of the
    rate limiter's queue, in time at that rate. `jitter_ms` is the standard deviation of a normal
    distribution added to `delay_ms` (the total never goes below zero); unless `reorder`, a packet never
    leaves before the one ahead of it.
    """

    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    loss: float = 0.0
    burst: GilbertElliott | None = None
    rate_mbps: float | None = None
    queue_ms: float = 200.0
    reorder: bool = False

    def __post_init__(self) -> None:
        for name in ("delay_ms", "jitter_ms", "queue_ms"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise ProfileError(f"{name} must be a finite number >= 0, got {value!r}")
        if not 0.0 <= self.loss <= 1.0:
            raise ProfileError(f"loss must be in [0, 1], got {self.loss!r}")
        if self.rate_mbps is not None and not self.rate_mbps > 0:
            raise ProfileError(f"rate_mbps must be > 0 or null, got {self.rate_mbps!r}")

    @property
    def expected_loss(self) -> float:
        """Long-run loss from the random and bursty models together (queue drops not included)."""
        bursty = self.burst.mean_loss if self.burst else 0.0
        return 1.0 - (1.0 - self.loss) * (1.0 - bursty)


@dataclass(frozen=True, slots=True)
class Segment:
    """One stretch of a profile: `duration_s` seconds of the given `up` and `down` behaviour."""

    duration_s: float
    up: Direction = field(default_factory=Direction)
    down: Direction = field(default_factory=Direction)
    label: str = ""

    @property
    def rtt_ms(self) -> float:
        return self.up.delay_ms + self.down.delay_ms


@dataclass(frozen=True, slots=True)
class Profile:
    """A schedule of segments from the moment the profile is applied; `repeat` loops it, else the last
    segment holds forever."""

    segments: tuple[Segment, ...]
    repeat: bool = False

    def __post_init__(self) -> None:
        if not self.segments:
            raise ProfileError("a profile needs at least one segment")
        for i, seg in enumerate(self.segments):
            if not seg.duration_s > 0:
                raise ProfileError(f"segments[{i}].duration_s must be > 0, got {seg.duration_s!r}")

    @property
    def period_s(self) -> float:
        return sum(seg.duration_s for seg in self.segments)

    def index_at(self, elapsed_s: float) -> int:
        """Index of the segment in force `elapsed_s` seconds after the profile was applied."""
        if elapsed_s < 0:
            return 0
        if self.repeat:
            elapsed_s = math.fmod(elapsed_s, self.period_s)
        start = 0.0
        for i, seg in enumerate(self.segments):
            start += seg.duration_s
            if elapsed_s < start:
                return i
        return len(self.segments) - 1

    def segment_at(self, elapsed_s: float) -> Segment:
        return self.segments[self.index_at(elapsed_s)]

    def windows(self, until_s: float) -> list[tuple[float, float, int]]:
        """(start_s, end_s, segment index) for every stretch from 0 up to `until_s`."""
        out: list[tuple[float, float, int]] = []
        start = 0.0
        while start < until_s:
            for i, seg in enumerate(self.segments):
                end = start + seg.duration_s
                last = not self.repeat and i == len(self.segments) - 1
                out.append((start, math.inf if last else end, i))
                if last or end >= until_s:
                    return out
                start = end
        return out

    # --- construction -------------------------------------------------------------------------------------

    @classmethod
    def constant(
        cls,
        rtt_ms: float = 0.0,
        *,
        jitter_ms: float = 0.0,
        loss: float = 0.0,
        burst_loss: float = 0.0,
        mean_burst: float = 3.0,
        rate_mbps: float | None = None,
        queue_ms: float = 200.0,
        label: str = "",
    ) -> Profile:
        """One segment applied to both directions: half the RTT each way, the loss figures per direction."""
        return cls(
            (
                symmetric_segment(
                    3600.0,
                    rtt_ms,
                    jitter_ms=jitter_ms,
                    loss=loss,
                    burst_loss=burst_loss,
                    mean_burst=mean_burst,
                    rate_mbps=rate_mbps,
                    queue_ms=queue_ms,
                    label=label,
                ),
            )
        )

    # --- (de)serialisation --------------------------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Profile:
        try:
            segments = tuple(_segment_from_dict(s) for s in data["segments"])
            return cls(segments=segments, repeat=bool(data.get("repeat", False)))
        except (KeyError, TypeError) as exc:
            raise ProfileError(f"malformed profile: {exc!r}") from exc


def symmetric_segment(
    duration_s: float,
    rtt_ms: float,
    *,
    jitter_ms: float = 0.0,
    loss: float = 0.0,
    burst_loss: float = 0.0,
    mean_burst: float = 3.0,
    rate_mbps: float | None = None,
    queue_ms: float = 200.0,
    label: str = "",
) -> Segment:
    """A segment with the same behaviour both ways; jitter and loss are per direction."""
    burst = GilbertElliott.from_loss(burst_loss, mean_burst) if burst_loss > 0 else None
    one_way = Direction(
        delay_ms=rtt_ms / 2.0,
        jitter_ms=jitter_ms,
        loss=loss,
        burst=burst,
        rate_mbps=rate_mbps,
        queue_ms=queue_ms,
    )
    return Segment(duration_s=duration_s, up=one_way, down=one_way, label=label)


def _direction_from_dict(data: dict[str, Any]) -> Direction:
    burst = data.get("burst")
    return replace(
        Direction(),
        **{k: v for k, v in data.items() if k != "burst"},
        burst=GilbertElliott(**burst) if burst else None,
    )


def _segment_from_dict(data: dict[str, Any]) -> Segment:
    return Segment(
        duration_s=float(data["duration_s"]),
        up=_direction_from_dict(data.get("up", {})),
        down=_direction_from_dict(data.get("down", {})),
        label=str(data.get("label", "")),
    )
