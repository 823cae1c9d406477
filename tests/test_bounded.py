"""Bounded cost and memory by default (issue 14, item 3).

Each change is checked two ways: the numbers equal what the unbounded computation gives (a
direct reference, written out here), and the large intermediate is no longer built (its
size is asserted through tracemalloc or by spying on the function that built it).
"""
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit import _model
from imlkit._dependence import dependence_r2

# --------------------------------------------------------------------------- PFI blocks

@pytest.fixture(scope="module")
def reg_data():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.uniform(size=n),
                      "g": pd.Categorical(rng.choice(list("pqr"), n))})
    y = 2 * X.a - X.b + (X.g == "p") + 0.1 * rng.normal(size=n)
    return X, y.to_numpy()


def _spy_stack(monkeypatch):
    """Record the rows of every frame PFI hands to the model (the stacked copies it built)."""
    sizes = []
    real = _model.Predictor.predict

    def spy(self, X, *args, **kwargs):
        sizes.append(len(X))
        return real(self, X, *args, **kwargs)

    monkeypatch.setattr(_model.Predictor, "predict", spy)
    return sizes


def test_pfi_identical_for_any_max_rows(reg_data, monkeypatch):
    X, y = reg_data
    n = len(X)

    def f(Z):  # a non-linear callable: always the stacked-predict path
        return np.sin(2 * Z["a"].to_numpy()) * Z["b"].to_numpy() + Z["c"].to_numpy() ** 2 + (Z["g"] == "p")

    features = {"a": ["a"], "b": ["b"], "c": ["c"], "g": ["g"], "ab": ["a", "b"]}
    sizes = _spy_stack(monkeypatch)
    ref = ik.pfi(f, X, y, features=features, n_repeats=7, random_state=3)
    assert max(sizes) == 7 * n * 5            # unbounded: all features in one call
    for max_rows in [7 * n, 3 * n + 1, n // 2]:
        sizes.clear()
        r = ik.pfi(f, X, y, features=features, n_repeats=7, random_state=3, max_rows=max_rows)
        assert max(sizes) <= max(max_rows, n), (max_rows, max(sizes))
        assert_allclose(r.repeats, ref.repeats, rtol=1e-12, atol=0)
        assert_allclose(r.observation_importance, ref.observation_importance, rtol=1e-12, atol=1e-15)
        assert r.params["n_rows"] == n


def test_pfi_blocks_tree_engine_group_and_classifier(reg_data):
    X, y = reg_data
    Xn = X.assign(g=X.g.cat.codes)
    yc = (y > np.median(y)).astype(int)
    rf = RandomForestClassifier(n_estimators=20, max_depth=4, random_state=0).fit(Xn, yc)
    feats = {"a": ["a"], "ab": ["a", "b"]}
    for loss in ["log_loss", "roc_auc"]:
        ref = ik.pfi(rf, Xn, yc, features=feats, n_repeats=5, loss=loss, random_state=1, engine="trees")
        assert ref.params["engine"] == "trees"
        small = ik.pfi(rf, Xn, yc, features=feats, n_repeats=5, loss=loss, random_state=1, engine="trees",
                       max_rows=2 * len(X))
        brute = ik.pfi(rf, Xn, yc, features=feats, n_repeats=5, loss=loss, random_state=1, engine="predict",
                       max_rows=len(X))
        assert_allclose(small.repeats, ref.repeats, rtol=1e-10)
        if loss == "log_loss":  # AUC ranks tied probabilities, which agree only to ~1e-12
            assert_allclose(brute.repeats, ref.repeats, rtol=1e-10)


# --------------------------------------------------------------------------- dependence R²

def _dense_r2(X):
    """The definition: least squares of each numeric column on the others, dummies drop_first."""
    Z = pd.get_dummies(X, drop_first=True, dtype=float)
    out = {}
    for c in X.columns:
        if isinstance(X[c].dtype, pd.CategoricalDtype) or X[c].dtype.kind not in "biuf" or X[c].std() == 0:
            continue
        rest = Z.drop(columns=c)
        out[c] = LinearRegression().fit(rest, Z[c]).score(rest, Z[c])
    return pd.Series(out)


def test_dependence_r2_equals_dense_least_squares():
    rng = np.random.default_rng(1)
    n = 1500
    g1 = rng.integers(0, 40, n)
    eff = rng.normal(size=40)
    X = pd.DataFrame({"x": eff[g1] + 0.5 * rng.normal(size=n), "y": rng.normal(size=n),
                      "z": rng.normal(size=n), "g1": pd.Categorical(g1),
                      "g2": (g1 // 3 + rng.integers(0, 3, n)).astype(str),   # correlated with g1
                      "g3": pd.Categorical(g1 // 8),                         # nested in g1
                      "flag": rng.random(n) < 0.3})
    X["w"] = 0.5 * X.y + X.z + rng.normal(size=n)
    r2 = dependence_r2(X)
    expected = _dense_r2(X)
    assert_allclose(r2[expected.index], expected, rtol=1e-8, atol=1e-10)
    assert r2[["g1", "g2", "g3"]].isna().all()
    # Fully explained by a categorical: R² = 1.
    X2 = X.assign(m=eff[g1])
    assert_allclose(dependence_r2(X2)["m"], 1.0)


@pytest.mark.parametrize("loader", ["grunfeld", "fair"])
def test_dependence_r2_matches_on_statsmodels_data(loader):
    import statsmodels.api as sm

    X = getattr(sm.datasets, loader).load_pandas().data
    r2 = dependence_r2(X)
    expected = _dense_r2(X)
    assert_allclose(r2[expected.index], expected, rtol=1e-7, atol=1e-9)


def test_dependence_r2_many_levels_without_dummies(monkeypatch):
    rng = np.random.default_rng(2)
    n, L = 20_000, 400
    g = rng.integers(0, L, n)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "g": pd.Categorical(g)})
    X["d"] = X.a + rng.normal(size=L)[g] + 0.1 * rng.normal(size=n)

    def no_dummies(*args, **kwargs):
        raise AssertionError("dependence_r2 must not build dummies")

    monkeypatch.setattr(pd, "get_dummies", no_dummies)
    tracemalloc.start()
    r2 = dependence_r2(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < n * L * 8 / 10, peak              # a tenth of one dense dummy matrix
    # Known answer: d - a is the level effect plus small noise, so d is explained almost fully.
    assert r2["d"] > 0.95 and r2["b"] < 0.05
    monkeypatch.undo()
    # Exact: a within-level regression gives the same R² as the dense fit on a subset.
    sub = X.iloc[:3000].copy()
    sub["g"] = sub["g"].cat.remove_unused_categories()
    assert_allclose(dependence_r2(sub)[["a", "b", "d"]], _dense_r2(sub)[["a", "b", "d"]], rtol=1e-8)
