"""SHAP of a boosted multi-class model's probability: the coalitions' means from the trees.

A boosted classifier's P(class) is a softmax of its trees' raw scores, not affine in them, so it
has no closed-form TreeSHAP; ``engine="auto"`` then enumerates (or samples) the same game with
each coalition's mean over the background rows computed from the trees. The values must be the
ones the model's own predictions give (``engine="predict"``), up to rounding.
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import HistGradientBoostingClassifier

from imlkit.local import shap


def _table(n=300, k=4, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"x{j}" for j in range(5)])
    score = X["x0"] + 0.8 * X["x1"] - 0.5 * X["x2"] * X["x3"] + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]))
    return X, np.array([f"c{v}" for v in y])


@pytest.fixture(scope="module")
def fitted():
    X, y = _table()
    model = HistGradientBoostingClassifier(max_iter=15, max_leaf_nodes=8, random_state=0).fit(X, y)
    return model, X


def test_exact_enumeration_from_trees_matches_predictions(fitted):
    model, X = fitted
    rows, bg = X.iloc[:12], X.iloc[200:232]
    kw = dict(background=bg, class_="c2", random_state=0)
    fast = shap(model, rows, engine="auto", **kw)
    slow = shap(model, rows, engine="predict", **kw)
    assert fast.info["engine"] == "trees" and slow.info["engine"] == "predict"
    assert fast.extra["exact"] and slow.extra["exact"]
    # the same game: each coalition's mean of P(c2) over 32 background rows, from the trees or predict_proba
    assert_allclose(fast.values, slow.values, rtol=0, atol=1e-12)
    assert_allclose(fast.base_values, slow.base_values, rtol=0, atol=0)
    # efficiency: the values add up to P(c2 | x) minus the mean prediction over the background
    p = model.predict_proba(rows)[:, list(model.classes_).index("c2")]
    assert_allclose(fast.values.sum(axis=1), p - fast.base_values, atol=1e-12)


def test_permutation_estimator_from_trees_matches_predictions(fitted):
    model, X = fitted
    rows, bg = X.iloc[:6], X.iloc[200:216]
    kw = dict(background=bg, class_="c0", exact=False, n_permutations=16, random_state=3)
    fast = shap(model, rows, engine="auto", **kw)
    slow = shap(model, rows, engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    np.testing.assert_array_equal(fast.extra["n_permutations"], slow.extra["n_permutations"])
    # same seeds, same orderings; the coalition values agree to rounding
    assert_allclose(fast.values, slow.values, rtol=0, atol=1e-10)
    # rows in two workers: the same numbers
    both = shap(model, rows, engine="auto", n_jobs=2, **kw)
    np.testing.assert_array_equal(both.values, fast.values)


def test_binary_probability_and_logit(fitted):
    X, y = _table(k=2, seed=1)
    model = HistGradientBoostingClassifier(max_iter=10, max_leaf_nodes=6, random_state=0).fit(X, y)
    kw = dict(background=X.iloc[100:124], random_state=0)
    fast = shap(model, X.iloc[:5], engine="auto", **kw)
    slow = shap(model, X.iloc[:5], engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.values, slow.values, rtol=0, atol=1e-12)
    # the log-odds of a binary boosted model is affine in its trees: closed-form TreeSHAP, as before
    logit = shap(model, X.iloc[:5], engine="auto", link="logit", **kw)
    assert logit.info["engine"] == "trees" and "engine_note" not in logit.info


def test_multiclass_logit_keeps_the_predictions(fitted):
    model, X = fitted
    r = shap(model, X.iloc[:3], background=X.iloc[200:216], class_="c1", link="logit", engine="auto",
             random_state=0)
    # the mean over the background of a logit of a softmax: neither closed-form nor taken from the trees here
    assert r.info["engine"] == "predict"
    assert "not an affine function" in r.info["engine_note"]


def _game(model, X, bg, cls):
    from imlkit.importance._sage_value import GameOptions, build_game, players_of_features
    from imlkit.local._shap import _Output

    fn = _Output(model, list(model.classes_).index(cls), None)
    options = GameOptions(loss="squared_error", removal="marginal", sampler=None, n_background=len(bg),
                          background=bg, max_rows=None)
    game, _ = build_game(fn, X, np.zeros(len(X)), players_of_features(None), options, np.random.default_rng(0))
    return fn, game


def test_every_coalition_table_equals_the_coalition_kernel(fitted):
    from imlkit.local._shapley import shapley_matrix
    from imlkit.local._tree_shap import _ClassGame, tree_output_game

    model, X = fitted
    fn, game = _game(model, X.iloc[:4], X.iloc[200:220], "c1")
    fast, note = tree_output_game(model, fn, game, "auto")
    assert note is None and fast._table_args is not None
    _, bits = shapley_matrix(5)
    mid = bits[1:-1]
    rows = np.repeat(np.arange(4), len(mid))
    masks = np.tile(mid, (4, 1))
    walked = _ClassGame(game, fast._inner, fn.column).coalition_predictions(rows, masks, None)
    # one walk per (background row, tree) scattered into every coalition, or one walk per (coalition, tree):
    # each cell sums the same trees in the same order
    np.testing.assert_array_equal(fast.coalition_predictions(rows, masks, None), walked)
    assert_allclose(walked, game.coalition_predictions(rows, masks, None), rtol=0, atol=1e-12)


def test_categorical_and_missing_values():
    rng = np.random.default_rng(5)
    n = 300
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "g": pd.Categorical(rng.choice(["u", "v", "w", "z"], size=n)), "d": rng.normal(size=n)})
    X.loc[rng.random(n) < 0.15, "b"] = np.nan
    y = np.where(X["a"] + (X["g"] == "v") - np.nan_to_num(X["b"]) > 0.5, "hi",
                 np.where(X["d"] > 0, "mid", "lo"))
    model = HistGradientBoostingClassifier(max_iter=12, max_leaf_nodes=8, categorical_features="from_dtype",
                                           random_state=0).fit(X, y)
    kw = dict(background=X.iloc[150:182], class_="mid", random_state=0)
    fast = shap(model, X.iloc[:10], engine="auto", **kw)
    slow = shap(model, X.iloc[:10], engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.values, slow.values, rtol=0, atol=1e-12)


def test_more_players_than_the_table_takes_walk_per_coalition():
    from imlkit.local._tree_shap import _TABLE_PLAYERS

    rng = np.random.default_rng(2)
    p = _TABLE_PLAYERS + 2
    X = pd.DataFrame(rng.normal(size=(200, p)), columns=[f"x{j}" for j in range(p)])
    y = np.digitize(X["x0"] + X["x1"] - X["x5"], [-1.0, 0.0, 1.0])
    model = HistGradientBoostingClassifier(max_iter=8, max_leaf_nodes=6, random_state=0).fit(X, y)
    kw = dict(background=X.iloc[100:116], class_=2, exact=False, n_permutations=8, random_state=1)
    fast = shap(model, X.iloc[:3], engine="auto", **kw)
    slow = shap(model, X.iloc[:3], engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.values, slow.values, rtol=0, atol=1e-10)
