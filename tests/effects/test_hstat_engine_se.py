"""The pairwise H²'s bootstrap standard error on the tree engine: every row's predictions at a pair's points come from
the trees (a difference array per row, or the leaves' corners for a large grid), so ``h2_se`` is the predict path's
number up to rounding; and the private run without standard errors."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik
from imlkit._trees import _engine
from imlkit.effects._hstat import h_statistic_without_se


def _data(n=400, seed=0, nan=False):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.integers(0, 6, n).astype(float),
                      "d": rng.uniform(-1, 1, n)})
    y = X["a"] * X["b"] + np.sin(2 * X["d"]) + X["a"] * (X["c"] > 2) + 0.2 * rng.normal(size=n)
    if nan:
        X.loc[rng.random(n) < 0.1, "a"] = np.nan
        X.loc[rng.random(n) < 0.1, "c"] = np.nan
    return X, y


def _regressors():
    from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor, RandomForestRegressor

    out = [("hgb", HistGradientBoostingRegressor(max_iter=60, random_state=0), True),
           ("rf", RandomForestRegressor(n_estimators=25, min_samples_leaf=3, random_state=0), False),
           ("gbr", GradientBoostingRegressor(n_estimators=40, max_depth=3, random_state=0), False)]
    try:
        import xgboost

        out.append(("xgb", xgboost.XGBRegressor(n_estimators=40, max_depth=4), True))
    except ImportError:
        pass
    try:
        import lightgbm

        out.append(("lgbm", lightgbm.LGBMRegressor(n_estimators=40, min_child_samples=5, verbose=-1), True))
    except ImportError:
        pass
    return out


def _by_pair(h):
    t = h.pairwise
    return t.set_index([t["feature_1"], t["feature_2"]]).sort_index()


def _assert_same(ht, hp, model_rtol=1e-9):
    """Equal up to rounding; ``model_rtol``: how far the model's own predictions are from the engine's exact sums
    (XGBoost adds its trees in float32: 2e-5, the engine's check)."""
    assert ht.info["engine"] == "trees" and hp.info["engine"] == "predict"
    t, p = _by_pair(ht), _by_pair(hp)
    assert list(t.index) == list(p.index)
    assert np.isfinite(t["h2_se"]).all() and (t["h2_se"] > 0).any()
    rtol = max(1e-9, model_rtol)
    assert_allclose(t["h2"], p["h2"], rtol=rtol, atol=1e-12)
    assert_allclose(t["h_unnormalized"], p["h_unnormalized"], rtol=rtol, atol=1e-12)
    assert_allclose(t["h2_se"], p["h2_se"], rtol=100 * rtol, atol=1e-12)
    assert_allclose(ht.overall_se, hp.overall_se, rtol=100 * rtol, atol=1e-12)


@pytest.mark.parametrize("name, model, handles_nan", _regressors(), ids=lambda v: v if isinstance(v, str) else "")
def test_pair_se_on_the_engine_equals_the_predict_path(name, model, handles_nan):
    """Before: the engine averaged the pair's PD inside the trees and h2_se was NaN for every pair."""
    X, y = _data(nan=handles_nan)
    model.fit(X, y)
    kw = dict(pairs="all", n_samples=150, random_state=3)
    _assert_same(ik.h_statistic(model, X, engine="trees", **kw), ik.h_statistic(model, X, engine="predict", **kw),
                 _engine.tree_model(model, X).rtol)


@pytest.mark.parametrize("sparse_cells", [0, 1 << 40], ids=["corners", "difference-array"])
def test_pair_se_both_kernels(monkeypatch, sparse_cells):
    """Every row's predictions from the leaves' corners (a large grid) and from a difference array per row (a small
    one) both give the predict path's numbers; the threshold decides only which runs."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    monkeypatch.setattr(_engine, "SPARSE_CELLS", sparse_cells)
    X, y = _data(nan=True, seed=1)
    model = HistGradientBoostingRegressor(max_iter=50, random_state=0).fit(X, y)
    kw = dict(pairs=[("a", "b"), ("c", "a"), ("d", "b")], n_samples=200, random_state=0)
    _assert_same(ik.h_statistic(model, X, engine="trees", **kw), ik.h_statistic(model, X, engine="predict", **kw))


@pytest.mark.parametrize("multi", [False, True], ids=["binary", "multiclass"])
def test_pair_se_classifiers(multi):
    """A link that is not affine (sigmoid, softmax) and the vector of class probabilities of a multi-class model."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y = _data(seed=2)
    labels = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3])) if multi else (y > np.median(y)).astype(int)
    model = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(X, labels)
    kw = dict(pairs=[("a", "b"), ("b", "d")], n_samples=120, random_state=1)
    _assert_same(ik.h_statistic(model, X, engine="trees", **kw), ik.h_statistic(model, X, engine="predict", **kw))


