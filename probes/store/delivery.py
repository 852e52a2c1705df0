"""Getting measured rounds into the store, or into the spool until the store can take them.

`Delivery.deliver` first forwards what the spool keeps for this store (oldest first), then stores the new
round; when the store refuses (`StoreError`: no space, read-only, locked past its busy timeout, damaged) the
round goes to the spool, and when the spool refuses too it is lost, which the caller is told (the scheduler
and `linkvet probe` say so and exit 3). Forwarding is idempotent: a round's uid is stored once, so a round
stored but not yet removed from the spool when the process died is only removed the next time. A spooled
round whose slot another round of its plan holds (a second scheduler stored it) is dropped as a double, with
a warning; one whose text cannot be read stays in the spool and is counted as waiting.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from probes.errors import StoreError, UnstoredRoundsError
from probes.i18n import _, clauses, ngettext
from probes.results import Outcome
from probes.store.measured import MeasuredRound, from_json
from probes.store.sqlite.spool import Spool
from probes.store.store import Store
from probes.store.writing import WriteStatus
from probes.timestamps import iso_utc

log = logging.getLogger("linkvet.store")


@dataclass(frozen=True, slots=True)
class Delivered:
    """What became of a round: its outcome, its id in the store (when there), why not (when not)."""

    outcome: Outcome
    round_id: int | None = None
    reason: str | None = None

    @property
    def kept(self) -> bool:
        """In the store or in the spool."""
        return self.outcome is not Outcome.LOST


_WRITTEN = {
    WriteStatus.STORED: Outcome.STORED,
    WriteStatus.ALREADY_STORED: Outcome.ALREADY_STORED,
    WriteStatus.SLOT_TAKEN: Outcome.SLOT_TAKEN,
}


class Delivery:
    """Rounds into `store`, through `spool` when the store refuses them."""

    def __init__(self, store: Store, spool: Spool) -> None:
        self.store = store
        self.spool = spool
        self.forwarded = 0  # rounds this delivery stored from the spool

    def deliver(self, measured: MeasuredRound, *, try_store: bool = True) -> Delivered:
        """Forward the spool, then store the round; spool it if the store refuses (or, without `try_store`,
        at once: the store failed a moment ago)."""
        reason = None
        if try_store:
            try:
                self.forward()
                written = self.store.write_round(measured)
                return Delivered(_WRITTEN[written.status], written.round_id)
            except StoreError as exc:
                reason = str(exc)
        try:
            self.spool.put(self.store.identity, measured)
        except StoreError as exc:
            log.error(
                _(
                    "a measured round (started {started}) is lost: the store refused it ({reason}) and so did "
                    "the spool ({spool})"
                ).format(started=iso_utc(measured.started_us), reason=reason or "-", spool=exc)
            )
            return Delivered(Outcome.LOST, None, f"{reason}; {exc}" if reason else str(exc))
        return Delivered(Outcome.SPOOLED, None, reason)

    def forward(self, *, besides: str | None = None) -> int:
        """Store what the spool keeps for this store, oldest first, but the round `besides` names (the caller
        stores it next, from memory); the number of rounds stored (a round the store had already is only
        removed). A StoreError of the store stops it (the rest stays in the spool)."""
        stored = 0
        for uid, body in self.spool.waiting(self.store.identity, besides=besides):
            try:
                measured = from_json(body)
            except ValueError as exc:
                log.error(
                    _(
                        "{spool}: the spooled round {uid} cannot be read ({problem}); it stays in the spool"
                    ).format(spool=self.spool.path, uid=uid, problem=exc)
                )
                continue
            written = self.store.write_round(measured)
            if written.status is WriteStatus.SLOT_TAKEN:
                log.warning(
                    _(
                        "the spooled round {uid} measured a slot that round {other} of the same plan and vantage "
                        "point already holds in the store: dropped as a double"
                    ).format(uid=uid, other=written.round_id)
                )
            elif written.status is WriteStatus.STORED:
                stored += 1
            self.spool.remove(uid)
        if stored:
            log.info(
                ngettext(
                    "forwarded {count} spooled round into {store}",
                    "forwarded {count} spooled rounds into {store}",
                    stored,
                ).format(count=stored, store=self.store.path)
            )
        self.forwarded += stored
        return stored

    def waiting(self) -> int:
        """Rounds the spool keeps for this store (0 when the spool cannot be read)."""
        try:
            return self.spool.count(self.store.identity)
        except StoreError:
            return 0


def unstored_error(
    store: str, spool: Spool, *, spooled: int, lost: int, reason: str | None
) -> UnstoredRoundsError:
    """The error that says how many measured rounds are not in the store (`store`: where it is, as shown),
    where they wait, and why."""
    lines = []
    if spooled:
        lines.append(
            ngettext(
                "{count} measured round is not in the store {store}: it is kept in the spool {spool} and is "
                "stored by the next `linkvet schedule` or `linkvet probe` that can write the store",
                "{count} measured rounds are not in the store {store}: they are kept in the spool {spool} and "
                "are stored by the next `linkvet schedule` or `linkvet probe` that can write the store",
                spooled,
            ).format(count=spooled, store=store, spool=spool.path)
        )
    if lost:
        lines.append(
            ngettext(
                "{count} measured round is lost: neither the store nor the spool took it",
                "{count} measured rounds are lost: neither the store nor the spool took them",
                lost,
            ).format(count=lost)
        )
    if reason:
        lines.append(_("the store said: {reason}").format(reason=reason))
    return UnstoredRoundsError(clauses(lines), spooled=spooled, lost=lost)
