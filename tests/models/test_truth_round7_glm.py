"""Truth review rev7 r2, findings 2, 6 and 10 (GLM): the variance check behind the intervals (HC3 when the
Breusch–Pagan test rejects), the product term's sentence after the conditional slopes, the intercept's wording.

Known answers: statsmodels OLS(...).fit(cov_type="HC3") and het_breuschpagan on the same rows; statsmodels' GLM
(formula) for the product terms; statsmodels' bundled engel, statecrime, stackloss and fair tables.
"""
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from numpy.testing import assert_allclose
from sklearn.model_selection import train_test_split
from statsmodels.stats.diagnostic import het_breuschpagan

from imlkit.models import GLM
from imlkit.models._glm import HETEROSCEDASTICITY_LEVEL, _hc3_covariance

Z95 = 1.959963984540054


def engel_split():
    """The engel report's training rows (test_size 0.3, random_state 0: 164 of 235)."""
    en = sm.datasets.engel.load_pandas().data
    Xtr, _, ytr, _ = train_test_split(en[["income"]], en["foodexp"], test_size=0.3, random_state=0)
    return Xtr, ytr


def closing(m):
    return [s for s in m.interpret() if s.startswith("Intervals in brackets")][0]


def numbers(text):
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


# --------------------------------------------------------------------------- finding 2: heteroscedasticity
def _engel_fits():
    """imlkit's GLM on the engel split, statsmodels' OLS with model-based and HC3 covariances, and Koenker's
    studentised Breusch–Pagan statistic and p-value on the design as statsmodels computes them."""
    X, y = engel_split()
    m = GLM().fit(X, y)
    exog = sm.add_constant(X)
    ols = sm.OLS(y, exog).fit()
    hc3 = sm.OLS(y, exog).fit(cov_type="HC3")
    lm, p, _, _ = het_breuschpagan(ols.resid, exog)
    return X, y, m, ols, hc3, lm, p


def test_engel_intervals_are_hc3_and_equal_statsmodels_ols_hc3():
    X, y, m, ols, hc3, lm, p = _engel_fits()
    assert_allclose(m.heteroscedasticity_p_, p, rtol=1e-6)
    assert p < 1e-13 and m.heteroscedastic()
    assert m.covariance_ == "HC3"
    s = m.summary()
    assert s.attrs["covariance"] == "HC3"
    assert_allclose(s["weight"], hc3.params, rtol=1e-7)
    assert_allclose(s["std_error"], hc3.bse, rtol=1e-7)
    assert_allclose(s["model_std_error"], ols.bse, rtol=1e-7)
    assert_allclose(s[["ci_low", "ci_high"]].to_numpy(), hc3.conf_int().to_numpy(), rtol=1e-7)
    assert_allclose(s["statistic"], hc3.tvalues, rtol=1e-7)
    assert_allclose(s["p_value"], hc3.pvalues, rtol=1e-6)
    assert_allclose(m.hc3_se_ratio_.to_numpy(), (hc3.bse / ols.bse).to_numpy(), rtol=1e-7)
    # the at-the-mean prediction is a contrast with the same covariance
    c = np.array([1.0, X["income"].mean()])
    est, se, lo, hi = m.contrast(c)
    assert_allclose(se, np.sqrt(c @ hc3.cov_params().to_numpy() @ c), rtol=1e-7)


def test_engel_reading_says_why_with_the_test_and_the_ratio():
    X, y, m, ols, hc3, lm, p = _engel_fits()
    text = m.interpret()
    lo, hi = hc3.conf_int().loc["income"]
    # income's SD is 276 (Belgian francs): read per 100 units, one unit being under 1% of it (UNIT_SHARE_OF_SD)
    step = 10.0 ** np.floor(np.log10(X["income"].std()))
    assert step == 100
    assert (f"Increasing income by 100 units changes the expected foodexp by {step * hc3.params['income']:.3g} "
            f"[{step * lo:.3g}, {step * hi:.3g}]") in text[1]
    last = closing(m)
    assert "HC3 sandwich standard errors" in last and "Breusch–Pagan" in last
    assert f"rejects at the {HETEROSCEDASTICITY_LEVEL:g} level" in last
    assert f"χ² {lm:,.1f} on 1 df, p = {p:.3g})" in last
    ratio = hc3.bse["income"] / ols.bse["income"]
    assert f"the HC3 standard error is {ratio:.3g} times the model's for income" in last
    assert "too narrow by that factor" in last
    # no exact t-coverage claim for sandwich intervals
    assert "coverage" not in last and np.isnan(m.wald_coverage_)


