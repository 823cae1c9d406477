"""Marginal SAGE on the tree engine: the same numbers as the predict path, for every n_jobs, and the fallback."""
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.ensemble import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit._validation import ValidationError


@pytest.fixture(scope="module")
def reg():
    """200 rows, 5 numeric columns (one with NaN) and a categorical one; y uses an interaction."""
    rng = np.random.default_rng(0)
    n = 200
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"x{k}" for k in range(5)])
    X["x4"] = X["x4"].mask(rng.random(n) < 0.1)
    X["c"] = pd.Categorical(rng.choice(["a", "b", "c"], size=n))
    y = X["x0"] * X["x1"] + np.sin(2 * X["x2"]) + (X["c"] == "b") + 0.3 * rng.normal(size=n)
    return X, y.to_numpy()


def _sage(model, X, y, engine, **kw):
    kw = {"n_background": 24, "max_permutations": 64, "batch_size": 32, "tolerance": 1e-9, "random_state": 3,
          "n_jobs": 1, **kw}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 64 orderings do not reach tolerance 1e-9: the same orderings on both paths
        return ik.sage(model, X, y, engine=engine, **kw)


def _same(model, X, y, rtol=1e-10, **kw):
    fast = _sage(model, X, y, "auto", **kw)
    slow = _sage(model, X, y, "predict", **kw)
    assert fast.info["engine"] == "trees", fast.info.get("engine_note")
    assert slow.info["engine"] == "predict"
    orderings = 0 if kw.get("exact") else kw.get("max_permutations", 64)
    assert fast.extra["n_permutations"] == slow.extra["n_permutations"] == orderings
    scale = np.max(np.abs(slow.importance))
    assert_allclose(fast.importance, slow.importance, rtol=rtol, atol=rtol * scale)
    assert_allclose(fast.std, slow.std, rtol=rtol, atol=rtol * scale)
    # v_all is the mean of the orderings' backgrounds' v(N), each f_∅ from the engine's own f_S (round 8):
    # the two paths agree on it as on the values
    assert_allclose(fast.extra["v_all"], slow.extra["v_all"], rtol=rtol)
    return fast, slow


def test_hgb_equals_the_predict_path(reg):
    X, y = reg
    model = HistGradientBoostingRegressor(max_iter=30, random_state=0, categorical_features=["c"]).fit(X, y)
    fast, _ = _same(model, X, y)
    # the control variate keeps efficiency on the trees too: Σ φ = v(N)
    assert_allclose(fast.importance.sum(), fast.extra["v_all"], rtol=1e-9)


def test_random_forest_equals_the_predict_path(reg):
    X, y = reg
    Xn = X.assign(c=X["c"].cat.codes, x4=X["x4"].fillna(0.0))
    model = RandomForestRegressor(n_estimators=15, max_depth=6, random_state=0).fit(Xn, y)
    _same(model, Xn, y, max_permutations=32)


def test_lightgbm_and_xgboost_equal_the_predict_path(reg):
    lgb = pytest.importorskip("lightgbm")
    xgb = pytest.importorskip("xgboost")
    X, y = reg
    model = lgb.LGBMRegressor(n_estimators=25, num_leaves=8, min_child_samples=5, verbose=-1).fit(X, y)
    _same(model, X, y, max_permutations=32)
    # XGBoost adds its trees in float32: the engine matches its predictions to ~1e-6 relative.
    Xn = X.assign(c=X["c"].cat.codes.astype(float))
    model = xgb.XGBRegressor(n_estimators=25, max_depth=3).fit(Xn, y)
    _same(model, Xn, y, rtol=2e-5, max_permutations=32)


def test_classifiers_average_probabilities_like_the_predict_path(reg):
    X, y = reg
    labels = np.where(y > np.median(y), "hi", "lo")
    # A boosted classifier's probability is not affine in its raw score: the kernel keeps one raw
    # score per background row and averages the probabilities, as the predict path does.
    hgb = HistGradientBoostingClassifier(max_iter=20, random_state=0, categorical_features=["c"]).fit(X, labels)
    _same(hgb, X, labels, loss="log_loss", max_permutations=32)
    # A label loss takes the class of the largest mean probability on both paths.
    _same(hgb, X, labels, loss="zero_one", max_permutations=32)
    # Three classes, a forest (its probabilities are means of leaf proportions: affine).
    three = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    Xn = X.assign(c=X["c"].cat.codes, x4=X["x4"].fillna(0.0))
    rf = RandomForestClassifier(n_estimators=10, max_depth=5, random_state=0).fit(Xn, three)
    _same(rf, Xn, three, loss="log_loss", max_permutations=32)


def test_groups_and_exact_enumeration(reg):
    X, y = reg
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0, categorical_features=["c"]).fit(X, y)
    # A group enters coalitions as one player: its columns change together in the kernel's mask.
    fast, _ = _same(model, X, y, features={"inter": ["x0", "x1"], "rest": ["x3", "x4", "c"]})
    assert fast.feature_names == ("inter", "rest", "x2")
    fast, slow = _same(model, X, y, features={"inter": ["x0", "x1"], "rest": ["x3", "x4", "c"]}, exact=True)
    values = slow.extra["values"]
    assert_allclose(fast.extra["values"], values, rtol=1e-10, atol=1e-10 * np.abs(values).max())


