"""explain() of importance results: every reason argues the direction its answer is about.

The table's answers say whether a non-zero importance implies the property ("no": a non-zero value
without it exists). CFI's, LOCO's and LOFO's "no" to question (2) gave the converse (a zero value
despite the property), which does not support "no"; the reason now gives the case, and this file
checks it on numbers.
"""
import numpy as np
import pandas as pd
from scipy import stats
from sklearn.ensemble import HistGradientBoostingRegressor

import imlkit as ik
from imlkit.importance import INTERPRETATION_TABLE
from imlkit.importance._questions import explain_method


def _product(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["x1", "x2", "x3"])
    return X, X.x1 * X.x2 + 0.1 * rng.normal(size=n)


def test_question_2_no_reasons_give_a_non_zero_importance_without_information():
    for method in ("cfi", "loco", "lofo"):
        assert INTERPRETATION_TABLE[method][2] == "no"
        line = next(s for s in explain_method(method).splitlines() if s.startswith("(2)"))
        assert "x_1 ⊥ y" in line and f"{method.upper()}_1 > 0" in line, line
        assert line.index("x_1 ⊥ y") < line.index("Conversely")  # the converse is said second, as such


def test_the_product_example_holds_on_numbers():
    """y = x1·x2: x1 carries no information about y alone (a test of dependence does not reject, and the best
    function of x1 alone explains nothing on held-out rows), yet CFI and LOCO of x1 are far above 0."""
    X, y = _product(3000, 0)
    Xt, yt = _product(1500, 1)
    # x1 alone: a flexible fit of y on x1 explains nothing of held-out y (R² <= 0.01) -- no information
    alone = HistGradientBoostingRegressor(max_iter=60, random_state=0).fit(X[["x1"]], y)
    assert alone.score(Xt[["x1"]], yt) <= 0.01
    assert stats.spearmanr(Xt.x1, yt).pvalue > 0.01
    model = HistGradientBoostingRegressor(max_iter=200, random_state=0).fit(X, y)
    cfi = ik.cfi(model, Xt, yt, features=["x1"], n_repeats=5, random_state=0)
    var = float(np.var(yt))
    assert cfi.ci_low[0] > 0.5 * var  # removing x1 given x2 costs most of y's variance
    loco = ik.loco(HistGradientBoostingRegressor(max_iter=200, random_state=0), X, y, Xt, yt, features=["x1"],
                   random_state=0)
    assert loco.ci_low[0] > 0
