"""The peak-aware scheduler behind `linkvet schedule`: rounds at a plan's cadence, denser inside its peak
windows, each finished round written to the store in one transaction.

Rounds start on multiples of the cadence counted from the Unix epoch (every 5 minutes means :00, :05, …),
so rounds from different days line up hour by hour. After a restart the scheduler carries on: if the plan's
last stored round is older than one cadence it runs a round at once, otherwise it waits for the next slot.
A stop request (SIGTERM/SIGINT) lets the round in flight finish within a grace period, else drops it: a
round is either stored whole or not at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from probes.errors import StoreError
from probes.peak import in_any
from probes.plan import Plan, PlannedTarget
from probes.results import ProbeResult
from probes.runner import ProgressHook, Runner
from probes.store import Store
from probes.timestamps import now_us

log = logging.getLogger("linkvet.schedule")

MAX_UNSAVED_ROUNDS = 1000

RoundHook = Callable[["RoundReport"], None]


@dataclass(frozen=True, slots=True)
class RoundReport:
    """What one round did (for logs, the CLI and the GUI)."""

    round_id: int | None  # None when nothing was due, or the store refused it (see store_error)
    started_us: int
    finished_us: int
    peak: bool
    results: tuple[ProbeResult, ...]
    store_error: str | None = None  # the round is kept in memory and stored with the next one

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results if not r.ok)

    def describe(self) -> str:
        if not self.results:
            return "nothing was due this round"
        seconds = (self.finished_us - self.started_us) / 1e6
        kind = "peak" if self.peak else "off-peak"
        lossy = sum(1 for r in self.results if r.loss)
        return (
            f"round {self.round_id} ({kind}): {len(self.results)} targets in {seconds:.1f} s, "
            f"{self.failed} failed, {lossy} with loss"
        )


def next_slot(plan: Plan, after_s: float) -> float:
    """The first round start strictly after `after_s` (Unix seconds): the next multiple of the off-peak
    cadence, or an earlier multiple of the peak cadence that falls inside a peak window."""
    off_peak = (math.floor(after_s / plan.every_s) + 1) * plan.every_s
    if plan.peak_every_s >= plan.every_s:
        return off_peak
    slot = (math.floor(after_s / plan.peak_every_s) + 1) * plan.peak_every_s
    while slot < off_peak:
        if in_any(plan.peak_windows, datetime.fromtimestamp(slot, tz=UTC)):
            return slot
        slot += plan.peak_every_s
    return off_peak


def cadence_at(plan: Plan, moment_s: float) -> float:
    """The cadence in force at a moment."""
    return (
        plan.peak_every_s
        if in_any(plan.peak_windows, datetime.fromtimestamp(moment_s, tz=UTC))
        else plan.every_s
    )


class Scheduler:
    """Runs a plan's rounds against a store. `run_once` for one round; `run_until` for the daemon."""

    def __init__(
        self,
        plan: Plan,
        store: Store,
        *,
        privileged: bool | None = None,
        progress: ProgressHook | None = None,
        clock: Callable[[], float] = time.time,
        hooks: Sequence[RoundHook] = (),
    ) -> None:
        self.plan = plan
        self.store = store
        self.privileged = privileged
        self.progress = progress
        self.clock = clock
        # Called on the event loop after each measured round (metrics, alerts): quick, and never raising
        # into the round (a failing hook is logged).
        self.hooks = tuple(hooks)
        # Rounds measured but not yet stored (the store was locked or full): stored first, next time.
        self._unsaved: list[tuple[list[ProbeResult], dict[str, Any]]] = []

    def due_targets(self, now_s: float) -> list[PlannedTarget]:
        """The plan's targets due now (a target with its own `every` waits until that much time has passed)."""
        due = []
        for planned in self.plan.targets:
            if planned.every_s is not None:
                last = self._last_measured_us(planned.target.key)
                # Half a cadence of tolerance, so a target due every hour is not skipped for a few seconds.
                if (
                    last is not None
                    and now_s - last / 1e6 < planned.every_s - cadence_at(self.plan, now_s) / 2
                ):
                    continue
            due.append(planned)
        return due

    async def run_once(self) -> RoundReport:
        """Measure every due target now and store the round; the report of what was done."""
        now_s = self.clock()
        peak = in_any(self.plan.peak_windows, datetime.fromtimestamp(now_s, tz=UTC))
        due = self.due_targets(now_s)
        started = now_us()
        if not due:
            return RoundReport(None, started, now_us(), peak, ())
        runner = Runner(
            dict(self.plan.options),
            concurrency=self.plan.concurrency,
            gap_ms=self.plan.gap_ms,
            privileged=self.privileged,
            progress=self.progress,
        )
        results = await runner.run([p.target for p in due])
        self._unsaved.append(
            (
                results,
                {
                    "source": "schedule",
                    "plan": self.plan.name,
                    "vantage": self.plan.vantage,
                    "peak": peak,
                    "meta": {"plan_path": self.plan.path},
                },
            )
        )
        round_id, store_error = self._store_unsaved()
        report = RoundReport(round_id, started, now_us(), peak, tuple(results), store_error)
        for hook in self.hooks:
            try:
                hook(report)
            except Exception:
                log.exception("a round hook failed (the round itself is done)")
        return report

    def _last_measured_us(self, key: str) -> int | None:
        """When a target was last measured: in the store, or in a round still waiting to be stored."""
        times = [r.started_at_us for results, _ in self._unsaved for r in results if r.target.key == key]
        stored = self.store.last_measured_us(key)
        return max([*times, stored]) if stored is not None else max(times, default=None)

    def _store_unsaved(self) -> tuple[int | None, str | None]:
        """Store the rounds waiting, oldest first: (the last stored round's id, None) or (None, why not)."""
        round_id = None
        while self._unsaved:
            results, details = self._unsaved[0]
            try:
                round_id = self.store.save_results(results, **details)
            except StoreError as exc:
                if len(self._unsaved) > MAX_UNSAVED_ROUNDS:
                    self._unsaved.pop(0)
                    log.error(
                        "dropped the oldest unstored round: %d rounds could not be stored", MAX_UNSAVED_ROUNDS
                    )
                return None, f"{exc}; {len(self._unsaved)} round(s) kept in memory, to be stored next round"
            self._unsaved.pop(0)
        return round_id, None

    def first_start(self) -> float:
        """When the daemon's first round should start: now if the plan's last round is overdue, else the next
        slot."""
        now_s = self.clock()
        last = self.store.rounds(plan=self.plan.name, limit=1)
        if not last or now_s - last[0].started_us / 1e6 >= cadence_at(self.plan, now_s):
            return now_s
        return next_slot(self.plan, now_s)

    async def run_until(
        self,
        stop: asyncio.Event,
        *,
        grace_s: float = 10.0,
        on_round: Callable[[RoundReport], None] | None = None,
    ) -> int:
        """Run rounds until `stop` is set; the number of rounds stored."""
        stored = 0
        start_at = self.first_start()
        while not stop.is_set():
            wait = start_at - self.clock()
            if wait > 0:
                log.info(
                    "next round at %s", datetime.fromtimestamp(start_at, tz=UTC).isoformat(timespec="seconds")
                )
                try:
                    await asyncio.wait_for(stop.wait(), wait)
                    break
                except TimeoutError:
                    pass
            round_task = asyncio.ensure_future(self.run_once())
            stop_task = asyncio.ensure_future(stop.wait())
            await asyncio.wait({round_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
            if not round_task.done():
                log.info("stop requested: giving the round in flight %.0f s to finish", grace_s)
                done, _ = await asyncio.wait({round_task}, timeout=grace_s)
                if not done:
                    round_task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await round_task
                    log.warning("dropped the round in flight (nothing of it was stored)")
                    break
            stop_task.cancel()
            report = round_task.result()
            if report.store_error is not None:
                log.error("could not store the round: %s", report.store_error)
            elif report.round_id is not None:
                stored += 1
                log.info(report.describe())
                for result in report.results:
                    if not result.ok:
                        log.warning(
                            "%s (%s): %s: %s", result.target.name, result.method, result.error, result.message
                        )
            else:
                log.info("nothing due this round")
            if on_round is not None:
                on_round(report)
            start_at = next_slot(self.plan, self.clock())
        return stored
