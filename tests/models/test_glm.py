"""GLM: statsmodels on an independently built design, the course's coffee and bike examples."""
import pickle
import re

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from sklearn.base import clone, is_classifier, is_regressor

from imlkit.datasets import load_bike, make_coffee
from imlkit.datasets._simulated import COFFEE_COEFFICIENTS
from imlkit.models import GLM
from imlkit.models._design import fit_design

# Same IRLS on the same design: differences are at the level of IRLS's convergence tolerance.
SAME_FIT = dict(rtol=1e-6, atol=1e-9)


def coffee(n=300, seed=0):
    return make_coffee(n, random_state=seed)


def design_by_hand(X):
    """The course's design built without imlkit: dummies by pandas, a constant by statsmodels."""
    D = pd.get_dummies(X, columns=["work"], drop_first=True, dtype=float)
    return sm.add_constant(D[["stress", "sleep", "work_yes"]], has_constant="add").to_numpy()


def continuous_target(X, seed=0):
    """A positive continuous response for gamma/exponential/gaussian checks."""
    rng = np.random.default_rng(seed)
    mu = np.exp(0.5 + 0.05 * X["stress"] - 0.05 * X["sleep"] + 0.3 * (X["work"] == "yes"))
    return pd.Series(rng.gamma(2.0, mu / 2.0), name="minutes")


LINKS = sm.families.links


@pytest.mark.filterwarnings("ignore:.*does not respect the domain")
@pytest.mark.parametrize("family, link, sm_family, sign, scale", [
    ("gaussian", None, sm.families.Gaussian(), 1, None),
    ("poisson", None, sm.families.Poisson(), 1, None),
    ("binomial", None, sm.families.Binomial(), 1, None),
    ("gamma", "log", sm.families.Gamma(LINKS.Log()), 1, None),
    # The course's negative inverse link -1/mu is statsmodels' inverse link 1/mu with negated weights.
    ("gamma", None, sm.families.Gamma(LINKS.InversePower()), -1, None),
    ("exponential", "log", sm.families.Gamma(LINKS.Log()), 1, 1.0),
    ("poisson", "sqrt", sm.families.Poisson(LINKS.Sqrt()), 1, None),
])
def test_numbers_equal_statsmodels_on_the_same_design(family, link, sm_family, sign, scale):
    X, counts = coffee()
    y = {"poisson": counts, "binomial": (counts > 2).astype(int)}.get(family, continuous_target(X))
    if family == "gaussian":
        y = counts.astype(float)
    # the model-based covariance, statsmodels' default (counts under a gaussian GLM are heteroscedastic: the
    # default covariance="auto" gives HC3 there, checked against OLS in test_truth_round7_glm.py)
    ours = GLM(family=family, link=link, covariance="model").fit(X, y).summary()
    # an estimated dispersion (gaussian, gamma): Student's t on the residual df, statsmodels' use_t=True (R's
    # summary.glm); a fixed one (poisson, binomial, exponential): the normal, statsmodels' default
    ref = sm.GLM(np.asarray(y, dtype=float), design_by_hand(X), family=sm_family).fit(
        scale=scale, use_t=family in ("gaussian", "gamma"))
    assert list(ours.index) == ["(Intercept)", "stress", "sleep", "work[yes]"]
    assert_allclose(ours["weight"], sign * ref.params, **SAME_FIT)
    assert_allclose(ours["std_error"], ref.bse, **SAME_FIT)
    assert_allclose(ours["statistic"], sign * ref.tvalues, **SAME_FIT)
    assert_allclose(ours["p_value"], ref.pvalues, rtol=1e-5, atol=1e-12)
    ci = np.sort(sign * ref.conf_int(alpha=0.05), axis=1)
    assert_allclose(ours[["ci_low", "ci_high"]].to_numpy(), ci, **SAME_FIT)


