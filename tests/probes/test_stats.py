import math

import numpy as np
import pytest

from probes.stats import jitter, percentile, summarize


def test_summary_of_hand_checked_run() -> None:
    s = summarize([10.0, None, 12.0, 11.0, None])
    assert (s.sent, s.received) == (5, 3)
    assert s.loss == pytest.approx(0.4)
    assert (s.rtt_min_ms, s.rtt_max_ms) == (10.0, 12.0)
    assert s.rtt_median_ms == 11.0
    assert s.rtt_mean_ms == pytest.approx(11.0)
    # p95 of [10, 11, 12]: rank 0.95 * 2 = 1.9 → 11 + 0.9 * (12 - 11)
    assert s.rtt_p95_ms == pytest.approx(11.9)
    # consecutive received: |12-10| = 2, |11-12| = 1 → mean 1.5 (the losses are skipped, not zero)
    assert s.jitter_ms == pytest.approx(1.5)


def test_no_data_is_none_not_zero() -> None:
    s = summarize([None, None])
    assert (s.sent, s.received, s.loss) == (2, 0, 1.0)
    assert s.rtt_median_ms is None and s.jitter_ms is None and s.rtt_min_ms is None
    empty = summarize([])
    assert empty.sent == 0 and empty.loss is None
    assert jitter([5.0]) is None


@pytest.mark.parametrize("q", [0, 5, 25, 50, 90, 95, 99, 100])
def test_percentile_matches_numpy_linear(q: float) -> None:
    values = sorted(np.random.default_rng(7).lognormal(5, 0.3, 101).tolist())
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))


def test_percentile_rejects_out_of_range() -> None:
    with pytest.raises(ValueError):
        percentile([1.0], 101)
    assert percentile([], 50) is None
    assert not math.isnan(percentile([3.0], 95) or math.nan)
