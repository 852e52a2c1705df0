"""Writing test rounds the one way the store takes them (`Store.write_round` of a `MeasuredRound`): the two
shapes tests write in, as one call each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from probes.results import ProbeResult
from probes.store import Store, measured_results, measured_round


def save_round(store: Store, results: Sequence[ProbeResult], **details: Any) -> int:
    """Store the results as one round (`measured_round`'s details: started_us, finished_us, source, plan,
    vantage, peak, meta, slot_us, uid); its id in the store."""
    return store.write_round(measured_round(results, **details)).round_id


def save_results(store: Store, results: Sequence[ProbeResult], **details: Any) -> int | None:
    """Store one run's results as a round, its span from the results (`measured_results`); its id, or None
    when there was nothing to store."""
    measured = measured_results(results, **details)
    return None if measured is None else store.write_round(measured).round_id
