"""c-ICE heterogeneity ranking: the analytic value on f = x1 + x2·x3, REPID's root risk, the
report's former computation, reproducibility and errors."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik


def f_interaction(Z):
    Z = np.asarray(Z, dtype=float)
    return Z[:, 0] + Z[:, 1] * Z[:, 2]


@pytest.fixture(scope="module")
def uniform_X():
    rng = np.random.default_rng(3)
    return pd.DataFrame(rng.uniform(-1, 1, size=(300, 3)), columns=["x1", "x2", "x3"])


def _quantile_grid(x, m):
    return np.unique(np.quantile(x, np.linspace(0, 1, m)))


def test_known_answer_additive_zero_and_product_analytic(uniform_X):
    X = uniform_X
    m = 15
    h = ik.ice_heterogeneity(f_interaction, X, grid=m)
    frame = h.to_frame()
    # x1 enters additively: every centred ICE curve equals the centred PD.
    assert abs(frame.loc["x1", "heterogeneity"]) < 1e-12
    # x2: centred ICE of row i is (g_k − ḡ)·x3_i, the centred PD (g_k − ḡ)·mean(x3); the
    # deviation (g_k − ḡ)(x3_i − mean x3) averaged in square over i and k is var(g)·var(x3)
    # (population variances, g the grid of x2).
    for feat, other in (("x2", "x3"), ("x3", "x2")):
        g = _quantile_grid(X[feat].to_numpy(), m)
        expected = np.var(g) * np.var(X[other].to_numpy())
        assert_allclose(frame.loc[feat, "heterogeneity"], expected, rtol=1e-10)
        assert frame.loc[feat, "grid"] == len(g)
    assert set(h.ranking[:2]) == {"x2", "x3"} and h.ranking[2] == "x1"
    assert h.top in ("x2", "x3")
    assert list(frame["heterogeneity"]) == sorted(frame["heterogeneity"], reverse=True)
    # the given order is kept in the arrays
    assert h.feature_names == ("x1", "x2", "x3")


def test_equals_repid_root_risk_over_n_m(uniform_X):
    h = ik.ice_heterogeneity(f_interaction, uniform_X, ["x2"], grid=12)
    r = ik.repid(f_interaction, uniform_X, "x2", grid=12, max_depth=1)
    n, m = len(uniform_X), len(r.grid)
    assert_allclose(h.heterogeneity[0], r.extra["root_risk"] / (n * m), rtol=1e-12)


def _report_previous(model, X, candidates, grid, output=None):
    """The report's computation before it called the public function."""
    het = {}
    for f in candidates:
        e = ik.ice(model, X, f, grid=grid, center="mean", output=output)
        C = np.asarray(e.individual, dtype=float)
        het[f] = float(np.mean(np.var(C, axis=0))) if C.size else 0.0
    return pd.Series(het).sort_values(ascending=False, kind="stable")


def test_equals_the_reports_previous_numbers():
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X = X.iloc[:150]
    y = y.iloc[:150]
    model = GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0).fit(X, y)
    cands = ["bmi", "s5", "bp", "age"]
    old = _report_previous(model, X, cands, 10)
    new = ik.ice_heterogeneity(model, X, cands, grid=10).to_series()
    assert list(new.index) == list(old.index)
    assert_allclose(new.to_numpy(), old.to_numpy(), rtol=1e-12)
    # a classifier's P(class) (the report passes the class it explains)
    yc = (y > y.median()).astype(int)
    clf = RandomForestClassifier(n_estimators=15, max_depth=4, random_state=0).fit(X, yc)
    old = _report_previous(clf, X, cands, 8, output=1)
    new = ik.ice_heterogeneity(clf, X, cands, grid=8, output=1).to_series()
    assert list(new.index) == list(old.index)
    assert_allclose(new.to_numpy(), old.to_numpy(), rtol=1e-12)


def test_multiclass_mean_over_classes():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True, as_frame=True)
    clf = LogisticRegression(max_iter=500).fit(X, y)
    h = ik.ice_heterogeneity(clf, X, grid=6)
    per_class = np.array([ik.ice_heterogeneity(clf, X, grid=6, output=c).heterogeneity for c in clf.classes_])
    assert_allclose(h.heterogeneity, per_class.mean(axis=0), rtol=1e-12)
    assert list(h.extra["classes"]) == [0, 1, 2]


def test_same_rows_for_every_feature_and_n_jobs_invariant(uniform_X):
    import joblib

    a = ik.ice_heterogeneity(f_interaction, uniform_X, grid=8, n_samples=120, random_state=5, n_jobs=1)
    with joblib.parallel_config(backend="threading"):  # two workers without process start-up
        b = ik.ice_heterogeneity(f_interaction, uniform_X, grid=8, n_samples=120, random_state=5, n_jobs=2)
    assert_allclose(a.heterogeneity, b.heterogeneity, rtol=0, atol=0)
    assert a.n_samples == 120 and len(a.extra["row_index"]) == 120
    sub = uniform_X.iloc[a.extra["row_index"]]
    g = _quantile_grid(sub["x2"].to_numpy(), 8)
    assert_allclose(a.to_frame().loc["x2", "heterogeneity"], np.var(g) * np.var(sub["x3"].to_numpy()),
                    rtol=1e-10)


def test_constant_feature_and_categorical():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"c": np.ones(50), "k": pd.Categorical(rng.choice(["a", "b", "c"], 50)),
                      "z": rng.normal(size=50)})

    def model(Z):
        shift = Z["k"].map({"a": 0.0, "b": 1.0, "c": 2.0}).to_numpy(dtype=float)
        return shift * Z["z"].to_numpy() + Z["c"].to_numpy()

    h = ik.ice_heterogeneity(model, X, grid=5).to_frame()
    assert h.loc["c", "heterogeneity"] == 0.0 and h.loc["c", "grid"] == 1
    # levels 0,1,2 on k: centred ICE (s_k − 1)·z_i, deviation (s_k − 1)(z_i − mean z): var(s)·var(z)
    assert_allclose(h.loc["k", "heterogeneity"], np.var([0.0, 1.0, 2.0]) * np.var(X["z"]), rtol=1e-10)


@pytest.mark.parametrize("kwargs, match", [
    (dict(grid=1), "'grid' must be an int >= 2"),
    (dict(grid=[0.0, 1.0]), "'grid' must be an int >= 2"),
    (dict(features="nope"), "nope"),
    (dict(n_samples=0), "'n_samples'"),
    (dict(grid_type="log"), "'grid_type'"),
])
def test_errors_name_the_parameter(uniform_X, kwargs, match):
    with pytest.raises((ik.ValidationError, TypeError), match=match):
        ik.ice_heterogeneity(f_interaction, uniform_X, **kwargs)


def test_repr_and_frame(uniform_X):
    h = ik.ice_heterogeneity(f_interaction, uniform_X, grid=5)
    assert "HeterogeneityResult" in repr(h) and "300 rows" in repr(h)
    assert "<table" in h._repr_html_()
