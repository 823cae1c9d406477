"""LOCO and LOFO: known answers, the inference helpers by their definitions, invariances, errors."""
import itertools
from math import comb

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.svm import LinearSVC
from statsmodels.stats.multitest import multipletests

import imlkit as ik
from imlkit._validation import ModelError, ValidationError
from imlkit.importance._inference import (
    adjust_pvalues,
    hodges_lehmann,
    nadeau_bengio,
    sign_test,
    signed_rank_cdf,
    t_test,
    wilcoxon_test,
)


@pytest.fixture(scope="module")
def correlated():
    X, y = ik.datasets.make_correlated_loco(1000, random_state=7)
    n = 700  # the course's 70/30 split
    return X[:n], y[:n], X[n:], y[n:]


# --------------------------------------------------------------------------- known answers
def test_correlated_example_from_the_course(correlated):
    Xtr, ytr, Xte, yte = correlated
    r = ik.loco(LinearRegression(), Xtr, ytr, Xte, yte, random_state=0)
    imp = dict(zip(r.feature_names, r.importance))
    padj = dict(zip(r.feature_names, r.p_adjusted))
    # x1 and x2 replace each other (x2 = x1 + N(0, 0.1) noise, beside y's noise sd 2): the
    # median L1 difference is a few hundredths, far below the noise scale of |y - f| ~ 1.6.
    assert abs(imp["x1"]) < 0.1 and abs(imp["x2"]) < 0.1
    assert padj["x1"] > 0.05 and padj["x2"] > 0.05
    # without x3 (sd 5) the residual sd grows from 2 to sqrt(29) ~ 5.4: median |r| grows by > 2
    assert imp["x3"] > 2 and padj["x3"] < 1e-6
    assert r.observation_importance.shape == (3, 300)
    assert r.to_frame().loc["x3", "significant"]


def test_mean_aggregate_is_the_risk_difference(correlated):
    Xtr, ytr, Xte, yte = correlated
    r = ik.loco(LinearRegression(), Xtr, ytr, Xte, yte, aggregate="mean", loss="squared_error", test="t")
    full = np.mean((yte - LinearRegression().fit(Xtr, ytr).predict(Xte)) ** 2)
    for j, c in enumerate(Xtr.columns):
        red = LinearRegression().fit(Xtr.drop(columns=c), ytr).predict(Xte.drop(columns=c))
        assert_allclose(r.importance[j], np.mean((yte - red) ** 2) - full, rtol=1e-10)
    assert_allclose(r.baseline_loss, full, rtol=1e-12)


def _copy_data(seed=3, n=600):
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    X = pd.DataFrame({"x1": x1, "x1_copy": x1.copy(), "x2": rng.normal(size=n)})
    y = 2 * x1 + X["x2"].to_numpy() + rng.normal(0, 0.5, n)
    return X, y


def test_lofo_exact_copy():
    X, y = _copy_data()
    Xtr, Xte, ytr, yte = X[:400], X[400:], y[:400], y[400:]
    r = ik.lofo(LinearRegression(), Xtr, ytr, Xte, yte)
    imp = dict(zip(r.feature_names, r.importance))
    # Dropping one copy leaves the same column space: identical predictions up to round-off.
    assert_allclose([imp["x1"], imp["x1_copy"]], 0.0, atol=1e-8)
    alone = ik.lofo(LinearRegression(), Xtr.drop(columns="x1_copy"), ytr, Xte.drop(columns="x1_copy"), yte)
    # Without x1 the squared error grows by beta² Var(x1) = 4 (sampling error of 200 test
    # points and of Var(x1): ~ 15%).
    assert_allclose(alone.importance[0], 4.0, rtol=0.2)
    # leaving the group out gives the shared importance, the same as the feature alone
    group = ik.lofo(LinearRegression(), Xtr, ytr, Xte, yte, features={"x1": ["x1", "x1_copy"]})
    assert_allclose(group.importance[0], alone.importance[0], rtol=1e-8)


