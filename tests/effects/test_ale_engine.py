"""ALE on the tree engine gives the numbers of ``engine="predict"`` (the stacked predict).

Known answer: ``engine="predict"`` builds each row's two bin-edge copies (three neighbouring-level
copies for a categorical feature) and asks the model itself, so the engine, which walks only the
trees whose nodes on the feature separate a row's values, must give the same ALE: to 1e-10 for
float64 sums (scikit-learn, LightGBM), to XGBoost's float32 sums (rtol 2e-5).
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.compose import make_column_transformer
from sklearn.ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

import imlkit as ik
from imlkit._model import Predictor
from imlkit._trees import _ale_kernels, _engine
from imlkit._validation import ModelError, ValidationError

#: one OpenMP/BLAS thread (tests/conftest.py): the engine is single-threaded, and OpenMP fits and predicts
#: crawl on a shared machine
pytestmark = pytest.mark.usefixtures("one_thread")


def _data(n=240, seed=0):
    """x0, x1 floats, x2 integers 0..9, c a category of 4 levels; y depends on all of them."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n), "x2": rng.integers(0, 10, n),
                      "c": pd.Categorical(rng.choice(["p", "q", "r", "s"], n))})
    y = X.x0 * X.x1 + np.sin(X.x2) + X.c.cat.codes * X.x0 + 0.2 * rng.normal(size=n)
    return X, y.to_numpy()


def _codes(X):
    return X.assign(c=X["c"].cat.codes)


def _same(model, X, feature, rtol=1e-10, **kw):
    fast = ik.ale(model, X, feature, **kw)
    slow = ik.ale(model, X, feature, engine="predict", **kw)
    assert fast.info["engine"] == "trees", fast.info.get("engine_note")
    assert slow.info["engine"] == "predict"
    scale = max(1.0, float(np.max(np.abs(slow.average))))
    for a, b in ((fast.average, slow.average), (fast.ci_low, slow.ci_low), (fast.ci_high, slow.ci_high),
                 (fast.extra["bin_effect"], slow.extra["bin_effect"]), (fast.extra["bin_std"], slow.extra["bin_std"])):
        assert_allclose(a, b, rtol=rtol, atol=rtol * scale)
    if fast.categorical:
        assert list(fast.grid) == list(slow.grid)
    else:
        assert_allclose(fast.grid, slow.grid, rtol=0)
    return fast


def _lgb():
    return pytest.importorskip("lightgbm")


def _xgb():
    return pytest.importorskip("xgboost")


REGRESSORS = {  # name: (model, reads pandas categories itself, rtol)
    "HGB": (lambda: HistGradientBoostingRegressor(max_iter=15, categorical_features="from_dtype", random_state=0),
            True, 1e-10),
    "RF": (lambda: RandomForestRegressor(10, max_depth=5, random_state=0), False, 1e-10),
    "GB": (lambda: GradientBoostingRegressor(n_estimators=15, max_depth=3, random_state=0), False, 1e-10),
    "LGBM": (lambda: _lgb().LGBMRegressor(n_estimators=15, num_leaves=7, min_child_samples=3, verbose=-1, n_jobs=1),
             True, 1e-10),
    "XGB": (lambda: _xgb().XGBRegressor(n_estimators=15, max_depth=3, n_jobs=1, enable_categorical=True,
                                        tree_method="hist", max_cat_to_onehot=1), True, 2e-5),
}


@pytest.mark.parametrize("name", list(REGRESSORS))
def test_regressors_equal_the_predict_path(name):
    make, native, rtol = REGRESSORS[name]
    X, y = _data()
    X = X if native else _codes(X)
    model = make().fit(X, y)
    for feature in ("x0", "x2"):
        _same(model, X, feature, rtol=rtol, bins=12)
    if native:  # a categorical ALE: neighbouring levels in the similarity order
        e = _same(model, X, "c", rtol=rtol)
        assert e.categorical and len(e.grid) == 4


def test_explicit_edges_weights_and_a_bin_per_value():
    X, y = _data(n=400)
    model = HistGradientBoostingRegressor(max_iter=15, random_state=0).fit(X, y)
    # rows outside the edges fall into the first or last bin, whose edges they then take
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(X))
    _same(model, X, "x1", bins=[-1.0, -0.2, 0.0, 0.4, 1.5], sample_weight=w)
    # every distinct value an edge: more row groups than MAX_ALE_GROUPS, one kernel call for all rows
    e = _same(model, X, "x0", bins=10 ** 6)
    assert len(e.grid) - 1 > _engine.MAX_ALE_GROUPS


