"""Binomial GLM on counts: a two-column y (successes, failures) or proportions with trials.

Known answers: statsmodels' own GLM worked example (star98, 303 districts, 20 columns; its numbers
are R's ``glm(cbind(NABOVE, NBELOW) ~ ., binomial)``, published with statsmodels' tests and in
Gill (2000), Generalized linear models: a unified approach), statsmodels on the same data, and
the same data expanded to one 0/1 row per trial.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose

from imlkit._validation import ValidationError
from imlkit.models import GLM

# Same IRLS on the same design (statsmodels underneath): equal to the rounding of IRLS's convergence.
SAME_FIT = dict(rtol=1e-6, atol=1e-12)

# R's glm on star98 (statsmodels' Star98 reference results): weights in the order of the 20
# columns, then the intercept; 10 significant digits for the weights, 7 for the standard errors.
R_PARAMS = [-0.0168150366, 0.0099254766, -0.0187242148, -0.0142385609, 0.2544871730, 0.2406936644,
            0.0804086739, -1.9521605027, -0.3340864748, -0.1690221685, 0.0049167021, -0.0035799644,
            -0.0140765648, -0.0040049918, -0.0039063958, 0.0917143006, 0.0489898381, 0.0080407389,
            0.0002220095, -0.0022492486, 2.9588779262]
R_BSE = [4.339467e-04, 6.013714e-04, 7.435499e-04, 4.338655e-04, 2.994576e-02, 5.713824e-02,
         1.392359e-02, 3.168109e-01, 6.126411e-02, 3.270139e-02, 1.253877e-03, 2.254633e-04,
         1.904573e-03, 4.739838e-04, 9.623650e-04, 1.450923e-02, 7.451666e-03, 1.499497e-03,
         2.988794e-05, 3.489838e-04, 1.546712e+00]
R_DEVIANCE = 4078.76541772
R_LLF = -2998.61255899391
R_PEARSON = 4051.921614  # statsmodels' reference value (7 significant digits)


@pytest.fixture(scope="module")
def star98():
    d = sm.datasets.star98.load_pandas()
    return d.exog, d.endog


@pytest.fixture(scope="module")
def star98_fits(star98):
    X, Y = star98
    ours = GLM(family="binomial").fit(X, Y)
    theirs = sm.GLM(Y, sm.add_constant(X), family=sm.families.Binomial()).fit()
    return ours, theirs


def test_star98_equals_statsmodels_two_column_glm(star98_fits):
    ours, theirs = star98_fits
    s = ours.summary()
    assert list(s.index) == ["(Intercept)"] + list(theirs.params.index[1:])
    order = ["const"] + list(theirs.params.index[1:])
    assert_allclose(s["weight"], theirs.params[order], **SAME_FIT)
    assert_allclose(s["std_error"], theirs.bse[order], **SAME_FIT)
    ci = theirs.conf_int().loc[order]
    assert_allclose(s["ci_low"], ci[0], **SAME_FIT)
    assert_allclose(s["ci_high"], ci[1], **SAME_FIT)
    assert_allclose(s["exp_weight"], np.exp(theirs.params[order]), **SAME_FIT)  # the odds-ratio table
    assert_allclose(s["exp_ci_low"], np.exp(ci[0]), **SAME_FIT)
    assert_allclose(s["p_value"], theirs.pvalues[order], rtol=1e-6, atol=1e-300)
    r = ours.result_
    assert_allclose([r.deviance, r.pearson_chi2, r.llf, r.scale],
                    [theirs.deviance, theirs.pearson_chi2, theirs.llf, 1.0], rtol=1e-6)
    assert r.df_resid == 282


def test_star98_equals_r(star98_fits):
    """The literature's numbers (R's glm), not just the library underneath."""
    ours, _ = star98_fits
    s = ours.summary()
    params = np.r_[s["weight"].iloc[1:], s["weight"].iloc[0]]
    bse = np.r_[s["std_error"].iloc[1:], s["std_error"].iloc[0]]
    assert_allclose(params, R_PARAMS, rtol=1e-6)
    assert_allclose(bse, R_BSE, rtol=1e-6)
    assert_allclose(ours.result_.deviance, R_DEVIANCE, rtol=1e-9)
    assert_allclose(ours.result_.llf, R_LLF, rtol=1e-9)
    assert_allclose(ours.result_.pearson_chi2, R_PEARSON, rtol=1e-6)
    # a 0/1 reading of the counts (one row per district) would not be this model at all
    assert ours.result_.nobs == 303


def test_star98_proportions_with_trials_equal_the_two_columns(star98, star98_fits):
    X, Y = star98
    ours, _ = star98_fits
    trials = Y.sum(axis=1)
    share = pd.Series(Y["NABOVE"] / trials, name="above")
    m = GLM(family="binomial").fit(X, share, trials=trials)
    assert_allclose(m.summary()["weight"], ours.summary()["weight"], **SAME_FIT)
    assert_allclose(m.summary()["std_error"], ours.summary()["std_error"], **SAME_FIT)
    assert_allclose([m.result_.deviance, m.result_.llf], [ours.result_.deviance, ours.result_.llf], rtol=1e-9)
    assert m.event_ == "a success per trial (above: the share of successes out of 'trials')"


def test_star98_sentences_read_the_probability_of_a_success_per_trial(star98_fits):
    ours, _ = star98_fits
    assert ours.event_ == "a success per trial (NABOVE out of NABOVE + NBELOW)"
    s = ours.summary().loc["LOWINC"]
    sentence = ours.interpret("LOWINC")[0]
    e, lo, hi = np.exp([s.weight, s.ci_low, s.ci_high])
    assert sentence.startswith("Increasing LOWINC by one unit multiplies the odds of a success per trial "
                               "(NABOVE out of NABOVE + NBELOW) by ")
    assert f"{e:.3g} [{lo:.3g}, {hi:.3g}]" in sentence  # 0.983 [0.982, 0.984]
    assert "NABOVE = " not in " ".join(ours.interpret())  # never a class label of the counts


def test_counts_predict_per_trial(star98, star98_fits):
    X, Y = star98
    ours, theirs = star98_fits
    assert list(ours.classes_) == [0, 1]
    proba = ours.predict_proba(X)
    assert_allclose(proba[:, 1], theirs.fittedvalues, **SAME_FIT)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_array = np.testing.assert_array_equal
    assert_array(ours.predict(X), (theirs.fittedvalues.to_numpy() > 0.5).astype(int))
    # the score is the accuracy over trials: the share of students whose side of the median is predicted
    hit = theirs.fittedvalues.to_numpy() > 0.5
    expect = np.where(hit, Y["NABOVE"], Y["NBELOW"]).sum() / Y.to_numpy().sum()
    assert_allclose(ours.score(X, Y), expect, rtol=1e-12)


# --------------------------------------------------------------------------- grouped == expanded
def _tiny():
    """Four groups of a dose and a site with successes/failures, and the same data as 0/1 rows."""
    X = pd.DataFrame({"dose": [0.0, 1.0, 2.0, 3.0, 1.0, 2.0], "site": ["a", "a", "a", "b", "b", "b"]})
    Y = pd.DataFrame({"dead": [1, 3, 6, 8, 2, 5], "alive": [9, 7, 4, 2, 6, 3]})
    rows, ys = [], []
    for i in range(len(X)):
        for outcome, k in ((1, Y["dead"][i]), (0, Y["alive"][i])):
            rows += [X.iloc[i]] * int(k)
            ys += [outcome] * int(k)
    Xe = pd.DataFrame(rows).reset_index(drop=True).astype({"dose": float})
    return X, Y, Xe, pd.Series(ys, name="dead")


@pytest.mark.parametrize("link", ["logit", "probit", "cloglog"])
def test_grouped_counts_equal_the_expanded_0_1_rows(link):
    X, Y, Xe, ye = _tiny()
    grouped = GLM(family="binomial", link=link).fit(X, Y)
    expanded = GLM(family="binomial", link=link).fit(Xe, ye)
    g, e = grouped.summary(), expanded.summary()
    assert list(g.index) == ["(Intercept)", "dose", "site[b]"]
    # two IRLS runs, each stopped at statsmodels' tolerance (1e-8 on the deviance): equal to ~1e-6
    assert_allclose(g["weight"], e["weight"], rtol=1e-5)
    assert_allclose(g["std_error"], e["std_error"], rtol=1e-5)
    assert_allclose(g[["ci_low", "ci_high"]], e[["ci_low", "ci_high"]], rtol=1e-5)
    # same log-likelihood up to the binomial coefficients, which do not depend on the weights
    from scipy.special import gammaln
    n, s = Y.sum(axis=1).to_numpy(), Y["dead"].to_numpy()
    log_choose = np.sum(gammaln(n + 1) - gammaln(s + 1) - gammaln(n - s + 1))
    assert_allclose(grouped.result_.llf, expanded.result_.llf + log_choose, rtol=1e-9)
    # the deviance of counts is against the saturated model of the groups (R, statsmodels), not of the trials
    mu = np.asarray(grouped.result_.fittedvalues)
    f = Y["alive"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        dev = 2 * np.sum(np.where(s > 0, s * np.log(s / (n * mu)), 0)
                         + np.where(f > 0, f * np.log(f / (n * (1 - mu))), 0))
    assert_allclose(grouped.result_.deviance, dev, rtol=1e-9)
    assert grouped.result_.deviance < expanded.result_.deviance
    # per-trial probabilities agree row by row
    assert_allclose(grouped.predict_proba(X), expanded.predict_proba(X), rtol=1e-6)


def test_grouped_counts_equal_expanded_rows_for_the_ridge_fit():
    """The penalised fit counts rows in trials: grouped and expanded data give the same weights."""
    X, Y, Xe, ye = _tiny()
    grouped = GLM(family="binomial", alpha=0.05).fit(X, Y)
    expanded = GLM(family="binomial", alpha=0.05).fit(Xe, ye)
    assert_allclose(grouped.coef_, expanded.coef_, rtol=1e-6, atol=1e-9)
    # and the penalty matters here (it is not the maximum-likelihood fit)
    ml = GLM(family="binomial").fit(X, Y)
    assert np.max(np.abs(grouped.coef_ - ml.coef_)) > 0.1


def test_log_link_counts_read_the_probability():
    X, Y, _, _ = _tiny()
    Y = Y.assign(dead=[1, 2, 3, 4, 2, 3])
    m = GLM(family="binomial", link="log").fit(X, Y)
    sentence = m.interpret("dose")[0]
    assert "multiplies the probability of a success per trial (dead out of dead + alive) by" in sentence
    assert "expected" not in sentence


def test_array_counts_name_the_columns_by_position():
    X, Y, _, _ = _tiny()
    m = GLM(family="binomial").fit(X, Y.to_numpy())
    assert m.event_ == "a success per trial (y[:, 0] out of y[:, 0] + y[:, 1])"
    assert_allclose(m.coef_, GLM(family="binomial").fit(X, Y).coef_, rtol=1e-12)


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize("family", ["gaussian", "poisson", "gamma", "exponential"])
def test_two_columns_with_another_family_are_refused(family):
    X, Y, _, _ = _tiny()
    with pytest.raises(ValidationError, match=f"only the binomial family takes a two-column 'y'.*the {family} "
                                              f"family needs a 1-D 'y'"):
        GLM(family=family).fit(X, Y + 1)
    with pytest.raises(ValidationError, match="'trials' is for the binomial family only"):
        GLM(family=family).fit(X, Y["dead"] + 1, trials=np.full(6, 10))


@pytest.mark.parametrize("change, message", [
    (lambda Y: Y.assign(dead=Y["dead"].astype(float).where(Y.index != 2, -1.0)),
     r"non-negative counts; 1 row\(s\) have a negative count \(rows 2; min -1\)"),
    (lambda Y: Y.assign(dead=Y["dead"].astype(float).where(Y.index != 1, 2.5)),
     r"whole-number counts; 1 row\(s\) do not \(rows 1; row 1 has 2.5, 7\)"),
    (lambda Y: Y.assign(dead=Y["dead"].astype(float).where(Y.index != 0, np.nan)),
     r"1 row\(s\) with a missing or infinite count \(rows 0\)"),
    (lambda Y: Y.assign(dead=Y["dead"].where(Y.index != 3, 0), alive=Y["alive"].where(Y.index != 3, 0)),
     r"1 row\(s\) with no trials \(successes \+ failures = 0; rows 3\)"),
    (lambda Y: Y.assign(dead=0), r"'y' has no successes in any row"),
    (lambda Y: Y.assign(alive=0), r"'y' has no failures in any row"),
    (lambda Y: Y.assign(dead=list("abcdef")), r"'y' must be numeric counts"),
    (lambda Y: Y.iloc[:5], r"X and 'y' have different lengths: X has 6 rows, y has 5"),
    (lambda Y: Y.assign(more=1), r"two columns \(successes, failures\).*got shape \(6, 3\)"),
])
def test_bad_counts_are_named(change, message):
    X, Y, _, _ = _tiny()
    with pytest.raises(ValidationError, match=message):
        GLM(family="binomial").fit(X, change(Y))


@pytest.mark.parametrize("y, trials, message", [
    ([0.1, 0.3, 0.6, 0.8, 0.25, 0.625], [10, 10, 10, 10, 8, 0], r"'trials' must be positive whole numbers"),
    ([0.1, 0.3, 0.6, 0.8, 0.25, 0.625], [10, 10, 10, 10, 8, 8.5], r"'trials' must be positive whole numbers"),
    ([0.1, 0.3, 0.6, 1.8, 0.25, 0.625], [10, 10, 10, 10, 8, 8], r"proportions of successes in \[0, 1\]"),
    ([0.1, 0.3, 0.6, 0.8, 0.3, 0.625], [10, 10, 10, 10, 8, 8],
     r"'y' × 'trials' must be whole numbers of successes; 1 row\(s\) are not \(rows 4; row 4: 0.3 × 8 = 2.4\)"),
    ([0.1, 0.3, 0.6, 0.8, 0.25, 0.625], [10, 10, 10], r"'trials' must be 1-D with one number per row"),
])
def test_bad_proportions_or_trials_are_named(y, trials, message):
    X, _, _, _ = _tiny()
    with pytest.raises(ValidationError, match=message):
        GLM(family="binomial").fit(X, np.array(y), trials=np.array(trials, dtype=float))


def test_two_columns_and_trials_together_are_refused():
    X, Y, _, _ = _tiny()
    with pytest.raises(ValidationError, match="either a two-column 'y'.*or proportions in 'y' with 'trials', not both"):
        GLM(family="binomial").fit(X, Y, trials=Y.sum(axis=1))


# --------------------------------------------------------------------------- 1-D y unchanged
def test_labels_still_fit_predict_and_read_as_before():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"x": rng.normal(size=200), "g": rng.choice(["u", "v"], size=200)})
    y = pd.Series(np.where(X["x"] + rng.logistic(size=200) > 0, "yes", "no"), name="buy")
    m = GLM(family="binomial").fit(X, y)
    r = sm.GLM((y == "yes").astype(float), sm.add_constant(pd.get_dummies(X, drop_first=True, dtype=float)),
               family=sm.families.Binomial()).fit()
    assert_allclose(m.coef_, r.params, **SAME_FIT)
    assert list(m.classes_) == ["no", "yes"]
    assert m.event_ == "buy = yes"
    assert set(m.predict(X)) <= {"no", "yes"}
    assert_allclose(m.predict_proba(X)[:, 1], r.fittedvalues, **SAME_FIT)
    assert m.score(X, y) == np.mean(m.predict(X) == y)
    assert "the odds of buy = yes" in m.interpret("x")[0]
    # a one-column y is still a (warned) 1-D y, not counts
    with pytest.warns(Warning, match="column-vector y"):
        m1 = GLM(family="binomial").fit(X, y.to_frame())
    assert_allclose(m1.coef_, m.coef_)


def test_not_estimable_cause_names_near_collinearity_before_separation():
    # Caravan-like: two shares that nearly sum to a constant (R² ~ 0.9995 from each other) in a logistic fit with
    # quasi-separation from a rare indicator. Their huge standard errors come from the near dependency, not only from
    # the separated rows: the cause must say so (it read "separation: 2% of the fitted probabilities ..." before).
    rng = np.random.default_rng(0)
    n = 600
    a = rng.integers(0, 10, n).astype(float)
    b = 9.0 - a + rng.normal(0, 0.01, n)           # a + b = 9 up to small noise
    rare = (rng.random(n) < 0.03).astype(float)
    eta = -1.0 + 0.3 * a
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    y[rare == 1] = 1                               # every row with the rare indicator is a success: separation
    X = pd.DataFrame({"a": a, "b": b, "rare": rare})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = GLM(family="binomial").fit(X, y)
    r2 = g.collinearity_["r_squared"]
    assert r2["a"] > 0.99 and r2["b"] > 0.99      # the premise
    why = g.not_estimable_
    assert not g.estimable_["rare"] and why["rare"].startswith("separation")
    assert not g.estimable_["a"] and not g.estimable_["b"]   # standard errors > 10 per SD on the logit scale
    for col in ("a", "b"):
        assert why[col].startswith("nearly collinear with") and "variance inflation" in why[col]
        assert "the fit also has separation" in why[col]