def test_rows_kernel_equals_difference_arrays():
    """free2_rows_kernel (corners, Fenwick sums) against free2_kernel without weights, on axes with NaN and on a
    multi-output forest; both against the model's own predictions at every point."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    from imlkit._trees._kernels import free2_kernel, free2_rows_kernel

    X, y = _data(nan=True, seed=4)
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, np.digitize(y, [-1, 0, 1]))
    tm = _engine.tree_model(model, X)
    Xe = np.ascontiguousarray(tm.encode(X.iloc[:40]), dtype=np.float64)
    pts = X.iloc[40:90]
    G1, Q1 = _engine._axis(pts["a"].to_numpy())
    G2, Q2 = _engine._axis(pts["c"].to_numpy())
    assert np.isnan(G1[-1]) and np.isnan(G2[-1]) and tm.forest.n_out == 4
    dense = free2_kernel(Xe, 0, G1, 2, G2, Q1, Q2, np.empty(0), *tm.kernel_args)
    for block in (1, 7, 64):
        assert_allclose(free2_rows_kernel(Xe, 0, G1, 2, G2, Q1, Q2, block, *tm.kernel_args), dense, rtol=0,
                        atol=1e-12)
    raw = model._raw_predict(pd.concat([X.iloc[:40].assign(a=a, c=c) for a, c in zip(pts["a"], pts["c"])]))
    assert_allclose(dense + tm.base, raw.reshape(len(pts), 40, 4).transpose(1, 0, 2), rtol=1e-12, atol=1e-12)


def test_axis_merges_values_no_split_tells_apart():
    """Values between the same two thresholds are one grid point (the smallest stands for them); NaN stays last."""
    grid, pos = _engine._axis(np.array([0.5, 2.0, 0.7, np.nan, 3.5, 1.0, 0.1]), np.array([1.0, 3.0]))
    assert_allclose(grid, [0.1, 2.0, 3.5, np.nan])
    assert pos.tolist() == [0, 1, 0, 3, 2, 0, 0]


def test_h_statistic_without_se():
    """The report's runs on each half of its rows never show the standard errors: without them the same H², NaN
    standard errors, and the next call has them again."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    X, y = _data()
    model = HistGradientBoostingRegressor(max_iter=30, random_state=0).fit(X, y)
    kw = dict(pairs="all", n_samples=100, random_state=0)
    full = ik.h_statistic(model, X, **kw)
    bare = h_statistic_without_se(model, X, **kw)
    assert_allclose(bare.overall, full.overall, rtol=1e-12, atol=0)
    assert_allclose(bare.pairwise["h2"], full.pairwise["h2"], rtol=1e-9, atol=1e-14)
    assert np.isnan(bare.overall_se).all() and bare.pairwise["h2_se"].isna().all() and bare.extra["n_boot"] == 0
    again = ik.h_statistic(model, X, **kw)
    assert_allclose(again.pairwise["h2_se"], full.pairwise["h2_se"], rtol=0, atol=0)
    assert np.isfinite(again.overall_se).all()


def test_corners_of_category_splits_that_reach_a_leaf_many_times(monkeypatch):
    """A category split sends alternating runs of an axis to the same child, so one walk reaches a leaf many times
    (more corners than the tree has leaves): the corner buffer grows as the leaves are reached."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    monkeypatch.setattr(_engine, "SPARSE_CELLS", 0)
    rng = np.random.default_rng(5)
    n = 600
    X = pd.DataFrame({"g": rng.integers(0, 40, n).astype(float), "x": rng.normal(size=n), "z": rng.normal(size=n)})
    y = np.where(X["g"] % 2 == 0, 1.0, -1.0) * (1 + X["x"]) + 0.1 * rng.normal(size=n)
    model = HistGradientBoostingRegressor(max_iter=40, max_leaf_nodes=4, categorical_features=[0],
                                          random_state=0).fit(X, y)
    tm = _engine.tree_model(model, X)
    assert (np.asarray(tm.forest.kind) == 1).any()
    kw = dict(pairs=[("g", "x"), ("z", "g")], n_samples=300, random_state=0)
    _assert_same(ik.h_statistic(model, X, engine="trees", **kw), ik.h_statistic(model, X, engine="predict", **kw))
