"""Round 8 (r3b): a ridge GLM with at least as many terms as rows does not call its weights estimable."""
import numpy as np
import pandas as pd
import pytest

from imlkit.models import GLM


def _wide(n=60, p=200, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{i}" for i in range(p)])
    return X, rng


@pytest.mark.parametrize("family", ["binomial", "gaussian"])
def test_penalised_n_le_p_weights_set_by_the_penalty(family):
    X, rng = _wide()
    eta = X["x0"] + rng.normal(size=len(X))
    y = (eta > 0).astype(int) if family == "binomial" else eta
    g = GLM(family=family, alpha=0.1).fit(X, y)
    # 60 rows for 201 terms (200 columns and the intercept): every column is a linear combination of the others
    # on these rows, so the data determine no weight; the penalty does
    assert not g.estimable_.any()
    assert set(g.not_estimable_) == {"set by the penalty: 60 rows for 201 terms"}
    tab = g.summary()
    assert not tab["estimable"].any()
    assert (tab["note"] == "set by the penalty: 60 rows for 201 terms").all()
    # no per-unit reading "all other features fixed" of a weight the data do not determine: the closing line
    # names it with the cause
    said = g.interpret("x0")
    assert said == ["Not estimable, so not read: x0 (set by the penalty: 60 rows for 201 terms)."]
    assert not any("all other features fixed" in s for s in g.interpret())


def test_penalised_n_gt_p_keeps_the_datas_weights_and_flags_an_exact_dependency():
    X, rng = _wide(n=300, p=5, seed=1)
    X["x5"] = X["x1"] - X["x2"]  # an exact dependency: x1, x2, x5 are not determined by the data
    y = X["x0"] + rng.normal(size=len(X))
    g = GLM(family="gaussian", alpha=0.01).fit(X, y)
    ok = g.estimable_
    assert ok[["(Intercept)", "x0", "x3", "x4"]].all()
    assert not ok[["x1", "x2", "x5"]].any()
    assert g.not_estimable_["x5"].startswith("set by the penalty: collinear with ")
    # the data's weights, shrunk: x0's weight is close to the unpenalised least squares one (1 with noise sd 1)
    np.testing.assert_allclose(g.coef_["x0"], 1.0, atol=0.2)
    said = g.interpret("x0")
    assert said[0].startswith("Increasing x0 by one unit") and "penalised fit, no interval" in said[0]
