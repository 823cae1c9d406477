"""RuleFit: candidate count, importance formula, a planted interaction, probabilities, errors."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from imlkit._validation import ValidationError
from imlkit.datasets import load_penguins
from imlkit.models import RuleFit
from imlkit.models._l1 import l1_logistic_path, lambda_max
from imlkit.models._rules import rule_masks


def interaction(n=800, seed=0):
    """y = 3·1(x1 > 0 and x2 > 0) + x3 + noise, x ~ U(-1, 1)^4."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(n, 4)), columns=["x1", "x2", "x3", "x4"])
    y = 3.0 * ((X.x1 > 0) & (X.x2 > 0)) + X.x3 + rng.normal(scale=0.3, size=n)
    return X, y.to_numpy()


@pytest.fixture(scope="module")
def fitted():
    X, y = interaction()
    return X, y, RuleFit(n_estimators=60, random_state=0).fit(X, y)


def test_candidate_count_is_sum_over_trees(fitted):
    _, _, m = fitted
    # K = Σ_m 2(t_m − 1), t_m the terminal nodes of tree m
    assert m.n_candidate_rules_ == sum(2 * (t.get_n_leaves() - 1) for t in m.estimators_)
    sizes = [t.get_n_leaves() for t in m.estimators_]
    assert min(sizes) >= 2 and len(set(sizes)) > 1  # random tree sizes
    assert len(m.candidate_rules_) <= m.n_candidate_rules_  # after removing duplicates
    texts = [frozenset(r.conditions) for r in m.candidate_rules_]
    assert len(set(texts)) == len(texts)


def test_planted_interaction_and_linear_term(fitted):
    X, y, m = fitted
    rules = m.rules_[m.rules_.type == "rule"]
    top = rules.iloc[0]
    assert "x1" in top.rule and "x2" in top.rule
    lin = m.rules_.set_index("rule").query("type == 'linear'")
    assert "x3" in lin.index
    # x3 enters linearly with a slope near 1 (per unit of x3; rules on x3 may take a little)
    assert 0.6 < lin.loc["x3", "weight"] < 1.2
    Xt, yt = interaction(seed=1)
    assert m.score(Xt, yt) > 0.85


def test_importance_formula(fitted):
    X, _, m = fitted
    tab = m.rules_
    r = tab[tab.type == "rule"]
    # |α_k|·sqrt(s_k(1 − s_k)) with s_k the rule's support on the training rows
    texts = [c.antecedent for c in m.candidate_rules_]
    rules = [m.candidate_rules_[texts.index(t)] for t in r.rule]
    s = rule_masks(rules, X).mean(axis=0)
    assert_allclose(r.support, s)
    assert_allclose(r.importance, np.abs(r.weight) * np.sqrt(s * (1 - s)), rtol=1e-12)
    # linear: |β_j|·std(l_j) with l_j the winsorised x_j scaled to sd 0.4; weight is per unit of x
    lin = tab[tab.type == "linear"]
    for _, row in lin.iterrows():
        x = X[row.rule].to_numpy()
        lo, hi = np.quantile(x, [0.025, 0.975])
        assert_allclose(row.importance, abs(row.weight) * np.clip(x, lo, hi).std(), rtol=1e-10)
    assert np.all(np.diff(tab.importance.to_numpy()) <= 0)  # sorted


def test_binary_probabilities_are_sigmoid_of_f():
    X, y = interaction(n=500)
    lab = np.where(y > 1.0, "big", "small")
    m = RuleFit(n_estimators=40, cv=3, random_state=1).fit(X, lab)
    f = m.decision_function(X)
    P = m.predict_proba(X)
    assert_allclose(P[:, 1], 1 / (1 + np.exp(-f)), rtol=1e-12)
    assert np.array_equal(m.predict(X), m.classes_[(P[:, 1] > 0.5).astype(int)])
    assert m.score(X, lab) > 0.85


