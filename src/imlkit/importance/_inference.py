"""Confidence intervals, tests and multiple-testing corrections for importances."""
from __future__ import annotations

import numpy as np
from scipy import stats

from .._validation import check_choice

__all__ = ["t_interval", "repeat_quantiles", "adjust_pvalues", "P_ADJUST"]

P_ADJUST = ("holm", "bonferroni", None)


def t_interval(values, confidence_level=0.95):
    """Student-t interval for the mean of each row.

    Parameters
    ----------
    values : ndarray, shape (m, r)
        r repeats of m importances.

    Returns
    -------
    mean, std, low, high : ndarray, shape (m,)
        ``mean ± t_{r-1, (1+level)/2} · std / sqrt(r)``; the interval is NaN when r = 1.
    """
    values = np.asarray(values, dtype=float)
    r = values.shape[1]
    mean = values.mean(axis=1)
    if r < 2:
        nan = np.full_like(mean, np.nan)
        return mean, np.zeros_like(mean), nan, nan
    std = values.std(axis=1, ddof=1)
    half = stats.t.ppf(0.5 + confidence_level / 2, r - 1) * std / np.sqrt(r)
    return mean, std, mean - half, mean + half


def repeat_quantiles(values, low=0.05, high=0.95):
    """The 5% and 95% quantiles over repeats (the course's error bars); shape (m, 2)."""
    return np.quantile(np.asarray(values, dtype=float), [low, high], axis=1).T


def adjust_pvalues(p, method="holm"):
    """Family-wise error control over the m features.

    ``"bonferroni"``: min(1, m·p). ``"holm"``: step-down, p_(k) -> max_{i<=k} min(1, (m-i+1)·p_(i)).
    ``None``: unchanged. NaN p-values are left out of m and stay NaN.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    check_choice("p_adjust", method, P_ADJUST)
    p = np.asarray(p, dtype=float)
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if method is None or m == 0:
        return p.copy()
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, q * m)
        return out
    order = np.argsort(q, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * q[order])
    adj = np.empty(m)
    adj[order] = np.minimum(1.0, stepped)
    out[ok] = adj
    return out
