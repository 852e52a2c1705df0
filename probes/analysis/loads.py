"""Latency under load in the analyses: each stored `responsiveness` test as one row (its group, start and
figures, read from the result's stored metrics), and the per-key summaries the hour-of-day profile and the
peak comparison show.

A test is one unit: its figures (`probes.loaded_latency`) come from its own idle and loaded probes, so
tests measured at different hours are never pooled probe by probe; a period's figure is the median over its
tests, as throughput is the median over transfers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from probes.analysis.clock import Labeler
from probes.analysis.scope import Scope
from probes.store import Store

LOAD_FIGURES = ("loaded_rtt_increase_ms", "loaded_rtt_median_ms", "idle_rtt_median_ms", "rpm")
SUMMARY_COLUMNS = ("loaded_rtt_increase_ms", "rpm", "load_tests")


def load_tests(
    store: Store, scope: Scope, ids: Sequence[int], group_of: dict[int, int], labelers: Sequence[Labeler]
) -> pd.DataFrame:
    """One row per stored responsiveness test of the series `ids` in the scope's period:
    group, series_id, started_us, the `LOAD_FIGURES` (NaN where not measured), one column per label.
    Tests without an increase (the download failed) are left out."""
    results = store.results_frame(ids, scope.since_us, scope.until_us) if ids else None
    columns = ["group", "series_id", "started_us", *LOAD_FIGURES, *(labeler.name for labeler in labelers)]
    if results is None or results.empty:
        return pd.DataFrame({c: pd.Series(dtype="float64") for c in columns})
    metrics = [json.loads(text) if isinstance(text, str) else {} for text in results["metrics_json"]]
    started = results["started_us"].to_numpy(dtype=np.int64)
    frame = pd.DataFrame(
        {
            "group": results["series_id"].map(group_of).to_numpy(dtype=np.int64),
            "series_id": results["series_id"].to_numpy(dtype=np.int64),
            "started_us": started,
            **{name: [_number(m.get(name)) for m in metrics] for name in LOAD_FIGURES},
            **{labeler.name: labeler(started) for labeler in labelers},
        }
    )
    return frame.loc[frame["loaded_rtt_increase_ms"].notna()].reset_index(drop=True)


def summarise(tests: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per key: the median increase and RPM over the tests, and how many tests (`SUMMARY_COLUMNS`)."""
    grouped = tests.groupby(list(keys))
    out = pd.DataFrame(
        {
            "loaded_rtt_increase_ms": grouped["loaded_rtt_increase_ms"].median(),
            "rpm": grouped["rpm"].median(),
            "load_tests": grouped.size(),
        }
    )
    return out


def _number(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return float("nan")
