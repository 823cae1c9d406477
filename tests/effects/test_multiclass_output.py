"""One ``output`` rule in ICE, PD, ALE, H-statistic and REPID (issue 12, item 4)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.linear_model import LogisticRegression

import imlkit as ik
from imlkit._validation import ModelError, ValidationError
from imlkit.effects._grid import make_predictor
from imlkit.effects._hstat import _feature_task


@pytest.fixture(scope="module")
def multiclass():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    X["ab"] = X["a"] * X["b"]
    s = X["a"] + X["ab"]
    y = np.array(["low", "mid", "high"])[np.digitize(s + 0.3 * rng.normal(size=200), [-0.7, 0.7])]
    return X, LogisticRegression(max_iter=1000).fit(X, y)


def test_all_classes_equal_each_class(multiclass):
    """output=None on a multi-class model = every class; column k equals output=classes_[k]."""
    X, m = multiclass
    for k, label in enumerate(m.classes_):
        for fn, kw in ((ik.ice, dict(grid=5)), (ik.partial_dependence, dict(grid=5)), (ik.ale, dict(bins=5))):
            full = fn(m, X, "a", **kw)
            one = fn(m, X, "a", output=label, **kw)
            assert_allclose(np.asarray(full.average)[:, k], one.average, atol=1e-12)
            assert one.output == f"P(class={label})" and list(full.extra["classes"]) == list(m.classes_)
        ale_all = ik.ale(m, X, "a", bins=5)
        ale_one = ik.ale(m, X, "a", bins=5, output=label)
        assert_allclose(ale_all.ci_low[:, k], ale_one.ci_low, atol=1e-12)
        r_all = ik.repid(m, X, "a", grid=5, max_depth=1, min_node_size=20)
        r_one = ik.repid(m, X, "a", grid=5, max_depth=1, min_node_size=20, output=label)
        assert_allclose(r_all.average[:, k], r_one.average, atol=1e-12)


def test_h_on_the_probability_vector(multiclass):
    """H on the vector sums squares over classes: between the per-class values, and for two
    classes (p0 = 1 − p1) exactly the positive class's H."""
    X, m = multiclass
    full = ik.h_statistic(m, X, features=["a", "b"], pairs=None, n_samples=60, random_state=0)
    per = np.array([ik.h_statistic(m, X, features=["a", "b"], pairs=None, n_samples=60, random_state=0,
                                   output=c).overall for c in m.classes_])
    assert full.output == "P(class)"
    assert (full.overall >= per.min(axis=0) - 1e-12).all() and (full.overall <= per.max(axis=0) + 1e-12).all()
    y2 = (X["a"] + X["ab"] > 0).map({True: "yes", False: "no"})
    b = LogisticRegression(max_iter=1000).fit(X, y2)
    Xs = X.iloc[:60].reset_index(drop=True)
    vector = _feature_task(make_predictor(b, "proba", True, None), Xs, "a", "all")[0]
    positive = _feature_task(make_predictor(b, "proba", True, None), Xs, "a", 1)[0]
    assert_allclose(vector, positive, rtol=1e-10)


def test_output_predict_and_errors(multiclass):
    X, m = multiclass
    with pytest.raises(ModelError, match=r"\(LogisticRegression\) returned predictions that are not numeric"):
        ik.partial_dependence(m, X, "a", output="predict")
    with pytest.raises(ValidationError, match=r"one of the classes \['high', 'low', 'mid'\]; got 'max'"):
        ik.ale(m, X, "a", output="max")
    with pytest.raises(ValidationError, match="must name one class of this multi-class model here"):
        ik.partial_dependence(m, X, ["a", "b"])
    r = ik.repid(m, X, "a", grid=5, max_depth=1, min_node_size=20)
    with pytest.raises(ValidationError, match="every class.*output=<class>"):
        r.plot()
    assert set(r.curves()["class"]) == set(m.classes_)
