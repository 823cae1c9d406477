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