def test_exp_columns_only_for_log_and_logit_links():
    X, y = coffee()
    s = GLM(family="poisson").fit(X, y).summary()
    assert_allclose(s["exp_weight"], np.exp(s["weight"]), rtol=1e-12)
    assert_allclose(s["exp_ci_low"], np.exp(s["ci_low"]), rtol=1e-12)
    assert_allclose(s["exp_ci_high"], np.exp(s["ci_high"]), rtol=1e-12)
    assert "exp_weight" not in GLM().fit(X, y).summary().columns
    assert "exp_weight" in GLM(family="binomial").fit(X, y > 2).summary().columns


def test_coffee_recovers_its_coefficients_within_their_intervals():
    X, y = make_coffee(2000, random_state=0)
    s = GLM(family="poisson").fit(X, y).summary()
    for name, true in COFFEE_COEFFICIENTS.items():
        assert s.loc[name, "ci_low"] <= true <= s.loc[name, "ci_high"], name
    # Over repeated 200-day samples the 95% intervals cover the truth about 95% of the time;
    # 30 x 4 intervals: a rate below 0.85 would be > 3 binomial SEs under nominal coverage.
    hits = []
    for seed in range(30):
        X, y = make_coffee(200, random_state=seed + 100)
        s = GLM(family="poisson").fit(X, y).summary()
        hits += [s.loc[k, "ci_low"] <= v <= s.loc[k, "ci_high"] for k, v in COFFEE_COEFFICIENTS.items()]
    assert np.mean(hits) >= 0.85


def test_interpret_reads_the_course_table():
    X, y = coffee(300, seed=3)
    m = GLM(family="poisson").fit(X, y)
    s = m.summary()
    text = m.interpret("stress")
    f = s.loc["stress"]
    expected = (f"Increasing stress by one unit multiplies the expected {y.name} by {f.exp_weight:.3g} "
                f"[{f.exp_ci_low:.3g}, {f.exp_ci_high:.3g}]")
    assert text[0].startswith(expected)
    w = s.loc["work[yes]"]
    assert any(t.startswith(f"work = yes (instead of no) multiplies the expected {y.name} by {w.exp_weight:.3g}")
               for t in m.interpret())
    assert all("sleep" not in t for t in text)


def bike_frame():
    X, y = load_bike()
    X = X.assign(workingday=pd.Categorical(np.where(X["workingday"] == 1, "yes", "no"), categories=["no", "yes"]))
    return X[["workingday", "temp", "hum", "windspeed", "weathersit"]], y


def test_bike_interaction_reads_the_effect_of_temp_at_each_level_of_workingday():
    X, y = bike_frame()
    m = GLM(interactions=[("workingday", "temp")]).fit(X, y)
    s = m.summary()
    assert "workingday[yes]:temp" in s.index
    assert "weathersit[cloudy/misty]" in s.index  # ordered categorical: first level is the reference
    text = m.interpret("temp")
    yes = [t for t in text if t.startswith("When workingday = yes")]
    no = [t for t in text if t.startswith("When workingday = no")]
    assert len(yes) == 1 and len(no) == 1
    # The effect at workingday = yes is w_temp + w_{workingday[yes]:temp}, with statsmodels'
    # own interval for that contrast.
    c = np.zeros(len(s))
    c[[s.index.get_loc("temp"), s.index.get_loc("workingday[yes]:temp")]] = 1
    tt = m.result_.t_test(c, use_t=True)  # the gaussian family estimates the dispersion: t on the residual df
    est, se, lo, hi = m.contrast(c)
    assert_allclose(est, float(np.squeeze(tt.effect)), rtol=1e-10)
    assert_allclose([lo, hi], np.squeeze(tt.conf_int(alpha=0.05)), rtol=1e-8)
    numbers = [float(v) for v in re.findall(r"-?\d+\.?\d*", yes[0].split("by", 1)[1])]
    assert_allclose(numbers, [est, lo, hi], rtol=5e-3)  # printed with 4 significant digits
    assert_allclose(m.contrast({"temp": 1.0})[0], s.loc["temp", "weight"], rtol=1e-12)


