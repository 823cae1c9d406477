"""Pairs of numeric columns of which one is nearly a (possibly nonlinear) function of the other: what the GLM's
"all other features fixed" needs besides the linear R² of :func:`imlkit._dependence.dependence_r2`."""
from __future__ import annotations

import numpy as np

from .._dependence import MIN_ROWS_PER_REGRESSOR
from ._splines import natural_knots, natural_spline_basis

__all__ = ["SPLINE_DF", "pairwise_functional_r2"]

#: Degrees of freedom of the natural cubic spline :func:`pairwise_functional_r2` fits one column on another with
#: (3 interior knots at the quartiles): enough for x², log x, exp x and one bend over the observed range.
SPLINE_DF = 4


def pairwise_functional_r2(A, min_distinct=5, splines=True):
    """How nearly each column is a (possibly nonlinear) function of each other one, which a linear R² misses.

    ``popul`` and ``logpopul`` (anes96) have a linear R² of 0.22 from all the other columns, yet each fixes the
    other exactly; so do x and x² (R² ≈ 0 for x symmetric about 0). Two measures catch such pairs:

    * ``rank``: Spearman's ρ² of the two columns -- the R² of one's ranks on the other's; 1 for any strictly
      monotone function (log, exp, a positive power), whatever its curvature;
    * ``spline``: the adjusted R² of column j on a natural cubic spline of column k with ``SPLINE_DF`` degrees of
      freedom (quantile knots), ``1 − (1 − R²)(n − 1)/(n − SPLINE_DF − 1)``; near 1 for a smooth function that
      need not be monotone (x² of x on both sides of 0).

    Parameters
    ----------
    A : ndarray, shape (n, q)
        Finite numeric columns.
    min_distinct : int
        Columns with fewer distinct values (0/1 dummies, codes with few levels) are left out (NaN): a spline
        needs ``SPLINE_DF + 1`` distinct quantile knots, and ranks of a few tied values say little.
    splines : bool
        False: the ranks only (``spline`` all NaN); one sort instead of a QR per column.

    Returns
    -------
    (rank, spline) : two ndarrays of shape (q, q)
        ``rank[j, k]`` = ρ²(j, k) (symmetric) and ``spline[j, k]`` = adjusted R² of column j on the spline of
        column k; NaN on the diagonal, for left-out columns, and for the spline when n < ``MIN_ROWS_PER_REGRESSOR``
        × ``SPLINE_DF`` (too few rows to judge a fit with that many terms).

    Notes
    -----
    One QR of ``[1, N(x_k)]`` per column k projects every other column at once: O(n q² SPLINE_DF) time.
    """
    from scipy.stats import rankdata

    A = np.asarray(A, dtype=float)
    n, q = A.shape
    rank = np.full((q, q), np.nan)
    spline = np.full((q, q), np.nan)
    if n < 3 or q < 2:
        return rank, spline
    ok = np.array([np.unique(A[:, j]).size >= min_distinct for j in range(q)], dtype=bool)
    cols = np.flatnonzero(ok)
    if cols.size < 2:
        return rank, spline
    R = rankdata(A[:, cols], axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.corrcoef(R, rowvar=False)
    rank[np.ix_(cols, cols)] = rho ** 2
    if splines and n >= MIN_ROWS_PER_REGRESSOR * SPLINE_DF and n > SPLINE_DF + 1:
        C = A[:, cols] - A[:, cols].mean(axis=0)
        tss = np.einsum("ij,ij->j", C, C)
        for k in cols:
            try:
                N = natural_spline_basis(A[:, k], natural_knots(A[:, k], SPLINE_DF))
            except ValueError:  # too few distinct quantiles for the knots
                continue
            Q, Rr = np.linalg.qr(np.column_stack([np.ones(n), N]))
            if np.any(np.abs(np.diag(Rr)) <= 1e-10 * np.abs(Rr).max()):
                continue
            r2 = np.einsum("ij,ij->j", Q.T @ C, Q.T @ C) / np.where(tss > 0, tss, np.inf)
            spline[cols, k] = 1.0 - (1.0 - r2) * (n - 1) / (n - SPLINE_DF - 1)
    np.fill_diagonal(rank, np.nan)
    np.fill_diagonal(spline, np.nan)
    return rank, spline
