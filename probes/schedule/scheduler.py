"""The peak-aware scheduler behind `linkvet schedule`: rounds at a plan's cadence, denser inside its peak
windows, each finished round written to the store in one transaction.

Rounds start on multiples of the cadence counted from the Unix epoch (every 5 minutes means :00, :05, …),
so rounds from different days line up hour by hour. After a restart the scheduler carries on: if the plan's
last stored round is older than one cadence it runs a round at once, otherwise it waits for the next slot.
A stop request (SIGTERM/SIGINT) lets the round in flight finish within a grace period, else drops it: a
round is either stored whole or not at all.

Nothing measured is dropped quietly. Each round carries a stable id and the slot it measured; the store keeps
one round per (vantage, plan, slot). A finished round goes to the spool at once and is forwarded into the
store by a writer thread (`probes.store.writer`): a kill at any moment loses at most the round being
measured, a store locked by another process never stops probing, and a store that refuses rounds (full,
read-only, damaged) gets them when it takes rounds again. A slot missed because a round ran long is logged.
One scheduler per plan and vantage point may run on a store: it holds a lock in the store
(`probes.store.locks`) and a second one refuses to start, naming the first.

A PostgreSQL store whose server cannot be reached when the scheduler starts (`StoreUnreachableError`) does not
stop it: it measures into the spool, and tries the store again every retry period of its writer. While the
store is away the lock is pending (no round leaves the spool), and each target's `every` counts from the
last measurement the spool holds. When the server answers, the scheduler takes the lock first — if another
scheduler of the plan and vantage point holds it, this one stops as when its lock is taken over, its rounds
left in the spool — and then forwards the backlog, oldest first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from probes.errors import LockHeldError, StoreError, StoreUnreachableError
from probes.i18n import _, ngettext
from probes.paths import default_spool_path
from probes.peak import in_any
from probes.results import Outcome, ProbeResult, ProgressHook
from probes.runner import Runner
from probes.schedule.plan import Plan, PlannedTarget
from probes.schedule.report import RoundHook, RoundReport
from probes.schedule.timetable import cadence_at, current_slot, lock_name, next_slot, skipped_slots
from probes.store import MeasuredRound, Store, measured_results
from probes.store.delivery import Delivered, Delivery
from probes.store.locks import HEARTBEAT_S, StoreLock
from probes.store.sqlite.spool import Spool
from probes.store.writer import RETRY_S, StoreWriter
from probes.target import Target
from probes.timestamps import iso_second_utc, now_us
from probes.vantage import vantage_of

log = logging.getLogger("linkvet.schedule")

_MAX_SKIPPED_LISTED = 20
_DRAIN_S = 60.0  # at stop, how long the writer may take for what is queued (one busy wait and the spool)


class Scheduler:
    """Runs a plan's rounds against a store. `run_once` for one round; `run_until` for the daemon.

    The store is used only by the scheduler's writer thread once a round has been measured (hand it over,
    and close the scheduler before closing the store). `spool`: where rounds the store refuses wait (default
    `linkvet-spool.sqlite3` in the data directory, created only when needed)."""

    def __init__(
        self,
        plan: Plan,
        store: Store,
        *,
        privileged: bool | None = None,
        progress: ProgressHook | None = None,
        clock: Callable[[], float] = time.time,
        spool: Spool | None = None,
        hooks: Sequence[RoundHook] = (),
        replan: Callable[[], Plan | None] | None = None,
        what: str | None = None,
    ) -> None:
        self.plan = plan
        self.store = store
        self.privileged = privileged
        self.progress = progress
        self.clock = clock
        # Called on the event loop after each measured round has been handed to the store (metrics,
        # alerts): quick, and never raising into the round (a failing hook is logged).
        self.hooks = tuple(hooks)
        # Called in the store thread before each round: the plan to run from now on (None: the same). An
        # office agent's plan follows the evaluations in its store; it keeps its name and vantage point.
        self.replan = replan
        self.spool = spool if spool is not None else Spool(default_spool_path())
        # The store is tried again at the next round after a refusal, but at most every RETRY_S.
        self.writer = StoreWriter(
            Delivery(store, self.spool), retry_s=min(RETRY_S, plan.peak_every_s), ready=self._store_ready
        )
        # `what` says who holds the lock (to a second scheduler that finds it held).
        self.lock = StoreLock(store.backend, lock_name(plan), what or f"linkvet schedule --plan {plan.path}")
        self.lock_lost = False
        # The store could not be reached when the lock was to be taken: rounds stay in the spool until it is.
        self.lock_pending: str | None = None  # why (the store's last answer), while pending
        self._last_measured: dict[str, int] | None = None  # target key → last start (UTC µs), this plan's

    # -- one round ----------------------------------------------------------------------------------------

    def due_targets(self, now_s: float) -> list[PlannedTarget]:
        """The plan's targets due now (a target with its own `every` waits until that much time has passed)."""
        last_measured = self._last_measured if self._last_measured is not None else self._read_last_measured()
        self._last_measured = last_measured
        due = []
        for planned in self.plan.targets:
            every_s = self._every(planned, now_s)
            if every_s is not None:
                last = last_measured.get(planned.target.key)
                # Half a cadence of tolerance, so a target due every hour is not skipped for a few seconds.
                if last is not None and now_s - last / 1e6 < every_s - cadence_at(self.plan, now_s) / 2:
                    continue
            due.append(planned)
        return due

    def _every(self, planned: PlannedTarget, now_s: float) -> float | None:
        """How long a target waits between two measurements at `now_s` (None: it is in every round): its own
        `every`, and in a merged plan its own plan's cadence where that is slower than the merged one's."""
        own: float | None = None
        if planned.own is not None:
            cadence = planned.own.at(datetime.fromtimestamp(now_s, tz=UTC))
            if cadence > cadence_at(self.plan, now_s):
                own = cadence
        if planned.every_s is None:
            return own
        return max(planned.every_s, own or 0.0)

    def _read_last_measured(self) -> dict[str, int]:
        """When each target with its own `every` was last measured, from the store and the rounds the spool
        keeps for it (once; then this process keeps count, whether or not the store took its rounds). A store
        that cannot be read leaves the spool's."""
        keys = {p.target.key for p in self.plan.targets if p.every_s is not None or p.own is not None}
        if not keys:
            return {}
        found: dict[str, int] = {}
        try:
            for key in keys:
                last = self.store.last_measured_us(key, vantage=vantage_of(self.plan.vantage))
                if last is not None:
                    found[key] = last
        except StoreError as exc:
            log.warning(
                _(
                    "cannot read when the targets were last measured from the store ({reason}): counting each "
                    "target's `every` from the rounds in the spool"
                ).format(reason=exc)
            )
        try:
            spooled = self.spool.last_started(self.store.identity, keys)
        except StoreError as exc:
            log.warning(str(exc))
            spooled = {}
        for key, started in spooled.items():
            found[key] = max(started, found.get(key, started))
        return found

    async def measure(self, slot_s: float | None = None) -> tuple[MeasuredRound | None, RoundReport]:
        """Measure every due target now: the round as the store will get it (None when nothing was due) and
        its report (not yet stored)."""
        if self.replan is not None:
            await self._replan()
        now_s = self.clock()
        peak = in_any(self.plan.peak_windows, datetime.fromtimestamp(now_s, tz=UTC))
        if self._last_measured is None:
            self._last_measured = await self.writer.call(self._read_last_measured)
        due = self.due_targets(now_s)
        started = now_us()
        slot_us = None if slot_s is None else round(slot_s * 1_000_000)
        if not due:
            return None, RoundReport(None, started, now_us(), peak, (), slot_us=slot_us)
        runner = Runner(
            dict(self.plan.options),
            concurrency=self.plan.concurrency,
            gap_ms=self.plan.gap_ms,
            privileged=self.privileged,
            progress=self.progress,
        )
        results = _fanned_out(due, await runner.run(_once_each(due)))
        for result in results:
            self._last_measured[result.target.key] = result.started_at_us
        measured = measured_results(
            results,
            source="schedule",
            plan=self.plan.name,
            vantage=self.plan.vantage,
            peak=peak,
            meta={"plan_path": self.plan.path},
            slot_us=slot_us,
        )
        return measured, RoundReport(None, started, now_us(), peak, tuple(results), slot_us=slot_us)

    async def _replan(self) -> None:
        """Take the plan `replan` gives (in the store thread: it may read the store); a failure keeps the plan
        in force (it is logged: the rounds go on), and so does a store that refused a moment ago or is away
        (no round waits for a server that does not answer)."""
        assert self.replan is not None
        if self.writer.resting or self.lock_pending is not None:
            return
        try:
            plan = await self.writer.call(self.replan)
        except Exception:
            log.exception(_("could not renew the plan; measuring as before"))
            return
        if plan is not None:
            self.plan = plan

    async def store_round(self, measured: MeasuredRound, report: RoundReport) -> RoundReport:
        """Hand a measured round to the writer thread; the report with what became of it."""
        delivered = await self.writer.deliver(measured)
        report = _reported(report, delivered)
        for hook in self.hooks:
            try:
                hook(report)
            except Exception:
                log.exception(_("a round hook failed (the round itself is done)"))
        return report

    async def run_once(self, slot_s: float | None = None) -> RoundReport:
        """Measure every due target now and store the round (or spool it); the report of what was done."""
        measured, report = await self.measure(slot_s)
        if measured is None:
            return report
        return await self.store_round(measured, report)

    @property
    def unstored(self) -> int:
        """Measured rounds not in the store: waiting in the spool for this store, or lost."""
        return self.writer.delivery.waiting() + self.writer.lost

    def close(self) -> None:
        """Stop the writer thread (after what it has queued) and close the spool."""
        self.writer.close()
        self.spool.close()

    # -- the daemon ---------------------------------------------------------------------------------------

    def first_start(self) -> float:
        """When the daemon's first round should start: now if the plan's last round is overdue, else the next
        slot."""
        now_s = self.clock()
        if self.lock_pending is not None:
            return now_s  # the store is away: what it holds is not known
        try:
            last = self.store.rounds(plan=self.plan.name, limit=1)
        except StoreError:
            return now_s
        if not last or now_s - last[0].started_us / 1e6 >= cadence_at(self.plan, now_s):
            return now_s
        return next_slot(self.plan, now_s)

    async def take_lock(self) -> None:
        """Hold the plan's lock in the store, or raise LockHeldError naming the scheduler that holds it. A
        store that cannot be reached leaves the lock pending (`lock_pending`): rounds are kept in the spool
        until `run_until` takes it."""
        try:
            await self.writer.call(self.lock.take)
        except LockHeldError as exc:
            raise self._held(exc) from exc
        except StoreUnreachableError as exc:
            self.lock_pending = str(exc)
            log.warning(
                _(
                    "the store cannot be reached, so the lock of plan {plan} (vantage {vantage}) is taken when "
                    "it is back; until then rounds are kept in the spool {spool}"
                ).format(plan=self.plan.name, vantage=self.plan.vantage or "-", spool=self.spool.path)
            )

    def _held(self, exc: LockHeldError) -> LockHeldError:
        holder = exc.holder
        return LockHeldError(
            _(
                "{store}: plan {plan} (vantage {vantage}) is already being measured into this store by "
                "{holder}. Stop that scheduler first, or give this plan another name or vantage point; a "
                "lock left by a scheduler that died is taken over after {stale:.0f} s without a heartbeat"
            ).format(
                store=self.store.path,
                plan=self.plan.name,
                vantage=self.plan.vantage or "-",
                holder=holder.describe() if hasattr(holder, "describe") else holder,
                stale=self.lock.stale_after_s,
            ),
            holder,
        )

    def _store_ready(self) -> None:
        """The writer's check before it uses the store (store thread): not while the lock is pending."""
        if self.lock_pending is not None:
            raise StoreUnreachableError(self.lock_pending)

    def _take_pending_lock(self) -> None:
        """Take the lock that was pending (store thread, so no round is forwarded before it is held)."""
        self.lock.take()
        self.lock_pending = None

    async def release_lock(self) -> None:
        try:
            await self.writer.call(self.lock.release)
        except StoreError as exc:
            log.warning(_("could not release the plan's lock in the store: {reason}").format(reason=exc))

    async def run_until(
        self,
        stop: asyncio.Event,
        *,
        grace_s: float = 10.0,
        on_round: Callable[[RoundReport], None] | None = None,
    ) -> int:
        """Take the plan's lock, run rounds until `stop` is set, store (or spool) every finished round; the
        number of rounds stored. `unstored` says afterwards what is not in the store."""
        await self.take_lock()
        stored_before = self.writer.stored
        saving: set[asyncio.Task[RoundReport]] = set()

        def finished(task: asyncio.Task[RoundReport]) -> None:
            saving.discard(task)
            if task.cancelled():
                return
            report = task.result()
            _log_round(report)
            if report.outcome == Outcome.SPOOLED:
                self._log_backlog()
            if on_round is not None:
                on_round(report)

        heartbeat = asyncio.ensure_future(self._heartbeat(stop))
        try:
            start_at = self.first_start()
            slot_s = current_slot(self.plan, start_at)  # a catch-up round belongs to the slot it falls in
            while not stop.is_set():
                wait = start_at - self.clock()
                if wait > 0:
                    log.info(_("next round at {moment}").format(moment=iso_second_utc(start_at)))
                    try:
                        await asyncio.wait_for(stop.wait(), wait)
                        break
                    except TimeoutError:
                        pass
                round_task = asyncio.ensure_future(self.measure(slot_s))
                stop_task = asyncio.ensure_future(stop.wait())
                await asyncio.wait({round_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
                if not round_task.done():
                    log.info(
                        _("stop requested: giving the round in flight {seconds} s to finish").format(
                            seconds=f"{grace_s:.0f}"
                        )
                    )
                    done, _pending = await asyncio.wait({round_task}, timeout=grace_s)
                    if not done:
                        round_task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await round_task
                        log.warning(_("dropped the round in flight (nothing of it was stored)"))
                        break
                stop_task.cancel()
                measured, report = round_task.result()
                if measured is None:
                    log.info(_("nothing was due this round"))
                    if on_round is not None:
                        on_round(report)
                else:
                    task = asyncio.ensure_future(self.store_round(measured, report))
                    saving.add(task)
                    task.add_done_callback(finished)
                next_s = next_slot(self.plan, self.clock())
                _log_skipped(skipped_slots(self.plan, slot_s, next_s), report)
                start_at = slot_s = next_s
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
            if saving:
                _saved, hung = await asyncio.wait(set(saving), timeout=_DRAIN_S)
                for task in hung:  # the writer hangs (the file system does not answer): said below
                    task.cancel()
                    self.writer.lost += 1
            await self.writer.forward_if_due()
            await self.release_lock()
        return self.writer.stored - stored_before

    def _log_backlog(self) -> None:
        """Say how many rounds wait in the spool for this store (the backlog an operator watches)."""
        waiting = self.writer.delivery.waiting()
        log.warning(
            ngettext(
                "{count} round waits in the spool {spool} for the store {store}",
                "{count} rounds wait in the spool {spool} for the store {store}",
                waiting,
            ).format(count=waiting, spool=self.spool.path, store=self.store.path)
        )

    async def _heartbeat(self, stop: asyncio.Event) -> None:
        """Renew the plan's lock every HEARTBEAT_S; stop the daemon if another scheduler took it over. A pending
        lock is tried every retry period of the writer instead (`_retry_lock`)."""
        while True:
            if self.lock_pending is not None:
                if not await self._retry_lock(stop):
                    return
                continue
            await asyncio.sleep(HEARTBEAT_S)
            try:
                held = await self.writer.call(self.lock.refresh)
            except StoreError as exc:
                log.warning(_("could not renew the plan's lock in the store: {reason}").format(reason=exc))
                continue
            if not held:
                self.lock_lost = True
                log.error(
                    _(
                        "another scheduler took over the lock of plan {plan} (vantage {vantage}) in the "
                        "store: stopping this one"
                    ).format(plan=self.plan.name, vantage=self.plan.vantage or "-")
                )
                stop.set()
                return

    async def _retry_lock(self, stop: asyncio.Event) -> bool:
        """Try the pending lock after a retry period; once taken, forward the spool. False when another
        scheduler holds it (this one stops, its rounds left in the spool)."""
        await asyncio.sleep(self.writer.retry_s)
        try:
            await self.writer.call(self._take_pending_lock)
        except LockHeldError as exc:
            self.lock_lost = True
            log.error(
                _(
                    "the store is back, but plan {plan} (vantage {vantage}) is already being measured into it "
                    "by {holder}: stopping this scheduler; its rounds stay in the spool {spool}"
                ).format(
                    plan=self.plan.name,
                    vantage=self.plan.vantage or "-",
                    holder=exc.holder.describe() if hasattr(exc.holder, "describe") else exc.holder,
                    spool=self.spool.path,
                )
            )
            stop.set()
            return False
        except StoreError as exc:
            self.lock_pending = str(exc)
            return True
        waiting = self.writer.delivery.waiting()
        log.warning(
            ngettext(
                "the store {store} is back: took the lock of plan {plan}; forwarding the {count} round "
                "waiting in the spool",
                "the store {store} is back: took the lock of plan {plan}; forwarding the {count} rounds "
                "waiting in the spool, oldest first",
                waiting,
            ).format(store=self.store.path, plan=self.plan.name, count=waiting)
        )
        await self.writer.forward_now()
        return True


def _once_each(due: Sequence[PlannedTarget]) -> list[Target]:
    """What a round probes: each target (key) once, however many label sets the plan lists it under."""
    first: dict[str, Target] = {}
    for planned in due:
        first.setdefault(planned.target.key, planned.target)
    return list(first.values())


def _fanned_out(due: Sequence[PlannedTarget], results: Sequence[ProbeResult]) -> list[ProbeResult]:
    """Each planned target's result: a target (key) a merged plan lists under several label sets (two
    evaluations' candidates) was probed once, and its result is stored under each of them."""
    by_key: dict[str, tuple[Target, ProbeResult]] = {}
    for probed, result in zip(_once_each(due), results, strict=True):
        by_key[probed.key] = (probed, result)
    out = []
    for planned in due:
        probed, result = by_key[planned.target.key]
        wanted = planned.target
        if wanted is probed:
            out.append(result)
            continue
        relabelled = replace(
            result.target,
            name=wanted.name,
            provider=wanted.provider,
            region=wanted.region,
            line_type=wanted.line_type,
        )
        out.append(replace(result, target=relabelled))
    return out


def _reported(report: RoundReport, delivered: Delivered) -> RoundReport:
    error = None
    if delivered.outcome in (Outcome.SPOOLED, Outcome.LOST):
        error = delivered.reason or delivered.outcome.value
    return replace(report, round_id=delivered.round_id, store_error=error, outcome=delivered.outcome.value)


def _log_round(report: RoundReport) -> None:
    note = report.store_note()
    if note is None:
        log.info(report.describe())
    elif report.outcome == Outcome.SLOT_TAKEN:
        log.warning(note)
    else:
        log.error(note)
    for result in report.results:
        if not result.ok:
            log.warning("%s (%s): %s: %s", result.target.name, result.method, result.error, result.message)


def _log_skipped(skipped: list[float], report: RoundReport) -> None:
    if not skipped:
        return
    shown = ", ".join(iso_second_utc(s) for s in skipped[:_MAX_SKIPPED_LISTED])
    more = len(skipped) - _MAX_SKIPPED_LISTED
    log.warning(
        ngettext(
            "skipped {count} slot ({slots}): the round before took {seconds:.1f} s",
            "skipped {count} slots ({slots}{more}): the round before took {seconds:.1f} s",
            len(skipped),
        ).format(
            count=len(skipped),
            slots=shown,
            more=_(", … {count} more").format(count=more) if more > 0 else "",
            seconds=(report.finished_us - report.started_us) / 1e6,
        )
    )
