"""PIMP: the course's extrapolation example, p-value formulas by hand, multiple testing, errors."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import LinearRegression
from sklearn.svm import LinearSVC
from statsmodels.stats.multitest import multipletests

import imlkit as ik
from imlkit._validation import ModelError, ValidationError
from imlkit.importance._inference import best_null_distribution, null_pvalue


@pytest.fixture(scope="module")
def extrapolation():
    X, y = ik.datasets.make_extrapolation(300, random_state=11)
    return X[:200], y[:200], X[200:], y[200:]


@pytest.fixture(scope="module")
def extrapolation_result(extrapolation):
    Xtr, ytr, Xte, yte = extrapolation
    # 99 null refits: the smallest empirical p-value 1/100 survives Holm's factor 4.
    return ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, n_null=99, n_repeats=3, distribution="empirical",
                   random_state=0)


def test_extrapolation_example(extrapolation_result):
    r = extrapolation_result
    padj = dict(zip(r.feature_names, r.p_adjusted))
    imp = dict(zip(r.feature_names, r.importance))
    # PFI calls x1 and x2 important (extrapolation) ...
    assert imp["x1"] > 0.1 and imp["x2"] > 0.1
    # ... but their PFI is no larger than under a permuted target; x3 is the real signal.
    assert padj["x3"] <= 0.05
    assert padj["x1"] > 0.05 and padj["x2"] > 0.05 and padj["x4"] > 0.05
    assert r.extra["null"].shape == (4, 99)
    assert r.to_frame().loc["x3", "significant"]
    assert r.params["importance"] == "pfi"
    assert "Underlying importance" in r.explain()


def test_normal_null_with_few_refits(extrapolation):
    # 30 refits (the fewest from which a tail is fitted) resolve what the empirical floor 4/31 cannot.
    Xtr, ytr, Xte, yte = extrapolation
    r = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, n_null=30, n_repeats=2, distribution="normal",
                random_state=1)
    padj = dict(zip(r.feature_names, r.p_adjusted))
    assert padj["x3"] < 1e-6 and padj["x1"] > 0.05 and padj["x2"] > 0.05 and padj["x4"] > 0.05
    assert set(r.extra["distribution"]) == {"normal"} and r.to_frame().loc["x3", "p_floor"] == 0


def test_empirical_pvalue_and_holm_from_the_null_sample(extrapolation_result):
    r = extrapolation_result
    k = (r.extra["null"] >= r.importance[:, None]).sum(axis=1)
    assert_allclose(r.p_value, (k + 1) / (99 + 1))
    assert_allclose(r.p_adjusted, multipletests(r.p_value, method="holm")[1])


def test_pvalue_formulas_by_hand():
    null = np.array([0.1, 0.2, 0.3, 0.4])
    assert null_pvalue(null, 0.25, "empirical") == pytest.approx(3 / 5)
    assert null_pvalue(null, 0.5, "empirical") == pytest.approx(1 / 5)
    mu, sd = 0.25, math.sqrt(sum((v - 0.25) ** 2 for v in null) / 3)
    z = (0.5 - mu) / sd
    assert null_pvalue(null, 0.5, "normal") == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)), rel=1e-12)
    # lognormal on the positive part: 3 of 4 null values are positive
    mixed = np.array([-0.1, 0.5, 1.0, 2.0])
    logs = np.log([0.5, 1.0, 2.0])
    m, s = logs.mean(), logs.std(ddof=1)
    expected = 0.75 * 0.5 * math.erfc((math.log(1.5) - m) / s / math.sqrt(2))
    assert null_pvalue(mixed, 1.5, "lognormal") == pytest.approx(expected, rel=1e-12)
    # observed <= 0: the positive mass plus the empirical part between observed and 0
    assert null_pvalue(mixed, -0.05, "lognormal") == pytest.approx(0.75)
    assert null_pvalue(mixed, -0.2, "gamma") == pytest.approx(1.0)
    shape, _, scale = stats.gamma.fit([0.5, 1.0, 2.0], floc=0)
    assert null_pvalue(mixed, 1.5, "gamma") == pytest.approx(0.75 * stats.gamma.sf(1.5, shape, scale=scale))
    # a constant sample cannot be fitted
    assert np.isnan(null_pvalue(np.ones(5), 2.0, "normal"))


def test_auto_picks_a_family_or_falls_back():
    rng = np.random.default_rng(0)
    assert best_null_distribution(rng.normal(0, 1, 200)) == "normal"  # negative values: only normal
    two_point = np.r_[np.zeros(100), np.full(100, 10.0)] + rng.normal(0, 0.01, 200)
    assert best_null_distribution(two_point) == "empirical"


def test_plots_and_callable_importance(extrapolation, extrapolation_result):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = extrapolation_result.plot(kind="null")
    assert len(axes) == 4 and axes[0].get_title().startswith("x3")
    assert extrapolation_result.plot().get_title().startswith("PIMP")
    plt.close("all")
    Xtr, ytr, Xte, yte = extrapolation
    r = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, importance=abs_coefficients, n_null=5, random_state=0)
    assert_allclose(r.importance, np.abs(LinearRegression().fit(Xtr, ytr).coef_))
    assert r.extra["null"].shape == (4, 5)


def abs_coefficients(model, X, y, random_state):
    return np.abs(model.coef_)


def test_seed_invariance_and_other_importances(extrapolation):
    Xtr, ytr, Xte, yte = extrapolation
    a = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, importance="cfi", n_null=5, n_repeats=2, random_state=4)
    b = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, importance="cfi", n_null=5, n_repeats=2, random_state=4)
    assert_array_equal(a.extra["null"], b.extra["null"])
    c = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, importance="loco", n_null=5, random_state=4)
    assert c.loss == "absolute_error" and c.importance[2] > 0.5


class FailsOnPermutedTarget(RegressorMixin, BaseEstimator):
    def __init__(self, y_real=None):
        self.y_real = y_real

    def fit(self, X, y):
        if not np.array_equal(y, self.y_real):
            raise FloatingPointError("permuted")
        self.coef_ = np.zeros(X.shape[1])
        return self

    def predict(self, X):
        return np.zeros(len(X))


def test_failing_null_refit_is_named(extrapolation):
    Xtr, ytr, Xte, yte = extrapolation
    with pytest.raises(ModelError, match="null refit 0") as info:
        ik.pimp(FailsOnPermutedTarget(np.asarray(ytr)), Xtr, ytr, Xte, yte, n_null=2, random_state=0)
    assert isinstance(info.value.__cause__, FloatingPointError)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(n_null=0), ValidationError, "'n_null' must be an int >= 1; got 0"),
    (dict(distribution="weibull"), ValidationError, "'distribution' must be one of"),
    (dict(importance="shap"), ValidationError, "'importance' must be one of"),
    (dict(alpha=1.5), ValidationError, "'alpha' must be"),
    (dict(learner="LinearRegression"), TypeError, "'learner' must be an unfitted estimator"),
    (dict(loss="log_loss", learner=LinearSVC()), ValidationError, "no predict_proba"),
])
def test_error_table(extrapolation, kwargs, exc, match):
    Xtr, ytr, Xte, yte = extrapolation
    args = dict(learner=LinearRegression(), X_train=Xtr, y_train=ytr, X_test=Xte, y_test=yte, n_null=2)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        ik.pimp(**args)


def test_different_columns(extrapolation):
    Xtr, ytr, Xte, yte = extrapolation
    with pytest.raises(ValidationError, match="same columns"):
        ik.pimp(LinearRegression(), Xtr, ytr, Xte[["x1", "x2", "x3"]], yte, n_null=2)


def _twelve(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 12)), columns=[f"x{j}" for j in range(12)])
    y = 3 * X["x0"].to_numpy() + rng.normal(size=n)
    return X[:200], y[:200], X[200:], y[200:]


@pytest.mark.slow
def test_defaults_can_reject_an_overwhelming_feature_among_twelve():
    Xtr, ytr, Xte, yte = _twelve()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the noise features may fall back to the empirical null
        r = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, n_repeats=2, random_state=0)
    f = r.to_frame(sort=False)
    # PFI(x0) ≈ 2·9·Var(x0) = 18 against a null centred near 0: significant with the defaults
    assert f.loc["x0", "importance"] > 10
    assert f.loc["x0", "significant"] and r.extra["distribution"][0] != "empirical"
    assert f["significant"].sum() <= 2  # noise features: at most a chance rejection


def test_warns_when_the_empirical_null_cannot_reach_alpha():
    Xtr, ytr, Xte, yte = _twelve()
    # 12 features, Holm, B = 30: the smallest adjusted empirical p-value is 12/31 > 0.05
    with pytest.warns(UserWarning, match=r"n_null=30 .* 12/31 = 0\.387 > alpha=0\.05.*n_null >= 239"):
        r = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, n_null=30, n_repeats=2, distribution="empirical",
                    random_state=0)
    # the warning is right: even x0, far beyond every null value, is not significant
    assert r.p_value[0] == pytest.approx(1 / 31) and not r.to_frame().loc["x0", "significant"]
    assert any("n_null" in w for w in r.warnings)
    # no warning when the floor is reachable: m/(B+1) = 12/240 <= 0.05 needs B >= 239
    from imlkit.importance._pimp import _resolution_warnings, resolution

    def warns(n_null, p_adjust):
        floor, needed = resolution(np.full(12, 0.5), ["empirical"] * 12, n_null, p_adjust, 0.05)
        return _resolution_warnings(list("abcdefghijkl"), floor, needed, n_null, p_adjust, 0.05)

    assert warns(239, "holm") == [] and warns(238, "holm") and warns(30, None) == []
