"""Absurd sizes are bounded: ALE's bins are capped at what the data allow, grid sizes must be ints."""
import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit._validation import ValidationError
from imlkit.effects._ale import _bin_edges


def _f(Z):
    return 3 * Z[:, 0] + Z[:, 1] ** 2


@pytest.fixture(scope="module")
def X100():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(100, 2))
    X[:, 0] = np.round(X[:, 0] * 30)        # 31 or fewer distinct values, with ties
    return X


def test_ale_huge_bins_is_cheap_and_capped(X100):
    tracemalloc.start()
    try:
        t0 = time.perf_counter()
        e = ik.ale(_f, X100, 0, bins=10**9)
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # uncapped, the 10**9 quantile levels alone are 8 GB
    assert peak < 50e6, peak
    assert seconds < 5, seconds
    d = len(np.unique(X100[:, 0]))
    assert_array_equal(e.grid, np.unique(X100[:, 0]))      # every distinct value is an edge
    assert e.info["n_bins"] == d - 1 and e.params["bins"] == 10**9
    assert f"the {d} distinct values of 'x0' allow" in e.info["bins_capped"]
    # the same ALE as with as many bins as rows (the largest count that can still matter)
    same = ik.ale(_f, X100, 0, bins=100)
    assert_array_equal(same.grid, e.grid)
    assert_allclose(same.average, e.average, rtol=0, atol=1e-12)
    # and a linear function's ALE has slope 3 on those edges
    assert_allclose(np.polyfit(e.grid, e.average, 1)[0], 3.0, rtol=1e-10)


def test_ale_few_bins_are_not_capped(X100):
    e = ik.ale(_f, X100, 0, bins=5)
    assert "bins_capped" not in e.info and e.info["n_bins"] == len(e.grid) - 1 <= 5


@pytest.mark.parametrize("seed, n, levels", [(0, 50, 7), (1, 100, 100), (2, 37, 5), (3, 200, 180)])
def test_capped_quantile_edges_equal_the_uncapped_ones(seed, n, levels):
    # The cap is exact: type-1 quantiles at k/B for any B >= n hit every order statistic, so
    # numpy's quantiles at B + 1 levels (B > n: no rounding trouble) are the distinct values.
    x = np.random.default_rng(seed).integers(0, levels, n).astype(float)
    for B in (n + 1, 3 * n + 7, 10**5):
        reference = np.unique(np.quantile(x, np.linspace(0, 1, B + 1), method="inverted_cdf"))
        assert_array_equal(_bin_edges(x, B, 1), reference)
    assert_array_equal(_bin_edges(x, n, 1), np.unique(x))
    # below n the quantile edges are unchanged
    B = max(2, n // 3)
    assert_array_equal(_bin_edges(x, B, 1),
                       np.unique(np.quantile(x, np.linspace(0, 1, B + 1), method="inverted_cdf")))


@pytest.fixture(scope="module")
def model_and_data():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    model = LinearRegression().fit(X, 2 * X["a"] + X["b"])
    Xc = X.assign(c=pd.Categorical(rng.choice(["u", "v", "w"], 60)))
    return model, X, Xc


@pytest.mark.parametrize("method", ["ice", "partial_dependence"])
@pytest.mark.parametrize("grid, exc, match", [
    (2.5, TypeError, r"got 2.5, which is not a whole number of points"),
    (3.0, TypeError, r"got 3.0, which is not a whole number of points"),
    (np.float64(4.0), TypeError, r"not a whole number of points"),
    (True, TypeError, r"'grid' must be an int >= 2 \(the number of grid points\) or an array of grid values; "
                      r"got True"),
    (False, TypeError, r"got False"),
    (0, ValidationError, r"'grid' must be an int >= 2; got 0\."),
    (-4, ValidationError, r"'grid' must be an int >= 2; got -4\."),
    (1, ValidationError, r"'grid' must be an int >= 2; got 1\."),
    (None, TypeError, r"got None"),
    ("ab", TypeError, r"for that one value pass \['ab'\]"),
])
def test_grid_size_must_be_an_int(model_and_data, method, grid, exc, match):
    model, X, _ = model_and_data
    with pytest.raises(exc, match=match):
        getattr(ik, method)(model, X, "a", grid=grid)


def test_grid_size_refused_for_a_categorical_feature_too():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=60), "c": pd.Categorical(rng.choice(["u", "v", "w"], 60))})

    def model(Z):
        return Z["a"].to_numpy() + (Z["c"] == "v").to_numpy()

    with pytest.raises(TypeError, match="not a whole number of points"):
        ik.partial_dependence(model, X, "c", grid=2.5)
    with pytest.raises(TypeError, match="got True"):
        ik.ice(model, X, "c", grid=True)
    # valid sizes and explicit values still work
    assert list(ik.partial_dependence(model, X, "c", grid=3).grid) == ["u", "v", "w"]
    assert list(ik.partial_dependence(model, X, "c", grid=["v"]).grid) == ["v"]


def test_valid_grids_unchanged(model_and_data):
    model, X, _ = model_and_data
    assert len(ik.partial_dependence(model, X, "a", grid=np.int64(7)).grid) == 7
    assert len(ik.partial_dependence(model, X, "a", grid=np.array(6)).grid) == 6
    assert_allclose(ik.partial_dependence(model, X, "a", grid=[0.5]).grid, [0.5])
    assert_allclose(ik.ice(model, X, "a", grid=[-1.0, 2.5]).grid, [-1.0, 2.5])
