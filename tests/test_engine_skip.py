"""PFI/CFI walk only the trees that split on the permuted feature; 1-D PD averages block by block.

Known answer: ``engine="predict"`` predicts every stacked copy with the model itself. Skipping
the trees that never split on the permuted feature (their sum is the row's whole raw score minus
the splitting trees' at its own value) changes only the order of float additions, so the
repeats' risks must equal the brute force to 1e-10 relative (XGBoost: its float32 sums, 2e-5).
1-D PD without its curves must equal the weighted mean of the ICE curves.
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

import imlkit as ik
import imlkit._trees._engine as trees
from imlkit._model import Predictor

#: one OpenMP/BLAS thread (tests/conftest.py): the engine is single-threaded, and OpenMP fits and predicts
#: crawl on a shared machine
pytestmark = pytest.mark.usefixtures("one_thread")


def _data(n=400, seed=0):
    """x0..x3 floats (x3 pure noise, x4 never used by a model fitted on y), c a category."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["x0", "x1", "x2", "x3"])
    X["c"] = pd.Categorical(rng.choice(["p", "q", "r", "s"], n))
    X.loc[rng.random(n) < 0.1, "x1"] = np.nan  # missing values travel through the skip
    y = X.x0 * 2 + np.nan_to_num(X.x1) * X.x2 + (X.c == "p") * 1.5 + 0.3 * rng.normal(size=n)
    return X, y.to_numpy()


def _codes(X):
    return X.assign(c=X.c.cat.codes)


def _models():
    out = [("hgb", HistGradientBoostingRegressor(max_iter=40, random_state=0), False, "squared_error", 1e-10),
           ("hgb_clf", HistGradientBoostingClassifier(max_iter=30, random_state=0), False, "log_loss", 1e-10),
           ("rf", RandomForestRegressor(30, max_depth=6, random_state=0), True, "squared_error", 1e-10),
           ("rf_clf", RandomForestClassifier(30, max_depth=6, random_state=0), True, "log_loss", 1e-10)]
    lgb = pytest.importorskip("lightgbm")
    out.append(("lgbm", lgb.LGBMRegressor(n_estimators=40, num_leaves=8, verbose=-1, random_state=0, n_jobs=1),
                False, "squared_error", 1e-10))
    xgb = pytest.importorskip("xgboost")
    out.append(("xgb", xgb.XGBRegressor(n_estimators=40, max_depth=4, random_state=0, n_jobs=1), True,
                "squared_error", 2e-5))
    return out


@pytest.mark.parametrize("case", range(6))
def test_pfi_with_skipped_trees_equals_brute_force(case):
    name, model, codes, loss, rtol = _models()[case]
    X, y = _data()
    X = _codes(X) if codes else X
    target = (y > np.median(y)).astype(int) if name.endswith("clf") else y
    model.fit(X, target)
    kw = dict(loss=loss, n_repeats=4, random_state=1, n_jobs=1)
    fast = ik.pfi(model, X, target, **kw)
    slow = ik.pfi(model, X, target, engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    scale = np.max(np.abs(slow.repeats))
    assert_allclose(fast.repeats, slow.repeats, rtol=rtol, atol=rtol * scale)
    # CFI goes through the same path (a feature replaced by other rows' values)
    fast = ik.cfi(model, X, target, **kw)
    slow = ik.cfi(model, X, target, engine="predict", **kw)
    assert_allclose(fast.repeats, slow.repeats, rtol=rtol, atol=rtol * np.max(np.abs(slow.repeats)))


def test_trees_split_into_those_using_a_feature_and_the_others():
    X, y = _data()
    X["unused"] = 0.0  # constant: no tree splits on it
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, y)
    p = Predictor(model)
    p.use_engine(X)
    tm = p.tree_model
    n_trees = len(tm.forest.roots)
    for j, name in enumerate(X.columns):
        using, skipped = trees._tree_split(tm, j)
        assert len(using) + len(skipped) == n_trees
        assert np.intersect1d(using, skipped).size == 0
        # each listed tree has (or has not) a split node on column j
        f = tm.forest
        ends = np.append(f.roots, len(f.feature))
        for t in using[:3]:
            nodes = slice(ends[t], ends[t + 1])
            assert np.any((f.feature[nodes] == j) & (f.kind[nodes] >= 0)), name
        for t in skipped[:3]:
            nodes = slice(ends[t], ends[t + 1])
            assert not np.any((f.feature[nodes] == j) & (f.kind[nodes] >= 0)), name
    assert len(trees._tree_split(tm, list(X.columns).index("unused"))[0]) == 0
    share = p._trees.skipped_share(X, ["x0", "unused"])
    assert share == pytest.approx((len(trees._tree_split(tm, 0)[1]) + n_trees) / (2 * n_trees))
    # a feature no tree uses: every copy's prediction is the row's own
    repl = pd.DataFrame({"unused": np.linspace(-5, 5, 3 * len(X))})
    pred = p._trees.perturbed(X, ["unused"], repl, 3)
    assert_allclose(pred, np.tile(model.predict(X), 3), rtol=1e-12)


def test_perturbed_in_row_blocks_equals_one_block(monkeypatch):
    X, y = _data()
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, (y > 1).astype(int) + (y > 3))
    p = Predictor(model, output="proba")
    p.use_engine(X)
    rng = np.random.default_rng(0)
    repl = pd.DataFrame({"x1": X.x1.to_numpy()[rng.integers(0, len(X), 5 * len(X))]})
    whole = p.predict_perturbed(X, ["x1"], repl, 5)
    monkeypatch.setattr(trees, "PERTURBED_BLOCK", 37)
    p._trees._plain = None
    assert_allclose(p.predict_perturbed(X, ["x1"], repl, 5), whole, rtol=1e-12)
    monkeypatch.setattr(trees, "PERTURBED_BLOCK", 1 << 16)
    assert_allclose(whole, p.predict(pd.concat([X.assign(x1=repl.x1.to_numpy()[r * len(X):(r + 1) * len(X)])
                                                for r in range(5)], ignore_index=True)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["hgb", "hgb_clf", "rf_clf"])
def test_pd_without_curves_equals_the_mean_of_ice(kind, monkeypatch):
    X, y = _data(300)
    if kind == "hgb":
        model, Xm, output = HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, y), X, None
    elif kind == "hgb_clf":  # softmax link: the curves of a block are averaged, not the raw scores
        model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, (y > 1).astype(int) + (y > 3))
        Xm, output = X, None
    else:  # a forest's averaged proportions: affine, one difference array
        Xm = _codes(X)
        model, output = RandomForestClassifier(20, max_depth=5, random_state=0).fit(Xm, y > 1), True
    w = np.random.default_rng(2).uniform(size=len(Xm))
    monkeypatch.setattr(trees, "PD_BLOCK", 64)  # several blocks
    for f in ("x1", "c"):
        pd_ = ik.partial_dependence(model, Xm, f, sample_weight=w, output=output)
        ice = ik.ice(model, Xm, f, sample_weight=w, output=output, engine="predict")
        assert pd_.info["engine"] == "trees"
        assert_allclose(pd_.average, ice.extra["uncentered_average"], rtol=1e-10, atol=1e-12)


def test_pd_predict_path_in_blocks_of_max_rows():
    X, y = _data(200)
    model = HistGradientBoostingRegressor(max_iter=10, random_state=0).fit(X, y)
    a = ik.partial_dependence(model, X, "x0", grid=10, engine="predict", max_rows=130)  # 13 rows a block
    b = ik.ice(model, X, "x0", grid=10, engine="predict")
    assert_allclose(a.average, b.average, rtol=1e-12)
