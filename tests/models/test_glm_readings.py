"""The GLM's and GAM's sentences on the tables a reviewer read: what they must not say, and their numbers
against statsmodels (uncentred intercept, collinear columns, separation, tiny units, 0/1 labels)."""
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose

from imlkit.models import GAM, GLM
from imlkit.models._glm import _fmt_all

NUMBER = r"-?[\d.,]+(?:e[+-]\d+)?"


def numbers_after(text, lead):
    """The estimate and the two ends printed after ``lead``: 'lead 1.77 [1.7, 1.86]'."""
    m = re.search(re.escape(lead) + rf" ({NUMBER}) \[({NUMBER}), ({NUMBER})\]", text)
    assert m, f"{lead!r} not followed by 'estimate [low, high]' in {text!r}"
    return [float(g.replace(",", "")) for g in m.groups()]


def year_table(n=400, seed=0):
    """A binary target with a year column near 2000 (as ISLP's Weekly): its intercept extrapolates to year 0."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"Year": rng.integers(1990, 2011, n).astype(float), "Lag": rng.normal(size=n)})
    p = 1 / (1 + np.exp(-(0.3 * X["Lag"] + 0.02 * (X["Year"] - 2000))))
    y = pd.Series(np.where(rng.uniform(size=n) < p, "Up", "Down"), name="Direction")
    return X, y


def test_uncentred_intercept_is_estimable_and_read_at_the_centre_of_the_data():
    X, y = year_table()
    m = GLM(family="binomial").fit(X, y)
    s = m.summary()
    ref = sm.GLM((y == "Up").astype(float), sm.add_constant(X), family=sm.families.Binomial()).fit()
    assert_allclose(s["weight"], ref.params.to_numpy(), rtol=1e-6)
    assert_allclose(s["std_error"], ref.bse.to_numpy(), rtol=1e-6)
    assert s.loc["(Intercept)", "std_error"] > 20  # the case: a huge SE from the extrapolation to Year = 0
    assert m.estimable_.all() and (m.not_estimable_ == "").all()
    # exp() of the intercept would be an astronomical factor with a meaningless interval: not shown, and why
    assert np.isnan(s.loc["(Intercept)", ["exp_weight", "exp_ci_low", "exp_ci_high"]].astype(float)).all()
    # the intercept is the prediction with EVERY numeric feature at 0 (Lag too), not "at Year = 0" alone (rev7 r2
    # finding 10: the old wording was false)
    assert "every numeric feature at 0, outside the data (Year from 1990 to 2010)" in s.loc["(Intercept)", "note"]
    text = m.interpret()
    assert not any("not estimable" in t.lower() for t in text)
    first = text[0]
    assert first.startswith("The intercept is the odds of Direction = Up with every numeric feature at 0, outside "
                            "the data (Year from 1990 to 2010), so it is not read")
    # the value read instead: the intercept of the centred design (statsmodels on centred columns)
    centred = sm.GLM((y == "Up").astype(float), sm.add_constant(X - X.mean()), family=sm.families.Binomial()).fit()
    est, lo, hi = numbers_after(first, "the odds of Direction = Up are")  # plural (was "is": rev7 r2 finding 10)
    lo_ref, hi_ref = np.exp(centred.conf_int().iloc[0])
    assert_allclose([est, lo, hi], [np.exp(centred.params.iloc[0]), lo_ref, hi_ref], rtol=5e-3)


def test_collinear_columns_are_named_with_their_partners_not_called_separation():
    rng = np.random.default_rng(2)
    n = 300
    X = pd.DataFrame({"PriceMM": rng.uniform(1.7, 2.3, n), "PriceCH": rng.uniform(1.6, 2.1, n),
                      "Loyal": rng.uniform(size=n)})
    X["PriceDiff"] = X["PriceMM"] - X["PriceCH"]  # exact, as in ISLP's OJ
    y = pd.Series(np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-(3 * X.Loyal - 1.5))), "CH", "MM"), name="Purchase")
    with pytest.warns(UserWarning, match="rank 4 < 5"):
        m = GLM(family="binomial").fit(X, y)
    assert m.estimable_.to_dict() == {"(Intercept)": True, "PriceMM": False, "PriceCH": False, "Loyal": True,
                                      "PriceDiff": False}
    for name, others in [("PriceDiff", {"PriceMM", "PriceCH"}), ("PriceMM", {"PriceCH", "PriceDiff"})]:
        why = m.not_estimable_[name]
        assert why.startswith("collinear with ")
        assert set(why.removeprefix("collinear with ").split(", ")) == others
    assert "separation" not in " ".join(m.not_estimable_)
    text = m.interpret()
    # no sentence for a weight the data do not determine, one line with the cause
    assert not any(t.startswith(("Increasing PriceDiff", "Increasing PriceMM", "Increasing PriceCH")) for t in text)
    assert text[-1].startswith("Not estimable, so not read: PriceMM (collinear with ")
    assert "PriceDiff (collinear with " in text[-1]
    only = m.interpret("PriceDiff")  # the report asks per feature: one line, the cause
    assert len(only) == 1 and only[0].startswith("Not estimable, so not read: PriceDiff (collinear with")
    # the estimable weights are the fit without the aliased column (R's glm: NA for PriceDiff)
    ref = sm.GLM((y == "MM").astype(float), sm.add_constant(X.drop(columns="PriceDiff")),
                 family=sm.families.Binomial()).fit()
    assert_allclose(m.coef_[["(Intercept)", "Loyal"]], ref.params[["const", "Loyal"]], rtol=1e-6)
    assert_allclose(m.summary().loc["Loyal", "std_error"], ref.bse["Loyal"], rtol=1e-6)


@pytest.mark.filterwarnings("ignore::Warning")
def test_breast_cancer_has_no_empty_not_estimable_sentences_and_names_labels_as_written():
    from sklearn.datasets import load_breast_cancer

    d = load_breast_cancer(as_frame=True)
    y = d.target.astype(float)  # a 0/1 float target: its class reads "1", not "1.0"
    m = GLM(family="binomial").fit(d.data[["worst area", "mean texture", "worst concave points"]], y)
    text = m.interpret()
    assert m.event_ == "target = 1"
    readings = [t for t in text if t.startswith("Increasing")]
    assert len(readings) == 3 and all("the odds of target = 1 by " in t for t in readings)
    assert not any("1.0 " in t for t in text)
    # every column: the classes are separable, no weight is determined and none gets a sentence
    full = GLM(family="binomial").fit(d.data, y)
    text = full.interpret()
    assert not full.estimable_.any()
    assert not any(": not estimable" in t or t.startswith("Increasing") for t in text)
    assert text == ["Not estimable, so not read: " + ", ".join(list(full.coef_.index[:10])) + " and 21 more "
                    "(separation: 100% of the fitted probabilities are 0 or 1 and the weight runs off to infinity)."]


def test_tiny_units_are_read_per_a_power_of_ten_and_never_as_one_to_one():
    rng = np.random.default_rng(3)
    n = 3000
    X = pd.DataFrame({"balance": rng.normal(800, 480, n).clip(0), "income": rng.normal(33000, 13000, n)})
    eta = -6 + 0.0055 * X["balance"]
    y = pd.Series(np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-eta)), "Yes", "No"), name="default")
    m = GLM(family="binomial").fit(X, y)
    text = " ".join(m.interpret())
    assert "[1, 1]" not in text
    ref = sm.GLM((y == "Yes").astype(float), sm.add_constant(X), family=sm.families.Binomial()).fit()
    ci = ref.conf_int()
    for name, step in [("balance", 100), ("income", 10000)]:
        lead = f"Increasing {name} by {step:,} units multiplies the odds of default = Yes by"
        got = numbers_after(text, lead)
        want = np.exp(step * np.array([ref.params[name], ci.loc[name, 0], ci.loc[name, 1]]))
        assert_allclose(got, want, rtol=5e-3)
        assert len({str(v) for v in got}) == 3
    # the formatting itself: the fewest digits (3 at least) that tell the numbers apart
    assert _fmt_all(1.0055, 1.0050, 1.0060) == ["1.0055", "1.005", "1.006"]
    assert _fmt_all(1.12, 1.07, 1.18) == ["1.12", "1.07", "1.18"]


def test_poisson_on_a_positive_target_that_is_not_a_count_names_the_target():
    from sklearn.datasets import load_diabetes

    d = load_diabetes(as_frame=True, scaled=False)
    X = d.data[["bmi", "bp", "s5"]]
    m = GLM(family="poisson").fit(X, d.target)
    text = m.interpret("bmi")
    assert "expected count" not in " ".join(m.interpret())
    est, lo, hi = numbers_after(text[0], "Increasing bmi by one unit multiplies the expected target by")
    ref = sm.GLM(d.target, sm.add_constant(X), family=sm.families.Poisson()).fit()
    assert_allclose([est, lo, hi], np.exp([ref.params["bmi"], *ref.conf_int().loc["bmi"]]), rtol=5e-3)


def test_a_collinear_feature_says_so_and_an_interval_through_zero_says_not_distinguishable():
    rng = np.random.default_rng(4)
    n = 200
    X = pd.DataFrame({"CRuns": rng.normal(size=n), "Walks": rng.normal(size=n)})
    X["CRBI"] = X["CRuns"] + 0.1 * rng.normal(size=n)  # R² about 0.99 from CRuns
    y = pd.Series(2 * X["CRuns"] + X["Walks"] + rng.normal(size=n), name="Salary")
    m = GLM().fit(X, y)
    from sklearn.linear_model import LinearRegression

    others = X[["CRuns", "Walks"]]
    r2 = LinearRegression().fit(others, X["CRBI"]).score(others, X["CRBI"])
    assert_allclose(m.collinearity_.loc["CRBI", "r_squared"], r2, rtol=1e-8)
    assert m.collinearity_.loc["CRBI", "with"][0] == "CRuns"
    (sentence, *_) = m.interpret("CRBI")
    assert (f"but CRBI is collinear with CRuns (R² {r2:.2f} from it, as from the other columns on the {n} fitted "
            "rows): holding the others fixed is outside the data") in sentence
    s = m.summary().loc["CRBI"]
    assert ("not distinguishable from 0" in sentence) == (s.ci_low <= 0 <= s.ci_high)
    walks = m.interpret("Walks")[0]
    assert "collinear" not in walks and "not distinguishable" not in walks  # a clear, independent effect


def test_gam_leaves_out_the_aliased_term_and_fits_instead_of_calling_the_classes_separable():
    rng = np.random.default_rng(5)
    n = 400
    X = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.uniform(0, 1, n), "c": rng.normal(size=n)})
    X["d"] = X["a"] - X["b"]  # the linear parts of the smooths of a, b and d are collinear
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(np.sin(3 * X.a) + X.c)))).astype(int)
    with pytest.warns(UserWarning, match=r"left out of the GAM: d \(collinear with "):
        g = GAM(family="binomial").fit(X, y)
    assert set(g.aliased_) == {"d"} and set(g.aliased_["d"]) == {"a", "b"}
    assert "d" not in g.terms_ and g.converged_
    with pytest.raises(ValueError, match="Column 'd' was left out of the GAM: its linear part is an exact combination"):
        g.partial_effect("d")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same GAM without d: no warning, the same fit
        ref = GAM(family="binomial").fit(X.drop(columns="d"), y)
    assert_allclose(g.predict_proba(X), ref.predict_proba(X.drop(columns="d")), rtol=1e-6, atol=1e-9)


def test_report_table_prints_tiny_p_values_as_a_floor_and_digits_that_show_the_interval():
    from imlkit.report._sec_alternatives import _glm_table

    rng = np.random.default_rng(6)
    n = 3000
    X = pd.DataFrame({"balance": rng.normal(800, 480, n)})
    y = pd.Series((rng.uniform(size=n) < 1 / (1 + np.exp(-(-6 + 0.008 * X.balance)))).astype(int), name="d")
    s = GLM(family="binomial").fit(X, y).summary()
    assert s.loc["balance", "p_value"] < 1e-16
    t = _glm_table(s)
    assert t.loc["balance", "p_value"] == "< 1e-16"
    row = t.loc["balance", ["exp_weight", "exp_ci_low", "exp_ci_high"]].tolist()
    assert len(set(row)) == 3
    want = s.loc["balance", ["exp_weight", "exp_ci_low", "exp_ci_high"]].astype(float)
    assert_allclose([float(v) for v in row], want,
                    rtol=1e-4)
