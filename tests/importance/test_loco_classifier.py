"""LOCO of a classifier: the default (mean Brier difference, t-interval) measures something.

The course's LOCO is the median of the per-row loss differences (Lei et al. 2018). For a
classifier that predicts most rows with certainty both fits give those rows the same loss, so
the median is exactly 0 for every feature; the default for classification is the mean (the
change in risk) with its t-interval.
"""
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import train_test_split

import imlkit as ik


def _brier(model, X, y):
    """Σ_c (p_c − 1{y=c})² per row, computed here independently of imlkit."""
    P = model.predict_proba(X)
    onehot = (np.asarray(y)[:, None] == model.classes_[None, :]).astype(float)
    return ((P - onehot) ** 2).sum(axis=1)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return train_test_split(X, y, test_size=0.3, random_state=0)


@pytest.fixture(scope="module")
def forest_loco(cancer):
    Xtr, Xte, ytr, yte = cancer
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    return ik.loco(forest, Xtr, ytr, Xte, yte, random_state=0), forest


def test_forest_on_breast_cancer_is_not_all_zero(cancer, forest_loco):
    Xtr, Xte, ytr, yte = cancer
    r, forest = forest_loco
    assert r.params["aggregate"] == "mean" and r.params["aggregate_requested"] == "auto"
    assert r.info["test_used"] == "t" and r.loss == "brier"
    assert np.count_nonzero(r.importance) >= 20
    # Known answer: the forest's random_state is fixed (kept for one refit), so the full and the
    # reduced fits are reproducible here; LOCO_j is the mean Brier difference on the test rows.
    full = _brier(RandomForestClassifier(n_estimators=10, random_state=0).fit(Xtr, ytr), Xte, yte)
    m = len(r.feature_names)
    for name in ("worst area", "mean texture", "worst concave points"):
        j = r.feature_names.index(name)
        red = RandomForestClassifier(n_estimators=10, random_state=0).fit(Xtr.drop(columns=name), ytr)
        delta = _brier(red, Xte.drop(columns=name), yte) - full
        assert_allclose(r.observation_importance[j], delta, atol=1e-12)
        assert_allclose(r.importance[j], delta.mean(), rtol=1e-10)
        # the t-interval at the simultaneous (Bonferroni) level 1 − 0.05/m, and the one-sided t-test
        lo, hi = stats.t.interval(1 - 0.05 / m, len(delta) - 1, loc=delta.mean(), scale=stats.sem(delta))
        assert_allclose([r.ci_low[j], r.ci_high[j]], [lo, hi], rtol=1e-10)
        assert_allclose(r.p_value[j], stats.ttest_1samp(delta, 0.0, alternative="greater").pvalue, rtol=1e-10)


def test_the_median_collapses_and_says_so(cancer):
    # What the default avoids: with the median half or more of the rows have Δ = 0 exactly.
    Xtr, Xte, ytr, yte = cancer
    cols = ["worst area", "mean texture", "worst concave points", "mean smoothness"]
    r = ik.loco(RandomForestClassifier(n_estimators=10, random_state=0), Xtr[cols], ytr, Xte[cols], yte,
                aggregate="median", random_state=0)
    assert r.params["aggregate"] == "median" and r.info["test_used"] == "sign"
    zero = np.mean(r.observation_importance == 0, axis=1)
    assert_array_equal(r.importance, 0.0)
    assert np.all(zero >= 0.1)
    assert any("LOCO is exactly 0 for" in w and "aggregate='mean'" in w for w in r.warnings)
    assert any("typical of a classifier predicting with certainty" in w for w in r.warnings)
    assert "LOCO is exactly 0 for" in r.explain()


def _logistic_data(seed, n_train=200, n_test=200, n_big=5000):
    rng = np.random.default_rng(seed)
    n = n_train + n_test + n_big
    X = rng.normal(size=(n, 2))                       # x0 matters, x1 is irrelevant (array: columns x0, x1)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-1.5 * X[:, 0]))).astype(int)
    a, b = n_train, n_train + n_test
    return X[:a], y[:a], X[a:b], y[a:b], X[b:], y[b:]