def test_lofo_ratio_and_score_direction():
    X, y = _copy_data()
    Xtr, Xte, ytr, yte = X[:400], X[400:], y[:400], y[400:]
    r = ik.lofo(LinearRegression(), Xtr, ytr, Xte, yte, features=["x2"], relation="ratio")
    full = np.mean((yte - LinearRegression().fit(Xtr, ytr).predict(Xte)) ** 2)
    red = np.mean((yte - LinearRegression().fit(Xtr[["x1", "x1_copy"]], ytr).predict(Xte[["x1", "x1_copy"]])) ** 2)
    assert_allclose(r.importance, [red / full], rtol=1e-10)
    # scores are turned: larger = more important (R² drops without x2)
    s = ik.lofo(LinearRegression(), Xtr, ytr, Xte, yte, features=["x2"], loss="r2")
    assert s.importance[0] > 0.05


def test_classification_accuracy_is_turned():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 2))
    y = (X[:, 0] + 0.2 * rng.normal(size=600) > 0).astype(int)
    r = ik.lofo(LogisticRegression(), X[:400], y[:400], X[400:], y[400:], loss="accuracy")
    # without x0 accuracy falls from ~0.9 to ~0.5
    assert r.importance[0] > 0.3 and abs(r.importance[1]) < 0.05


# --------------------------------------------------------------------------- inference helpers
def test_holm_and_bonferroni_match_statsmodels():
    p = np.array([0.001, 0.04, 0.03, 0.2, 0.012, 0.5])
    for ours, theirs in [("holm", "holm"), ("bonferroni", "bonferroni")]:
        assert_allclose(adjust_pvalues(p, method=ours), multipletests(p, method=theirs)[1], rtol=1e-12)


