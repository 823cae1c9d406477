"""The data section's extrapolation figure: the partner that carries the dependence, and a verdict from numbers."""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose

from imlkit.report._sec_data import EXTRAPOLATION_SHARE, _extrapolation_blocks, dependence_partner, unsupported_share


def _caption(blocks):
    assert len(blocks) == 1
    return blocks[0]["caption"]


def _default_like(n, rng):
    # income depends on a categorical (student), not on the weakly correlated numeric balance
    student = rng.random(n) < 0.3
    income = np.where(student, rng.normal(17, 3, n), rng.normal(40, 6, n))
    balance = 800 + 10 * student - 2 * income + rng.normal(0, 100, n)
    return pd.DataFrame({"balance": balance, "income": income,
                         "student": pd.Categorical(np.where(student, "Yes", "No"))})


def test_partner_is_the_categorical_that_carries_the_dependence():
    rng = np.random.default_rng(0)
    X = _default_like(2000, rng)
    partner, adj, r, categorical = dependence_partner(X, "income")
    assert partner == "student" and categorical and r is None
    # η² = between-level share of the variance, adjusted for one degree of freedom
    x, g = X["income"].to_numpy(), X["student"].to_numpy()
    between = sum((g == lv).sum() * (x[g == lv].mean() - x.mean()) ** 2 for lv in ("Yes", "No"))
    eta2 = between / ((x - x.mean()) ** 2).sum()
    assert_allclose(adj, 1 - (1 - eta2) * (len(x) - 1) / (len(x) - 2), rtol=1e-10)


def test_an_identifier_does_not_win_by_its_levels():
    rng = np.random.default_rng(1)
    n = 200
    z = rng.normal(size=n)
    X = pd.DataFrame({"x": z + 0.5 * rng.normal(size=n), "z": z, "id": pd.Categorical(np.arange(n).astype(str))})
    assert dependence_partner(X, "x")[0] == "z"


def test_unsupported_share_is_small_under_independence_and_large_under_dependence():
    rng = np.random.default_rng(2)
    n = 5000
    g = rng.integers(0, 3, n)
    x_indep = rng.normal(size=n)
    share_indep = unsupported_share(x_indep, rng.permutation(x_indep), g)
    x_dep = 5.0 * g + rng.normal(size=n)          # the levels barely overlap
    share_dep = unsupported_share(x_dep, rng.permutation(x_dep), g)
    assert share_indep < 0.02
    # Each level fills a third of the 10 decile bins and touches 4 of them (bins 3 and 6 are shared
    # by two levels): a permuted value lands in a supported bin of its row's level with chance 0.4.
    assert_allclose(share_dep, 0.6, atol=0.03)


def test_caption_claims_extrapolation_only_when_the_share_shows_it():
    rng = np.random.default_rng(3)
    cap = _caption(_extrapolation_blocks(_default_like(1500, rng), "income", seed=0))
    assert "income against student" in cap and "η² = " in cap
    assert "PFI and marginal SAGE judge the model there" in cap

    n = 1500
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    X["c"] = 0.15 * X["a"] + rng.normal(size=n)
    cap = _caption(_extrapolation_blocks(X, "c", seed=0))
    assert "c against a" in cap and "Pearson r = 0.1" in cap
    assert "little extrapolation against a" in cap and "judge the model there" not in cap
    share = float(cap.split("only ")[1].split("%")[0]) / 100
    assert share < EXTRAPOLATION_SHARE
