"""GAM: known components, pyGAM at matched smoothness, band coverage, GLM as a special case."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from numpy.testing import assert_allclose  # noqa: E402
from sklearn.base import clone, is_classifier, is_regressor  # noqa: E402

from imlkit.datasets import load_wage  # noqa: E402
from imlkit.effects._result import EffectResult  # noqa: E402
from imlkit.models import GAM, GLM  # noqa: E402
from imlkit.models._splines import bspline_basis, difference_penalty, knots, sum_to_zero  # noqa: E402


def f_sin(x):
    return np.sin(2 * np.pi * x)


def f_quad(x):
    return 2 * x ** 2


def simulate(n=400, sigma=0.2, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.uniform(-1, 1, n),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], n), categories=["u", "v", "w"])})
    y = f_sin(X["a"]) + f_quad(X["b"]) + 0.5 * (X["c"] == "v") + rng.normal(0, sigma, n)
    return X, y.rename("y")


def centred_truth(f, grid, x_train):
    """Smooths sum to zero over the training data, so the truth is centred the same way."""
    return f(grid) - f(x_train).mean()


# ----------------------------------------------------------------------------- splines
def test_basis_is_a_partition_of_unity_and_extends_linearly():
    t = knots(0.0, 1.0, 10)
    x = np.linspace(0, 1, 57)
    B = bspline_basis(x, t).toarray()
    assert_allclose(B.sum(axis=1), 1.0, atol=1e-12)
    coef = np.random.default_rng(0).normal(size=10)
    outside = bspline_basis(np.array([1.0, 1.5, 2.0]), t).toarray() @ coef
    assert_allclose(outside[2] - outside[1], outside[1] - outside[0], rtol=1e-10)  # a straight line


def test_penalty_null_space_and_constraint():
    S = difference_penalty(8, order=2)
    assert_allclose(S @ np.ones(8), 0, atol=1e-12)
    assert_allclose(S @ np.arange(8.0), 0, atol=1e-12)
    assert np.linalg.matrix_rank(S) == 6
    c = np.arange(1.0, 9.0)
    Z = sum_to_zero(c)
    assert Z.shape == (8, 7)
    assert_allclose(c @ Z, 0, atol=1e-12)
    assert_allclose(Z.T @ Z, np.eye(7), atol=1e-12)


# ----------------------------------------------------------------------------- known answers
@pytest.mark.parametrize("smoothing", ["gcv", "reml"])
def test_recovers_sin_and_quadratic_components(smoothing):
    X, y = simulate()
    gam = GAM(smoothing=smoothing).fit(X, y)
    for name, f in [("a", f_sin), ("b", f_quad)]:
        pe = gam.partial_effect(name)
        truth = centred_truth(f, pe.grid, X[name].to_numpy())
        # noise sd 0.2, n = 400, edf <= 10: the estimation error's sd is about 0.2*sqrt(10/400) = 0.03.
        assert np.sqrt(np.mean((pe.average - truth) ** 2)) < 0.1, name
    fac = gam.partial_effect("c")
    assert fac.categorical and list(fac.grid) == ["u", "v", "w"]
    assert_allclose(fac.average, [0.0, 0.5, 0.0], atol=0.1)
    assert 3 < gam.edf_["a"] < 12 and 1.5 < gam.edf_["b"] < 8 and gam.edf_["c"] == pytest.approx(2)


def test_smooths_sum_to_zero_so_the_intercept_is_the_mean_linear_predictor():
    X, y = simulate(n=200)
    gam = GAM(terms={"a": "spline", "b": "spline"}).fit(X, y)
    assert_allclose(gam.linear_predictor(X).mean(), gam.intercept_, rtol=1e-10)
    assert_allclose(gam.intercept_, np.mean(y), rtol=1e-8)  # gaussian: residuals sum to zero


@pytest.mark.parametrize("smoothing", ["gcv", "reml"])
def test_shifting_y_moves_only_the_intercept(smoothing):
    X, y = simulate(n=300)
    a = GAM(smoothing=smoothing).fit(X, y)
    b = GAM(smoothing=smoothing).fit(X, y + 1e7)
    # The criteria see only residuals, which the shift leaves alone; 1e7 costs ~7 digits.
    assert_allclose(b.coef_[1:], a.coef_[1:], rtol=1e-5, atol=1e-6)
    assert_allclose(b.intercept_ - a.intercept_, 1e7, rtol=1e-12)


def test_edf_runs_from_straight_line_to_unpenalised():
    X, y = simulate(n=300)
    stiff = GAM(terms={"a": "spline"}, smoothing=1e9).fit(X, y)
    loose = GAM(terms={"a": "spline"}, smoothing=1e-9, n_splines=12).fit(X, y)
    assert stiff.edf_["a"] == pytest.approx(1.0, abs=1e-3)  # penalty null space after centring: a line
    assert loose.edf_["a"] == pytest.approx(11.0, abs=1e-3)  # every constrained coefficient free


def test_band_covers_the_truth_at_about_the_nominal_rate():
    # Bayesian intervals have close to nominal coverage averaged over the function (Nychka 1988).
    cover = []
    for seed in range(30):
        rng = np.random.default_rng(1000 + seed)
        x = rng.uniform(0, 1, 200)
        y = f_sin(x) + rng.normal(0, 0.3, 200)
        pe = GAM(smoothing="reml").fit(pd.DataFrame({"x": x}), y).partial_effect("x", grid=50)
        truth = centred_truth(f_sin, pe.grid, x)
        cover.append(np.mean((truth >= pe.ci_low) & (truth <= pe.ci_high)))
    # 30 replicates x 50 correlated grid points; 0.95 nominal. A band that is too narrow or
    # ignores smoothing bias would land well below 0.85.
    assert 0.85 <= np.mean(cover) <= 0.995


def test_band_width_follows_the_confidence_level():
    X, y = simulate(n=200)
    gam = GAM().fit(X, y)
    two = gam.partial_effect("a", confidence_level=None)
    ninety = gam.partial_effect("a", confidence_level=0.9)
    se = two.extra["se"]
    assert_allclose(two.ci_high - two.average, 2 * se, rtol=1e-12)
    assert_allclose(ninety.ci_high - ninety.average, 1.6448536269514722 * se, rtol=1e-9)
    assert isinstance(two, EffectResult) and two.method == "gam" and two.feature_names == ("a",)


# ----------------------------------------------------------------------------- cross-checks
def pygam_terms(lam, n_splines=20):
    from pygam import s

    return s(0, n_splines=n_splines, lam=lam) + s(1, n_splines=n_splines, lam=lam)


def test_agrees_with_pygam_at_the_same_lambda_and_at_pygams_chosen_lambda():
    from pygam import LinearGAM, s

    X, y = simulate(n=300)
    Xn = X[["a", "b"]]
    for lam in (0.3, 10.0):
        pg = LinearGAM(pygam_terms(lam)).fit(Xn.to_numpy(), y)
        ours = GAM(smoothing=lam).fit(Xn, y)
        # Same basis, penalty and λ: the same estimator, so far more than corr > 0.99 holds.
        assert np.corrcoef(pg.predict(Xn.to_numpy()), ours.predict(Xn))[0, 1] > 0.99
        assert_allclose(ours.predict(Xn), pg.predict(Xn.to_numpy()), atol=1e-6)
        assert_allclose(ours.edf_total_, pg.statistics_["edof"], rtol=1e-6)
    pg = LinearGAM(s(0) + s(1)).gridsearch(Xn.to_numpy(), y, progress=False, lam=np.logspace(-3, 3, 7))
    lam = {"a": float(np.ravel(pg.lam[0])[0]), "b": float(np.ravel(pg.lam[1])[0])}
    ours = GAM(smoothing=lam).fit(Xn, y)
    assert np.corrcoef(pg.predict(Xn.to_numpy()), ours.predict(Xn))[0, 1] > 0.99
    auto = GAM(smoothing="gcv").fit(Xn, y)  # our own choice lands close to pyGAM's
    assert np.corrcoef(pg.predict(Xn.to_numpy()), auto.predict(Xn))[0, 1] > 0.99


@pytest.mark.parametrize("family", ["binomial", "poisson", "gamma"])
def test_penalised_irls_agrees_with_pygam_at_the_same_lambda(family):
    from pygam import GammaGAM, LogisticGAM, PoissonGAM

    rng = np.random.default_rng(2)
    n = 400
    X = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.uniform(0, 1, n)})
    eta = f_sin(X["a"]) + X["b"]
    y = {"binomial": rng.binomial(1, 1 / (1 + np.exp(-eta))), "poisson": rng.poisson(np.exp(eta)),
         "gamma": rng.gamma(4, np.exp(eta) / 4)}[family]
    cls = {"binomial": LogisticGAM, "poisson": PoissonGAM, "gamma": GammaGAM}[family]
    pg = cls(pygam_terms(0.5)).fit(X.to_numpy(), y)
    ours = GAM(family=family, smoothing=0.5).fit(X, y)
    mu = ours.predict_proba(X)[:, 1] if family == "binomial" else ours.predict(X)
    assert np.corrcoef(pg.predict_mu(X.to_numpy()), mu)[0, 1] > 0.99
    # Both iterate to the same penalised optimum; pyGAM stops at a looser tolerance.
    assert_allclose(mu, pg.predict_mu(X.to_numpy()), rtol=1e-3)


@pytest.mark.parametrize("family, glm_kwargs", [
    ("gaussian", {}), ("poisson", {}), ("binomial", {}), ("gamma", {"link": "log"})])
def test_without_splines_it_is_the_glm(family, glm_kwargs):
    # Factor and linear terms are unpenalised: the GAM's IRLS must land on the GLM's MLE.
    rng = np.random.default_rng(1)
    n = 300
    X = pd.DataFrame({"x": rng.normal(size=n), "g": pd.Categorical(rng.choice(["p", "q", "r"], n))})
    eta = 0.3 + 0.5 * X["x"] + 0.4 * (X["g"] == "q")
    y = {"gaussian": eta + rng.normal(size=n), "poisson": rng.poisson(np.exp(eta)),
         "binomial": rng.binomial(1, 1 / (1 + np.exp(-eta))), "gamma": rng.gamma(3, np.exp(eta) / 3)}[family]
    gam = GAM(terms={"x": "linear", "g": "factor"}, family=family).fit(X, y)
    glm = GLM(family=family, **glm_kwargs).fit(X, y)
    # Both converge IRLS to ~1e-8 relative deviance: predictions agree to ~1e-6.
    if family == "binomial":
        assert_allclose(gam.predict_proba(X), glm.predict_proba(X), rtol=1e-5, atol=1e-7)
    else:
        assert_allclose(gam.predict(X), glm.predict(X), rtol=1e-5)
    s_glm = glm.summary()
    s_gam = gam.summary()
    assert_allclose(gam.coef_[1], s_glm.loc["x", "weight"], rtol=1e-5)
    # A one-coefficient term's statistic is the squared Wald z (same scale estimate: no penalty).
    assert_allclose(s_gam.loc["x", "statistic"], s_glm.loc["x", "statistic"] ** 2, rtol=1e-4)


def test_summary_tests_separate_signal_from_noise():
    rng = np.random.default_rng(5)
    n = 400
    X = pd.DataFrame({"signal": rng.uniform(0, 1, n), "noise": rng.uniform(0, 1, n)})
    y = f_sin(X["signal"]) + rng.normal(0, 0.5, n)
    s = GAM(smoothing="reml").fit(X, y).summary()
    assert list(s.columns) == ["kind", "n_coef", "lambda", "edf", "ref_df", "statistic", "p_value"]
    assert "Wood 2013" in s.attrs["test"]
    assert s.loc["signal", "p_value"] < 1e-10
    assert s.loc["noise", "p_value"] > 0.01
    assert s.loc["noise", "edf"] < 2.5


# ----------------------------------------------------------------------------- families and API
@pytest.mark.parametrize("smoothing", ["reml", "gcv"])
@pytest.mark.parametrize("family", ["poisson", "binomial", "gamma"])
def test_non_gaussian_families_recover_the_smooth(family, smoothing):
    rng = np.random.default_rng(2)
    n = 600
    x = rng.uniform(0, 1, n)
    eta = f_sin(x)
    y = {"poisson": rng.poisson(np.exp(eta)), "binomial": rng.binomial(1, 1 / (1 + np.exp(-2 * eta))),
         "gamma": rng.gamma(5, np.exp(eta) / 5)}[family]
    scale = 2.0 if family == "binomial" else 1.0
    gam = GAM(family=family, smoothing=smoothing).fit(pd.DataFrame({"x": x}), y)
    pe = gam.partial_effect("x")
    truth = scale * centred_truth(f_sin, pe.grid, x)
    assert np.sqrt(np.mean((pe.average - truth) ** 2)) < 0.25 * scale


def test_binomial_is_a_classifier_with_labels():
    X, y = simulate(n=300)
    labels = np.where(y > y.median(), "high", "low")
    gam = GAM(family="binomial").fit(X, labels)
    assert list(gam.classes_) == ["high", "low"]
    P = gam.predict_proba(X)
    assert_allclose(P.sum(axis=1), 1.0)
    assert set(gam.predict(X)) <= {"high", "low"}
    assert is_classifier(gam) and is_regressor(GAM()) and not hasattr(GAM(), "predict_proba")
    assert clone(gam).get_params() == gam.get_params()


def test_array_input_equals_frame_input_and_extrapolation_is_linear():
    X, y = simulate(n=200)
    num = X[["a", "b"]]
    a = GAM(smoothing=1.0).fit(num.to_numpy(), y)
    f = GAM(smoothing=1.0).fit(num, y)
    assert_allclose(a.predict(num.to_numpy()), f.predict(num), rtol=1e-12)
    far = pd.DataFrame({"a": [1.5, 2.0, 2.5], "b": [0.0, 0.0, 0.0]})
    p = f.predict(far)
    assert_allclose(p[2] - p[1], p[1] - p[0], rtol=1e-8)


def test_wage_figure():
    X, y = load_wage()
    gam = GAM(terms={"year": "spline", "age": "spline", "education": "factor"}, smoothing="reml").fit(X, y)
    edu = gam.partial_effect("education")
    # The course: "holding year and age constant, wages increase with education level".
    assert np.all(np.diff(edu.average) > 0)
    age = gam.partial_effect("age")
    # "wages initially increase then decrease with age".
    assert 30 < age.grid[np.argmax(age.average)] < 60
    year = gam.partial_effect("year")
    assert year.average[-1] > year.average[0]  # "wages increase with year"
    axes = gam.plot()
    visible = [ax for ax in np.ravel(axes) if ax.get_visible()]
    assert len(visible) == 3 and visible[0].get_title().startswith("year")
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("kwargs, y_kind, exc, match", [
    (dict(family="tweedie"), "num", ValueError, "'family' must be one of"),
    (dict(smoothing="aic"), "num", ValueError, "'smoothing' must be one of"),
    (dict(smoothing=-1.0), "num", ValueError, "'smoothing' must be a number > 0"),
    (dict(smoothing={"a": 1.0}), "num", ValueError, "no λ for the spline term"),
    (dict(terms={"c": "spline"}), "num", ValueError, "'c' is categorical"),
    (dict(terms={"zz": "spline"}), "num", ValueError, "Unknown feature 'zz'"),
    (dict(terms={"a": "tensor"}), "num", ValueError, "'terms\\['a'\\]' must be one of"),
    (dict(n_splines=3), "num", ValueError, "'n_splines' must be an int >= 4"),
    (dict(family="poisson"), "negative", ValueError, "non-negative counts"),
    (dict(family="binomial"), "single", ValueError, "single class"),
    (dict(family="gamma"), "negative", ValueError, "must be > 0 for the gamma"),
])
def test_error_table(kwargs, y_kind, exc, match):
    X, y = simulate(n=100)
    y = {"num": y, "negative": y - 10, "single": np.ones(len(y))}[y_kind]
    with pytest.raises(exc, match=match):
        GAM(**kwargs).fit(X, y)


def test_errors_after_fit():
    X, y = simulate(n=100)
    gam = GAM().fit(X, y)
    with pytest.raises(ValueError, match="Unknown term 'zz'"):
        gam.partial_effect("zz")
    with pytest.raises(ValueError, match="not seen in fit"):
        gam.predict(X.assign(c=pd.Categorical(["new"] * len(X))))
    with pytest.raises(ValueError, match="same columns"):
        gam.predict(X[["a", "b"]])


def _n_coef(gam):
    return len(gam.coef_)


@pytest.mark.parametrize("loader", ["breast_cancer", "wine"])
def test_small_data_basis_is_capped_so_the_data_carry_it(loader):
    """breast_cancer (30 features, 569 rows) and wine (13, 178): 20 B-splines each would exceed n."""
    import warnings

    from sklearn import datasets

    d = getattr(datasets, f"load_{loader}")(as_frame=True)
    X, n = d.data, len(d.data)
    y = d.data.iloc[:, 0] + d.target  # a gaussian target; every column is a spline (many distinct values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning for the gaussian fit
        gam = GAM(smoothing=1.0).fit(X, y)
    assert gam.converged_
    # the rule: the largest common cap K with 1 + Σ (K − 1) <= n // 2, K <= 20
    k = max(kk for kk in range(4, 21) if 1 + X.shape[1] * (kk - 1) <= n // 2)
    assert set(gam.n_splines_.values()) == {k}
    assert _n_coef(gam) == 1 + X.shape[1] * (k - 1) <= n // 2
    assert np.all(np.isfinite(gam.predict(X)))


def test_basis_cap_counts_distinct_values_and_factor_columns():
    rng = np.random.default_rng(0)
    n = 60
    X = pd.DataFrame({"few": rng.integers(0, 5, n).astype(float), "many": rng.uniform(size=n),
                      "f": pd.Categorical(rng.choice(list("abcdef"), n))})
    y = rng.normal(size=n)
    gam = GAM(smoothing=1.0).fit(X, y)
    # few: 5 distinct values -> 7; many: capped by n//2 = 30 = 1 + 5 (factor) + 6 (few) + (K - 1) -> K = 19
    assert gam.n_splines_ == {"few": 7, "many": 19}
    assert _n_coef(gam) == 30


def test_too_few_rows_for_the_smallest_basis_is_a_clear_error():
    from imlkit._validation import ValidationError

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(20, 5)), columns=list("abcde"))
    with pytest.raises(ValidationError, match=r"too few rows for this GAM: 5 spline term\(s\) need at least 16 "
                                              r"coefficients .* \(32\); got 20"):
        GAM().fit(X, rng.normal(size=20))


def test_binomial_divergence_is_flagged_with_a_warning():
    """Separable classes: the logit GAM runs off; it must say so and set converged_ = False."""
    from sklearn.datasets import load_breast_cancer

    d = load_breast_cancer(as_frame=True)
    with pytest.warns(UserWarning, match="binomial GAM diverged"):
        gam = GAM(family="binomial").fit(d.data, d.target)
    assert gam.converged_ is False
    # a well-posed binomial fit converges and says so
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x": rng.uniform(-2, 2, 400)})
    y = rng.uniform(size=400) < 1 / (1 + np.exp(-np.sin(X["x"]) * 2))
    ok = GAM(family="binomial").fit(X, y)
    assert ok.converged_ is True
    assert np.abs(ok.decision_function(X)).max() < 10


def test_wage_natural_splines_with_fixed_df_equal_least_squares_on_patsy_cr():
    """The course's Wage figure: natural splines in year (4 df) and age (5 df), a step in education.

    Unpenalised, the fit is least squares on the natural-spline basis: patsy's ``cr`` with the
    same knots (R's ns knots: quantiles k/df of the column) spans the same space, so OLS on it
    gives the same fitted values.
    """
    import statsmodels.api as sm

    X, y = load_wage()
    gam = GAM(terms={"year": ("ns", 4), "age": ("ns", 5), "education": "factor"}).fit(X, y)
    ky, ka = gam.knots_["year"], gam.knots_["age"]
    assert_allclose(ky, np.quantile(X["year"], np.linspace(0, 1, 5)))
    assert_allclose(ka, np.quantile(X["age"], np.linspace(0, 1, 6)))

    def cr_term(col, k):
        return (f"cr({col}, knots={list(k[1:-1])}, lower_bound={k[0]}, upper_bound={k[-1]}, "
                f"constraints='center')")

    d = X.assign(wage=np.asarray(y))
    ols = sm.OLS.from_formula(f"wage ~ {cr_term('year', ky)} + {cr_term('age', ka)} + C(education)", d).fit()
    # two bases of one space: equal up to the conditioning of the solves
    assert_allclose(gam.predict(X), ols.fittedvalues.to_numpy(), rtol=1e-9, atol=1e-7)
    assert gam.summary().loc[["year", "age"], "n_coef"].tolist() == [4, 5]
    assert_allclose([gam.edf_["year"], gam.edf_["age"]], [4.0, 5.0], atol=1e-8)
    # the course's readings, as for the P-spline fit
    age = gam.partial_effect("age")
    assert 30 < age.grid[np.argmax(age.average)] < 60
    assert np.all(np.diff(gam.partial_effect("education").average) > 0)
    # natural: linear beyond the boundary knots
    far = X.iloc[[0, 0, 0]].assign(age=[90.0, 100.0, 110.0])
    assert_allclose(np.diff(gam.predict(far), 2), 0.0, atol=1e-8)


def test_ns_term_errors():
    from imlkit._validation import ValidationError

    X, y = load_wage()
    with pytest.raises(ValidationError, match=r"needs its degrees of freedom, e.g. \('ns', 4\)"):
        GAM(terms={"age": "ns"}).fit(X, y)
    with pytest.raises(ValidationError, match="has 7 distinct values; a natural spline with df=8 needs at least 9"):
        GAM(terms={"year": ("ns", 8)}).fit(X, y)
