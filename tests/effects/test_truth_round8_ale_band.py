"""Review rev8 r2, finding 8: ALE's explain() claimed a pointwise 95% band built from intervals of 1-2 rows (spector,
10 test rows: "at most ±0.00081 wide ...; the range is 249 times that half-width"); a one-row interval added a variance
of 0 and a two-row one used the normal quantile on 1 degree of freedom.

Now: Student's t on the Welch-Satterthwaite df of the accumulated sum, and no band (NaN) at and beyond an interval of
fewer than MIN_BAND_ROWS rows, which explain() says.
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import imlkit as ik
from imlkit.effects._ale import MIN_BAND_ROWS


def _product(Z):
    Z = np.asarray(Z, dtype=float)
    return Z[:, 0] * Z[:, 1]


def _rows(n, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.normal(1, 1, n)})


def test_one_interval_band_is_scipys_one_sample_t_interval():
    """One interval [0, 1]: the accumulated effect at its upper edge is the mean local difference b_i (a's step is
    1), and the band's half-width there is half of scipy's one-sample t interval of the b_i."""
    X = _rows(8)
    r = ik.ale(_product, X, "a", bins=[0.0, 1.0])
    half = (r.ci_high - r.ci_low) / 2
    ci = stats.ttest_1samp(X["b"], 0).confidence_interval(0.95)
    assert_allclose(half[1], (ci.high - ci.low) / 2, rtol=1e-10)
    assert_allclose(half[0], 0, atol=1e-15)


def test_two_intervals_use_the_welch_satterthwaite_t():
    X = _rows(40, seed=1)
    edges = np.array([0.0, 0.3, 1.0])
    r = ik.ale(_product, X, "a", bins=edges, confidence_level=0.9)
    a = X["a"].to_numpy()
    k = np.where(a <= 0.3, 0, 1)
    v, dfs = [], []
    for j in range(2):
        d = (edges[j + 1] - edges[j]) * X["b"].to_numpy()[k == j]
        v.append(d.var(ddof=1) / len(d))
        dfs.append(len(d) - 1)
    v = np.array(v)
    df = v.sum() ** 2 / np.sum(v ** 2 / np.array(dfs))
    half = (r.ci_high - r.ci_low) / 2
    assert_allclose(half[2], stats.t.ppf(0.95, df) * np.sqrt(v.sum()), rtol=1e-10)
    assert_allclose(half[1], stats.t.ppf(0.95, dfs[0]) * np.sqrt(v[0]), rtol=1e-10)


def test_no_band_at_and_beyond_an_interval_of_too_few_rows():
    rng = np.random.default_rng(2)
    a = np.concatenate([rng.uniform(0, 0.4, 8), [0.45, 0.5], rng.uniform(0.6, 1, 8)])
    X = pd.DataFrame({"a": a, "b": rng.normal(1, 1, len(a))})
    r = ik.ale(_product, X, "a", bins=[0.0, 0.4, 0.55, 1.0])
    assert list(r.extra["bin_count"]) == [8, 2, 8] and 2 < MIN_BAND_ROWS
    half = (r.ci_high - r.ci_low) / 2
    assert np.isfinite(half[:2]).all() and np.isnan(half[2:]).all()
    t = r.explain()
    assert "No band from a = 0.55 on" in t
    assert f"fewer than {MIN_BAND_ROWS} rows" in t and "where it is given" in t
    r.plot()  # a NaN band still draws


def test_spector_like_ten_rows_give_no_band_and_no_times_the_half_width():
    """10 rows, every interval 1 to 2 rows (spector's GPA): no band, and no "N times that half-width"."""
    X = _rows(10, seed=3)
    r = ik.ale(_product, X, "a")
    assert r.extra["bin_count"].max() < MIN_BAND_ROWS
    assert np.isnan(r.ci_low[1:]).all()
    t = r.explain()
    assert "No pointwise 95% band" in t and "times that half-width" not in t
    assert "±" not in t


@pytest.mark.parametrize("n", [60])
def test_steps_from_small_intervals_are_not_called_settled(n):
    """A non-monotone curve whose steps come from intervals of 2 rows: their standard error is not 0 (it was,
    sd 0 or 1 df read as exact), they have none and are not counted."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.normal(size=n)})

    def f(Z):
        Z = np.asarray(Z, dtype=float)
        return np.sin(12 * Z[:, 0]) + 0.01 * Z[:, 1]

    r = ik.ale(f, X, "a", bins=30)
    assert r.extra["bin_count"].max() < MIN_BAND_ROWS
    t = r.explain()
    assert "Shape: not monotone" in t
    assert f"have no standard error (an ALE interval of fewer than {MIN_BAND_ROWS} rows)" in t