def test_model_covariance_keeps_the_models_intervals_and_warns_with_the_numbers():
    X, y = engel_split()
    m = GLM(covariance="model").fit(X, y)
    exog = sm.add_constant(X)
    ols = sm.OLS(y, exog).fit()
    ref = sm.GLM(y, exog).fit()
    s = m.summary()
    assert m.covariance_ == "model" and s.attrs["covariance"] == "model" and "model_std_error" not in s
    assert_allclose(s["std_error"], ref.bse, rtol=1e-7)
    hc3 = sm.OLS(y, exog).fit(cov_type="HC3")
    last = closing(m)
    df = int(ols.df_resid)  # the gaussian family estimates the dispersion: t intervals (round 8)
    assert last.startswith(f"Intervals in brackets are 95% Wald intervals from Student's t on {df} residual df, as the "
                           f"dispersion is estimated; they assume one variance for every row")
    assert f"the HC3 standard error is {hc3.bse['income'] / ols.bse['income']:.3g} times the model's" in last
    assert "covariance='HC3' or 'auto' gives sandwich intervals" in last


def test_forced_hc3_with_dummies_equals_ols_hc3():
    fa = sm.datasets.fair.load_pandas().data.iloc[:800]
    X = fa[["rate_marriage", "age", "religious"]].assign(occ=fa["occupation"].map(lambda v: f"o{int(v)}"))
    y = fa["affairs"]
    m = GLM(covariance="HC3").fit(X, y)
    ref = smf.ols("affairs ~ rate_marriage + age + religious + C(occ)", X.assign(affairs=y)).fit(cov_type="HC3")
    s = m.summary()
    order = ["Intercept", "rate_marriage", "age", "religious"] + [f"C(occ)[T.o{k}]" for k in range(2, 7)]
    assert_allclose(s["weight"].to_numpy(), ref.params[order].to_numpy(), rtol=1e-6)
    assert_allclose(s["std_error"].to_numpy(), ref.bse[order].to_numpy(), rtol=1e-6)
    assert m.covariance_ == "HC3"


@pytest.mark.filterwarnings("ignore:.*does not respect the domain")
def test_hc3_of_a_gamma_glm_assembles_statsmodels_hc0_when_leverage_is_zero():
    """Without the leverage correction the sandwich is statsmodels' own HC0 (its GLM's cov_type="HC3" is HC0): an
    independent check of the score and information used, for a non-gaussian family. With the canonical link (gamma:
    inverse), where statsmodels' observed information equals the expected one imlkit uses (R's sandwich does)."""
    en = sm.datasets.engel.load_pandas().data
    exog = sm.add_constant(en[["income"]])
    fam = sm.families.Gamma()
    res = sm.GLM(en["foodexp"], exog, family=fam).fit()
    hc0 = sm.GLM(en["foodexp"], exog, family=fam).fit(cov_type="HC0")
    no_leverage = SimpleNamespace(model=res.model, params=res.params,
                                  get_hat_matrix_diag=lambda observed=True: np.zeros(len(en)))
    cov, n_full = _hc3_covariance(no_leverage)
    assert n_full == 0
    assert_allclose(cov, hc0.cov_params().to_numpy(), rtol=1e-6)


def test_gamma_variance_check_rejects_on_engel_and_says_the_gamma_assumption():
    en = sm.datasets.engel.load_pandas().data
    m = GLM(family="gamma", link="log").fit(en[["income"]], en["foodexp"])
    assert m.covariance_ == "HC3" and m.heteroscedasticity_p_ < 1e-6
    assert "one dispersion times the squared mean" in closing(m)


