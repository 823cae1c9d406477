"""The tree engine's first-use check: one call of the model's predict, one encoding of a small X.

The check's cost is mostly fixed costs of small calls (scikit-learn's input validation, HGB's
ColumnTransformer for native categoricals); these tests pin that the check predicts its
unperturbed rows and its first chunk of perturbed copies in one call, and that the encoding of a
small X made for the check is the one the method then uses.
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn.ensemble import HistGradientBoostingRegressor

import imlkit as ik
from imlkit._model import Predictor
from imlkit._trees import _engine


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(size=n),
                      "c": pd.Categorical(rng.choice(["x", "y", "z"], size=n))})
    X.loc[3, "a"] = np.nan
    y = X["a"].fillna(0) * 2 + (X["c"] == "y") + rng.normal(scale=0.1, size=n)
    model = HistGradientBoostingRegressor(max_iter=20, categorical_features="from_dtype", random_state=0).fit(X, y)
    return model, X, y


def test_the_check_calls_the_models_predict_once(fitted, monkeypatch):
    model, X, _ = fitted
    p = Predictor(model)
    calls = []
    real = Predictor.predict

    def counting(self, data, **kw):
        calls.append(len(data))
        return real(self, data, **kw)

    monkeypatch.setattr(Predictor, "predict", counting)
    eng, params = _engine.choose(p, X, "auto")
    assert params == {"engine": "trees"} and eng is not None
    n_rows = len(_engine._check_rows(X))
    assert len(calls) == 1 and calls[0] > n_rows   # the plain rows and the perturbed copies together


def test_a_small_x_is_encoded_once_for_the_check_and_the_method(fitted):
    model, X, y = fitted
    eng, _ = _engine.choose(Predictor(model), X, "auto")
    kept_X, kept = eng._encoded
    assert kept_X is X
    assert_array_equal(kept, eng.tm.encode(X))
    assert eng._plain is None   # nothing computed on the check's own rows is left behind


def test_numbers_equal_the_predict_path(fitted):
    model, X, y = fitted
    fast = ik.pfi(model, X, y, n_repeats=3, random_state=0)
    slow = ik.pfi(model, X, y, n_repeats=3, random_state=0, engine="predict")
    assert fast.info["engine"] == "trees"
    np.testing.assert_allclose(fast.repeats, slow.repeats, rtol=1e-10, atol=1e-12)
    a = ik.ale(model, X, "b", bins=10)
    b = ik.ale(model, X, "b", bins=10, engine="predict")
    assert a.info["engine"] == "trees"
    np.testing.assert_allclose(a.average, b.average, rtol=1e-10, atol=1e-12)


def test_reading_trees_checks_they_are_trees():
    """The forest's depth (the kernels' stack size) and its structure, from whole arrays."""
    from imlkit._trees._adapters import Unsupported, _Builder

    def forest(left, right, kinds):
        b = _Builder(1)
        for lt, rt, kd in zip(left, right, kinds):
            n = len(kd)
            b.add_tree(0, np.zeros(n), kd, np.zeros(n), lt, rt, np.zeros(n), np.zeros(n))
        return b.build()

    # a stump and a tree of depth 3 (root 0 -> 2 -> 3 -> 5)
    f = forest([[1, -1, -1], [1, -1, 3, 4, -1, -1, -1]], [[2, -1, -1], [2, -1, 6, 5, -1, -1, -1]],
               [[0, -1, -1], [0, -1, 0, 0, -1, -1, -1]])
    assert f.max_depth == 3 and f.roots.tolist() == [0, 3]
    assert f.left.tolist() == [1, -1, -1, 4, -1, 6, 7, -1, -1, -1]
    with pytest.raises(Unsupported, match="child index out of range"):
        forest([[1, -1, -1], [1, -1, -1]], [[2, -1, -1], [3, -1, -1]], [[0, -1, -1], [0, -1, -1]])  # into tree 1
    with pytest.raises(Unsupported, match="reached twice"):
        forest([[1, -1]], [[1, -1]], [[0, -1]])  # both children the same node
    with pytest.raises(Unsupported, match="reached twice"):
        forest([[1, 0, -1, -1]], [[2, 3, -1, -1]], [[0, 0, -1, -1]])  # node 1 leads back to the root
