"""P-spline pieces for the GAM: B-spline basis, difference penalty, sum-to-zero constraint.

A smooth ``f(x) = Σ_k B_k(x) β_k`` uses ``K`` cubic B-splines on equally spaced knots over the
training range, and its wiggliness is penalised by ``λ ‖D_d β‖²`` where ``D_d`` takes
``d``-th differences of neighbouring coefficients (Eilers & Marx 1996). Outside the training
range the basis continues linearly (the value and slope at the boundary), so predictions do
not explode the way the cubic end pieces would.

The basis is returned as a sparse CSR matrix: each row has only ``degree + 1`` non-zeros,
which is what makes ``XᵀWX`` cheap for large ``n``.

References
----------
Eilers, P. H. C. and Marx, B. D. (1996). Flexible smoothing with B-splines and penalties.
Statistical Science 11(2), 89-121.
Wood, S. N. (2017). Generalized Additive Models: An Introduction with R, 2nd ed., ch. 5.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.interpolate import BSpline

__all__ = ["knots", "bspline_basis", "difference_penalty", "sum_to_zero", "natural_knots", "natural_spline_basis"]


def knots(x_min, x_max, n_splines, degree=3):
    """Equally spaced knots for ``n_splines`` B-splines of ``degree`` on ``[x_min, x_max]``.

    Returns
    -------
    ndarray, shape (n_splines + degree + 1,)
        ``degree`` extra knots on each side continue the spacing, so every basis function is
        a full B-spline (the P-spline convention).
    """
    n_inner = n_splines - degree  # intervals inside [x_min, x_max]
    if x_max <= x_min:
        x_max = x_min + 1.0
    h = (x_max - x_min) / n_inner
    return x_min + h * np.arange(-degree, n_inner + degree + 1)


def bspline_basis(x, t, degree=3):
    """The B-spline basis at ``x``, continued linearly outside ``[t[degree], t[-degree-1]]``.

    Parameters
    ----------
    x : ndarray, shape (n,)
    t : ndarray, shape (K + degree + 1,)

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n, K)

    Examples
    --------
    >>> t = knots(0.0, 1.0, 6)
    >>> B = bspline_basis(np.array([0.0, 0.5, 1.0]), t)
    >>> np.allclose(B.sum(axis=1), 1.0)   # a partition of unity
    True
    """
    x = np.asarray(x, dtype=float)
    K = len(t) - degree - 1
    lo, hi = t[degree], t[K]
    xc = np.clip(x, lo, hi)
    B = BSpline.design_matrix(xc, t, degree, extrapolate=False).tocsr()
    out = np.flatnonzero(x != xc)
    if out.size:
        dbasis = BSpline(t, np.eye(K), degree).derivative()
        slope_lo, slope_hi = dbasis(lo), dbasis(hi)
        slopes = np.where((x[out] < lo)[:, None], slope_lo[None, :], slope_hi[None, :])
        corr = sp.csr_matrix(((x[out] - xc[out])[:, None] * slopes), shape=(out.size, K))
        lift = sp.csr_matrix((np.ones(out.size), (out, np.arange(out.size))), shape=(len(x), out.size))
        B = (B + lift @ corr).tocsr()
    return B


def difference_penalty(K, order=2):
    """``D_dᵀ D_d`` for ``d``-th order differences of ``K`` coefficients.

    Returns
    -------
    ndarray, shape (K, K)
        Positive semi-definite with rank ``K - order``; its null space holds the polynomials
        of degree < ``order`` in the coefficient index (a line for ``order=2``).
    """
    D = np.diff(np.eye(K), n=order, axis=0)
    return D.T @ D


def sum_to_zero(colsums):
    """A basis ``Z`` of the coefficients whose smooth sums to zero over the training data.

    With ``c = 1ᵀB`` (the column sums of the basis), ``Σ_i f(x_i) = cᵀβ = 0`` holds for
    ``β = Zγ`` where ``Z`` spans the orthogonal complement of ``c`` (from a QR of ``c``).
    The smooth then has ``K − 1`` free coefficients and is identifiable next to the intercept.

    Parameters
    ----------
    colsums : ndarray, shape (K,)

    Returns
    -------
    ndarray, shape (K, K - 1), orthonormal columns
    """
    c = np.asarray(colsums, dtype=float).reshape(-1, 1)
    q, _ = np.linalg.qr(c, mode="complete")
    return q[:, 1:]


def natural_knots(x, df):
    """Knots of a natural cubic spline with ``df`` degrees of freedom (R's ``ns``, patsy's ``cr``).

    ``df − 1`` interior knots at the equally spaced quantiles ``k/df`` of ``x`` and the two
    boundary knots at its minimum and maximum: ``df + 1`` knots in all.

    Returns
    -------
    ndarray, shape (df + 1,), strictly increasing

    Raises
    ------
    ValueError
        When ``x`` has too few distinct values for ``df + 1`` distinct knots.
    """
    x = np.asarray(x, dtype=float)
    k = np.quantile(x, np.linspace(0.0, 1.0, df + 1))
    if np.any(np.diff(k) <= 0):
        raise ValueError(f"{np.unique(x).size} distinct values give no {df + 1} distinct quantile knots")
    return k


def natural_spline_basis(x, knots):
    """Natural cubic spline basis without the constant, shape (n, len(knots) − 1).

    The truncated-power form (Hastie, Tibshirani & Friedman 2009, eq. 5.4–5.5) on ``x`` scaled
    to [0, 1] by the boundary knots: ``N₁ = x``, ``N_{k+1} = d_k − d_{K−1}`` with
    ``d_k = ((x − ξ_k)³₊ − (x − ξ_K)³₊) / (ξ_K − ξ_k)``. Together with an intercept it spans
    every cubic spline with these knots that is linear beyond the boundary knots, so it is
    linear outside the training range by construction.
    """
    x = np.asarray(x, dtype=float)
    t = np.asarray(knots, dtype=float)
    lo, hi = t[0], t[-1]
    u = (x - lo) / (hi - lo)
    s = (t - lo) / (hi - lo)
    K = len(s)

    def d(k):
        return (np.maximum(u - s[k], 0.0) ** 3 - np.maximum(u - s[K - 1], 0.0) ** 3) / (s[K - 1] - s[k])

    cols = [u]
    last = d(K - 2)
    for k in range(K - 2):
        cols.append(d(k) - last)
    return np.column_stack(cols)