def test_interaction_design_numeric_by_numeric_and_categorical_by_categorical():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0.5, 1.0, 2.0, 3.0],
                      "c": pd.Categorical(["u", "v", "w", "u"]), "d": ["p", "q", "p", "q"]})
    spec = fit_design(X, interactions=[("a", "b"), ("c", "d")])
    assert spec.names[-3:] == ["a:b", "c[v]:d[q]", "c[w]:d[q]"]
    D = spec.transform(X)
    assert_allclose(D[:, spec.names.index("a:b")], X["a"] * X["b"])
    assert_allclose(D[:, spec.names.index("c[v]:d[q]")], [0, 1, 0, 0])


def test_numeric_interaction_is_read_at_the_quartiles_of_the_moderator():
    X, y = coffee()
    m = GLM(family="poisson", interactions=[("stress", "sleep")]).fit(X, y)
    text = [t for t in m.interpret("stress") if t.startswith("When sleep")]
    q = np.quantile(X["sleep"], [0.25, 0.5, 0.75])
    assert len(text) == 3 and "(its median)" in text[1]
    s = m.summary()
    est = s.loc["stress", "weight"] + q[1] * s.loc["stress:sleep", "weight"]
    assert f"by {np.exp(est):.3g} [" in text[1]


def test_without_intercept():
    X, y = coffee()
    m = GLM(family="poisson", fit_intercept=False).fit(X, y)
    assert "(Intercept)" not in m.summary().index
    import statsmodels.api as sm

    ref = sm.GLM(y, design_by_hand(X)[:, 1:], family=sm.families.Poisson()).fit()
    assert_allclose(m.coef_.to_numpy(), ref.params, **SAME_FIT)


def test_predict_proba_classes_and_sklearn_contract():
    X, counts = coffee()
    y = np.where(counts > 2, "many", "few")
    m = GLM(family="binomial").fit(X, y)
    assert list(m.classes_) == ["few", "many"]
    P = m.predict_proba(X)
    assert_allclose(P.sum(axis=1), 1.0)
    assert set(m.predict(X)) <= {"few", "many"}
    assert_allclose(P[:, 1], m.result_.predict(m.design_.transform(X)), rtol=1e-12)
    assert is_classifier(m) and not hasattr(GLM(family="poisson"), "predict_proba")
    assert is_regressor(GLM(family="poisson"))
    assert clone(m).get_params() == m.get_params()
    back = pickle.loads(pickle.dumps(GLM(family="gamma").fit(X, continuous_target(X))))
    assert_allclose(back.predict(X), back.result_.predict(back.design_.transform(X)), rtol=1e-12)


def test_array_input_equals_frame_input():
    X, y = coffee()
    num = X[["stress", "sleep"]].astype(float)
    a = GLM(family="poisson").fit(num.to_numpy(), y)
    f = GLM(family="poisson").fit(num, y)
    assert_allclose(a.coef_.to_numpy(), f.coef_.to_numpy(), rtol=1e-12)
    assert list(a.coef_.index) == ["(Intercept)", "x0", "x1"]


def test_works_with_imlkit_importance():
    import imlkit as ik

    X, y = coffee()
    m = GLM(family="poisson").fit(X, y)
    r = ik.pfi(m, X, y, n_repeats=3, random_state=0)
    assert r.to_frame().loc["stress", "importance"] > 0


@pytest.mark.parametrize("kwargs, y_kind, exc, match", [
    (dict(family="tweedie"), "count", ValueError, "'family' must be one of"),
    (dict(family="poisson", link="logit"), "count", ValueError, "'link' 'logit' is not allowed for the poisson"),
    (dict(family="gaussian", link="banana"), "count", ValueError, "'link' must be one of"),
    (dict(family="poisson"), "negative", ValueError, "non-negative counts"),
    (dict(family="binomial"), "single", ValueError, "single class"),
    (dict(family="binomial"), "three", ValueError, "needs exactly 2"),
    (dict(family="gamma"), "count", ValueError, "must be > 0 for the gamma"),
    (dict(interactions=[("work", "coffee")]), "count", ValueError, "Unknown feature 'coffee'"),
    (dict(interactions=[("work", "work")]), "count", ValueError, "two different features"),
    (dict(confidence_level=1.5), "count", ValueError, "'confidence_level'"),
])
def test_error_table(kwargs, y_kind, exc, match):
    X, y = coffee()
    y = {"count": y, "negative": y - 3, "single": np.zeros(len(y)), "three": y % 3}[y_kind]
    with pytest.raises(exc, match=match):
        GLM(**kwargs).fit(X, y)