def test_sign_test_interval_by_definition():
    rng = np.random.default_rng(1)
    x = rng.standard_t(3, size=23) + 0.4
    level = 0.9
    p, lo, hi = sign_test(x, level)
    n = x.size
    def cdf(k):
        return sum(comb(n, i) for i in range(k + 1)) / 2**n
    # l: the largest l with P(Bin(n, 1/2) <= l - 1) <= (1 - level)/2
    l = max(k for k in range(1, n // 2 + 1) if cdf(k - 1) <= (1 - level) / 2)  # noqa: E741 (the formula's l)
    xs = np.sort(x)
    assert (lo, hi) == (xs[l - 1], xs[n - l])
    assert 1 - 2 * cdf(l - 1) >= level  # the coverage it guarantees
    s = int((x > 0).sum())
    assert_allclose(p, sum(comb(n, i) for i in range(s, n + 1)) / 2**n, rtol=1e-12)


def test_wilcoxon_hodges_lehmann_by_enumeration():
    rng = np.random.default_rng(2)
    x = rng.normal(0.5, 1, size=10)
    n = x.size
    # exact null distribution of T+ over all 2^n sign patterns
    ranks = np.arange(1, n + 1)
    t_all = np.array([ranks[np.array(s, bool)].sum() for s in itertools.product([0, 1], repeat=n)])
    assert_allclose(signed_rank_cdf(n), [np.mean(t_all <= t) for t in range(n * (n + 1) // 2 + 1)])
    level = 0.9
    C = max(c for c in range(1, 30) if np.mean(t_all <= c - 1) <= (1 - level) / 2)
    walsh = np.sort([(x[i] + x[j]) / 2 for i in range(n) for j in range(i, n)])
    p, lo, hi = wilcoxon_test(x, level)
    assert_allclose([lo, hi], [walsh[C - 1], walsh[len(walsh) - C]], rtol=1e-12)
    assert_allclose(hodges_lehmann(x), np.median(walsh), rtol=1e-12)
    assert_allclose(p, stats.wilcoxon(x, alternative="greater").pvalue)
    # large n: normal approximation of C, Walsh order statistics without enumeration
    y = rng.normal(size=300)
    _, lo, hi = wilcoxon_test(y, 0.95)
    w = np.sort(np.add.outer(y, y)[np.triu_indices(300)] / 2)
    N = w.size
    C = int(np.floor(N / 2 - stats.norm.ppf(0.975) * np.sqrt(300 * 301 * 601 / 24)))
    assert_allclose([lo, hi], [w[C - 1], w[N - C]], rtol=1e-9)


def test_t_and_nadeau_bengio_by_formula():
    x = np.array([0.3, -0.1, 0.8, 0.5, 0.2, 0.9])
    p, lo, hi = t_test(x, 0.95, "two-sided")
    ref = stats.ttest_1samp(x, 0)
    assert_allclose(p, ref.pvalue)
    assert_allclose([lo, hi], stats.t.interval(0.95, 5, loc=x.mean(), scale=stats.sem(x)))
    v = np.array([0.5, 0.7, 0.4, 0.6, 0.8])
    se = np.sqrt((1 / 5 + 0.25) * v.var(ddof=1))
    p, lo, hi = nadeau_bengio(v, 0.25, 0.95)
    assert_allclose(p, stats.t.sf(v.mean() / se, 4))
    assert_allclose([lo, hi], v.mean() + np.array([-1, 1]) * stats.t.ppf(0.975, 4) * se)


def test_bonferroni_widens_the_intervals(correlated):
    Xtr, ytr, Xte, yte = correlated
    a = ik.loco(LinearRegression(), Xtr, ytr, Xte, yte, test="sign", p_adjust="holm")
    b = ik.loco(LinearRegression(), Xtr, ytr, Xte, yte, test="sign", p_adjust="bonferroni")
    assert np.all(b.ci_low <= a.ci_low) and np.all(b.ci_high >= a.ci_high)
    assert_allclose(b.p_adjusted, np.minimum(1, 3 * b.p_value))


def test_cross_validation(correlated):
    Xtr, ytr, _, _ = correlated
    r = ik.loco(LinearRegression(), Xtr, ytr, cv=5, aggregate="mean", random_state=0)
    assert r.info["inference"] == "nadeau_bengio"
    assert r.extra["fold_importance"].shape == (3, 5)
    assert_allclose(r.importance, r.extra["fold_importance"].mean(axis=1))
    assert r.observation_importance.shape == (3, 700)
    # every row is tested once: the mean of Δ over rows weights folds by size (equal here)
    assert_allclose(r.observation_importance.mean(axis=1), r.importance, rtol=1e-10)
    assert r.p_adjusted[2] < 0.01 and np.all(r.p_adjusted[:2] > 0.05)
    # Nadeau–Bengio: the same corrected t gives the p-value and the (Bonferroni-level) interval
    f = r.to_frame(sort=False)
    assert_array_equal(f["significant"].to_numpy(), (f["ci_low"] > 0).to_numpy())


# --------------------------------------------------------------------------- invariances
def test_refits_seed_and_frame_invariance(correlated):
    Xtr, ytr, Xte, yte = correlated
    learner = RandomForestRegressor(n_estimators=5, max_depth=4)
    a = ik.loco(learner, Xtr[:200], ytr[:200], Xte, yte, n_refits=3, random_state=5)
    b = ik.loco(learner, Xtr[:200], ytr[:200], Xte, yte, n_refits=3, random_state=5)
    assert_array_equal(a.repeats, b.repeats)
    assert a.repeats.shape == (3, 3) and a.std[2] > 0  # x3: the refits differ
    c = ik.loco(learner, Xtr[:200].to_numpy(), ytr[:200], Xte.to_numpy(), yte, n_refits=3, random_state=5)
    assert_allclose(c.repeats, a.repeats, rtol=1e-12)
    one = ik.loco(learner, Xtr[:200], ytr[:200], Xte, yte, random_state=5)
    assert any("n_refits" in w for w in one.warnings)


# --------------------------------------------------------------------------- errors
class FailsWithoutX1(RegressorMixin, BaseEstimator):
    """Fits only when the column x1 is present (to check the error names the feature)."""

    def fit(self, X, y):
        if "x1" not in X.columns:
            raise ArithmeticError("no x1")
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_failing_refit_names_the_feature(correlated):
    Xtr, ytr, Xte, yte = correlated
    with pytest.raises(ModelError, match="feature 'x1'") as info:
        ik.loco(FailsWithoutX1(), Xtr, ytr, Xte, yte)
    assert isinstance(info.value.__cause__, ArithmeticError)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(learner=object()), TypeError, "'learner' must be an unfitted estimator"),
    (dict(learner=lambda: 3), TypeError, "returned int, which has no fit"),
    (dict(test="anova"), ValidationError, "'test' must be one of"),
    (dict(aggregate="mode"), ValidationError, "'aggregate' must be one of"),
    (dict(alternative="less"), ValidationError, "'alternative' must be one of"),
    (dict(p_adjust="fdr"), ValidationError, "'p_adjust' must be one of"),
    (dict(n_refits=0), ValidationError, "'n_refits' must be an int >= 1; got 0"),
    (dict(cv=1, X_test=None, y_test=None), ValidationError, "'cv' must be an int >= 2"),
    (dict(cv=3), ValidationError, "either a test set"),
    (dict(X_test=None, y_test=None), ValidationError, "required unless 'cv'"),
    (dict(features={"all": ["x1", "x2", "x3"]}), ValidationError, "removes every column"),
    (dict(loss="r2", aggregate="median"), ValidationError, "aggregate='mean'"),
    (dict(loss="log_loss", learner=LinearSVC()), ValidationError, "no predict_proba"),
    (dict(features=["x9"]), ValidationError, "Unknown feature 'x9'"),
])
def test_error_table(correlated, kwargs, exc, match):
    Xtr, ytr, Xte, yte = correlated
    args = dict(learner=LinearRegression(), X_train=Xtr, y_train=ytr, X_test=Xte, y_test=yte)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        ik.loco(**args)


def test_train_and_test_with_different_columns(correlated):
    Xtr, ytr, Xte, yte = correlated
    with pytest.raises(ValidationError, match="must have the same columns; missing in X_test: \\['x3'\\]"):
        ik.lofo(LinearRegression(), Xtr, ytr, Xte.drop(columns="x3"), yte)


def test_interval_belongs_to_the_point_estimate():
    # A skewed Δ (bike-like): the median and the pseudo-median differ, so an interval for the
    # pseudo-median could exclude the reported median. The default (test="auto") pairs the
    # median with the sign test and its inversion.
    rng = np.random.default_rng(5)
    n = 400
    X = pd.DataFrame({"a": rng.exponential(size=n), "b": rng.normal(size=n)})
    y = X["a"] ** 2 + 0.1 * rng.normal(size=n)
    r = ik.loco(LinearRegression(), X[:200], y[:200], X[200:], y[200:], random_state=0)
    assert r.info["test_used"] == "sign" and r.info["estimand"] == "median"
    assert np.all(r.ci_low <= r.importance) and np.all(r.importance <= r.ci_high)
    d = r.observation_importance[0]
    # Holm (the default) with m = 2: simultaneous Bonferroni-level intervals, 1 - 0.05/2
    p, lo, hi = sign_test(d, 0.975)
    assert_allclose([r.ci_low[0], r.ci_high[0]], [lo, hi])
    assert_allclose(r.p_value[0], p)
    assert_allclose(r.importance[0], np.median(d))
    m = ik.loco(LinearRegression(), X[:200], y[:200], X[200:], y[200:], aggregate="mean", test="t",
                random_state=0)
    assert np.all(m.ci_low <= m.importance) and np.all(m.importance <= m.ci_high)
    # an explicit Wilcoxon test makes the pseudo-median the estimand, and says so
    w = ik.loco(LinearRegression(), X[:200], y[:200], X[200:], y[200:], test="wilcoxon", random_state=0)
    assert_allclose(w.importance, [hodges_lehmann(x) for x in w.observation_importance])
    assert w.info["estimand"] == "pseudo_median" and any("pseudo-median" in t for t in w.warnings)
    assert np.all(w.ci_low <= w.importance) and np.all(w.importance <= w.ci_high)
    assert_allclose(w.extra["hodges_lehmann"][:, 0], w.importance)


# --------------------------------------------------------------------------- one procedure
def _samples():
    """Δ samples that stress the duality: continuous, skewed, many exact zeros, ties, tiny n."""
    rng = np.random.default_rng(11)
    out = []
    for n in (3, 5, 7, 12, 30, 49, 51, 80, 300):
        for shift in (-0.2, 0.0, 0.15, 0.3, 1.0):
            out.append(rng.normal(shift, 1, n))
            out.append(rng.exponential(1, n) - np.log(2) + shift)
            z = rng.normal(shift, 1, n)
            z[rng.uniform(size=n) < 0.4] = 0.0  # trees: many observations with Δ = 0
            out.append(z)
            out.append(np.round(rng.normal(shift, 1, n), 1))  # ties
    return out


@pytest.mark.parametrize("fn", [sign_test, wilcoxon_test, t_test])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_p_value_is_the_inverted_interval(fn, level):
    a = (1 - level) / 2
    for d in _samples():
        p, lo, hi = fn(d, level, "greater")
        assert (p <= a) == (np.isfinite(lo) and lo > 0), (fn.__name__, d.size, p, lo)
        p2, lo2, hi2 = fn(d, level, "two-sided")
        assert (lo2, hi2) == (lo, hi) or (np.isnan(lo) and np.isnan(lo2))
        excludes = np.isfinite(lo2) and (lo2 > 0 or hi2 < 0)
        assert (p2 <= 2 * a) == excludes, (fn.__name__, d.size, p2, lo2, hi2)


def test_sign_test_counts_zeros_against_the_alternative():
    d = np.array([0.0, 0.0, 0.5, 0.7, 0.2, 0.9, 1.1, 0.3])
    p, lo, _ = sign_test(d, 0.95)
    assert_allclose(p, stats.binom.cdf(2, 8, 0.5))  # k = #{Δ <= 0} = 2
    assert lo == 0.0  # the interval's lower end is a zero, so 0 is not excluded
    assert p > 0.025


@pytest.mark.parametrize("alternative", ["greater", "two-sided"])
@pytest.mark.parametrize("p_adjust", ["holm", "bonferroni", None])
@pytest.mark.parametrize("aggregate, test", [("median", "auto"), ("mean", "auto"), ("pseudo_median", "auto"),
                                             ("median", "wilcoxon"), ("median", "t"), ("mean", "sign")])
def test_significant_iff_interval_excludes_zero(correlated, aggregate, test, p_adjust, alternative):
    Xtr, ytr, Xte, yte = correlated
    rng = np.random.default_rng(3)
    # the course's example plus pure-noise features (random data: nothing to find)
    noise = pd.DataFrame(rng.normal(size=(1000, 3)), columns=["n1", "n2", "n3"])
    Xtr, Xte = pd.concat([Xtr, noise[:700].set_index(Xtr.index)], axis=1), \
        pd.concat([Xte, noise[700:].set_index(Xte.index)], axis=1)
    r = ik.loco(LinearRegression(), Xtr, ytr, Xte[:120], yte[:120], aggregate=aggregate, test=test,
                p_adjust=p_adjust, alternative=alternative, random_state=0)
    f = r.to_frame(sort=False)
    if alternative == "greater":
        excludes = f["ci_low"] > 0
    else:
        excludes = (f["ci_low"] > 0) | (f["ci_high"] < 0)
    # Bonferroni (and no correction): the p-value is the interval's; Holm may reject more, and
    # the features where it does are marked.
    expected = excludes.to_numpy() | (r.extra["holm_beyond_interval"] if p_adjust == "holm" else False)
    assert_array_equal(f["significant"].to_numpy(), expected)
    assert f.loc["x3", "significant"]  # the one feature the learner needs
    assert np.all(f["ci_low"] <= f["importance"]) and np.all(f["importance"] <= f["ci_high"])
    if p_adjust is not None:
        assert_allclose(r.p_adjusted, multipletests(r.p_value, method=p_adjust)[1])