def test_sage_value_equals_the_predict_path(reg):
    X, y = reg
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0, categorical_features=["c"]).fit(X, y)
    for coalition in (["x0"], ["x0", "x1", "c"], ["x2", "x4"]):
        fast = ik.sage_value(model, X, y, coalition, n_background=70, random_state=1)  # 70 rows: two bit words
        slow = ik.sage_value(model, X, y, coalition, n_background=70, random_state=1, engine="predict")
        assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)


def test_same_numbers_for_any_n_jobs(reg):
    X, y = reg
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0, categorical_features=["c"]).fit(X, y)
    one = _sage(model, X, y, "trees", n_jobs=1)
    two = _sage(model, X, y, "trees", n_jobs=2)
    assert one.info["engine"] == two.info["engine"] == "trees"
    assert_array_equal(one.importance, two.importance)
    assert_array_equal(one.std, two.std)
    # n_jobs=2 shares the game in threads; a process backend (loky, Dask) gets a pickled copy:
    # it must give the same f_S.
    from imlkit.importance._sage_trees import tree_game
    from imlkit.importance._sage_value import GameOptions, build_game, players_of_features

    options = GameOptions(loss=None, removal="marginal", sampler=None, n_background=24, background=None,
                          max_rows=None)
    game, _ = build_game(model, X, y, players_of_features(None), options, np.random.SeedSequence(0))
    fast, note = tree_game(model, game, "auto")
    assert note is None and fast.releases_gil
    cloudpickle = pytest.importorskip("cloudpickle")  # what loky and Dask pickle with
    copy = pickle.loads(cloudpickle.dumps(fast))
    rows = np.repeat([3, 7], 5)
    masks = np.random.default_rng(0).random((10, 6)) < 0.5
    assert_array_equal(copy.coalition_predictions(rows, masks, None), fast.coalition_predictions(rows, masks, None))


def test_reusing_unchanged_trees_changes_no_number(reg):
    """The kernel re-walks only the trees a step changes; walking all of them gives the same bits."""
    from imlkit._trees import tree_model
    from imlkit._trees._shap_kernels import background_bits, background_directions, coalition_kernel

    X, y = reg
    Xn = X.assign(c=X["c"].cat.codes, x4=X["x4"].fillna(0.0)).to_numpy()
    model = HistGradientBoostingRegressor(max_iter=15, max_depth=3, random_state=0).fit(Xn, y)
    tm = tree_model(model, Xn[:16])
    Xe = np.ascontiguousarray(tm.encode(Xn), dtype=np.float64)
    _, feature, kind, thr, _, _, missing_left, cat_left, cat_known, bitsets = tm.kernel_args[:10]
    bg = Xe[100:170]
    bbits = background_bits(background_directions(bg, feature, kind, thr, missing_left, cat_left, cat_known, bitsets))
    rng = np.random.default_rng(0)
    p = Xe.shape[1]
    order = rng.permutation(p)
    M = np.array([np.isin(np.arange(p), order[:k]) for k in range(1, p)], dtype=np.uint8)
    M = np.concatenate([M, M])
    rows = np.repeat([4, 9], p - 1).astype(np.int64)
    uses = np.zeros((len(tm.forest.roots), p), dtype=np.uint8)
    tree_of = np.repeat(np.arange(len(tm.forest.roots)), np.diff(np.append(tm.forest.roots, len(feature))))
    uses[tree_of[kind >= 0], feature[kind >= 0]] = 1
    assert uses.mean() < 1  # some (tree, column) pairs are skipped
    for per_b in (False, True):
        kept = coalition_kernel(Xe, rows, M, bbits, len(bg), uses, per_b, *tm.kernel_args)
        walked = coalition_kernel(Xe, rows, M, bbits, len(bg), np.ones_like(uses), per_b, *tm.kernel_args)
        assert_array_equal(kept, walked)
    # Against the model itself: row 4 with the first coalition, every background row.
    hybrid = np.where(M[0].astype(bool)[None, :], Xn[4][None, :], Xn[100:170])
    per_row = coalition_kernel(Xe, rows[:1], M[:1], bbits, len(bg), uses, True, *tm.kernel_args)[0, :, 0]
    assert_allclose(per_row + tm.base[0], model.predict(hybrid), rtol=1e-10, atol=1e-10)


def test_fallback_is_recorded_and_trees_insists(reg):
    X, y = reg
    Xn = X.assign(c=X["c"].cat.codes, x4=X["x4"].fillna(0.0))
    lin = LinearRegression().fit(Xn, y)
    r = _sage(lin, Xn, y, "auto", max_permutations=32)
    assert r.info["engine"] == "predict"
    with pytest.raises(ValidationError, match="engine='trees'"):
        _sage(lin, Xn, y, "trees", max_permutations=32)
    model = HistGradientBoostingRegressor(max_iter=10, random_state=0).fit(Xn, y)
    r = _sage(model, Xn, y, "auto", removal="conditional", max_permutations=32, n_background=8)
    assert r.info["engine"] == "predict" and "conditional" in r.info["engine_note"]
    with pytest.raises(ValidationError, match="engine='trees'.*conditional"):
        _sage(model, Xn, y, "trees", removal="conditional", max_permutations=32, n_background=8)
    with pytest.raises(ValidationError, match="'engine'"):
        _sage(model, Xn, y, "gpu")
