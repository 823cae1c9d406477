"""ALE: known answers, PyALE cross-check, categorical ordering and the error table."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import RandomForestRegressor

import imlkit as ik
from imlkit.effects._ale import _bin_edges, order_levels


@pytest.fixture(scope="module")
def correlated_X():
    rng = np.random.default_rng(0)
    x0 = rng.uniform(-1, 1, 500)
    x1 = x0 + rng.normal(0, 0.1, 500)  # strongly correlated: PD would extrapolate, ALE does not
    return np.column_stack([x0, x1, rng.normal(size=500)])


def test_linear_feature_gives_straight_line_of_slope_a(correlated_X):
    a = -2.5
    def f(Z):
        return a * Z[:, 0] + np.sin(4 * Z[:, 1]) * Z[:, 2] + Z[:, 1] ** 2
    e = ik.ale(f, correlated_X, 0, bins=15)
    # every local difference is exactly a·(z_k − z_{k−1}): the ALE is a·x up to centring.
    assert_allclose(e.average - a * e.grid, (e.average - a * e.grid)[0], atol=1e-10)
    assert_allclose(e.extra["bin_std"], 0, atol=1e-10)


def test_centred_to_mean_zero_over_the_data(correlated_X):
    def f(Z):
        return Z[:, 0] ** 3 + Z[:, 1]
    e = ik.ale(f, correlated_X, 0, bins=10)
    # ALEPlot's centring: each bin contributes the average of its two edges, weighted by its count.
    mid = (e.average[:-1] + e.average[1:]) / 2
    assert_allclose(np.sum(mid * e.extra["bin_count"]) / len(correlated_X), 0, atol=1e-12)


def test_matches_pyale(correlated_X):
    from PyALE import ale as pyale

    X = pd.DataFrame(correlated_X, columns=["a", "b", "c"])
    rf = RandomForestRegressor(n_estimators=10, max_depth=6, random_state=0).fit(X, X["a"] ** 2 + X["b"] * X["c"])
    ref = pyale(X, rf, ["a"], grid_size=12, include_CI=False, plot=False)
    # PyALE's "type 1" quantile code indexes with n - 1 and so differs from R's type 1 (numpy's
    # inverted_cdf, which imlkit uses) at some edges; the estimator is compared on its edges.
    mine_default = ik.ale(rf, X, "a", bins=12)
    assert_allclose(mine_default.grid, np.quantile(X["a"], np.linspace(0, 1, 13), method="inverted_cdf"))
    mine = ik.ale(rf, X, "a", bins=ref.index.to_numpy(dtype=float))
    # same estimator and centring: equal up to floating point
    assert_allclose(mine.average, ref["eff"].to_numpy(), atol=1e-10)


def test_bin_edges_respect_min_bin_size():
    x = np.r_[np.zeros(50), np.arange(1, 11)]
    edges = _bin_edges(x, 10, 3)
    counts = np.bincount(np.clip(np.searchsorted(edges, x, side="left"), 1, len(edges) - 1))[1:]
    assert (counts >= 3).all() and counts.sum() == len(x)


def test_band_from_spread_of_local_effects(correlated_X):
    # f = x0·x2: local differences in a bin spread with x2, so the band is positive and accumulates.
    e = ik.ale(lambda Z: Z[:, 0] * Z[:, 2], correlated_X, 0, bins=8)
    assert (e.ci_high >= e.average).all() and (e.ci_low <= e.average).all()
    assert e.ci_high[0] == e.ci_low[0]  # the first edge has no accumulated uncertainty
    half = (e.ci_high - e.ci_low) / 2
    assert (np.diff(half) > 0).all()
    se = e.extra["bin_std"] / np.sqrt(e.extra["bin_count"])
    # rev8 r2 F8: Student's t on the Welch-Satterthwaite df of the accumulated sum (the normal quantile was too narrow)
    from scipy import stats

    v = se ** 2
    df = np.cumsum(v) ** 2 / np.cumsum(v ** 2 / (e.extra["bin_count"] - 1))
    assert_allclose(half[1:], stats.t.ppf(0.975, df) * np.sqrt(np.cumsum(v)), rtol=1e-6)


def test_ordered_categorical_keeps_its_order():
    rng = np.random.default_rng(2)
    n = 300
    X = pd.DataFrame({"size": pd.Categorical(rng.choice(["S", "M", "L"], n), categories=["S", "M", "L"],
                                             ordered=True), "v": rng.normal(size=n)})
    effect = {"S": 0.0, "M": 1.0, "L": 3.0}
    def f(Z):
        return Z["size"].astype(object).map(effect).to_numpy(dtype=float) + Z["v"].to_numpy()
    e = ik.ale(f, X, "size")
    assert list(e.grid) == ["S", "M", "L"] and e.categorical
    # additive: the ALE steps are the effect differences; centred by level frequencies
    assert_allclose(np.diff(e.average), [1.0, 2.0], atol=1e-12)
    counts = e.extra["level_count"]
    assert_allclose(np.sum(counts * e.average), 0, atol=1e-9)


def test_nominal_levels_ordered_by_similarity():
    rng = np.random.default_rng(3)
    n = 600
    level = rng.choice(["c", "a", "b"], n)
    # the other feature's distribution places level "b" between "a" and "c"
    loc = pd.Series(level).map({"a": 0.0, "b": 1.0, "c": 2.0}).to_numpy()
    X = pd.DataFrame({"g": pd.Categorical(level), "v": loc + rng.normal(0, 0.8, n)})
    order = order_levels(X, "g", np.array(["a", "b", "c"], dtype=object))
    assert list(order) in ([0, 1, 2], [2, 1, 0])
    e = ik.ale(lambda Z: Z["v"].to_numpy(), X, "g")
    assert list(e.grid)[1] == "b"
    assert_allclose(e.average, 0, atol=1e-12)  # the model ignores g


def test_explicit_edges_and_plot(correlated_X):
    e = ik.ale(lambda Z: Z[:, 0], correlated_X, 0, bins=[-1, 0, 1])
    assert_allclose(e.grid, [-1, 0, 1])
    assert_allclose(np.diff(e.average), [1, 1])
    ax = e.plot()
    assert ax.get_title() == "ALE of x0"
    assert_allclose(next(ln for ln in ax.lines if ln.get_label() == "ALE").get_ydata(), e.average)


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(feature="zz"), ValueError, "Unknown feature 'zz'"),
    (dict(feature=0, bins=0), ValueError, "'bins' must be an int >= 1; got 0"),
    (dict(feature=0, bins=[1.0]), ValueError, "'bins' as edges must hold at least 2"),
    (dict(feature=0, min_bin_size=0), ValueError, "'min_bin_size' must be an int >= 1"),
    (dict(feature=0, confidence_level=1.5), ValueError, "'confidence_level' must be a number > 0.0"),
    (dict(feature=3), ValueError, "Feature 'x3' is constant"),
    (dict(feature=0, output="a"), ValueError, "'output' must be None or 'predict'"),
])
def test_errors(correlated_X, kwargs, err, match):
    X = np.column_stack([correlated_X, np.ones(len(correlated_X))])
    with pytest.raises(err, match=match):
        ik.ale(lambda Z: Z[:, 0], X, **kwargs)


def test_level_order_from_a_categorical_companion():
    # the companion's level frequencies place "mid" between "lo" and "hi"; plain str dtype (pandas 3)
    rng = np.random.default_rng(9)
    n = 900
    g = rng.choice(["hi", "lo", "mid"], n)
    p_yes = pd.Series(g).map({"lo": 0.1, "mid": 0.5, "hi": 0.9}).to_numpy()
    comp = np.where(rng.random(n) < p_yes, "yes", "no")
    X = pd.DataFrame({"g": g, "comp": comp, "v": rng.normal(size=n)})
    e = ik.ale(lambda Z: (Z["g"] == "hi").to_numpy() * 2.0 + Z["v"].to_numpy(), X, "g")
    assert list(e.grid) in (["lo", "mid", "hi"], ["hi", "mid", "lo"])
    jumps = np.diff(e.average)
    assert_allclose(np.abs(jumps), [0.0, 2.0] if e.grid[0] == "lo" else [2.0, 0.0], atol=1e-12)
