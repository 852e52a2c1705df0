"""Confidence intervals for the peak versus off-peak comparison.

- Loss is a proportion of attempts: the Wilson score interval for one proportion, and Newcombe's hybrid
  score interval (his method 10, built from the two Wilson intervals) for a difference of two. Both treat
  attempts as independent; losses come in bursts, so read them as the narrowest honest interval.
- RTT percentiles: a cluster bootstrap over UTC hours. Samples within an hour are correlated (a congested
  evening moves them together), so the hour, not the sample, is resampled: each replicate draws as many
  hours as were measured, with replacement, adds their histograms and reads the percentile; the interval is
  the replicates' central quantiles (percentile method). Deterministic for a given seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache, lru_cache
from statistics import NormalDist

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from probes.analysis.cells import dense_quantiles

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Interval = tuple[float, float]


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence {confidence} outside (0, 1)")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> Interval | None:
    """Wilson score interval for a proportion successes / trials; None without trials."""
    if trials <= 0:
        return None
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    z = _z(confidence)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def newcombe_interval(
    successes_1: int, trials_1: int, successes_2: int, trials_2: int, confidence: float = 0.95
) -> Interval | None:
    """Interval for p1 − p2 (Newcombe 1998, method 10: the hybrid score interval); None without trials."""
    first = wilson_interval(successes_1, trials_1, confidence)
    second = wilson_interval(successes_2, trials_2, confidence)
    if first is None or second is None:
        return None
    p1, p2 = successes_1 / trials_1, successes_2 / trials_2
    (l1, u1), (l2, u2) = first, second
    difference = p1 - p2
    lower = difference - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    upper = difference + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return lower, upper


def bootstrap_quantile_difference(
    units_a: IntArray,
    units_b: IntArray,
    values: FloatArray,
    quantiles: Sequence[float],
    *,
    replicates: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[float, Interval | None]:
    """Cluster-bootstrap intervals for quantile(A) − quantile(B).

    `units_a` (hours × buckets) and `units_b` hold one histogram per resampling unit (an hour) over the
    same buckets, whose RTTs are `values`. Units without replies are ignored. None for a quantile when
    either side has fewer than two units with replies.
    """
    _z(confidence)
    a = np.asarray(units_a, dtype=np.float64)
    b = np.asarray(units_b, dtype=np.float64)
    a = a[a.sum(axis=1) > 0] if a.size else a.reshape(0, len(values))
    b = b[b.sum(axis=1) > 0] if b.size else b.reshape(0, len(values))
    if a.shape[0] < 2 or b.shape[0] < 2:
        return {q: None for q in quantiles}
    resampled_a = _resample(_draws(a.shape[0], replicates, seed), a)
    resampled_b = _resample(_draws(b.shape[0], replicates, seed + 1), b)
    tail = (1 - confidence) / 2
    out: dict[float, Interval | None] = {}
    for q in quantiles:
        differences = dense_quantiles(resampled_a, q, values) - dense_quantiles(resampled_b, q, values)
        low, high = np.quantile(differences, [tail, 1 - tail])
        out[q] = (float(low), float(high))
    return out


@lru_cache(maxsize=16)
def _draws(n: int, replicates: int, seed: int) -> npt.NDArray[np.int32]:
    """How often each of n units is drawn in each replicate (replicates × n): n draws with replacement.
    Depends only on n and the seed, so groups measured for the same number of hours share it."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n, size=(replicates, n), dtype=np.int32 if replicates * n < 2**31 else np.int64)
    offsets = (np.arange(replicates, dtype=picks.dtype) * n)[:, None]
    flat = np.bincount((picks + offsets).ravel(), minlength=replicates * n)
    counts: npt.NDArray[np.int32] = flat.astype(np.int32).reshape(replicates, n)
    counts.setflags(write=False)  # shared through the cache
    return counts


@cache
def _blas() -> ThreadpoolController:
    """The BLAS libraries numpy loaded (found once: looking costs a fraction of a millisecond)."""
    return ThreadpoolController()


def _resample(draws: npt.NDArray[np.int32], units: FloatArray) -> FloatArray:
    """Each replicate's sum of the units it drew (one row per replicate)."""
    # Counts add up exactly in float32 while no sum can pass 2**24; it multiplies several times faster.
    exact_in_float32 = int(draws.max(initial=0)) * float(units.sum()) < 2**24
    dtype = np.float32 if exact_in_float32 else np.float64
    # A few million multiply-adds (replicates × hours × ~10 buckets): one thread does them in a millisecond,
    # while BLAS's own threads, waking and spinning for each product, doubled an export's analysis time on a
    # busy two-core machine. Exact sums either way, so the figures do not depend on it.
    with _blas().limit(limits=1, user_api="blas"):
        return np.asarray(draws.astype(dtype) @ units.astype(dtype), dtype=np.float64)
