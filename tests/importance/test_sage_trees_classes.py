"""Marginal SAGE on the tree engine for a boosted model of many classes (one tree per class and iteration).

The coalition kernel adds a one-output tree's share to its own class only, in a class-major
array: these tests hold it to the model's own probabilities on the hybrid rows and to the
predict path.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.ensemble import HistGradientBoostingClassifier

import imlkit as ik


@pytest.fixture(scope="module")
def six():
    """240 rows, 4 numeric columns and a categorical one; 6 classes of unequal size."""
    rng = np.random.default_rng(1)
    n = 240
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["a", "b", "c", "d"])
    X["g"] = pd.Categorical(rng.choice(["u", "v", "w"], size=n))
    score = X["a"] + 0.8 * X["b"] * (X["g"] == "v") + 0.3 * rng.normal(size=n)
    y = np.array(list("pqrstu"))[np.digitize(score, np.quantile(score, [0.1, 0.25, 0.5, 0.7, 0.9]))]
    model = HistGradientBoostingClassifier(max_iter=8, max_leaf_nodes=8, random_state=0,
                                           categorical_features="from_dtype").fit(X, y)
    return X, y, model


def test_kernel_gives_each_background_rows_probabilities(six):
    """per_b raw scores + intercept through the link = predict_proba of every hybrid row, every class."""
    from imlkit._trees import tree_model
    from imlkit._trees._shap_kernels import background_bits, background_directions, coalition_kernel
    from imlkit.importance._sage_trees import _column_map, _tree_uses

    X, _, model = six
    tm = tree_model(model, X.iloc[:32])
    assert len(tm.base) == 6 and (np.asarray(tm.kernel_args[11]) >= 0).all()  # one class per tree
    Xe = np.ascontiguousarray(tm.encode(X), dtype=np.float64)
    _, feature, kind, thr, _, _, missing_left, cat_left, cat_known, bitsets = tm.kernel_args[:10]
    bg = Xe[170:240]  # 70 background rows: two bit words
    bbits = background_bits(background_directions(bg, feature, kind, thr, missing_left, cat_left, cat_known, bitsets))
    uses = _tree_uses(tm, Xe.shape[1])
    # Two rows, each along a growing coalition (the kernel keeps the shares of trees a step does not change).
    M = np.array([[1, 0, 0, 0, 0], [1, 0, 0, 0, 1], [1, 1, 0, 0, 1], [0, 1, 1, 0, 0], [0, 1, 1, 1, 0]], dtype=np.uint8)
    M = np.concatenate([M, M])
    Me = np.zeros_like(M)
    Me[:, _column_map(tm, X, True, Xe.shape[1])] = M  # the model's encoded column order
    rows = np.repeat([5, 11], 5).astype(np.int64)
    raw = coalition_kernel(Xe, rows, Me, bbits, len(bg), uses, True, *tm.kernel_args)
    walked = coalition_kernel(Xe, rows, Me, bbits, len(bg), np.ones_like(uses), True, *tm.kernel_args)
    assert_array_equal(raw, walked)
    summed = coalition_kernel(Xe, rows, Me, bbits, len(bg), uses, False, *tm.kernel_args)
    assert_allclose(summed[:, 0, :], raw.sum(axis=1), rtol=1e-12, atol=1e-12)
    background = X.iloc[170:240].reset_index(drop=True)
    for i in (0, 2, 4, 7, 9):
        keep = M[i].astype(bool)
        hybrid = background.copy()
        for k, col in enumerate(X.columns):
            if keep[k]:
                hybrid[col] = pd.Series([X[col].iloc[rows[i]]] * len(hybrid), dtype=X[col].dtype)
        proba = np.asarray(tm.finish(raw[i] + tm.base, "proba"), dtype=float)
        assert_allclose(proba, model.predict_proba(hybrid), rtol=1e-9, atol=1e-12)


def test_many_class_sage_equals_the_predict_path(six):
    X, y, model = six
    kw = dict(loss="log_loss", n_background=20, max_permutations=24, batch_size=12, tolerance=1e-9, random_state=2,
              n_jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 24 orderings do not reach tolerance 1e-9: the same orderings on both paths
        fast = ik.sage(model, X, y, engine="auto", **kw)
        slow = ik.sage(model, X, y, engine="predict", **kw)
    assert fast.info["engine"] == "trees", fast.info.get("engine_note")
    assert fast.extra["n_permutations"] == slow.extra["n_permutations"] == 24
    scale = np.max(np.abs(slow.importance))
    assert_allclose(fast.importance, slow.importance, rtol=1e-10, atol=1e-10 * scale)
    assert_allclose(fast.std, slow.std, rtol=1e-10, atol=1e-10 * scale)
