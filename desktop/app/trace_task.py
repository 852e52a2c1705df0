"""The Routes screen's trace off the GUI thread: `desktop.app.trace_job` in the probing child process
(`desktop.app.workers.ChildTask`, as the Probe screen's `ProbeTask`), whose frames a pool thread only
relays; the screen's refresh timer decodes them (`collect`) on the GUI thread."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from desktop.app.workers import ChildTask
from probes.store_location import StoreLocation, location_text
from probes.target import Target


class TraceTask(ChildTask):
    """Trace each of `targets` `traces` times with `options` (TraceOptions' fields), storing the traces at
    `db_path` when given. `prefix` starts the child inside another command (see `JobProcess`)."""

    def activity(self) -> str:
        return QCoreApplication.translate("Workers", "tracing")

    def __init__(
        self,
        targets: Sequence[Target],
        options: dict[str, Any],
        traces: int,
        *,
        claimed: str | None,
        db_path: StoreLocation | None,
        vantage: str | None = None,
        networks: Path | None = None,
        prefix: Sequence[str] = (),
    ) -> None:
        super().__init__(
            {
                "kind": "trace",
                "targets": [t.as_dict() for t in targets],
                "options": dict(options),
                "traces": traces,
                "claimed": claimed,
                "db_path": None if db_path is None else location_text(db_path),
                "vantage": vantage,
                "networks": None if networks is None else str(networks),
            },
            prefix,
        )

    def collect(
        self, budget_s: float = 0.004
    ) -> tuple[list[tuple[Any, ...]], list[tuple[int, int, dict[str, Any]]]]:
        """Decode what arrived since the last call, within `budget_s`: the answers (H frames' tuples) and
        the traces that ended ((target number, trace number, TraceResult.as_dict()))."""
        from desktop.app.frames import decode
        from desktop.app.trace_job import HOPS, TRACE

        replies: list[tuple[Any, ...]] = []
        ended: list[tuple[int, int, dict[str, Any]]] = []
        for kind, data in self._collected(budget_s):
            if kind == HOPS:
                replies.extend(decode(data))
            elif kind == TRACE:
                ended.append(decode(data))
        return replies, ended