def test_unseen_level_at_predict_is_named():
    X, y = coffee()
    m = GLM(family="poisson").fit(X, y)
    bad = X.assign(work=pd.Categorical(["holiday"] * len(X)))
    with pytest.raises(ValueError, match="level\\(s\\) \\['holiday'\\] not seen in fit"):
        m.predict(bad)


# --------------------------------------------------------------------------- small data, separation
@pytest.mark.filterwarnings("ignore::Warning")
def test_separation_sentences_say_not_estimable_instead_of_zero_to_inf():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    y = pd.Series((X.a > 0).astype(int), name="event")  # a separates the classes perfectly
    m = GLM(family="binomial").fit(X, y)
    assert not m.estimable_["a"]
    tab = m.summary()
    assert not tab.loc["a", "estimable"]
    text = " ".join(m.interpret())
    assert "Increasing a by" not in text  # no sentence for a weight the data do not determine
    assert re.search(r"Not estimable, so not read: [^.]*\ba\b[^.]*\(separation: \d+% of the fitted probabilities "
                     r"are 0 or 1", text)
    assert "[0, inf]" not in text and "inf]" not in text
    # an ordinary fit: every weight estimable, intervals printed
    X2, y2 = coffee()
    ok = GLM(family="poisson").fit(X2, y2)
    assert ok.estimable_.all() and ok.summary()["estimable"].all()
    assert "not estimable" not in " ".join(ok.interpret())


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_collinear_column_is_not_estimable_but_the_others_are():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)})
    X["a2"] = 2 * X["a"]  # a and a2 share one direction of the design
    y = X.a + X.b + rng.normal(size=50)
    m = GLM().fit(X, y)
    assert m.estimable_.to_dict() == {"(Intercept)": True, "a": False, "b": True, "a2": False}
    # as R's glm: the later collinear column is aliased (weight 0 here, NA in R), the rest is the
    # fit without it
    ref = GLM().fit(X.drop(columns="a2"), y)
    assert m.coef_["a2"] == 0.0
    assert_allclose(m.coef_.drop("a2"), ref.coef_, **SAME_FIT)
    assert np.isnan(m.summary().loc["a2", "std_error"])


def test_too_few_rows_names_terms_and_rows():
    X, y = coffee()
    X, y = X.iloc[[0, 1, 2, 3]], y[:4]
    X = X.assign(work=pd.Categorical(["no", "yes", "no", "yes"]))
    with pytest.raises(ValueError, match=r"the design has 4 terms and 4 rows. Set 'alpha' > 0"):
        GLM(family="poisson").fit(X, y)
    assert np.all(np.isfinite(GLM(family="poisson", alpha=1.0).fit(X, y).coef_))


def test_ridge_gaussian_equals_sklearn_ridge_on_standardised_columns():
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(2)
    n = 12
    X = pd.DataFrame(rng.normal(size=(n, 20)) * rng.uniform(0.1, 10, 20), columns=[f"x{i}" for i in range(20)])
    y = 3 + X["x0"] - 0.5 * X["x1"] + rng.normal(size=n)
    m = GLM(alpha=0.3).fit(X, y)  # 21 terms, 12 rows
    Xs = (X - X.mean()) / X.std(ddof=0)
    # rss/(2n) + α/2‖β‖²  ⇔  sklearn's ‖y − Xβ‖² + (nα)‖β‖²
    ref = Ridge(alpha=n * 0.3).fit(Xs, y)
    assert_allclose(m.coef_.to_numpy()[1:], ref.coef_ / X.std(ddof=0).to_numpy(), rtol=1e-8)
    assert_allclose(m.predict(X), ref.predict(Xs), rtol=1e-8)
    assert m.penalized_ and m.summary()["std_error"].isna().all()
    # 21 terms for 12 rows: the penalty, not the data, sets the weights (round 8, r3b: they were read one by one
    # as "penalised fit, no interval", "estimable" True)
    assert m.interpret() == ["Not estimable, so not read: (Intercept), x0, x1, x2, x3, x4, x5, x6, x7, x8 and 11 "
                             "more (set by the penalty: 12 rows for 21 terms)."]


