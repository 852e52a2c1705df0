"""Reading a scope's measurements out of the store, ready for the analyses: labelled cells per group (RTT,
loss, jitter) and labelled transfers (throughput)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from probes.analysis.cells import Cells
from probes.analysis.clock import Labeler
from probes.analysis.loads import load_tests
from probes.analysis.scope import Scope, Selected, select
from probes.analysis.sources import build_cells
from probes.store import Store


@dataclass(frozen=True, slots=True)
class Prepared:
    """A scope's data: `cells` (with a `group` column), `transfers` (one row per download/iperf3 result with a
    throughput: group, series_id, started_us, throughput_mbps, one column per label), `loads` (one row per
    responsiveness test, `probes.analysis.loads.load_tests`), the selection."""

    scope: Scope
    selected: Selected
    cells: Cells
    transfers: pd.DataFrame
    first_us: int | None  # the earliest and latest sample, transfer or load test in the scope
    last_us: int | None
    loads: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def groups(self) -> pd.DataFrame:
        return self.selected.groups


def vantages(store: Store, since_us: int | None = None, until_us: int | None = None) -> list[str]:
    """The vantage points with results in the period (`THIS_MACHINE` for rounds that named none), sorted."""
    return store.vantages(since_us=since_us, until_us=until_us)


# A download that ended sooner than this never left TCP slow start on a long line (at 150 ms a flow doubles
# its window 10 times in 1.5 s): its rate is a lower bound of what the line carries.
SHORT_TRANSFER_S = 5.0


def prepare(store: Store, scope: Scope, labelers: Sequence[Labeler]) -> Prepared:
    """Select the scope's series and read their cells and transfers, labelled by `labelers`. A series is
    measured from one vantage point, so a scope narrowed to one office reads that office's own rollups."""
    selected = select(store, scope)
    rtt_ids = selected.ids("rtt")
    throughput_ids = selected.ids("throughput")
    cells = build_cells(store, rtt_ids, labelers, since_us=scope.since_us, until_us=scope.until_us)
    group_of = selected.group_of()
    frame = cells.frame
    frame["group"] = (
        frame["series_id"].map(group_of).astype("int64") if len(frame) else pd.Series(dtype="int64")
    )
    transfers = store.results_frame(throughput_ids, scope.since_us, scope.until_us)
    transfers = transfers.loc[transfers["throughput_mbps"].notna()]
    started = transfers["started_us"].to_numpy(dtype=np.int64)
    transfers = pd.DataFrame(
        {
            "group": transfers["series_id"].map(group_of).to_numpy(dtype=np.int64),
            "series_id": transfers["series_id"].to_numpy(dtype=np.int64),
            "started_us": started,
            "throughput_mbps": transfers["throughput_mbps"].to_numpy(dtype=np.float64),
            # a download too short to leave TCP slow start: its rate is a floor, not the line's
            "lower_bound": (
                (transfers["method"] == "download") & (transfers["seconds"].fillna(0.0) < SHORT_TRANSFER_S)
            ).to_numpy(dtype=np.bool_),
            **{labeler.name: labeler(started) for labeler in labelers},
        }
    )
    loads = load_tests(store, scope, selected.ids("load"), group_of, labelers)
    first, last = _extent(cells, pd.concat([transfers[["started_us"]], loads[["started_us"]]]))
    return Prepared(scope, selected, cells, transfers, first, last, loads)


def _extent(cells: Cells, transfers: pd.DataFrame) -> tuple[int | None, int | None]:
    """The first and last moment with data, to the hour for cells (rollups know only the hour)."""
    starts: list[int] = []
    ends: list[int] = []
    if len(cells.frame):
        hours = cells.frame["hour_s"].to_numpy(dtype=np.int64)
        starts.append(int(hours.min()) * 1_000_000)
        ends.append((int(hours.max()) + 3600) * 1_000_000)
    if len(transfers):
        starts.append(int(transfers["started_us"].min()))
        ends.append(int(transfers["started_us"].max()))
    return (min(starts), max(ends)) if starts else (None, None)
