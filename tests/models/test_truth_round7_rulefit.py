"""Truth review rev7 r2, finding 8: RuleFit counted and explained a term whose weight is round-off (nile, the first 70
years: ``year > 1898.5`` with weight -1.08e-13 beside ``year <= 1898.5`` at 189.7) as "kept"."""
import numpy as np
import pandas as pd
import statsmodels.api as sm
from numpy.testing import assert_allclose

from imlkit.models import RuleFit
from imlkit.models._rulefit import ZERO_WEIGHT_TOL


def nile_fit():
    d = sm.datasets.nile.load_pandas().data
    tr = d.iloc[:70]
    return d, RuleFit(random_state=0).fit(tr[["year"]], tr["volume"])


def test_nile_round_off_weight_is_not_kept_nor_explained():
    d, m = nile_fit()
    terms = m.terms_.set_index("rule")
    # the complement of the strongest rule is a candidate (collinear with it and the intercept after centring) ...
    assert "year > 1898.5" in terms.index and "year <= 1898.5" in terms.index
    # ... whose weight is 0, not round-off: it is neither kept nor counted
    assert terms.loc["year > 1898.5", "weight"] == 0.0
    assert "year > 1898.5" not in set(m.rules_["rule"])
    imp = m.rules_["importance"].to_numpy()
    assert np.all(imp >= ZERO_WEIGHT_TOL * imp.max())
    assert len(m.rules_) == int(np.count_nonzero(m.coef_))
    row = d.iloc[[75]][["year"]]
    ex = m.explain(row)
    assert "year > 1898.5" not in set(ex["term"])
    assert np.all(np.abs(ex["contribution"].to_numpy()[1:]) >= ZERO_WEIGHT_TOL * imp.max())
    # the parts still sum to the prediction (the weight was removed from f(x) too, not only from the table)
    assert_allclose(ex["contribution"].sum(), m.predict(row)[0], rtol=1e-12)


def test_real_weights_are_kept():
    """The tolerance removes round-off only: every weight whose |weight| × sd reaches 1e-10 of the largest importance
    stays, with the importance it had (synthetic: an interaction rule and a linear term, both real)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(300, 3)), columns=["a", "b", "c"])
    y = 2.0 * ((X.a > 0) & (X.b > 0)) + X.c + 0.1 * rng.normal(size=300)
    m = RuleFit(n_estimators=30, cv=3, random_state=0).fit(X, y)
    imp = m.terms_["importance"].to_numpy()
    nonzero = m.coef_[0] != 0
    assert_allclose(np.sort(m.rules_["importance"].to_numpy()), np.sort(imp[nonzero]))
    assert np.all(imp[nonzero] >= ZERO_WEIGHT_TOL * imp.max())
    assert m.score(X, y) > 0.9