def test_homoscedastic_data_keep_the_model_covariance_and_say_nothing():
    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(0, 5, n)})
    y = pd.Series(1 + 2 * X["a"] - X["b"] + rng.normal(size=n), name="y")
    m = GLM().fit(X, y)
    exog = sm.add_constant(X)
    ols = sm.OLS(y, exog).fit()
    assert_allclose(m.heteroscedasticity_p_, het_breuschpagan(ols.resid, exog)[1], rtol=1e-6)
    assert m.heteroscedasticity_p_ > HETEROSCEDASTICITY_LEVEL and m.covariance_ == "model"
    assert_allclose(m.summary()["std_error"], sm.GLM(y, exog).fit().bse, rtol=1e-7)
    assert closing(m) == ("Intervals in brackets are 95% Wald intervals from Student's t on 297 residual df, as the "
                          "dispersion is estimated.")
    assert np.isnan(m.hc3_se_ratio_).all()


def test_fixed_dispersion_families_are_not_tested_here():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200)})
    y = rng.poisson(np.exp(0.5 + 0.8 * X["a"]))
    m = GLM(family="poisson").fit(X, y)
    assert np.isnan(m.heteroscedasticity_p_) and m.covariance_ == "model"


def test_hc3_intervals_hold_their_level_where_the_models_do_not():
    """The property behind the switch: y = x + |x|·ε (variance growing with x²), 150 rows; the model's "95%" interval
    for the slope covers the true slope far less often than 95%, the default's (HC3 after the test) near it."""
    rng = np.random.default_rng(7)
    cover_auto = cover_model = 0
    reps = 200
    for _ in range(reps):
        x = rng.exponential(1.0, 150)
        X = pd.DataFrame({"x": x})
        y = x + 1.5 * x * rng.normal(size=150)
        for cov, acc in (("auto", "a"), ("model", "m")):
            s = GLM(covariance=cov).fit(X, y).summary()
            hit = s.loc["x", "ci_low"] <= 1.0 <= s.loc["x", "ci_high"]
            if acc == "a":
                cover_auto += hit
            else:
                cover_model += hit
    assert cover_model / reps < 0.85
    assert cover_auto / reps > 0.9


def test_covariance_is_validated():
    X, y = engel_split()
    with pytest.raises(ValueError, match="'covariance' must be one of"):
        GLM(covariance="HC1").fit(X, y)


# --------------------------------------------------------------------------- finding 6: the product term
def statecrime():
    return sm.datasets.statecrime.load_pandas().data


def test_statecrime_product_term_sentence_carries_its_interval_and_says_the_slopes_may_be_equal():
    sc = statecrime()
    m = GLM(interactions=[("murder", "poverty")]).fit(sc[["murder", "poverty", "urban"]], sc["violent"])
    assert m.covariance_ == "model"  # Breusch–Pagan does not reject here: the model's intervals, statsmodels'
    ref = smf.glm("violent ~ murder*poverty + urban", sc).fit(use_t=True)  # estimated dispersion: t (R's summary.glm)
    w, (lo, hi), p = ref.params["murder:poverty"], ref.conf_int().loc["murder:poverty"], ref.pvalues["murder:poverty"]
    assert lo < 0 < hi
    said = [s for s in m.interpret() if s.startswith("The product term murder:poverty")]
    assert len(said) == 1
    assert said[0].startswith(f"The product term murder:poverty, {w:.3g} [{lo:.3g}, {hi:.3g}], is how much "
                              f"murder's slope changes per unit of poverty (and poverty's per unit of murder); "
                              f"not distinguishable from 0 (p = {p:.3g})")
    assert "the slopes above to be the same" in said[0]
    # it follows the conditional slopes it speaks of, and interpret("murder") has it too
    text = m.interpret()
    assert text.index(said[0]) > max(i for i, s in enumerate(text) if s.startswith("When poverty ="))
    assert said[0] in m.interpret("murder") and said[0] in m.interpret("poverty")
    assert not any("product term" in s for s in m.interpret("urban"))


def fair_binary():
    fa = sm.datasets.fair.load_pandas().data
    return fa.assign(any_affair=(fa["affairs"] > 0).astype(int))