@pytest.mark.parametrize("make", [
    lambda: HistGradientBoostingClassifier(max_iter=10, categorical_features="from_dtype", random_state=0),
    lambda: GradientBoostingClassifier(n_estimators=8, max_depth=3, random_state=0),
    lambda: RandomForestClassifier(10, max_depth=5, random_state=0),
], ids=["HGB", "GB", "RF"])
def test_classifiers_probabilities_through_the_link(make):
    X, y = _data()
    y3 = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    native = isinstance(make(), HistGradientBoostingClassifier)
    Xm = X if native else _codes(X)
    binary = make().fit(Xm, (y > np.median(y)).astype(int))
    _same(binary, Xm, "x0", bins=10)  # P(class 1): sigmoid of the whole raw score at each edge
    multi = make().fit(Xm, y3)
    e = _same(multi, Xm, "x2", bins=8)  # every class: softmax (GB, HGB) or averaged proportions (RF)
    assert e.average.shape == (len(e.grid), 3)
    _same(multi, Xm, "x0", bins=8, output=2)
    if native:
        _same(multi, Xm, "c")


def test_pipeline_with_ordinal_encoder():
    X, y = _data()
    Xs = X.assign(c=X["c"].astype(str))  # strings: the pipeline's encoder reads them
    ct = make_column_transformer((OrdinalEncoder(), ["c"]), remainder="passthrough")
    pipe = make_pipeline(ct, GradientBoostingRegressor(n_estimators=10, max_depth=3, random_state=0)).fit(Xs, y)
    _same(pipe, Xs, "x0", bins=10)
    _same(pipe, Xs, "c")


def test_nan_in_other_features_and_in_the_feature():
    X, y = _data()
    X.loc[X.index % 5 == 0, "x1"] = np.nan  # HGB sends missing values their own way
    model = HistGradientBoostingRegressor(max_iter=15, random_state=0).fit(X, y)
    _same(model, X, "x0", bins=10)
    # a missing value in the feature itself: the same refusal with either engine
    for engine in ("auto", "predict"):
        with pytest.raises(ValidationError, match="'x1' has 48 missing"):
            ik.ale(model, X, "x1", engine=engine)


def test_separating_trees_only():
    """Only the trees with a node on the feature between a row's two values are walked; the
    others only shift each row by a constant, which cancels from the difference."""
    X, y = _data()
    Xc = _codes(X)
    model = GradientBoostingRegressor(n_estimators=30, max_depth=2, random_state=0).fit(Xc, y)
    pred = Predictor(model, numeric=True)
    assert pred.use_engine(Xc, "auto", ["x0"]) == {"engine": "trees"}
    lo = np.full(len(Xc), -0.5)
    hi = np.full(len(Xc), 0.5)
    local = pred.local_predictions(Xc, "x0", np.stack([lo, hi]))
    full = pred.predict_replaced(Xc, {"x0": np.stack([lo, hi])})
    assert_allclose(local[1] - local[0], full[1] - full[0], rtol=1e-10, atol=1e-10)
    # the predictions themselves differ by each row's sum over the trees left out (and the intercept)
    assert np.ptp(full[0] - local[0]) > 0.1
    assert_allclose(full[1] - local[1], full[0] - local[0], rtol=1e-10, atol=1e-10)
    # the trees counted as separating -0.5 from 0.5 are exactly those with a threshold between them
    tm = pred.tree_model
    U, start, order = _engine._groups(np.column_stack([lo, hi]))
    assert len(U) == 1 and start.tolist() == [0, len(Xc)]
    f = tm.forest
    tree_of = np.repeat(np.arange(len(f.roots)), np.diff(np.append(f.roots, len(f.feature))))
    on_x0 = (f.feature == 0) & (f.kind >= 0)
    between = on_x0 & (f.threshold >= -0.5) & (f.threshold < 0.5)
    a = tm.kernel_args
    nodes = np.flatnonzero(on_x0).astype(np.int64)
    mask = _ale_kernels.separating_trees(U, nodes, tree_of[nodes].astype(np.int64), len(f.roots), a[2], a[3],
                                         a[6], a[7], a[8], a[9])
    assert_allclose(np.flatnonzero(mask[0]), np.unique(tree_of[between]))
    assert 0 < mask.sum() < len(f.roots)


class _Shifted(HistGradientBoostingRegressor):
    """A model whose predict is not the sum of its trees: the engine's check must notice."""

    def predict(self, X):
        return super().predict(X) + 1.0


def test_fallback_note_and_engine_validation():
    X, y = _data()
    model = _Shifted(max_iter=5, random_state=0).fit(X, y)
    e = ik.ale(model, X, "x0", bins=5)
    assert e.info["engine"] == "predict" and "disagreed" in e.info["engine_note"]
    with pytest.raises(ModelError, match="engine='trees'"):
        ik.ale(model, X, "x0", bins=5, engine="trees")
    assert "engine_note" not in ik.ale(lambda Z: Z[:, 0] * 2, X[["x0", "x1"]].to_numpy(), 0).info
    with pytest.raises(ValidationError, match="'engine' must be one of"):
        ik.ale(model, X, "x0", engine="fast")
