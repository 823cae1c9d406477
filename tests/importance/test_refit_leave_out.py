"""Leaving a feature out of a refit: dropping it, or neutralising it for pipelines that select
columns by name (a constant column in training and test data)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeRegressor

import imlkit as ik
from imlkit._losses import get_loss
from imlkit.importance._refit import RefitJob, RefitProblem, leave_out_mode, neutralise, run_refits


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n), "x3": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(["a", "b", "c"], size=n))})
    y = 2 * X["x1"] + X["x2"] * X["x3"] + (X["c"] == "b") + 0.3 * rng.normal(size=n)
    return X.iloc[:200], y.to_numpy()[:200], X.iloc[200:], y.to_numpy()[200:]


def _by_name():
    ct = ColumnTransformer([("num", StandardScaler(), ["x1", "x2", "x3"]),
                            ("cat", OneHotEncoder(handle_unknown="ignore"), ["c"])])
    return Pipeline([("prep", ct), ("fit", Ridge(alpha=1.0))])


def _refits(learner, X_tr, y_tr, X_te, y_te, mode, columns):
    problem = RefitProblem(learner=learner, X_train=X_tr, y_train=y_tr, X_test=X_te, y_test=y_te,
                           loss=get_loss("squared_error"), as_frame=True, max_rows=None, leave_out=mode)
    seed = np.random.SeedSequence(0)
    jobs = [RefitJob(f"feature {c!r}", (c,), None, seed) for c in columns]
    return [point for point, _ in run_refits(problem, jobs, n_jobs=1)]


@pytest.mark.parametrize("learner", [DecisionTreeRegressor(min_samples_leaf=10, random_state=0),
                                     RandomForestRegressor(n_estimators=15, min_samples_leaf=10, random_state=0),
                                     LinearRegression(), make_pipeline(StandardScaler(), LinearRegression())],
                         ids=["tree", "forest", "ols", "scaled-ols"])
def test_neutralising_equals_dropping(data, learner):
    """A constant column carries no information: trees never split on it (all features are
    candidates, so the same tree), an intercept absorbs it. Numeric columns only. The trees are
    kept to leaves of 10 rows: in nodes of a few rows several features tie for the best split and
    the tree's random feature order, which depends on the number of columns, breaks the tie."""
    X_tr, y_tr, X_te, y_te = data
    num = ["x1", "x2", "x3"]
    dropped = _refits(learner, X_tr[num], y_tr, X_te[num], y_te, "drop", num)
    neutral = _refits(learner, X_tr[num], y_tr, X_te[num], y_te, "neutralise", num)
    for a, b in zip(dropped, neutral):
        assert_allclose(b, a, rtol=1e-7, atol=1e-9)


def test_leave_out_mode_detects_column_selection():
    assert leave_out_mode(_by_name()) == "neutralise"
    positions = make_pipeline(ColumnTransformer([("s", StandardScaler(), [0, 1])]), Ridge())
    assert leave_out_mode(positions) == "neutralise"   # dropping would shift the positions
    selector = make_pipeline(ColumnTransformer([("s", StandardScaler(), make_column_selector(dtype_include="number"))]),
                             Ridge())
    assert leave_out_mode(selector) == "drop"
    assert leave_out_mode(Ridge()) == "drop"
    assert leave_out_mode(lambda: _by_name()) == "neutralise"   # a factory


def test_neutralise_constants(data):
    X_tr, _, X_te, _ = data
    X_tr = X_tr.copy()
    X_tr.loc[X_tr.index[:5], "x1"] = np.nan
    a, b = neutralise(X_tr, X_te, ("x1", "c"))
    med = np.nanmedian(X_tr["x1"].to_numpy())
    assert (a["x1"] == med).all() and (b["x1"] == med).all()
    mode = X_tr["c"].mode().iloc[0]
    assert (a["c"] == mode).all() and (b["c"] == mode).all()
    assert a["c"].dtype == X_tr["c"].dtype and list(a.columns) == list(X_tr.columns)
    assert_allclose(a["x2"], X_tr["x2"])   # other columns untouched


def test_loco_pipeline_by_name(data):
    """The issue's second row: LOCO, LOFO and PIMP of a pipeline that selects columns by name."""
    X_tr, y_tr, X_te, y_te = data
    r = ik.loco(_by_name(), X_tr, y_tr, X_te, y_te, random_state=0)
    assert r.feature_names[int(np.argmax(r.importance))] == "x1"
    lofo = ik.lofo(_by_name(), X_tr, y_tr, X_te, y_te, random_state=0)
    assert np.isfinite(lofo.importance).all() and lofo.importance[0] > 1
    p = ik.pimp(_by_name(), X_tr, y_tr, X_te, y_te, importance="loco", n_null=2, random_state=0)
    assert np.isfinite(p.importance).all()


def test_pipeline_by_name_equals_plain_ols(data):
    """Scaling does not change OLS predictions and a neutralised column is a dropped one, so
    LOCO of scaler + OLS selecting columns by name equals LOCO of OLS that drops them."""
    X_tr, y_tr, X_te, y_te = data
    num = ["x1", "x2", "x3"]
    piped = Pipeline([("prep", ColumnTransformer([("num", StandardScaler(), num)])), ("fit", LinearRegression())])
    a = ik.loco(piped, X_tr[num], y_tr, X_te[num], y_te, random_state=0)
    b = ik.loco(LinearRegression(), X_tr[num], y_tr, X_te[num], y_te, random_state=0)
    assert_allclose(a.importance, b.importance, rtol=1e-7, atol=1e-10)
    assert_allclose(a.observation_importance, b.observation_importance, rtol=1e-7, atol=1e-10)
