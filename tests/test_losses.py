"""Losses by task (``loss=None``), scikit-learn scorer names, and the clear errors around them."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import balanced_accuracy_score, log_loss, roc_auc_score
from sklearn.tree import DecisionTreeClassifier

import imlkit as ik
from imlkit._losses import get_loss
from imlkit._validation import ModelError, ValidationError


@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=["a", "b", "noise"])
    y = np.where(2 * X["a"] + X["b"] + 0.5 * rng.normal(size=400) > 0, "yes", "no")
    return X, y, LogisticRegression().fit(X, y)


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(500, 2)), columns=["a", "b"])
    y = 2 * X["a"].to_numpy() + 0.5 * X["b"].to_numpy() + 0.2 * rng.normal(size=500)
    return X, y, LinearRegression().fit(X, y)


class OnlyA:
    """A classifier whose probabilities depend on column 'a' only (classes 'no', 'yes')."""

    classes_ = np.array(["no", "yes"])

    def predict_proba(self, X):
        p = 1 / (1 + np.exp(-3 * X["a"].to_numpy()))
        return np.column_stack([1 - p, p])

    def predict(self, X):
        return self.classes_[(self.predict_proba(X)[:, 1] > 0.5).astype(int)]


def test_pointwise_losses_known_values():
    p = np.array([[0.2, 0.8], [0.6, 0.4]])
    y = np.array([1, 1])
    assert_allclose(get_loss("brier").pointwise(y, p), [0.08, 0.72])  # (0.2² + 0.2², 0.6² + 0.6²)
    assert_allclose(get_loss("log_loss").pointwise(y, p), -np.log([0.8, 0.4]))


def test_accuracy_equals_zero_one(binary):
    X, y, m = binary
    a = ik.pfi(m, X, y, loss="accuracy", n_repeats=4, random_state=3)
    z = ik.pfi(m, X, y, loss="zero_one", n_repeats=4, random_state=3)
    assert_allclose(a.importance, z.importance, atol=1e-12)
    assert_allclose(a.repeats, z.repeats, atol=1e-12)


@pytest.mark.parametrize("scorer,loss", [("neg_mean_squared_error", "squared_error"),
                                         ("neg_mean_absolute_error", "absolute_error")])
def test_neg_scorers_equal_the_loss_they_negate(regression, scorer, loss):
    X, y, m = regression
    s = ik.pfi(m, X, y, loss=scorer, n_repeats=4, random_state=0)
    ref = ik.pfi(m, X, y, loss=loss, n_repeats=4, random_state=0)
    assert_allclose(s.importance, ref.importance, rtol=1e-10)
    assert_allclose(s.baseline_loss, ref.baseline_loss, rtol=1e-10)
    assert s.loss == scorer and s.observation_importance is None


def test_linear_pfi_known_answer_with_scorer(regression):
    """PFI of a linear model = 2·β²·Var(x) also through the scorer name."""
    X, y, m = regression
    r = ik.pfi(m, X, y, loss="neg_mean_squared_error", n_repeats=20, random_state=0)
    expected = 2 * m.coef_ ** 2 * X.var(ddof=0).to_numpy()
    assert_allclose(r.importance, expected, rtol=0.1)


def test_roc_auc_uses_positive_class_probability(binary):
    X, y, _ = binary
    m = OnlyA()
    r = ik.pfi(m, X, y, loss="roc_auc", n_repeats=3, random_state=0)
    assert_allclose(r.baseline_loss, roc_auc_score(y == "yes", m.predict_proba(X)[:, 1]))
    assert r.importance[0] > 0.2                       # a drop in AUC: bigger = more important
    assert_allclose(r.importance[1:], 0.0, atol=1e-12)   # columns the model ignores


def test_label_scorer_matches_sklearn(binary):
    X, y, m = binary
    r = ik.pfi(m, X, y, loss="balanced_accuracy", n_repeats=2, random_state=0)
    assert_allclose(r.baseline_loss, balanced_accuracy_score(y, m.predict(X)))


def test_multiclass_scorers():
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    y = np.array(["r", "g", "b"])[np.digitize(X["a"] + 0.3 * rng.normal(size=300), [-0.5, 0.5])]
    m = LogisticRegression().fit(X, y)
    r = ik.pfi(m, X, y, loss="roc_auc_ovr", n_repeats=2, random_state=0)
    assert_allclose(r.baseline_loss, roc_auc_score(y, m.predict_proba(X), multi_class="ovr", labels=m.classes_))
    assert r.importance[0] > r.importance[1]
    neg = ik.pfi(m, X, y, loss="neg_log_loss", n_repeats=2, random_state=0)
    assert_allclose(neg.baseline_loss, log_loss(y, m.predict_proba(X), labels=m.classes_))
    with pytest.raises(ValidationError, match="'roc_auc' cannot be computed.*roc_auc_ovr"):
        ik.pfi(m, X, y, loss="roc_auc", n_repeats=2)


def test_unknown_loss_names_scorers():
    with pytest.raises(ValidationError, match="scikit-learn scorer name"):
        get_loss("auc_roc")


@pytest.mark.filterwarnings("ignore:SAGE did not converge")
def test_default_losses_by_task(binary, regression):
    X, y, m = binary
    Xr, yr, mr = regression
    assert ik.pfi(m, X, y, n_repeats=2).loss == "log_loss"
    assert ik.sage(m, X, y, n_background=8, max_permutations=32, random_state=0).loss == "log_loss"
    assert ik.pfi(mr, Xr, yr, n_repeats=2).loss == "squared_error"
    kw = dict(random_state=0)
    # LOCO on a classifier: Brier score (string labels work), never absolute error on labels
    r = ik.loco(LogisticRegression(), X[:300], y[:300], X[300:], y[300:], **kw)
    assert r.loss == "brier" and r.importance[0] > 0.01 and r.p_value[0] < 0.01
    assert ik.lofo(LogisticRegression(), X[:300], y[:300], X[300:], y[300:], **kw).loss == "log_loss"
    assert ik.loco(LinearRegression(), Xr[:400], yr[:400], Xr[400:], yr[400:], **kw).loss == "absolute_error"
    assert ik.lofo(LinearRegression(), Xr[:400], yr[:400], Xr[400:], yr[400:], **kw).loss == "squared_error"
    p = ik.pimp(LogisticRegression(), X[:300], y[:300], X[300:], y[300:], importance="loco", n_null=2, **kw)
    assert p.loss == "brier"
    # without predict_proba: the label loss
    from sklearn.svm import LinearSVC

    assert ik.pfi(LinearSVC().fit(X, y), X, y, n_repeats=2).loss == "zero_one"


def test_loco_with_integer_labels_is_not_zero(binary):
    """The issue's first row: integer labels with a forest gave LOCO exactly 0 everywhere."""
    X, y, _ = binary
    yi = (y == "yes").astype(int)
    r = ik.loco(LogisticRegression(), X[:300], yi[:300], X[300:], yi[300:], random_state=0)
    assert r.loss == "brier" and r.importance[0] > 0.01


