"""Interval math against published and hand-computed values, and the bootstrap against a brute-force one."""

from __future__ import annotations

import math

import numpy as np
import pytest

from probes import histogram
from probes.analysis import bootstrap_quantile_difference, newcombe_interval, wilson_interval


def test_wilson_matches_the_hand_computation() -> None:
    # 5 lost of 100, 95%: z = 1.959964; centre = (0.05 + z²/200) / (1 + z²/100);
    # half = z·sqrt(0.05·0.95/100 + z²/40000) / (1 + z²/100)
    z = 1.959963984540054
    centre = (0.05 + z * z / 200) / (1 + z * z / 100)
    half = z * math.sqrt(0.05 * 0.95 / 100 + z * z / 40000) / (1 + z * z / 100)
    low, high = wilson_interval(5, 100)  # type: ignore[misc]
    assert (low, high) == pytest.approx((centre - half, centre + half), abs=1e-12)
    assert (low, high) == pytest.approx((0.02154, 0.11175), abs=5e-5)  # the textbook figures


def test_wilson_edges() -> None:
    low, high = wilson_interval(0, 1000)  # type: ignore[misc]
    assert low == 0.0
    assert high == pytest.approx(0.003827, abs=1e-6)  # z²/(n+z²)
    assert wilson_interval(0, 0) is None
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_newcombe_matches_his_published_example() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, Table II example: 56/70 vs 48/80 → (0.0524, 0.3339).
    low, high = newcombe_interval(56, 70, 48, 80)  # type: ignore[misc]
    assert (low, high) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    assert newcombe_interval(1, 10, 0, 0) is None


def test_bootstrap_of_identical_hours_collapses_to_the_difference() -> None:
    values = histogram.bucket_value(np.array([100, 200]))
    peak = np.array([[0, 50]] * 10)  # every peak hour: 50 samples at bucket 200
    offpeak = np.array([[40, 0]] * 30)
    result = bootstrap_quantile_difference(peak, offpeak, values, (0.5, 0.95), replicates=200)
    for q in (0.5, 0.95):
        low, high = result[q]  # type: ignore[misc]
        assert low == pytest.approx(values[1] - values[0])
        assert high == pytest.approx(values[1] - values[0])


def test_bootstrap_needs_two_hours_per_side() -> None:
    values = histogram.bucket_value(np.array([100]))
    assert bootstrap_quantile_difference(np.array([[5]]), np.array([[5], [5]]), values, (0.5,)) == {0.5: None}


def test_bootstrap_agrees_with_a_brute_force_cluster_bootstrap() -> None:
    """Hours whose level varies: the interval reflects the spread between hours, as a brute-force
    resampling of raw per-hour samples does."""
    rng = np.random.default_rng(11)
    peak_hours = [rng.normal(200 + 80 * rng.random(), 3, 60) for _ in range(21)]
    off_hours = [rng.normal(150 + 20 * rng.random(), 3, 60) for _ in range(60)]
    all_buckets = np.unique(histogram.bucket_of(np.concatenate(peak_hours + off_hours)))

    def matrix(hours: list[np.ndarray]) -> np.ndarray:
        out = np.zeros((len(hours), all_buckets.size), dtype=np.int64)
        for i, values in enumerate(hours):
            out[i] = np.bincount(
                np.searchsorted(all_buckets, histogram.bucket_of(values)), minlength=all_buckets.size
            )
        return out

    ours = bootstrap_quantile_difference(
        matrix(peak_hours),
        matrix(off_hours),
        histogram.bucket_value(all_buckets),
        (0.5, 0.95),
        replicates=2000,
        seed=5,
    )
    brute = np.random.default_rng(99)
    diffs: dict[float, list[float]] = {0.5: [], 0.95: []}
    for _ in range(2000):
        p = np.concatenate([peak_hours[i] for i in brute.integers(0, 21, 21)])
        o = np.concatenate([off_hours[i] for i in brute.integers(0, 60, 60)])
        for q in diffs:
            diffs[q].append(np.percentile(p, q * 100) - np.percentile(o, q * 100))
    for q, values in diffs.items():
        expected_low, expected_high = np.quantile(values, [0.025, 0.975])
        low, high = ours[q]  # type: ignore[misc]
        width = expected_high - expected_low
        assert width > 8  # the spread between hours: an i.i.d. bootstrap of the samples gives about 3
        # Monte Carlo noise plus the histogram's resolution (±1% of an RTT near 280 ms).
        tolerance = 0.1 * width + 280 * histogram.RELATIVE_ERROR
        assert low == pytest.approx(expected_low, abs=tolerance)
        assert high == pytest.approx(expected_high, abs=tolerance)
