"""The two ranking methods, over a matrix of counted scores (one row per candidate, one column per weighted
criterion, every score benefit-type in 0..1):

- weighted sum (the default): Σ wᵢ·sᵢ / Σ wᵢ, a candidate's `total`, whatever the method;
- TOPSIS (Hwang & Yoon 1981): each column vector-normalised and weighted, each row rated d⁻ / (d⁺ + d⁻) by its
  distances to the ideal best and worst rows of the candidates that pass every gate (a closeness in 0..1).
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np

from catalogs.i18n import N_, _

RankingMethod = Literal["weighted-sum", "topsis"]  # `--method`; the JSON value of `Ranking.method`
RANKING_METHODS: tuple[RankingMethod, ...] = get_args(RankingMethod)
_METHOD_TITLES = {"weighted-sum": N_("weighted sum"), "topsis": N_("TOPSIS")}


def method_title(method: str) -> str:
    """A ranking method as a sentence names it ("weighted sum", "TOPSIS"); the JSON keeps the id."""
    title = _METHOD_TITLES.get(method)
    return method if title is None else _(title)


def weighted_sums(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Normalised weighted sum: Σ wᵢ·sᵢ / Σ wᵢ for each row (each column of `weights` is one weighting)."""
    if matrix.size == 0:
        return np.zeros((0, *weights.shape[1:]))
    if weights.ndim == 1:
        # row by row, never a matrix product: BLAS blocks a product by the matrix's size, so a row's sum
        # could differ in its last bit with the number of rows, and a score must not depend on the others
        return np.asarray((matrix * weights).sum(axis=1) / weights.sum())
    return np.asarray(matrix @ weights / weights.sum(axis=0))


def topsis(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """TOPSIS closeness of each row: vector-normalise each column, weight it (weights normalised to sum 1),
    and rate each row by d⁻/(d⁺ + d⁻), its Euclidean distances to the ideal best and worst rows. A row at the
    ideal best (d⁺ = 0) scores 1."""
    if matrix.size == 0:
        return np.zeros(0)
    norms = np.sqrt((matrix**2).sum(axis=0))
    normalised = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    weighted = normalised * (weights / weights.sum())
    d_best = np.sqrt(((weighted - weighted.max(axis=0)) ** 2).sum(axis=1))
    d_worst = np.sqrt(((weighted - weighted.min(axis=0)) ** 2).sum(axis=1))
    denominator = d_best + d_worst
    return np.asarray(np.where(d_best == 0, 1.0, d_worst / np.where(denominator == 0, 1.0, denominator)))


def rate(matrix: np.ndarray, weights: np.ndarray, method: RankingMethod) -> np.ndarray:
    """Each row's rating by `method` (higher is better)."""
    return topsis(matrix, weights) if method == "topsis" else weighted_sums(matrix, weights)