def test_ridge_binomial_equals_sklearn_logistic_regression_and_survives_separation():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    n = 60
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n) * 5})
    y = (X.a > 0).astype(int)  # separable: the unpenalised weights diverge
    m = GLM(family="binomial", alpha=0.05).fit(X, y)
    Xs = (X - X.mean()) / X.std(ddof=0)
    # D/(2n) + α/2‖β‖² = mean log loss + ‖β‖²/(2Cn) with C = 1/(nα)
    ref = LogisticRegression(C=1 / (n * 0.05), tol=1e-12, max_iter=10000).fit(Xs, y)
    assert_allclose(m.coef_.to_numpy()[1:], ref.coef_[0] / X.std(ddof=0).to_numpy(), rtol=1e-5)
    assert_allclose(m.predict_proba(X), ref.predict_proba(Xs), rtol=1e-5, atol=1e-8)
    assert np.all(np.isfinite(m.coef_))


# --------------------------------------------------------------------------- polynomial and three-way terms
def test_polynomial_terms_equal_statsmodels_formula_and_read_the_local_slope():
    from imlkit.datasets import load_wage

    X, y = load_wage()
    X = X[["age", "year", "education"]]
    # the model-based covariance, as statsmodels' GLM (wage's variance grows with its mean: the default "auto" gives
    # HC3 intervals there)
    m = GLM(polynomial={"age": 3}, covariance="model").fit(X, y)
    assert list(m.coef_.index[:5]) == ["(Intercept)", "age", "age^2", "age^3", "year"]
    d = X.assign(wage=np.asarray(y))
    ref = sm.GLM.from_formula("wage ~ age + I(age**2) + I(age**3) + year + C(education)", d).fit()
    poly = ["age", "I(age ** 2)", "I(age ** 3)"]
    assert_allclose(m.coef_[["age", "age^2", "age^3", "year"]], ref.params[poly + ["year"]], rtol=1e-6)
    assert_allclose(m.predict(X), ref.fittedvalues.to_numpy(), rtol=1e-8)
    # the local slope at the median age: β1 + 2 β2 a + 3 β3 a², with its Wald interval
    a = float(np.median(X["age"]))
    c = pd.Series(0.0, index=ref.params.index)
    c[poly] = [1, 2 * a, 3 * a ** 2]
    slope = float(c @ ref.params)
    se = np.sqrt(c @ ref.cov_params() @ c)
    text = [s for s in m.interpret("age") if "its median" in s][0]
    lo, hi = slope - 1.959964 * se, slope + 1.959964 * se
    assert f"changes the expected wage by {slope:.3g} [{lo:.3g}, {hi:.3g}]" in text
    # ages below the peak raise the wage, above it lower it (the course's Wage reading)
    young = [s for s in m.interpret("age") if "25% quantile" in s][0]
    assert "by -" not in young
    with pytest.raises(ValueError, match=r"'polynomial\['age'\]' must be an int >= 2"):
        GLM(polynomial={"age": 1}).fit(X, y)
    with pytest.raises(ValueError, match="is categorical; a polynomial term needs a numeric column"):
        GLM(polynomial={"education": 2}).fit(X, y)


