"""Holm is Holm: one p-value adjustment for LOCO, LOFO and PIMP, and LOCO's note where Holm's
decision goes beyond its simultaneous (Bonferroni-level) interval."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from sklearn.base import BaseEstimator, RegressorMixin
from statsmodels.stats.multitest import multipletests

import imlkit as ik
from imlkit.importance import _inference, _pimp
from imlkit.importance._inference import adjust_pvalues


@pytest.mark.parametrize("p", [
    [0.01, 0.04, 0.03],
    [0.001, 0.2, 0.0125, 0.013, 0.5, 1.0],
    [0.02, 0.02, 0.02, 0.5],             # ties
    [1e-12, 0.3, 0.9, 0.6, 0.04, 0.05, 0.01],
    [0.4],
])
@pytest.mark.parametrize("method", ["holm", "bonferroni"])
def test_adjust_pvalues_equals_statsmodels(p, method):
    assert_allclose(adjust_pvalues(p, method=method), multipletests(p, method=method)[1], rtol=1e-14)


def test_holm_by_hand_and_nan():
    # Holm (1979): sorted p 0.01, 0.03, 0.04 -> 3·0.01, max(0.03, 2·0.03), max(0.06, 1·0.04)
    assert_allclose(adjust_pvalues([0.04, 0.01, 0.03]), [0.06, 0.03, 0.06])
    # NaN (a feature without a test) is left out of m and stays NaN
    out = adjust_pvalues([0.04, np.nan, 0.01, 0.03])
    assert np.isnan(out[1])
    assert_allclose(out[[0, 2, 3]], [0.06, 0.03, 0.06])
    assert_array_equal(adjust_pvalues([0.2, 0.7], method=None), [0.2, 0.7])


def test_pimp_and_loco_share_the_adjustment():
    import imlkit.importance._loco as loco_module

    assert _pimp.adjust_pvalues is _inference.adjust_pvalues
    assert loco_module.adjust_pvalues is _inference.adjust_pvalues


class _Switch(BaseEstimator, RegressorMixin):
    """Predicts 0 with every column; without column "a" (or "b") adds the column "da" ("db").

    With y = 0 and the absolute error, LOCO's Δ_a(i) = |da_i| and Δ_b(i) = |db_i|: the data
    set the sign test's statistics directly.
    """

    def fit(self, X, y):
        self.columns_ = list(X.columns)
        return self

    def predict(self, X):
        out = np.zeros(len(X))
        for c in ("a", "b"):
            if c not in X.columns:
                out = out + X["d" + c].to_numpy()
        return out


def _switch_data():
    rng = np.random.default_rng(0)
    n = 40
    da = np.concatenate([np.zeros(13), rng.uniform(0.5, 1.5, n - 13)])   # 13 of 40 Δ_a are 0
    db = rng.uniform(0.5, 1.5, n)                                         # every Δ_b is > 0
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "da": da, "db": db})
    return X, np.zeros(n)


def test_loco_holm_beyond_the_interval_is_reported():
    X, y = _switch_data()
    r = ik.loco(_Switch(), X, y, X, y, features=["a", "b"], random_state=0)
    assert r.info["test_used"] == "sign" and r.info["p_adjust_applied"] == "holm"
    assert r.info["interval_adjust"] == "bonferroni"
    # sign test, zeros against the alternative: p_a = P(Bin(40, 1/2) <= 13) = 0.019, p_b = P(B <= 0)
    p = np.array([stats.binom.cdf(13, 40, 0.5), stats.binom.cdf(0, 40, 0.5)])
    assert_allclose(r.p_value, p, rtol=1e-12)
    assert_allclose(r.p_adjusted, multipletests(p, method="holm")[1], rtol=1e-12)
    assert_allclose(r.p_adjusted[0], p[0], rtol=1e-12)          # Holm: max(2·p_b, 1·p_a) = p_a
    f = r.to_frame(sort=False)
    # Holm rejects "a" at α = 0.025, but its interval at the Bonferroni level 1 − 0.05/2 starts at 0
    assert f.loc["a", "significant"] and f.loc["a", "ci_low"] == 0.0
    assert f.loc["b", "significant"] and f.loc["b", "ci_low"] > 0
    assert_array_equal(r.extra["holm_beyond_interval"], [True, False])
    notes = [w for w in r.warnings if "Holm's step-down" in w]
    assert len(notes) == 1 and "'a'" in notes[0] and "'b'" not in notes[0]
    assert "p_adjust='bonferroni'" in r.explain()


def test_loco_bonferroni_agrees_with_the_interval():
    X, y = _switch_data()
    r = ik.loco(_Switch(), X, y, X, y, features=["a", "b"], p_adjust="bonferroni", random_state=0)
    assert r.info["p_adjust_applied"] == "bonferroni"
    assert_allclose(r.p_adjusted, np.minimum(1, 2 * r.p_value), rtol=1e-12)
    f = r.to_frame(sort=False)
    assert_array_equal(f["significant"].to_numpy(), (f["ci_low"] > 0).to_numpy())
    assert_array_equal(f["significant"].to_numpy(), [False, True])
    assert not r.extra["holm_beyond_interval"].any()
    assert not any("Holm's step-down" in w for w in r.warnings)


def test_loco_holm_with_cross_validation():
    # Nadeau–Bengio p-values over folds are Holm-adjusted the same way.
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(240, 4)), columns=["x1", "x2", "x3", "x4"])
    y = 2 * X["x1"].to_numpy() + 0.3 * X["x2"].to_numpy() + rng.normal(size=240)
    from sklearn.linear_model import LinearRegression

    r = ik.loco(LinearRegression(), X, y, cv=4, aggregate="mean", random_state=0)
    assert r.info["inference"] == "nadeau_bengio"
    assert_allclose(r.p_adjusted, multipletests(r.p_value, method="holm")[1], rtol=1e-12)


def test_lofo_adjusts_only_what_it_tests():
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["x1", "x2", "x3"])
    y = 2 * X["x1"].to_numpy() + rng.normal(size=200)
    from sklearn.linear_model import LinearRegression

    plain = ik.lofo(LinearRegression(), X[:120], y[:120], X[120:], y[120:])
    assert plain.p_adjusted is None and plain.info["p_adjust_applied"] is None   # no test, nothing adjusted
    tested = ik.lofo(LinearRegression(), X[:120], y[:120], X[120:], y[120:], test="t")
    assert tested.info["p_adjust_applied"] == "holm"
    assert_allclose(tested.p_adjusted, multipletests(tested.p_value, method="holm")[1], rtol=1e-12)
