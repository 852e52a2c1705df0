"""How a line behaves over the day: the hour-of-day profile and the day × hour matrix (for a heatmap)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from probes.analysis.cells import merge_cells
from probes.analysis.clock import local_day, local_hour
from probes.analysis.data import Prepared, prepare
from probes.analysis.loads import SUMMARY_COLUMNS, summarise
from probes.analysis.scope import Scope
from probes.store import Store

PROFILE_COLUMNS = (
    "hour",
    "sent",
    "received",
    "loss",
    "rtt_median_ms",
    "rtt_p95_ms",
    "rtt_mean_ms",
    "rtt_min_ms",
    "rtt_max_ms",
    "jitter_ms",
    "hours",
    "throughput_mbps",
    "transfers",
    "loaded_rtt_increase_ms",
    "rpm",
    "load_tests",
)


def hour_of_day(store: Store, scope: Scope | None = None, tz: str = "Asia/Shanghai") -> pd.DataFrame:
    """Per group and local hour of the day (0-23 in `tz`): attempts sent and received, loss, RTT median /
    p95 / mean / min / max, jitter, `hours` (UTC hours measured, i.e. how many days saw this hour),
    median throughput of the transfers started in that hour and their number, the median added delay under
    load and RPM of the responsiveness tests started in that hour and their number. All 24 hours are listed
    for every group; statistics without data are NaN."""
    prepared = prepare(store, scope or Scope(), [local_hour(tz)])
    return hour_of_day_from(prepared)


def hour_of_day_from(prepared: Prepared) -> pd.DataFrame:
    groups = prepared.groups
    merged = merge_cells(prepared.cells, ["group", "hour"]).frame
    grid = pd.MultiIndex.from_product([range(len(groups)), range(24)], names=["group", "hour"])
    table = merged.set_index(["group", "hour"]).reindex(grid)
    transfers = prepared.transfers.groupby(["group", "hour"])["throughput_mbps"]
    table["throughput_mbps"] = transfers.median()
    table["transfers"] = transfers.size()
    loads = summarise(prepared.loads, ["group", "hour"])
    for column in SUMMARY_COLUMNS:
        table[column] = loads[column]
    for column in ("sent", "received", "hours", "transfers", "load_tests"):
        table[column] = table[column].fillna(0).astype("int64")
    return _with_labels(table.reset_index(), groups, list(PROFILE_COLUMNS))


def day_hour_matrix(store: Store, scope: Scope | None = None, tz: str = "Asia/Shanghai") -> pd.DataFrame:
    """Per group, local date and local hour in `tz` (long form; one row per measured cell): sent, loss, RTT
    median / p95 and jitter. `pivot_matrix` turns one group's rows into a date × hour table."""
    prepared = prepare(store, scope or Scope(), [local_day(tz), local_hour(tz)])
    return day_hour_matrix_from(prepared)


def day_hour_matrix_from(prepared: Prepared) -> pd.DataFrame:
    merged = merge_cells(prepared.cells, ["group", "day", "hour"]).frame
    merged["date"] = pd.to_datetime(merged["day"].to_numpy(dtype=np.int64), unit="D").date
    columns = ["date", "hour", "sent", "received", "loss", "rtt_median_ms", "rtt_p95_ms", "jitter_ms"]
    return _with_labels(merged, prepared.groups, columns)


def pivot_matrix(matrix: pd.DataFrame, metric: str = "rtt_p95_ms") -> pd.DataFrame:
    """One group's day × hour rows as a table: one row per date, columns 0-23 (NaN where not measured)."""
    table = matrix.pivot_table(index="date", columns="hour", values=metric, aggfunc="first", dropna=False)
    return table.reindex(columns=range(24))


def _with_labels(frame: pd.DataFrame, groups: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    labelled = groups.iloc[frame["group"].to_numpy(dtype=np.int64)].reset_index(drop=True)
    body = frame[columns].reset_index(drop=True)
    return pd.concat([labelled, body], axis=1)