def test_pointwise_methods_refuse_scorers(binary):
    X, y, m = binary
    with pytest.raises(ValidationError, match="LOCO with aggregate='median' needs a pointwise loss.*'brier'"):
        ik.loco(LogisticRegression(), X[:300], y[:300], X[300:], y[300:], loss="roc_auc", aggregate="median")
    # LOCO's default for an aggregate-only score is the mean difference of the score (no pointwise loss needed)
    r = ik.loco(LogisticRegression(), X[:300], y[:300], X[300:], y[300:], loss="roc_auc", random_state=0)
    assert r.params["aggregate"] == "mean" and np.isfinite(r.importance).all()
    with pytest.raises(ValidationError, match="SAGE needs a pointwise loss.*'log_loss'"):
        ik.sage(m, X, y, loss="roc_auc")
    # LOFO averages: a scorer is fine
    r = ik.lofo(LogisticRegression(), X[:300], y[:300], X[300:], y[300:], loss="roc_auc", random_state=0)
    assert r.importance[0] > 0 and np.isfinite(r.importance).all()


def test_clear_errors(binary):
    X, y, m = binary
    with pytest.raises(ModelError, match="LogisticRegression.*is not fitted; fit it first"):
        ik.pfi(LogisticRegression(), X, y)
    with pytest.raises(ModelError, match="not fitted"):
        ik.ale(DecisionTreeClassifier(), X, "a")
    from sklearn.svm import LinearSVC

    with pytest.raises(ValidationError, match="has no predict_proba"):
        ik.pfi(LinearSVC().fit(X, y), X, y, loss="log_loss")
    with pytest.raises(ValidationError, match="label 'maybe', which is not among the model's classes"):
        ik.pfi(m, X, np.where(np.arange(len(y)) == 5, "maybe", y), loss="log_loss")


def test_scorer_losses_pickle_and_do_not_depend_on_n_jobs(binary):
    import pickle

    from joblib import parallel_config

    X, y, m = binary
    loss = pickle.loads(pickle.dumps(get_loss("roc_auc")))
    assert_allclose(loss.aggregate(np.array([0, 1, 1, 0]), np.array([[.9, .1], [.2, .8], [.4, .6], [.3, .7]])), 0.75)
    one = ik.pfi(m, X, y, loss="roc_auc", n_repeats=3, random_state=5, n_jobs=1)
    with parallel_config(backend="threading"):
        two = ik.pfi(m, X, y, loss="roc_auc", n_repeats=3, random_state=5, n_jobs=2)
    assert_allclose(one.importance, two.importance, rtol=0, atol=0)
