"""Measure targets now and keep the round: the one job `linkvet probe` and the window's Probe screen (in its
child process, `desktop.app.job_process`) run, built in one place as Vorta builds a backup job once for its
button, tray and scheduler.

    job = MeasuringJob(targets, options, location=db, vantage="shanghai", source="probe", interface="cli")
    job.open()                                   # a store that cannot be used is said before measuring
    results = await job.measure(progress=…, on_sample=…)
    kept = job.keep(results)                     # stored; else kept in the spool and said; else lost
    job.close()

Keeping: the round goes into the store; when the store refuses it (full, read-only, locked, its server away)
it waits in the spool and the next `linkvet probe`, agent or window round that reaches the store forwards it;
only when the spool refuses too is it lost. `Kept.problem` is the error that says so (exit 3 in the CLI, a
notice in the window). No Qt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from probes.errors import StoreError, UnstoredRoundsError
from probes.results import Outcome, ProbeResult, ProgressHook
from probes.store_location import StoreLocation
from probes.target import Method, ProbeOptions, Target

if TYPE_CHECKING:
    from probes.methods._context import SampleHook
    from probes.store import MeasuredRound, Store
    from probes.store.delivery import Delivered
    from probes.store.sqlite.spool import Spool


@dataclass(frozen=True, slots=True)
class Kept:
    """What became of a measured round: in the store (`round_id`), or waiting in the spool, or lost."""

    outcome: str  # probes.results.Outcome's value
    round_id: int | None
    reason: str | None  # why the store did not take it
    problem: UnstoredRoundsError | None  # the error to tell the user when it is not in the store

    @property
    def stored(self) -> bool:
        return self.problem is None


class MeasuringJob:
    """One measurement of `targets`, kept as one round (`source` "probe" for the CLI, the window's list name
    for the window; `interface` goes into the round's metadata)."""

    def __init__(
        self,
        targets: Sequence[Target],
        options: ProbeOptions | Mapping[Method, ProbeOptions],
        *,
        location: StoreLocation | None,
        keep: bool = True,
        vantage: str | None = None,
        source: str = "probe",
        interface: str = "cli",
        concurrency: int = 256,
        gap_ms: float = 1.0,
    ) -> None:
        self.targets = tuple(targets)
        self.options = options  # one for every method, or per method
        self.location = location
        self.keeps = keep
        self.vantage = vantage
        self.source = source
        self.interface = interface
        self.concurrency = concurrency
        self.gap_ms = gap_ms
        self._store: Store | None = None

    def open(self) -> None:
        """Open the store now (StoreError when it cannot be used), so that is said before anything is
        measured. Nothing to open without `keep`."""
        if self.keeps and self._store is None:
            from probes.store import Store  # pandas and NumPy load only when there is something to store

            self._store = Store(self.location)

    async def measure(
        self, *, progress: ProgressHook | None = None, on_sample: SampleHook | None = None
    ) -> list[ProbeResult]:
        """Measure every target (paced, at most `concurrency` at once); one result per target, in order."""
        from probes.runner import Runner

        runner = Runner(
            self.options,
            concurrency=self.concurrency,
            gap_ms=self.gap_ms,
            progress=progress,
            on_sample=on_sample,
        )
        return await runner.run(list(self.targets))

    def keep(self, results: Sequence[ProbeResult]) -> Kept | None:
        """Keep the run as one round: in the store, else in the spool; None when nothing was to be kept. A
        store that cannot even be opened now (a full disk, its server gone since) is a refusal like any
        other: the round waits in the spool."""
        if not self.keeps:
            return None
        from probes.paths import default_spool_path
        from probes.store import measured_results
        from probes.store.delivery import Delivery, unstored_error
        from probes.store.sqlite.spool import Spool
        from probes.store_location import identity, location_or_default

        measured = measured_results(
            results, source=self.source, vantage=self.vantage, meta={"interface": self.interface}
        )
        if measured is None:
            return None
        location = location_or_default(self.location)
        spool = Spool(default_spool_path())
        try:
            try:
                self.open()
            except StoreError as exc:
                delivered = _spooled(spool, identity(location), measured, str(exc))
                waiting = spool.count(identity(location)) if delivered.kept else 0
            else:
                assert self._store is not None
                delivery = Delivery(self._store, spool)
                delivered = delivery.deliver(measured)
                waiting = delivery.waiting()
            problem = None
            if delivered.outcome in (Outcome.SPOOLED, Outcome.LOST):
                problem = unstored_error(
                    str(location),
                    spool,
                    spooled=waiting,
                    lost=int(delivered.outcome is Outcome.LOST),
                    reason=delivered.reason,
                )
            return Kept(str(delivered.outcome), delivered.round_id, delivered.reason, problem)
        finally:
            spool.close()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def _spooled(spool: Spool, store: str, measured: MeasuredRound, reason: str) -> Delivered:
    """A round for a store that cannot be opened, into the spool (lost when the spool refuses it too)."""
    from probes.store.delivery import Delivered

    try:
        spool.put(store, measured)
    except StoreError as exc:
        return Delivered(Outcome.LOST, None, f"{reason}; {exc}")
    return Delivered(Outcome.SPOOLED, None, reason)
