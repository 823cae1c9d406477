"""The rounding floor of REPID and c-ICE heterogeneity follows the precision of the model's own predictions, and
the H-statistic's bootstrap standard errors."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik
from imlkit.effects._repid import ROUNDING_EPS, rounding_floor


def _steps_data(n=400, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 2, n).astype(float), "c": rng.normal(size=n)})


def _additive32(Z):
    """100 + 1.1 a + 30.3 b in float32: additive, but b = 1 moves the predictions past 128, where float32's
    spacing doubles, so the rows with b = 1 share one rounding pattern along a's grid and those with b = 0
    another (a 'split' at b of pure rounding)."""
    a = Z["a"].to_numpy(dtype=np.float32)
    b = Z["b"].to_numpy(dtype=np.float32)
    return np.float32(100) + np.float32(1.1) * a + np.float32(30.3) * b


def _additive64(Z):
    return 100 + 1.1 * Z["a"].to_numpy() + 30.3 * Z["b"].to_numpy()


def test_float32_additive_model_gets_no_repid_split():
    """Before: float64's ε gave τ = 6.8e-9 while the float32 rounding of the centred curves is ~1e-6, and REPID
    split a's curves on b with intImp 1.0 (one region per rounding pattern)."""
    X = _steps_data()
    r = ik.repid(_additive32, X, "a")
    assert r.extra["rounding_dtype"] == "float32"
    assert r.extra["rounding_eps"] == np.finfo(np.float32).eps
    assert r.extra["equal_up_to_rounding"] and len(r.regions) == 1 and r.tree[0].is_leaf
    assert (r.interaction_scores == 0).all()
    root_rms = np.sqrt(r.tree[0].risk / (r.tree[0].n * len(r.grid)))
    # the curves do differ by float32 rounding: above float64's floor (what split them), below float32's
    F = np.stack([_additive32(X.assign(a=v)) for v in r.grid], axis=1).astype(float)
    assert rounding_floor(F) < root_rms <= r.extra["rounding_floor"]
    assert_allclose(r.extra["rounding_floor"], rounding_floor(F, np.finfo(np.float32).eps), rtol=1e-12)
    assert_allclose(r.extra["rounding_floor"], ROUNDING_EPS * np.finfo(np.float32).eps * np.max(np.abs(F)),
                    rtol=1e-12)


def test_float32_additive_model_heterogeneity_is_rounding():
    """Before: b ranked 'the most heterogeneous' (3.6e-12 beside a's 3.3e-12), both float32 rounding."""
    X = _steps_data()
    h = ik.ice_heterogeneity(_additive32, X)
    assert h.extra["rounding_dtype"] == "float32" and h.extra["equal_up_to_rounding"]
    assert set(h.extra["at_rounding_floor"]) == {"a", "b", "c"}
    for f in ("a", "b"):
        assert 0 < np.sqrt(h[f].heterogeneity[0]) <= h.extra["rounding_floor"][f]
    # the ranking's numbers are unchanged: the floor is recorded, not applied to them
    h64 = ik.ice_heterogeneity(_additive64, X)
    assert h64.extra["rounding_dtype"] == "float64" and h64.extra["equal_up_to_rounding"]
    assert h64.heterogeneity.max() < 1e-20 < h.heterogeneity.max()


def _interaction32(Z):
    a = Z["a"].to_numpy(dtype=np.float32)
    b = Z["b"].to_numpy(dtype=np.float32)
    return np.float32(100) + a * (np.float32(2) * b - np.float32(1)) + np.float32(0.5) * Z["c"].to_numpy(np.float32)


def test_float32_floor_keeps_a_real_interaction():
    """The float32 floor (~7.6e-6 × 100) is far below a real interaction: REPID still splits a on b."""
    X = _steps_data()
    r = ik.repid(_interaction32, X, "a")
    assert not r.extra["equal_up_to_rounding"]
    assert r.tree[0].feature == "b" and r.tree[0].int_imp > 0.99
    h = ik.ice_heterogeneity(_interaction32, X)
    assert set(h.extra["at_rounding_floor"]) == {"c"} and not h.extra["equal_up_to_rounding"]
    assert h.top in ("a", "b")


def test_float64_model_keeps_float64_floor():
    X = _steps_data()
    r = ik.repid(_additive64, X, "a")
    F = np.stack([_additive64(X.assign(a=v)) for v in r.grid], axis=1)
    assert r.extra["rounding_dtype"] == "float64" and r.extra["rounding_eps"] == np.finfo(float).eps
    assert r.extra["rounding_floor"] == rounding_floor(F)
    assert r.extra["equal_up_to_rounding"]


def test_integer_predictions_use_float64_eps():
    X = _steps_data()
    h = ik.ice_heterogeneity(lambda Z: (10 * Z["b"]).to_numpy().astype(np.int64) + 3, X, features=["a", "b"])
    assert h.extra["rounding_dtype"] == "int64" and h.extra["rounding_eps"] == np.finfo(float).eps


def test_float32_classifier_probabilities():
    """predict_proba in float32 (xgboost's): the floor reads the probabilities' dtype."""
    from sklearn.linear_model import LogisticRegression

    X = _steps_data()
    y = (X["a"] + X["b"] > 0.5).astype(int)

    class Float32Proba(LogisticRegression):
        def predict_proba(self, Z):
            return super().predict_proba(Z).astype(np.float32)

    model = Float32Proba().fit(X, y)
    r = ik.repid(model, X, "a", max_depth=1)
    assert r.extra["rounding_dtype"] == "float32"
