"""Confidence intervals, tests and multiple-testing corrections for importances."""
from __future__ import annotations

import numpy as np
from scipy import special

from .._validation import check_choice

__all__ = [
    "P_ADJUST",
    "adjust_pvalues",
    "best_null_distribution",
    "hodges_lehmann",
    "nadeau_bengio",
    "null_pvalue",
    "repeat_quantiles",
    "sign_test",
    "significance_threshold",
    "simultaneous_level",
    "t_interval",
    "t_test",
    "wilcoxon_test",
]

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
    # special.stdtrit is what stats.t.ppf evaluates (the same numbers); scipy.stats, ~0.4 s to
    # import, is left to the tests and the null distributions below, which import it when called
    half = special.stdtrit(r - 1, 0.5 + confidence_level / 2) * std / np.sqrt(r)
    return mean, std, mean - half, mean + half


def repeat_quantiles(values, low=0.05, high=0.95):
    """The 5% and 95% quantiles over repeats (the course's error bars); shape (m, 2)."""
    return np.quantile(np.asarray(values, dtype=float), [low, high], axis=1).T


def adjust_pvalues(p, *, method="holm"):
    """Family-wise error control over the m features: the one implementation of LOCO, LOFO and PIMP.

    Parameters
    ----------
    p : array-like, shape (m,)
        Unadjusted p-values; NaN ones (features without a test) are left out of m and stay NaN.
    method : {"holm", "bonferroni", None}

    Returns
    -------
    ndarray, shape (m,)
        ``"bonferroni"``: ``min(1, m·p)``. ``"holm"`` (Holm 1979, step-down): with the p-values
        sorted, p_(1) <= ... <= p_(m), ``p_(k) -> max_{i<=k} min(1, (m-i+1)·p_(i))``. ``None``:
        unchanged. The same numbers as ``statsmodels.stats.multitest.multipletests``.

    Notes
    -----
    Rejecting where the adjusted p-value is <= α controls the family-wise error rate at α under
    any dependence between the tests. Holm rejects every hypothesis Bonferroni rejects and
    possibly more; Bonferroni's decision is the one that matches simultaneous intervals at
    level ``1 − α/m`` (see :func:`simultaneous_level`).

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6, 65-70.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], method="holm").round(3).tolist()
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
    # Written out rather than calling statsmodels' multipletests (which gives the same numbers,
    # tests/importance/test_holm.py): its Holm branch runs a full gc.collect() on every call,
    # 0.2 s in a small process and more in a large one, for six lines of arithmetic.
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, q * m)
        return out
    order = np.argsort(q, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * q[order])
    adj = np.empty(m)
    adj[order] = np.minimum(1.0, stepped)
    out[ok] = adj
    return out


# --------------------------------------------------------------------------- tests on Δ
# The functions below test one sample of observation-wise loss differences Δ (LOCO, LOFO).
# Each returns ``(p_value, low, high)``: a one- or two-sided p-value for H0 "the centre of Δ
# is 0" against ``alternative`` and a two-sided interval at ``confidence_level``, both from
# ONE procedure -- the interval is the set of centres θ the test does not reject, and the
# p-value is computed from the same order statistics and the same null distribution, so
# that, with a = (1 - confidence_level)/2,
#
#     alternative="greater":   p <= a      <=>  low > 0
#     alternative="two-sided": p <= 2a     <=>  0 outside [low, high]
#
# hold exactly (test inversion, as Lei et al. 2018 test LOCO). The interval is NaN where the
# sample is too small to reach the level; the p-value then never reaches the threshold.

ALTERNATIVES = ("greater", "two-sided")


def signed_rank_cdf(n):
    """Exact null distribution of the Wilcoxon signed-rank statistic T+ for n untied values.

    Returns
    -------
    ndarray, shape (n(n+1)/2 + 1,)
        ``P(T+ <= t)`` for t = 0, 1, ..., n(n+1)/2.
    """
    top = n * (n + 1) // 2
    counts = np.zeros(top + 1)
    counts[0] = 1.0
    for k in range(1, n + 1):
        # Rank k is either in the positive set (shift by k) or not.
        counts[k:] = counts[k:] + counts[:-k].copy()
    return np.cumsum(counts) / 2.0 ** n


def _walsh_count_le(x_sorted, t):
    """Number of Walsh averages (x_i + x_j)/2, i <= j, that are <= t (O(n log n))."""
    x = x_sorted
    j = np.searchsorted(x, 2.0 * t - x, side="right")
    return int(np.clip(j - np.arange(x.size), 0, None).sum())


def _walsh_count_lt(x_sorted, t):
    """Number of Walsh averages that are < t."""
    x = x_sorted
    j = np.searchsorted(x, 2.0 * t - x, side="left")
    return int(np.clip(j - np.arange(x.size), 0, None).sum())


def _walsh_order_statistic(x_sorted, k):
    """The k-th smallest (1-based) Walsh average (x_i + x_j)/2, i <= j, without forming all of them.

    Bisection on the value: the number of Walsh averages <= t is a sum of searchsorted counts,
    so memory stays O(n) where enumerating would need n(n+1)/2 numbers.
    """
    x = x_sorted
    lo, hi = float(x[0]), float(x[-1])
    if _walsh_count_le(x, lo) >= k:
        return lo
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _walsh_count_le(x, mid) >= k:
            hi = mid
        else:
            lo = mid
    # Snap to the Walsh average itself (the largest one <= hi): bisection stops within
    # rounding of it, and a bound of 1e-60 where the average is exactly 0 would contradict
    # the test, which counts that average as <= 0.
    j = np.searchsorted(x, 2.0 * hi - x, side="right") - 1
    ok = j >= np.arange(x.size)
    return float(np.max((x[ok] + x[j[ok]]) / 2.0))


def hodges_lehmann(x):
    """Hodges–Lehmann estimate of the pseudo-median: the median of the Walsh averages."""
    x = np.sort(np.asarray(x, dtype=float))
    N = x.size * (x.size + 1) // 2
    if N % 2:
        return _walsh_order_statistic(x, (N + 1) // 2)
    return 0.5 * (_walsh_order_statistic(x, N // 2) + _walsh_order_statistic(x, N // 2 + 1))


def _inverted_p(cdf, k_low, k_high, alternative):
    """p-value dual to an order-statistic interval.

    ``k_low``: how many of the statistics the interval is built from are <= 0 (the lower
    end is > 0 iff cdf(k_low) <= a); ``k_high``: how many are >= 0 (mirror).
    """
    if alternative == "greater":
        return float(min(1.0, cdf(k_low)))
    return float(min(1.0, 2.0 * min(cdf(k_low), cdf(k_high))))


def wilcoxon_test(delta, confidence_level=0.95, alternative="greater"):
    """Wilcoxon signed-rank test of the pseudo-median of Δ and its Hodges–Lehmann interval.

    Parameters
    ----------
    delta : ndarray, shape (n,)

    Returns
    -------
    p_value, low, high : float

    Notes
    -----
    The interval is ``[W_(C), W_(N+1-C)]`` over the N = n(n+1)/2 sorted Walsh averages
    ``W = (Δ_i + Δ_k)/2, i <= k``, with C the largest integer such that
    ``F(C - 1) <= (1 - level)/2``, F the null cdf of T+ (exact for n <= 50; beyond,
    ``F(t) = Φ((t + 1 - N/2)/σ)``, σ² = n(n+1)(2n+1)/24, i.e. ``C = floor(N/2 - z·σ)``).
    It is the set of shifts θ that a two-sided signed-rank test of Δ - θ does not reject.
    The p-value is the same test at θ = 0: with k₋ = #{W <= 0} and k₊ = #{W >= 0},
    ``p = F(k₋)`` ("greater"; = P(T+ >= #{W > 0}), the usual one-sided p-value when there
    are no zeros or ties, because #{W > 0} = T+) or ``2·min(F(k₋), F(k₊))`` (two-sided).
    Zeros and ties count against the alternative, as they do in the interval.

    References
    ----------
    Hollander, Wolfe & Chicken (2014). Nonparametric Statistical Methods, 3rd ed., §3.3.
    """
    from scipy import stats  # on first use: importing imlkit.pfi does not need it
    d = np.asarray(delta, dtype=float)
    n = d.size
    x = np.sort(d)
    N = n * (n + 1) // 2
    a = (1.0 - confidence_level) / 2.0
    if n <= 50:
        table = signed_rank_cdf(n)
        def cdf(t):
            return float(table[min(max(int(t), 0), N)]) if t >= 0 else 0.0
    else:
        sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
        def cdf(t):
            return float(stats.norm.cdf((t + 1 - N / 2.0) / sigma))
    k_low = _walsh_count_le(x, 0.0)
    k_high = N - _walsh_count_lt(x, 0.0)
    p = _inverted_p(cdf, k_low, k_high, alternative)
    if n <= 50:
        ok = np.nonzero(table <= a)[0]          # values t with P(T+ <= t) <= a
        C = int(ok[-1]) + 1 if ok.size else 0
    else:
        C = int(np.floor(N / 2.0 - stats.norm.ppf(1.0 - a) * sigma))
    if C < 1:
        return p, np.nan, np.nan
    return p, _walsh_order_statistic(x, C), _walsh_order_statistic(x, N + 1 - C)


def sign_test(delta, confidence_level=0.95, alternative="greater"):
    """Sign test of the median of Δ and the order-statistic interval for the median.

    Returns
    -------
    p_value, low, high : float

    Notes
    -----
    Interval: ``[Δ_(l), Δ_(n+1-l)]`` with l the largest integer <= n/2 such that
    ``P(Bin(n, 1/2) <= l - 1) <= (1 - level)/2``; it covers the median with probability
    >= level for any continuous distribution. p-value, from the same binomial: with
    k₋ = #{Δ <= 0} and k₊ = #{Δ >= 0}, ``P(Bin(n, 1/2) <= k₋)`` ("greater") or
    ``2·min(P(B <= k₋), P(B <= k₊))`` (two-sided). Zeros count against the alternative (as
    in the interval), which is conservative; without zeros this is the usual sign test.
    """
    from scipy import stats  # on first use: importing imlkit.pfi does not need it
    d = np.asarray(delta, dtype=float)
    n = d.size
    def cdf(k):
        return float(stats.binom.cdf(k, n, 0.5))
    p = _inverted_p(cdf, int((d <= 0).sum()), int((d >= 0).sum()), alternative)
    a = (1.0 - confidence_level) / 2.0
    ls = np.arange(1, n // 2 + 1)
    ok = ls[stats.binom.cdf(ls - 1, n, 0.5) <= a]
    if ok.size == 0:
        return p, np.nan, np.nan
    lo = int(ok[-1])
    x = np.sort(d)
    return p, float(x[lo - 1]), float(x[n - lo])


def t_test(delta, confidence_level=0.95, alternative="greater"):
    """One-sample t-test of the mean of Δ and the t-interval ``mean ± t·s/sqrt(n)``.

    The interval is the inversion of the same t statistic, so ``p <= (1 - level)/2`` iff
    ``low > 0`` ("greater") and ``p <= 1 - level`` iff the interval excludes 0 (two-sided).
    """
    from scipy import stats  # on first use: importing imlkit.pfi does not need it
    d = np.asarray(delta, dtype=float)
    if d.size < 2:
        return np.nan, np.nan, np.nan
    mean, sd, low, high = (float(v[0]) for v in t_interval(d[None, :], confidence_level))
    if sd == 0:
        p = (0.0 if mean > 0 else 1.0) if alternative == "greater" else (0.0 if mean != 0 else 1.0)
        return p, mean, mean
    p = float(stats.ttest_1samp(d, 0.0, alternative=alternative).pvalue)
    return p, low, high


def significance_threshold(confidence_level, alternative):
    """The α at which a p-value of the functions above agrees with their interval.

    ``(1 - level)/2`` for "greater" (one-sided test ⇔ lower end of the two-sided interval),
    ``1 - level`` for "two-sided".
    """
    return (1.0 - confidence_level) / 2.0 if alternative == "greater" else 1.0 - confidence_level


def nadeau_bengio(values, test_fraction, confidence_level=0.95, alternative="greater"):
    """Corrected resampled t-test over K cross-validation folds (Nadeau & Bengio 2003).

    Parameters
    ----------
    values : ndarray, shape (K,)
        One importance per fold.
    test_fraction : float
        ``n_test / n_train`` of a fold.

    Returns
    -------
    p_value, low, high : float

    Notes
    -----
    The folds' training sets overlap, so the K estimates are positively correlated and the
    naive variance s²/K is too small. The corrected variance is ``(1/K + n_test/n_train)·s²``,
    with a t distribution on K - 1 degrees of freedom.

    References
    ----------
    Nadeau, C. & Bengio, Y. (2003). Inference for the generalization error. Machine Learning 52, 239-281.
    """
    from scipy import stats  # on first use: importing imlkit.pfi does not need it
    v = np.asarray(values, dtype=float)
    K = v.size
    if K < 2:
        return np.nan, np.nan, np.nan
    mean = float(v.mean())
    se = float(np.sqrt((1.0 / K + test_fraction) * v.var(ddof=1)))
    if se == 0:
        p = (0.0 if mean > 0 else 1.0) if alternative == "greater" else (0.0 if mean != 0 else 1.0)
        return p, mean, mean
    tstat = mean / se
    p = float(stats.t.sf(tstat, K - 1)) if alternative == "greater" else float(2 * stats.t.sf(abs(tstat), K - 1))
    half = stats.t.ppf(0.5 + confidence_level / 2, K - 1) * se
    return p, mean - half, mean + half


def simultaneous_level(confidence_level, m, p_adjust):
    """Per-feature level of simultaneous intervals: ``1 - (1 - level)/m`` with any correction.

    Bonferroni intervals are simultaneous at ``level``. Holm's step-down test has no
    informative compatible simultaneous intervals (Strassburger & Bretz 2008: the bound of a
    rejected hypothesis is the null value itself), so the Bonferroni-level intervals are the
    standard choice for Holm as well.
    """
    if p_adjust in ("bonferroni", "holm") and m > 1:
        return 1.0 - (1.0 - confidence_level) / m
    return confidence_level


def null_pvalue(null, observed, distribution="empirical"):
    """P(null >= observed) for one feature (PIMP).

    Parameters
    ----------
    null : ndarray, shape (B,)
        Null importances (refits on a permuted target).
    observed : float
    distribution : {"empirical", "normal", "lognormal", "gamma"}

    Returns
    -------
    float

    Notes
    -----
    empirical: ``(k + 1)/(B + 1)`` with k = #{b: null_b >= observed} (a valid permutation
    p-value, never 0). normal: ``1 - Φ((obs - mean)/sd)`` with the sample mean and sd
    (ddof=1). lognormal, gamma: fitted (location 0) to the positive null values only; with
    π₊ the fraction of positive null values, ``p = π₊·S(obs)`` for obs > 0 and
    ``p = π₊ + #{b: obs <= null_b <= 0}/B`` for obs <= 0 (the non-positive part is empirical).
    Returns NaN when the distribution cannot be fitted (constant sample, fewer than two
    positive values).
    """
    from scipy import stats  # on first use: importing imlkit.pfi does not need it
    z = np.asarray(null, dtype=float)
    B = z.size
    if distribution == "empirical":
        return float((np.sum(z >= observed) + 1) / (B + 1))
    if distribution == "normal":
        sd = z.std(ddof=1) if B > 1 else 0.0
        if not sd > 0:
            return np.nan
        return float(stats.norm.sf(observed, loc=z.mean(), scale=sd))
    pos = z[z > 0]
    if pos.size < 2 or np.ptp(pos) == 0:
        return np.nan
    frac = pos.size / B
    if observed <= 0:
        return float(min(1.0, frac + np.sum((z >= observed) & (z <= 0)) / B))
    if distribution == "lognormal":
        logs = np.log(pos)
        return float(frac * stats.norm.sf(np.log(observed), loc=logs.mean(), scale=logs.std(ddof=1)))
    if distribution == "gamma":
        shape, _, scale = stats.gamma.fit(pos, floc=0)
        return float(frac * stats.gamma.sf(observed, shape, loc=0, scale=scale))
    raise ValueError(f"unknown distribution {distribution!r}")  # guarded at the entry point


def best_null_distribution(null, ks_alpha=0.05):
    """The family (normal, lognormal, gamma) fitting the null sample best by Kolmogorov–Smirnov.

    lognormal and gamma are candidates only when every null value is positive. Returns
    ``"empirical"`` when no candidate's KS p-value reaches ``ks_alpha`` (with estimated
    parameters the KS p-value is optimistic, so this is a lenient screen, not a test).
    """
    from scipy import stats  # on first use: importing imlkit.pfi does not need it
    z = np.asarray(null, dtype=float)
    if z.size < 3 or np.ptp(z) == 0:
        return "empirical"
    fits = {"normal": stats.kstest(z, "norm", args=(z.mean(), z.std(ddof=1))).pvalue}
    if np.all(z > 0):
        logs = np.log(z)
        if np.ptp(logs) > 0:
            fits["lognormal"] = stats.kstest(logs, "norm", args=(logs.mean(), logs.std(ddof=1))).pvalue
            shape, _, scale = stats.gamma.fit(z, floc=0)
            fits["gamma"] = stats.kstest(z, "gamma", args=(shape, 0, scale)).pvalue
    best = max(fits, key=lambda k: fits[k])
    return best if fits[best] >= ks_alpha else "empirical"