def test_fair_coinciding_quartiles_print_once_and_the_product_term_excludes_one():
    fa = fair_binary()
    X = fa[["rate_marriage", "yrs_married", "religious"]]
    m = GLM(family="binomial", interactions=[("rate_marriage", "yrs_married")]).fit(X, fa["any_affair"])
    text = m.interpret()
    assert len(text) == len(set(text))
    q = np.quantile(X["rate_marriage"], [0.25, 0.5, 0.75])
    assert q[0] == q[1] != q[2]
    at = [s for s in text if s.startswith("When rate_marriage =")]
    assert len(at) == 2
    assert at[0].startswith(f"When rate_marriage = {q[0]:g} (its 25% quantile and median), increasing yrs_married")
    ref = smf.glm("any_affair ~ rate_marriage*yrs_married + religious", fa, family=sm.families.Binomial()).fit()
    t = "rate_marriage:yrs_married"
    lo, hi = np.exp(ref.conf_int().loc[t])
    said = [s for s in text if s.startswith(f"The product term {t}")][0]
    e, a, b = numbers(said.split(", is ")[0].split(t)[1])
    assert_allclose([e, a, b], [np.exp(ref.params[t]), lo, hi], rtol=2e-3)
    assert a > 1  # printed with the digits that tell it from 1 (1.0006 is not "1")
    assert f"its interval excludes 1 (p = {ref.pvalues[t]:.3g}): rate_marriage's factor changes with yrs_married" \
        in said


def test_categorical_moderator_product_terms_per_level():
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "x": rng.normal(size=n)})
    y = X["x"] * (1 + (X["g"] == "b")) + rng.normal(size=n)
    m = GLM(interactions=[("g", "x")], covariance="model").fit(X, y)
    ref = smf.glm("y ~ g*x", X.assign(y=y)).fit(use_t=True)
    text = m.interpret()
    for lv, expect_zero in (("b", False), ("c", True)):
        t = f"g[T.{lv}]:x"
        lo, hi = ref.conf_int().loc[t]
        assert (lo <= 0 <= hi) == expect_zero
        said = [s for s in text if s.startswith(f"The product term g[{lv}]:x")][0]
        assert f"{ref.params[t]:.3g} [{lo:.3g}, {hi:.3g}]" in said
        assert f"how much x's slope at g = {lv} differs from it at g = a" in said
        assert ("not distinguishable from 0" in said) == expect_zero


# --------------------------------------------------------------------------- finding 10: wording
def test_stackloss_intercept_is_every_numeric_feature_at_zero():
    d = sm.datasets.stackloss.load_pandas().data
    m = GLM().fit(d.drop(columns="STACKLOSS"), d["STACKLOSS"])
    first = m.interpret()[0]
    assert "at AIRFLOW = 0" not in first
    assert first.startswith("The intercept is the expected STACKLOSS with every numeric feature at 0, outside the "
                            "data (AIRFLOW from 50 to 80, WATERTEMP from 17 to 27 and ACIDCONC from 72 to 93), so it "
                            "is not read")


def test_fair_odds_are_plural():
    fa = fair_binary()
    m = GLM(family="binomial").fit(fa[["rate_marriage", "age", "religious"]], fa["any_affair"])
    first = m.interpret()[0]
    assert "the odds of any_affair = 1 are " in first and "the odds of any_affair = 1 is " not in first


def test_a_row_of_leverage_one_leaves_the_model_covariance_and_says_why():
    rng = np.random.default_rng(1)
    n = 300
    x = rng.exponential(1, n)
    X = pd.DataFrame({"x": x, "g": ["a"] * (n - 1) + ["z"]})  # level z: one row, its weight fitted to it alone
    y = x + 1.5 * x * rng.normal(size=n)
    for cov in ("auto", "HC3"):
        m = GLM(covariance=cov).fit(X, y)
        assert m.covariance_ == "model" and m.heteroscedastic()
        assert_allclose(m.summary()["std_error"], sm.GLM(y, sm.add_constant(X.assign(g=X.g == "z").astype(float)))
                        .fit().bse, rtol=1e-7)
        assert "HC3 sandwich intervals are not defined here (1 row has leverage 1" in closing(m)