def test_three_way_interaction_equals_statsmodels_a_star_b_star_c():
    X, y = make_coffee(400, random_state=1)
    inter = [("stress", "sleep"), ("stress", "work"), ("sleep", "work"), ("stress", "sleep", "work")]
    m = GLM(family="poisson", interactions=inter).fit(X, y)
    assert "stress:sleep:work[yes]" in m.coef_.index
    d = X.assign(coffee=np.asarray(y))
    ref = sm.GLM.from_formula("coffee ~ stress * sleep * C(work)", d, family=sm.families.Poisson()).fit()
    assert_allclose(m.predict(X), ref.fittedvalues.to_numpy(), rtol=1e-7)
    assert_allclose(m.coef_["stress:sleep:work[yes]"], ref.params["stress:sleep:C(work)[T.yes]"], rtol=1e-6)
    text = " ".join(m.interpret())
    assert f"The three-way product term stress:sleep:work[yes] multiplies the expected {y.name} by" in text
    with pytest.raises(ValueError, match="appears twice"):
        GLM(interactions=[("stress", "sleep", "work"), ("work", "sleep", "stress")]).fit(X, y)
    with pytest.raises(ValueError, match="needs three different features"):
        GLM(interactions=[("stress", "sleep", "stress")]).fit(X, y)


# --------------------------------------------------------------------------- the shared Family
@pytest.mark.parametrize("name, link", [("gaussian", "identity"), ("binomial", "logit"), ("poisson", "log"),
                                        ("gamma", "log"), ("gamma", "negative_inverse")])
def test_family_pieces_equal_the_textbook_formulas(name, link):
    """McCullagh & Nelder (1989), table 2.1: variance functions, deviances and IRLS weights."""
    from imlkit.models._family import Family

    rng = np.random.default_rng(0)
    mu = rng.uniform(0.1, 0.9, 50)
    y = {"gaussian": rng.normal(size=50), "binomial": rng.integers(0, 2, 50).astype(float),
         "poisson": rng.poisson(2.0, 50).astype(float), "gamma": rng.gamma(2.0, 1.0, 50)}[name]
    fam = Family(name, link)
    V = {"gaussian": np.ones(50), "binomial": mu * (1 - mu), "poisson": mu, "gamma": mu ** 2}[name]
    assert_allclose(fam.variance(mu), V, rtol=1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):  # the formulas of the other families
        ylogy = np.where(y > 0, y * np.log(y / mu), 0.0)
        D = {"gaussian": np.sum((y - mu) ** 2),
             "binomial": -2 * np.sum(y * np.log(mu) + (1 - y) * np.log1p(-mu)),
             "poisson": 2 * np.sum(ylogy - (y - mu)),
             "gamma": 2 * np.sum((y - mu) / mu - np.log(y / mu))}[name]
    assert_allclose(fam.deviance(y, mu), D, rtol=1e-10)
    eta = fam.link(mu)
    assert_allclose(fam.inverse(eta), mu, rtol=1e-12)
    dmu = {"identity": np.ones(50), "logit": mu * (1 - mu), "log": mu, "negative_inverse": mu ** 2}[link]
    w, z = fam.working(y, eta, mu)
    assert_allclose(w, dmu ** 2 / V, rtol=1e-10)
    assert_allclose(z, eta + (y - mu) / dmu, rtol=1e-10)
    assert fam.scale_known == (name in ("binomial", "poisson"))
    assert_allclose(fam.scale(y, mu, 40), 1.0 if fam.scale_known else np.sum((y - mu) ** 2 / V) / 40, rtol=1e-12)


def test_family_inverse_link_does_not_overflow_and_pickles_without_statsmodels_state():
    from imlkit.models._family import Family

    with np.errstate(over="raise"):
        assert_allclose(Family("binomial").inverse(np.array([-800.0, 0.0, 800.0])), [0.0, 0.5, 1.0])
        assert np.isfinite(Family("poisson").inverse(np.array([1000.0]))).all()
    fam = Family("gamma", "negative_inverse")
    fam.variance(np.ones(2))  # builds the statsmodels family
    back = pickle.loads(pickle.dumps(fam))
    assert back._sm is None and back.link_name == "negative_inverse"
    assert_allclose(back.link(np.array([2.0])), [-0.5])
