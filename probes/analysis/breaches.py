"""How often the line breaks down: the share of intervals (UTC hours) that breach a threshold.

An interval is one UTC hour of one group, split in two where a peak window starts or ends inside it. It
breaches on loss when more than `loss_above` of its attempts were lost, and on latency when its p95 RTT is
over the group's off-peak p95 by more than max(`spike_margin_ms`, `spike_margin_ratio` × off-peak p95).
Intervals with fewer than `min_attempts` attempts are not judged (a single lost echo is not an outage).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probes.analysis.cells import FloatArray, merge_cells
from probes.analysis.clock import in_peak
from probes.analysis.data import Prepared, prepare
from probes.analysis.scope import Scope
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store import Store


@dataclass(frozen=True, slots=True)
class Thresholds:
    loss_above: float = 0.01
    spike_margin_ms: float = 20.0
    spike_margin_ratio: float = 0.10
    min_attempts: int = 10

    def spike_threshold_ms(self, offpeak_p95_ms: FloatArray) -> FloatArray:
        """The p95 above which an hour is a latency spike: the off-peak p95 plus the larger margin."""
        return offpeak_p95_ms + np.maximum(self.spike_margin_ms, self.spike_margin_ratio * offpeak_p95_ms)


def breach_intervals(
    store: Store,
    scope: Scope | None = None,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
    thresholds: Thresholds = Thresholds(),
) -> pd.DataFrame:
    """One row per interval: group labels, hour_s, peak, sent, loss, rtt_p95_ms, judged, loss_breach,
    spike_breach, spike_threshold_ms."""
    return breach_intervals_from(prepare(store, scope or Scope(), [in_peak(windows)]), thresholds)


def breach_intervals_from(prepared: Prepared, thresholds: Thresholds | None = None) -> pd.DataFrame:
    thresholds = thresholds or Thresholds()
    groups = prepared.groups
    units = merge_cells(prepared.cells, ["group", "hour_s", "peak"], quantiles=(0.95,)).frame
    offpeak = merge_cells(prepared.cells, ["group", "peak"], quantiles=(0.95,)).frame
    offpeak = offpeak.loc[offpeak["peak"] == 0].set_index("group")["rtt_p95_ms"]
    baseline = units["group"].map(offpeak).to_numpy(dtype=np.float64)
    threshold = thresholds.spike_threshold_ms(baseline)
    judged = units["sent"].to_numpy() >= thresholds.min_attempts
    p95 = units["rtt_p95_ms"].to_numpy(dtype=np.float64)
    units["spike_threshold_ms"] = threshold
    units["judged"] = judged
    units["loss_breach"] = judged & (units["loss"].to_numpy(dtype=np.float64) > thresholds.loss_above)
    with np.errstate(invalid="ignore"):
        units["spike_breach"] = judged & (p95 > threshold)
    labelled = groups.iloc[units["group"].to_numpy(dtype=np.int64)].reset_index(drop=True)
    columns = [
        "hour_s",
        "peak",
        "sent",
        "loss",
        "rtt_p95_ms",
        "judged",
        "loss_breach",
        "spike_breach",
        "spike_threshold_ms",
    ]
    return pd.concat([labelled, units[["group", *columns]].reset_index(drop=True)], axis=1)


def breach_shares(
    store: Store,
    scope: Scope | None = None,
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS,
    thresholds: Thresholds = Thresholds(),
) -> pd.DataFrame:
    """Per group: intervals judged (all, at peak, off-peak) and the share of them breaching on loss, on
    latency, on either; NaN where no interval was judged."""
    prepared = prepare(store, scope or Scope(), [in_peak(windows)])
    return breach_shares_from(prepared, thresholds)


def breach_shares_from(prepared: Prepared, thresholds: Thresholds | None = None) -> pd.DataFrame:
    intervals = breach_intervals_from(prepared, thresholds or Thresholds())
    first_threshold = intervals.groupby("group")["spike_threshold_ms"].first()
    judged = intervals.loc[intervals["judged"]].copy()
    judged["any_breach"] = judged["loss_breach"] | judged["spike_breach"]
    kinds = ["loss_breach", "spike_breach", "any_breach"]
    groups = prepared.groups
    out = groups.reset_index(drop=True).copy()
    out["spike_threshold_ms"] = first_threshold.reindex(range(len(groups))).to_numpy(dtype=np.float64)
    for suffix, part in (
        ("", judged),
        ("_peak", judged.loc[judged["peak"] == 1]),
        ("_offpeak", judged.loc[judged["peak"] == 0]),
    ):
        by_group = part.groupby("group")
        out[f"intervals{suffix}"] = by_group.size().reindex(range(len(groups)), fill_value=0).to_numpy()
        shares = by_group[kinds].mean().reindex(range(len(groups)))
        for kind in ("loss", "spike", "any"):
            out[f"{kind}_breach_share{suffix}"] = shares[f"{kind}_breach"].to_numpy(dtype=np.float64)
    return out
