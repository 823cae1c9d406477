"""Round 7 (lvl7), finding 5: section 1 sent the reader to single-feature CFI/LOCO for near copies.

Credit's Limit and Rating (r = 0.997): "Prefer the conditional methods (CFI, conditional SAGE), ALE, or LOCO for these
features", while LOCO of each was near 0 (4.0, -3.0) and leaving both out cost 218. The advice must say what CFI and
LOCO measure for such features, name the near copies with their r, and point to the group.
"""
import numpy as np
import pandas as pd
import pytest


def _near_copies(n=400, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    X = pd.DataFrame({"a": a, "a_copy": a + 0.05 * rng.normal(size=n), "c": rng.normal(size=n)})
    y = X["a"] + X["a_copy"] + 0.5 * X["c"] + 0.1 * rng.normal(size=n)
    return X, y


def test_single_feature_loco_of_a_near_copy_is_small_and_the_group_is_not():
    """The premise of the new sentence, on the known answer: with a linear learner, leaving out one of two near copies
    costs almost nothing (the other takes its place), leaving out both costs about Var(a + a_copy) = 4."""
    from sklearn.linear_model import LinearRegression

    import imlkit as ik

    X, y = _near_copies()
    tr, te = slice(0, 300), slice(300, None)
    single = ik.loco(LinearRegression(), X[tr], y[tr], X[te], y[te], loss="squared_error", aggregate="mean",
                     features=["a", "a_copy"], random_state=0)
    pair = ik.loco(LinearRegression(), X[tr], y[tr], X[te], y[te], loss="squared_error", aggregate="mean",
                   features={"a + a_copy": ["a", "a_copy"]}, random_state=0)
    assert np.all(np.abs(single.importance) < 0.01)
    assert pair.importance[0] == pytest.approx(4 * np.var(X["a"][te]), rel=0.25)


def test_section_one_names_the_near_copies_and_what_cfi_and_loco_measure():
    from sklearn.ensemble import HistGradientBoostingRegressor

    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_data import section_data

    X, y = _near_copies()
    r = float(np.corrcoef(X["a"], X["a_copy"])[0, 1])
    model = HistGradientBoostingRegressor(max_iter=5).fit(X, y)
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=model, quick=True, prepare=False))
    said = " ".join(str(b.get("text", "")) for b in section_data(ctx)["blocks"])
    assert "Marginal methods will extrapolate" in said
    # the old advice recommended single-feature LOCO/CFI as the fix without saying what they measure
    assert "or LOCO for these features" not in said
    assert "measure only what it adds beyond the features it depends on" in said
    assert f"a and a_copy (r = {r:.3f})" in said or f"a_copy and a (r = {r:.3f})" in said
    assert "features={'a + a_copy': ['a', 'a_copy']}" in said or "features={'a_copy + a': ['a_copy', 'a']}" in said
    assert said.count("(r = ") == 1  # one pair, named once; c is no near copy
