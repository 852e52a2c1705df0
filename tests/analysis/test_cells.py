"""The cell engine: raw samples reproduce the store's rollups, and histogram quantiles match the core's."""

from __future__ import annotations

import numpy as np
import pytest

from probes import histogram
from probes.analysis.cells import Hist, cells_from_rollups, cells_from_samples, hist_quantiles, merge_cells
from probes.store import Store
from probes.store.rollup import HOUR_S, QUARTER_S


@pytest.mark.parametrize("q", [0.0, 0.25, 0.5, 0.95, 0.99, 1.0])
@pytest.mark.parametrize("rows", [3, 6000])  # the dense and the sparse path
def test_hist_quantiles_match_the_core(q: float, rows: int) -> None:
    rng = np.random.default_rng(rows)
    row = rng.integers(0, rows, 40_000)
    bucket = histogram.bucket_of(rng.lognormal(5, 0.3, 40_000))
    count = rng.integers(1, 5, 40_000)
    hist = Hist(row, bucket, count)
    ours = hist_quantiles(hist, rows + 2, q)  # two rows without data
    dense = hist.dense(rows + 2)
    expected = histogram.quantiles(dense, q)
    for got, want in zip(ours, expected, strict=True):
        if want is None:
            assert np.isnan(got)
        else:
            assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("period_s", [HOUR_S, QUARTER_S])
def test_cells_from_raw_samples_equal_the_stores_rollups(week_store: Store, period_s: int) -> None:
    keys = ["series_id", "hour_s"]
    rollups = merge_cells(cells_from_rollups(week_store.rollups(period_s), {}), keys)
    raw = merge_cells(cells_from_samples(week_store.samples_frame(), []), keys)
    a, b = rollups.frame, raw.frame
    assert len(a) == len(b) > 0
    for column in ("series_id", "hour_s", "sent", "received", "jitter_pairs"):
        assert (a[column].to_numpy() == b[column].to_numpy()).all(), column
    for column in ("rtt_sum_ms", "rtt_min_ms", "rtt_max_ms", "jitter_sum_ms"):
        assert np.allclose(a[column].to_numpy(), b[column].to_numpy(), equal_nan=True), column
    # Histograms, cell by cell.
    assert (rollups.hist.dense(len(a)) == raw.hist.dense(len(b))).all()
