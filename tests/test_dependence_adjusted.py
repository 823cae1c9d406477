"""The dependence check's R² does not grow with the number of regressors on few rows."""
import numpy as np
import pandas as pd
import statsmodels.api as sm
from numpy.testing import assert_allclose

import imlkit as ik
from imlkit._dependence import MIN_ROWS_PER_REGRESSOR, adjusted_r2, dependence_r2


class _Sum:
    def predict(self, X):
        return np.asarray(X, dtype=float).sum(axis=1)


def _table(n, p, rng, dependent=False):
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    if dependent:
        X["x0"] = X["x1"] + 0.3 * rng.normal(size=n)
    X["g"] = pd.Categorical(rng.choice(list("abc"), n))
    return X


def test_adjusted_r2_equals_statsmodels_rsquared_adj():
    rng = np.random.default_rng(0)
    X = _table(200, 4, rng, dependent=True)
    adj = adjusted_r2(dependence_r2(X))
    design = pd.get_dummies(X.drop(columns="x0"), columns=["g"], drop_first=True, dtype=float)
    fit = sm.OLS(X["x0"], sm.add_constant(design)).fit()
    assert_allclose(adj["x0"], fit.rsquared_adj, rtol=1e-9)
    assert dependence_r2(X).attrs["n_regressors"] == design.shape[1]


def test_adjusted_r2_on_many_rows_is_the_plain_one_within_d_over_n():
    rng = np.random.default_rng(1)
    X = _table(20_000, 5, rng, dependent=True)
    r2 = dependence_r2(X)
    d = r2.attrs["n_regressors"]
    assert_allclose(adjusted_r2(r2)["x0"], r2["x0"], atol=d / (len(X) - d - 1))


def test_pfi_does_not_call_unrelated_features_dependent_on_few_rows():
    # 27 rows, 10 independent regressors: the in-sample R² of a column is about d / (n - 1) ~ 0.4,
    # and on some columns above 0.5 -- the caveat must not say "strongly dependent" there.
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(27, 11)), columns=[f"x{j}" for j in range(11)])
    raw = dependence_r2(X)
    assert raw.max() > 0.5           # the trap: the plain R² would have warned
    assert 27 < MIN_ROWS_PER_REGRESSOR * raw.attrs["n_regressors"]
    assert adjusted_r2(raw).isna().all()
    y = X.sum(axis=1)
    r = ik.pfi(_Sum(), X, y, n_repeats=2, random_state=0)
    text = r.explain()
    assert "strongly dependent" not in text
    assert "not judged: 27 rows for 10 regressors" in text


def test_pfi_still_warns_on_enough_rows_and_says_its_rows():
    rng = np.random.default_rng(3)
    X = _table(300, 3, rng, dependent=True).drop(columns="g")
    r = ik.pfi(_Sum(), X, X.sum(axis=1), n_repeats=2, random_state=0)
    adj = adjusted_r2(dependence_r2(X))
    text = " ".join(r.explain().split())
    assert f"Feature 'x0' is strongly dependent on the other features (adjusted R² = {adj['x0']:.2f}" in text
    assert "on the 300 rows given, 2 regressors" in text
