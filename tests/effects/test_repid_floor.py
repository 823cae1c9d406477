"""REPID's absolute floor: curves equal up to rounding are never split (intImp is relative to the root's risk)."""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit.effects._repid import ROUNDING, ROUNDING_EPS, rounding_floor


def _linear():
    # features on very different scales and an offset, as real tables have: the rounding of the predictions
    # (about 1e-14 here) is what the old relative rule split ("split on b (intImp=156.5)")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(400, 4)) * [1, 10, 100, 0.1] + [0, 5, 1000, 0], columns=list("abcd"))
    y = 3 * X["a"] - 0.2 * X["b"] + 0.01 * X["c"] + rng.normal(size=400)
    return LinearRegression().fit(X, y), X


def test_linear_model_is_not_split():
    model, X = _linear()
    r = ik.repid(model, X, "a", max_depth=2, min_node_size=30)
    assert len(r.tree) == 1 and len(r.regions) == 1            # known answer: an additive model has no regions
    assert (r.interaction_scores == 0).all()
    assert "split on" not in r.tree_text()
    assert r.extra["equal_up_to_rounding"] is True
    rms = np.sqrt(r.tree[0].risk / (r.tree[0].n * len(r.grid)))
    assert 0 <= rms <= r.extra["rounding_floor"]


def test_glm_from_imlkit_is_not_split():
    model, X = _linear()
    glm = ik.models.GLM().fit(X, model.predict(X) + np.random.default_rng(5).normal(size=len(X)))
    r = ik.repid(glm, X, "b", max_depth=2, min_node_size=30)
    assert len(r.regions) == 1 and r.extra["equal_up_to_rounding"] is True


def test_interaction_is_still_split_on_x2():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(600, 3)), columns=["x1", "x2", "x3"])

    def f(D):
        return np.asarray(D["x1"] * (D["x2"] > 0), dtype=float)

    r = ik.repid(f, X, "x1", max_depth=2, min_node_size=30)
    assert r.tree[0].feature == "x2"
    assert abs(r.tree[0].threshold) < 0.02                     # the kink is at x2 = 0
    assert_allclose(r.tree[0].int_imp, 1.0, atol=1e-9)          # one split removes all heterogeneity
    assert r.extra["equal_up_to_rounding"] is False
    assert len(r.regions) == 2                                  # both children are flat families: no noise splits
    assert r.interaction_scores.index[0] == "x2"


def test_pure_interaction_with_flat_pd_is_split():
    # y = x1 * sign(x2): the global PD of x1 is flat, yet every curve has range about 2, so the floor stays tiny
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(500, 2)), columns=["x1", "x2"])

    def f(D):
        return np.asarray(D["x1"] * np.sign(D["x2"]), dtype=float)

    r = ik.repid(f, X, "x1", max_depth=1, min_node_size=30)
    assert np.ptp(r.average) < 0.2
    assert r.tree[0].feature == "x2" and len(r.regions) == 2


def test_rounding_floor_formula():
    F = np.array([[0.0, 1.0, 3.0], [10.0, 10.5, 11.0]])
    # the largest range of one curve is 3; the largest |prediction| 11
    expected = max(ROUNDING * 3.0, ROUNDING_EPS * np.finfo(float).eps * 11.0)
    assert_allclose(rounding_floor(F), expected, rtol=1e-12)
    flat = np.full((5, 4), 1e6)                                 # no effect at all: the eps term is the floor
    assert_allclose(rounding_floor(flat), ROUNDING_EPS * np.finfo(float).eps * 1e6, rtol=1e-12)
