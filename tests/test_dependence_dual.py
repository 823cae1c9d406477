"""dependence_r2's ridge case on wide all-numeric tables (q > n) from the n × n dual: equal to the q × q primal."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from imlkit import _dependence as D


def _primal(X):
    """The primal ridge R² (the q × q Gram matrix and its inverse), built from the module's own steps."""
    numeric = D.numeric_or_bool_columns(X)
    keep = D._finite_rows(X, numeric)
    n = int(keep.sum())
    others = [c for c in X.columns if c not in numeric]
    codes = [D._codes(X[c], keep) for c in others]
    cb, LB = codes[0] if codes else (np.zeros(n, dtype=np.int64), 1)
    nb = np.bincount(cb, minlength=LB).astype(float)
    Uw, tss = D._within_levels(X, numeric, keep, cb, LB, nb)
    W, table_tss = D._gram(Uw, cb, LB, nb, [])
    S, ss, dropped, constant = D._numeric_block(W, tss, ([nb - nb ** 2 / n] if codes else []) + table_tss,
                                                len(numeric))
    rss = D._residual_variances(S, D.RIDGE)
    out = np.where(dropped, 1.0, np.clip(1 - rss * ss / np.where(constant, 1.0, tss), 0.0, 1.0))
    out[constant] = np.nan
    return numeric, out


@pytest.mark.parametrize("n, q, grouped", [(40, 300, False), (64, 500, True), (30, 31, False)])
def test_the_dual_ridge_r2_equals_the_primal(n, q, grouped):
    rng = np.random.default_rng(n + q)
    X = pd.DataFrame(rng.normal(size=(n, q)), columns=[f"g{i}" for i in range(q)])
    X["g1"] = 2 * X["g0"] + 0.01 * rng.normal(size=n)  # a near-copy: R² near 1 even under the ridge
    X["g5"] = 1.0  # constant: no R² of its own
    if grouped:  # one categorical: absorbed exactly as B, still the dual case
        X["grp"] = pd.Categorical(rng.choice(list("abcd"), size=n))
    r2 = D.dependence_r2(X)
    numeric, primal = _primal(X)
    assert r2.attrs["ridge"] == D.RIDGE
    got = r2[numeric].to_numpy()
    assert np.array_equal(np.isnan(got), np.isnan(primal))
    assert_allclose(got, primal, rtol=0, atol=1e-12, equal_nan=True)
    assert got[1] > 0.9 and np.isnan(got[5])