def test_logistic_irrelevant_feature_interval_covers_zero():
    Xtr, ytr, Xte, yte, _, _ = _logistic_data(1)
    r = ik.loco(LogisticRegression(), Xtr, ytr, Xte, yte, random_state=0)
    f = r.to_frame(sort=False)
    assert f.loc["x0", "significant"] and f.loc["x0", "ci_low"] > 0.05   # Brier rises by ~0.1 without x0
    assert f.loc["x1", "ci_low"] <= 0 <= f.loc["x1", "ci_high"] and not f.loc["x1", "significant"]


def test_logistic_interval_coverage():
    # The estimand is conditional on the training data: R(f_-x1) − R(f) for the two fitted
    # models, approximated on 5000 fresh rows. Nominal coverage of each interval is
    # 1 − 0.05/2 = 0.975 (Bonferroni over 2 features); 60 independent data sets. An interval
    # half as wide would cover ~75%: P(coverage <= 53/60) is below 1e-3 at the nominal 0.975.
    covered = covered_zero = 0
    R = 60
    for seed in range(R):
        Xtr, ytr, Xte, yte, Xbig, ybig = _logistic_data(100 + seed)
        r = ik.loco(LogisticRegression(), Xtr, ytr, Xte, yte, random_state=0)
        full = LogisticRegression().fit(Xtr, ytr)
        red = LogisticRegression().fit(Xtr[:, :1], ytr)
        target = np.mean(_brier(red, Xbig[:, :1], ybig) - _brier(full, Xbig, ybig))
        covered += r.ci_low[1] <= target <= r.ci_high[1]
        covered_zero += r.ci_low[1] <= 0 <= r.ci_high[1]
    assert covered >= 54, covered
    assert covered_zero >= 54, covered_zero


def test_regression_keeps_the_median_and_the_sign_test():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = 2 * X[:, 0] + rng.normal(size=300)
    r = ik.loco(LinearRegression(), X[:200], y[:200], X[200:], y[200:], random_state=0)
    assert r.params["aggregate"] == "median" and r.info["test_used"] == "sign" and r.loss == "absolute_error"
    full = np.abs(y[200:] - LinearRegression().fit(X[:200], y[:200]).predict(X[200:]))
    red = np.abs(y[200:] - LinearRegression().fit(X[:200, 1:], y[:200]).predict(X[200:, 1:]))
    assert_allclose(r.importance[0], np.median(red - full), rtol=1e-10)


def test_explicit_aggregate_is_kept_and_auto_for_scores():
    Xtr, ytr, Xte, yte, _, _ = _logistic_data(2)
    r = ik.loco(LogisticRegression(), Xtr, ytr, Xte, yte, aggregate="pseudo_median", random_state=0)
    assert r.params["aggregate"] == "pseudo_median" and r.info["test_used"] == "wilcoxon"
    assert "aggregate_requested" not in r.params
    # an aggregate-only score cannot have a median: auto takes the mean (and no pointwise test)
    s = ik.loco(LogisticRegression(), Xtr, ytr, Xte, yte, loss="roc_auc", random_state=0)
    assert s.params["aggregate"] == "mean" and s.info["test_used"] is None
    assert s.importance[0] > 0.1


def test_lofo_default_does_not_collapse(cancer):
    # LOFO's own default (mean log loss) counts every row: non-zero on the same forest.
    Xtr, Xte, ytr, yte = cancer
    cols = ["worst area", "mean texture", "worst concave points", "mean smoothness"]
    r = ik.lofo(RandomForestClassifier(n_estimators=10, random_state=0), Xtr[cols], ytr, Xte[cols], yte,
                random_state=0)
    assert r.params["aggregate"] == "mean" and r.loss == "log_loss"
    assert np.all(r.importance != 0)
