"""The stage of the evaluation story (tests/lab/test_evaluation_story.py): a peak window of a few minutes in
UTC, the links each office sees to each vendor's region (one of them congested inside the window only), and
the rounds each office measures before, inside and after the window.

Both offices measure from the emulated-link lab's one office namespace, one after the other. Before each
round the test sets every region's link to what that office sees: a region's base round trip plus a fixed
extra delay for one of the offices (`EXTRA_MS`), so which office sees each region worse is known before
anything is measured. The congested region's link is a time-varying profile aligned to the window's edges
(calm until the window opens, congested until it closes, calm after), so a round that runs over an edge is
measured as the window says, whatever the machine's speed."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.lab.netlab import Lab
from tests.lab.profiles import Profile, Segment, symmetric_segment

OFFICES = ("shanghai", "beijing")
VENDOR_REGION = {"vendorx": "r1", "steadyco": "r2", "islandco": "r3"}  # the lab region each vendor is at
CONGESTED = "r2"  # steadyco's line: congested at peak only
BASE_RTT_MS = {"r1": 180.0, "r2": 190.0, "r3": 185.0}
EXTRA_MS = {("r1", "beijing"): 40.0, ("r2", "shanghai"): 30.0, ("r3", "beijing"): 40.0}
RATE_MBPS = {"r1": 40.0}  # vendorx's test file comes down at this rate (a transfer of several seconds)
# The congested line at peak: this much more delay (from beijing the round trip stays just inside the line
# score's range, 170-350 ms; from shanghai, 30 ms worse, it is past it), and so much bursty loss each way that
# its loss scores 0 from either office; the jitter stays low (full marks from both), so the round trip alone
# decides which office sees it worse, and its line scores below the unknown score (0.25) from both.
PEAK_EXTRA_MS = 155.0
PEAK_BURST_LOSS = 0.20
FOREVER_S = 3600.0


def worse_office(region: str) -> str:
    """The office that sees `region` worse (its extra delay); the other one sees the base round trip."""
    return next(office for office in OFFICES if (region, office) in EXTRA_MS)


@dataclass(frozen=True)
class Window:
    """The evaluation's peak window: whole minutes in UTC, `start` ≤ t < `end`."""

    start: datetime
    end: datetime

    @classmethod
    def after(cls, seconds: float, minutes: int) -> Window:
        """A window of `minutes` minutes opening on the first whole minute at least `seconds` from now."""
        earliest = datetime.now(UTC) + timedelta(seconds=seconds)
        start = earliest.replace(second=0, microsecond=0) + timedelta(minutes=1)
        return cls(start, start + timedelta(minutes=minutes))

    def __str__(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M} UTC"

    @property
    def start_s(self) -> float:
        return self.start.timestamp()

    @property
    def end_s(self) -> float:
        return self.end.timestamp()


def link(region: str, office: str, window: Window, now_s: float) -> Profile:
    """What `office` sees on the link to `region` from `now_s` on."""
    rtt = BASE_RTT_MS[region] + EXTRA_MS.get((region, office), 0.0)
    rate = RATE_MBPS.get(region)

    def calm(duration_s: float) -> Segment:
        return symmetric_segment(duration_s, rtt, jitter_ms=1.0, rate_mbps=rate, label="calm")

    if region != CONGESTED:
        return Profile((calm(FOREVER_S),))
    segments = []
    if now_s < window.start_s:
        segments.append(calm(window.start_s - now_s))
    if now_s < window.end_s:
        segments.append(
            symmetric_segment(
                window.end_s - max(now_s, window.start_s),
                rtt + PEAK_EXTRA_MS,
                jitter_ms=1.0,
                burst_loss=PEAK_BURST_LOSS,
                mean_burst=2.0,
                rate_mbps=rate,
                label="peak",
            )
        )
    segments.append(calm(FOREVER_S))
    return Profile(tuple(segments))


class Offices:
    """The two offices' machines: each its own home (spool, lock, log), both in the lab's office namespace,
    measuring into the same store."""

    def __init__(self, lab: Lab, root: Path, db: str, env: Callable[[Path], dict[str, str]]) -> None:
        self.lab = lab
        self.root = root
        self.db = db
        self.env = env
        self.rounds: Counter[tuple[str, str]] = Counter()  # (office, off-peak|peak|both) → rounds
        self.log: list[str] = []

    def linkvet(self, office: str, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
        home = self.root / office
        home.mkdir(parents=True, exist_ok=True)
        return self.lab.office_run(
            [sys.executable, "-m", "desktop.cli", *args], env=self.env(home), cwd=home, timeout=timeout
        )

    def measure(self, office: str, evaluation: str, window: Window, phase: str) -> None:
        """One `linkvet schedule --eval --vantage OFFICE --once` round, on the links this office sees; counted
        as off-peak, peak or both (over a window edge: its samples fall on either side, as their times say)."""
        for region in self.lab.regions:
            self.lab.set_profile(link(region, office, window, time.time()), region)
        started = time.time()
        once = ("schedule", "--eval", evaluation, "--vantage", office, "--once", "--quiet", "--db", self.db)
        done = self.linkvet(office, *once)
        finished = time.time()
        if finished < window.start_s or started >= window.end_s:
            inside = "off-peak"
        elif window.start_s <= started and finished < window.end_s:
            inside = "peak"
        else:
            inside = "both"
        self.log.append(
            f"{office} {phase}: {inside} at {started - window.start_s:+.0f} s, {finished - started:.0f} s"
        )
        assert done.returncode == 0, f"{office} {phase}: {done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        assert "Traceback" not in done.stderr
        self.rounds[(office, inside)] += 1

    def until(self, deadline_s: float, round_s: float, evaluation: str, window: Window, phase: str) -> None:
        """Rounds from each office in turn while one more fits before `deadline_s` (a round is given
        `round_s`)."""
        while True:
            for office in OFFICES:
                if time.time() + round_s > deadline_s:
                    return
                self.measure(office, evaluation, window, phase)

    def each(self, evaluation: str, window: Window, phase: str) -> None:
        for office in OFFICES:
            self.measure(office, evaluation, window, phase)


def sleep_until(moment_s: float) -> None:
    time.sleep(max(0.0, moment_s - time.time()))