def test_multiclass_one_vs_rest_with_categoricals():
    X, y = load_penguins()
    idx = np.random.default_rng(0).permutation(len(y))
    tr, te = idx[:230], idx[230:]
    m = RuleFit(n_estimators=40, cv=3, random_state=0).fit(X.iloc[tr], y.iloc[tr])
    assert m.score(X.iloc[te], y.iloc[te].to_numpy()) >= 0.9
    assert {f"weight[{c}]" for c in m.classes_} <= set(m.rules_.columns)
    assert_allclose(m.predict_proba(X.iloc[te]).sum(axis=1), 1.0)


def test_rf_generator_and_seed():
    X, y = interaction(n=400)
    a = RuleFit(generator="rf", n_estimators=30, cv=3, random_state=5).fit(X, y)
    b = RuleFit(generator="rf", n_estimators=30, cv=3, random_state=5).fit(X, y)
    assert_allclose(a.predict(X), b.predict(X))
    assert a.n_candidate_rules_ == sum(2 * (t.get_n_leaves() - 1) for t in a.estimators_)


def test_l1_logistic_path_matches_sklearn():
    from sklearn.linear_model import LogisticRegression
    rng = np.random.default_rng(0)
    n = 300
    X = (rng.uniform(size=(n, 15)) < 0.4).astype(float)
    y = (X[:, :3].sum(1) + rng.normal(size=n) > 1.2).astype(float)
    lam = lambda_max(X, y) * np.array([1.0, 0.3, 0.05])
    B, C = l1_logistic_path(X, y, lam)
    assert np.all(C[0] == 0)
    ref = LogisticRegression(C=1 / (n * lam[2]), l1_ratio=1.0, solver="saga", tol=1e-10, max_iter=100000).fit(X, y)
    # both solve the same convex problem; 1e-4 is the solvers' stopping precision
    assert_allclose(C[2], ref.coef_[0], atol=1e-4)
    assert_allclose(B[2], ref.intercept_[0], atol=1e-4)


@pytest.mark.parametrize("kwargs, y, exc, match", [
    ({"task": "regression"}, np.array(["a", "b"] * 50), ValidationError, "'y' must be numeric for regression"),
    ({}, np.array(["a"] * 100), ValidationError, "at least 2 classes"),
    ({"generator": "xgb"}, None, ValidationError, "'generator' must be one of 'gbm', 'rf'"),
    ({"mean_tree_size": 1}, None, ValidationError, "'mean_tree_size' must be a number >= 2"),
    ({"cv": 1}, None, ValidationError, "'cv' must be an int >= 2"),
    ({"winsorize": 0.5}, None, ValidationError, "'winsorize' must be"),
])
def test_errors(kwargs, y, exc, match):
    X = pd.DataFrame({"x": np.arange(100.0)})
    if y is None:
        y = np.arange(100.0)
    with pytest.raises(exc, match=match):
        RuleFit(**kwargs).fit(X, y)


@pytest.mark.parametrize("name", ["iris", "wine"])
@pytest.mark.parametrize("labels", ["codes", "strings"])
def test_multiclass_sklearn_data_integer_or_string_labels(name, labels):
    """task='auto' on integer class codes is classification; P = σ(f_k) / Σ_l σ(f_l) rows sum to 1."""
    from sklearn.datasets import load_iris, load_wine
    from sklearn.metrics import log_loss
    from sklearn.model_selection import train_test_split

    import imlkit as ik

    d = (load_iris if name == "iris" else load_wine)(as_frame=True)
    y = d.target if labels == "codes" else pd.Series(d.target_names[d.target])
    Xtr, Xte, ytr, yte = train_test_split(d.data, y, test_size=0.3, random_state=0, stratify=y)
    m = RuleFit(n_estimators=30, cv=3, random_state=0).fit(Xtr, ytr)
    assert m.task_ == "classification"
    assert list(m.classes_) == sorted(pd.unique(y))
    P = m.predict_proba(Xte)
    assert P.shape == (len(yte), 3)
    assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    S = 1 / (1 + np.exp(-m.decision_function(Xte)))
    assert_allclose(P, S / S.sum(axis=1, keepdims=True), rtol=1e-7, atol=1e-14)  # tanh vs exp form of σ
    # a floor well under what RuleFit reaches here (iris 1.0, wine 0.98) but far above chance (1/3)
    assert m.score(Xte, yte.to_numpy()) >= 0.85
    assert log_loss(yte, P, labels=m.classes_) < 0.5
    # imlkit's probability losses take it as a classifier

    r = ik.pfi(m, Xte, yte, loss="log_loss", features=list(Xte.columns[:2]), n_repeats=2, random_state=0)
    assert np.isfinite(r.to_frame()["importance"]).all()


