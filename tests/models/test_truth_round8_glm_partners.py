"""The GLM reading's dependence words name the columns that carry the dependence, judge a factor's level against the
other features, and read every large-scale column per the same kind of step (review rev8 r1-2, r1-3, r1-7)."""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression

from imlkit.models import GLM


def _r2(X, y):
    return LinearRegression().fit(X, y).score(X, y)


def test_the_named_partner_is_the_one_that_explains_the_column_not_the_largest_cancelling_weights():
    rng = np.random.default_rng(0)
    n = 400
    x2 = rng.normal(size=n)
    x1 = x2 + 0.3 * rng.normal(size=n)             # x1's dependence: x2 (R² ~ 0.92)
    base = rng.normal(size=n)
    # a block of three near copies of each other, weakly tied to x1: their weights in x1 ~ everything are large and
    # cancel (they differ by small noises that happen to track x1's residual)
    c1 = base + 0.02 * rng.normal(size=n)
    c2 = base + 0.02 * rng.normal(size=n)
    c3 = base + 0.02 * rng.normal(size=n) + 0.05 * (x1 - x2)
    X = pd.DataFrame({"x1": x1, "x2": x2, "c1": c1, "c2": c2, "c3": c3})
    y = x1 + rng.normal(size=n)
    m = GLM().fit(X, y)
    tab = m.collinearity_
    assert tab.loc["x1", "with"][0] == "x2"
    assert_allclose(tab.loc["x1", "with_r2"], _r2(X[["x2"]], x1) if len(tab.loc["x1", "with"]) == 1
                    else _r2(X[tab.loc["x1", "with"]], x1), rtol=1e-8)
    assert_allclose(tab.loc["x1", "r_squared"], _r2(X.drop(columns="x1"), x1), rtol=1e-8)
    # forward selection stops once the named columns carry 90% of the column's R²
    assert tab.loc["x1", "with_r2"] >= 0.9 * tab.loc["x1", "r_squared"]
    sentence = " ".join(m.interpret("x1"))
    assert "collinear with x2 (R² " in sentence or "x1 depends on" in sentence


def test_a_level_is_judged_against_the_other_features_not_its_own_factor():
    rng = np.random.default_rng(1)
    n = 600
    # a 5-level factor with a rare reference level: its dummies predict each other (they sum to ~1)
    g = rng.choice(list("abcde"), size=n, p=[0.04, 0.24, 0.24, 0.24, 0.24])
    x = rng.normal(size=n)                          # independent of the factor
    X = pd.DataFrame({"g": pd.Categorical(g, categories=list("abcde")), "x": x})
    y = x + (g == "c") * 1.0 + rng.normal(size=n)
    m = GLM().fit(X, y)
    tab = m.collinearity_
    for level in "bcde":
        term = f"g[{level}]"
        dummies = pd.get_dummies(X["g"], dtype=float).drop(columns=["a", level])
        own = (X["g"] == level).astype(float)
        assert_allclose(tab.loc[term, "r_squared"], _r2(pd.concat([dummies, X[["x"]]], axis=1), own), rtol=1e-6)
        assert tab.loc[term, "r_squared"] > 0.5                     # from its own factor's other levels
        assert_allclose(tab.loc[term, "features_r2"], _r2(X[["x"]], own), rtol=1e-6, atol=1e-12)
        assert tab.loc[term, "features_r2"] < 0.05                  # from the other features: next to nothing
    text = " ".join(m.interpret("g"))
    assert "g = b (instead of a)" in text
    assert "depends on the other columns" not in text and "collinear" not in text


def test_a_column_whose_unit_is_a_sliver_of_its_spread_is_not_read_per_unit():
    """ISLP College: F.Undergrad (SD 4,850, weight -0.0017 per unit) read "x 0.998 [0.997, 0.999]" per one unit, which
    looks like no effect, beside like columns read per 100 or 1,000. One unit under 1% of the SD: read per the power
    of ten at most the SD, whatever the printed numbers look like."""
    rng = np.random.default_rng(0)
    n = 540
    a = rng.normal(4000, 4800, size=n)
    e = 0.2 * a + rng.normal(0, 30, size=n)          # collinear with a: a's per-unit interval is wide enough to print
    eta = -1.7e-3 * (a - a.mean()) + 8.5e-3 * (e - e.mean())
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    m = GLM(family="binomial").fit(pd.DataFrame({"a": a, "e": e}), y)
    text = " ".join(m.interpret())
    assert "Increasing a by 1,000 units" in text and "Increasing e by 100 units" in text
    assert "by one unit" not in text
    w = m.summary()["weight"]
    assert f"multiplies the odds of y = 1 by {np.exp(1000 * w['a']):.3g}" in text
