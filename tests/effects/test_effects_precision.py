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


# ---------------------------------------------------------------- H-statistic standard errors


def _hfun(c):
    return lambda Z: Z[:, 0] + Z[:, 1] + c * Z[:, 0] * Z[:, 1] + Z[:, 2]


@pytest.mark.parametrize("c", [0.5, 1.5])
def test_h2_se_matches_the_spread_over_independent_samples(c):
    """f = x0 + x1 + c x0 x1 + x2, x ~ U(-1, 1)^3 independent: over 60 independent samples of 150 rows the
    bootstrap SE of overall H²_0 and pairwise H²_01 averages within 30% of the sd of H² across the samples
    (measured: ratios 0.95-0.97 for the overall H² without x2)."""
    f = _hfun(c)
    h0, s0, h01, s01 = [], [], [], []
    for r in range(60):
        X = np.random.default_rng(1000 + r).uniform(-1, 1, size=(150, 3))
        h = ik.h_statistic(f, X, n_samples=150, random_state=r, pairs=[(0, 1)])
        h0.append(h.overall[0])
        s0.append(h.overall_se[0])
        h01.append(h.pairwise["h2"][0])
        s01.append(h.pairwise["h2_se"][0])
    assert np.std(h01, ddof=1) > 0.01 * np.mean(h01)   # the sampling error is not nothing
    assert_allclose(np.mean(s0), np.std(h0, ddof=1), rtol=0.3)
    assert_allclose(np.mean(s01), np.std(h01, ddof=1), rtol=0.3)


def test_h2_se_in_frames_and_seeded():
    X = np.random.default_rng(0).uniform(-1, 1, size=(300, 3))
    f = _hfun(1.0)
    h = ik.h_statistic(f, X, n_samples=120, random_state=5, pairs="all")
    over, pairs = h.to_frame(), h.to_frame("pairwise")
    assert list(over.columns) == ["h2", "h", "h_unnormalized", "h2_se"]
    assert list(pairs.columns) == ["feature_1", "feature_2", "h2", "h", "h_unnormalized", "h2_se"]
    assert (over["h2_se"] > 0).all() and h.extra["n_boot"] == 200
    # x2 enters additively: its H² and SE are rounding; x0·x1's SE is a real sampling error
    assert over.loc["x2", "h2_se"] < 1e-12 < over.loc["x0", "h2_se"]
    same = ik.h_statistic(f, X, n_samples=120, random_state=5, pairs="all")
    assert_allclose(same.overall_se, h.overall_se, rtol=0, atol=0)
    par = ik.h_statistic(f, X, n_samples=120, random_state=5, pairs="all", n_jobs=2)
    assert_allclose(par.overall_se, h.overall_se, rtol=0, atol=0)
    assert_allclose(par.pairwise["h2_se"], h.pairwise["h2_se"], rtol=0, atol=0)
    other = ik.h_statistic(f, X, n_samples=120, random_state=6, pairs="all")
    assert not np.allclose(other.overall_se, h.overall_se, rtol=1e-9)
    # selection keeps the SEs with their features
    assert_allclose(h["x1"].overall_se, h.overall_se[[1]])


def test_h2_se_multiclass_and_tree_engine():
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(300, 3)), columns=["a", "b", "c"])
    y = X["a"] * X["b"] + 0.1 * rng.normal(size=300)
    clf = RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, pd.cut(y, 3, labels=False))
    hc = ik.h_statistic(clf, X, n_samples=60, random_state=0, pairs=[("a", "b")], engine="predict")
    assert np.isfinite(hc.overall_se).all() and np.isfinite(hc.pairwise["h2_se"]).all()
    gbr = GradientBoostingRegressor(n_estimators=20, max_depth=2, random_state=0).fit(X, y)
    ht = ik.h_statistic(gbr, X, n_samples=60, random_state=0, pairs=[("a", "b")])
    hp = ik.h_statistic(gbr, X, n_samples=60, random_state=0, pairs=[("a", "b")], engine="predict")
    assert ht.info["engine"] == "trees" and hp.info["engine"] == "predict"
    assert_allclose(ht.overall_se, hp.overall_se, rtol=1e-8, atol=1e-12)
    # the tree engine gives every row's predictions at the pair's points: the predict path's bootstrap
    assert_allclose(ht.pairwise["h2_se"], hp.pairwise["h2_se"], rtol=1e-8, atol=1e-12)
    assert hp.pairwise["h2_se"][0] > 0


def test_h2_bootstrap_sample_equals_h_statistic_on_the_duplicated_rows():
    """The weighted formulas are H² itself on a bootstrap sample: with multiplicities w (one sample) and the
    all-ones sample, SE·√2 = |H²(rows repeated w_i times) − H²(rows)|, both from h_statistic itself."""
    import pandas as pd

    from imlkit.effects._grid import make_predictor
    from imlkit.effects._hstat import _feature_task, _pair_task

    rng = np.random.default_rng(7)
    Xs = pd.DataFrame(rng.uniform(-1, 1, size=(40, 3)), columns=["x0", "x1", "x2"])
    f = _hfun(1.3)
    w = rng.multinomial(40, np.full(40, 1 / 40))
    W = np.vstack([w, np.ones(40)]).astype(float)
    pred = make_predictor(f, "predict", False, None)
    dup = Xs.iloc[np.repeat(np.arange(40), w)].reset_index(drop=True)
    full = ik.h_statistic(f, Xs.to_numpy(), n_samples=40, pairs=[(0, 1)])
    boot = ik.h_statistic(f, dup.to_numpy(), n_samples=40, pairs=[(0, 1)])
    res = {c: _feature_task(pred, Xs, c, None, W) for c in ("x0", "x1")}
    assert_allclose(res["x0"][5] * np.sqrt(2), abs(boot.overall[0] - full.overall[0]), rtol=1e-9)
    assert abs(boot.overall[0] - full.overall[0]) > 1e-3
    out = _pair_task(pred, Xs, "x0", "x1", res["x0"][1], res["x1"][1], res["x0"][2], None, W,
                     res["x0"][4], res["x1"][4])
    assert_allclose(out[2] * np.sqrt(2), abs(boot.pairwise["h2"][0] - full.pairwise["h2"][0]), rtol=1e-6)