def test_auto_task_uses_the_shared_continuous_rule():
    X = pd.DataFrame({"x": np.arange(100.0)})
    assert RuleFit(n_estimators=5, cv=2, random_state=0).fit(X, np.arange(100) % 3).task_ == "classification"
    assert RuleFit(n_estimators=5, cv=2, random_state=0).fit(X, np.arange(100.0) / 7).task_ == "regression"
    assert RuleFit(n_estimators=5, cv=2, random_state=0).fit(X, np.arange(100)).task_ == "regression"


def test_max_rows_fits_on_a_seeded_subsample():
    """n > max_rows: the fit equals RuleFit on the subsample itself (same seeds for trees and folds)."""
    from imlkit._validation import as_seed_sequence

    X, y = interaction(n=800)
    a = RuleFit(n_estimators=20, cv=3, max_rows=300, random_state=0).fit(X, y)
    assert a.n_rows_used_ == 300
    rows = a._row_subsample(800, None, np.random.default_rng(as_seed_sequence(0).spawn(3)[2]))
    b = RuleFit(n_estimators=20, cv=3, max_rows=None, random_state=0).fit(X.iloc[rows], y[rows])
    assert b.n_rows_used_ == 300
    assert_allclose(a.predict(X), b.predict(X), rtol=1e-12)
    assert RuleFit(n_estimators=5, cv=2, random_state=0).fit(X, y).n_rows_used_ == 800  # default 20,000


def test_max_rows_subsample_keeps_every_class_share():
    codes = np.r_[np.zeros(900, int), np.ones(95, int), np.full(5, 2)]
    rows = RuleFit(max_rows=100)._row_subsample(1000, codes, np.random.default_rng(0))
    assert len(rows) == 100 and len(np.unique(rows)) == 100
    assert np.bincount(codes[rows]).tolist() == [90, 9, 1]  # shares 90%, 9.5%, 0.5% -> at least one row


def test_lasso_cv_equals_sklearn_lassocv():
    """Same grid, folds and criterion as LassoCV; the final fit is warm-started along the path."""
    from sklearn.linear_model import LassoCV
    from sklearn.model_selection import KFold

    from imlkit.models._l1 import lasso_cv

    rng = np.random.default_rng(0)
    n = 400
    X = (rng.uniform(size=(n, 40)) < 0.3).astype(float)
    y = X[:, :4] @ np.array([2.0, -1.0, 1.0, 0.5]) + rng.normal(size=n)
    folds = list(KFold(5, shuffle=True, random_state=1).split(X))
    b, coef, lam = lasso_cv(X, y, folds, n_lambdas=20)
    ref = LassoCV(cv=folds, alphas=20, eps=1e-3, max_iter=5000, tol=1e-10).fit(X, y)
    assert_allclose(lam, ref.alpha_, rtol=1e-10)
    # coordinate descent stops at a duality-gap tolerance: both solve the same convex problem
    assert_allclose(coef, ref.coef_, atol=1e-3)
    assert_allclose(b, ref.intercept_, atol=1e-3)
