"""Fifth round (helper b): section 6 never prints a false or unsupported sentence.

RuleFit's table listed rules fitted to a handful of rows as findings (Boston: 8 of the 79 kept terms cover 3 to 9
of 354 training rows, one of them among the top rows); the GAM's p-values were printed without their caveat.
"""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose

from imlkit.models import RuleFit
from imlkit.models._rulefit import MIN_RULE_ROWS


def _outlier_rows(n=400, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.uniform(0, 1, size=(n, 3)), columns=["x1", "x2", "x3"])
    y = X["x1"] + 0.1 * rng.normal(size=n)
    X.loc[:k - 1, "x2"] = 5.0 + np.arange(k)
    y[:k] = 8.0
    return X, y.to_numpy()


def test_rulefit_table_keeps_rules_on_few_rows_out_and_says_so():
    """A 3-row rule is kept by the L1 fit (its weight is the mean of 3 rows) and ranks high by importance; the
    section's table leaves every such rule out and names how many, with the most important one's row count."""
    from imlkit.report._sec_alternatives import rulefit_table

    X, y = _outlier_rows()
    rf = RuleFit(n_estimators=60, include_linear=False, random_state=0).fit(X, y)
    few = rf.rules_[rf.rules_["few_rows"]]
    assert len(few)  # the setting plants one
    lead, tab = rulefit_table(rf, 8)
    text = lead["text"]
    assert f"leaving out {len(few)} kept rule" in text
    top = few.iloc[0]
    assert f"{top['rule']}, covers {int(top['n_rows']):,} of {rf.n_rows_used_:,} rows" in text
    assert "400 training rows" in text
    # the table: the first 8 terms of rules_ without the flagged ones, each with its row count
    want = rf.rules_[~rf.rules_["few_rows"]].head(8)
    assert [row[0] for row in tab["rows"]] == list(want["rule"])
    assert "few_rows" not in tab["columns"] and "n_rows" in tab["columns"]
    counts = np.minimum(want["n_rows"], rf.n_rows_used_ - want["n_rows"])
    assert (counts >= MIN_RULE_ROWS).all()


def test_rulefit_table_says_nothing_when_no_rule_is_on_few_rows():
    from imlkit.report._sec_alternatives import rulefit_table

    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(300, 2)), columns=["a", "b"])
    y = 2.0 * (X.a > 0) + rng.normal(scale=0.1, size=300)
    rf = RuleFit(n_estimators=5, mean_tree_size=2, random_state=0).fit(X, y)
    assert not rf.rules_["few_rows"].any()
    lead, _ = rulefit_table(rf, 8, all_rows=True)
    assert "leaving out" not in lead["text"]
    assert "300 rows (the same rows it is scored on)" in lead["text"]
    assert_allclose(rf.rules_["n_rows"], rf.rules_["support"] * 300)
