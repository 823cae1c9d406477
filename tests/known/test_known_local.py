"""Known answers for local explanations: the shap library on the same game, efficiency, the tie to SAGE.

Interventional SHAP with background rows z_1..z_B is the Shapley value of v_x(S) = 1/B Σ_b f(x_S, z_b,S̄)
(Lundberg & Lee 2017; Janzing et al. 2020). Exact methods on the same background must agree to
rounding; the permutation estimator within its own standard errors.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik

shap_lib = pytest.importorskip("shap")


def _data(n, seed, p=4):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    X["x1"] = 0.6 * X["x0"] + 0.8 * X["x1"]  # correlated: interventional SHAP must not care
    y = 2 * X["x0"] - X["x1"] + X["x2"] * X["x3"] + 0.3 * rng.normal(size=n)
    return X, y.to_numpy()


@pytest.mark.parametrize("name", ["forest", "boosting"])
def test_tree_shap_equals_shap_interventional_tree_explainer(name):
    # shap.TreeExplainer(feature_perturbation="interventional") with the same background rows
    # computes the same Shapley values exactly (Lundberg et al. 2020, Algorithm "Interventional
    # Tree SHAP"): agreement to rounding (1e-8 of the output's scale).
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor

    X, y = _data(400, 0)
    model = (RandomForestRegressor(n_estimators=15, max_depth=6, random_state=0) if name == "forest"
             else GradientBoostingRegressor(n_estimators=40, max_depth=3, random_state=0)).fit(X, y)
    bg = X.iloc[:50]
    rows = X.iloc[100:140]
    ours = ik.shap(model, rows, background=bg, random_state=0)
    assert ours.extra["engine"] == "trees"
    theirs = shap_lib.TreeExplainer(model, data=bg, feature_perturbation="interventional").shap_values(rows)
    assert_allclose(ours.values, theirs, rtol=1e-7, atol=1e-8 * np.abs(y).max())
    assert_allclose(ours.base_values, model.predict(bg).mean(), rtol=1e-10)


def _black_box_case():
    X, _ = _data(300, 1)

    def f(A):  # a non-additive black box with interactions of three features
        A = np.asarray(A, dtype=float)
        return np.sin(A[:, 0]) * A[:, 1] + A[:, 2] * A[:, 3] ** 2 + np.maximum(A[:, 0] + A[:, 2], 0)

    bg = X.iloc[:40].to_numpy()
    rows = X.iloc[200:215].to_numpy()
    return f, bg, rows, ik.shap(f, rows, background=bg, exact=True, random_state=0)


def test_exact_shap_equals_shap_kernel_explainer_on_a_black_box():
    # A model without trees: imlkit's exact enumeration (2^4 coalitions) against shap's
    # KernelExplainer on the same background: its weighted regression on all 2^4 − 2 coalitions
    # (nsamples = 2^m enumerates them) is the exact Shapley value; its solver adds ~1e-8.
    f, bg, rows, ours = _black_box_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kern = shap_lib.KernelExplainer(f, bg).shap_values(rows, nsamples=2 ** 4, silent=True)
    assert_allclose(ours.values, kern, atol=1e-6)
    assert_allclose(ours.values.sum(axis=1), f(rows) - f(bg).mean(), rtol=1e-10, atol=1e-10)


@pytest.mark.slow
def test_exact_shap_equals_shap_exact_explainer_on_a_black_box():
    # shap's ExactExplainer with an Independent masker over the same background rows: the same
    # exact Shapley values, to rounding. (Slow only because shap compiles its numba kernels at
    # every start, ~20 s.)
    f, bg, rows, ours = _black_box_case()
    masker = shap_lib.maskers.Independent(bg, max_samples=len(bg))
    ex = shap_lib.explainers.Exact(f, masker)(rows[:3], silent=True)
    assert_allclose(ours.values[:3], ex.values, rtol=1e-9, atol=1e-9)
    assert_allclose(ours.base_values[:3], ex.base_values, rtol=1e-10)


def test_efficiency_prediction_logit_and_loss_outputs():
    # Efficiency: Σ_j φ_j(x) = v_x(N) − v_x(∅): f(x) − E_b f(z_b) for the prediction, the same on
    # the log-odds scale (link="logit" explains logit p; its base value is the mean logit over the
    # background), and ℓ(y, f_∅) − ℓ(y, f(x)) for the loss. Exactly for exact enumeration; for the
    # permutation estimator exactly too (orderings telescope).
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPRegressor

    X, y = _data(200, 2)
    reg = MLPRegressor(hidden_layer_sizes=(8,), max_iter=300, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg.fit(X, y)
    rows = X.iloc[:12]
    for exact in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = ik.shap(reg, rows, background=X.iloc[100:130], exact=exact, n_permutations=16, random_state=0)
        assert_allclose(r.values.sum(axis=1), reg.predict(rows) - reg.predict(X.iloc[100:130]).mean(), rtol=1e-9,
                        atol=1e-9)
    clf = LogisticRegression().fit(X, y > 0)
    r = ik.shap(clf, rows, background=X.iloc[100:130], link="logit", random_state=0)
    logit = clf.decision_function(rows)
    assert_allclose(r.values.sum(axis=1) + r.base_values, logit, rtol=1e-8, atol=1e-8)
    # a linear logit: φ_j = w_j (x_j − mean_b z_bj) exactly (Lundberg & Lee 2017, linear SHAP)
    assert_allclose(r.values, clf.coef_[0] * (rows.to_numpy() - X.iloc[100:130].to_numpy().mean(axis=0)),
                    rtol=1e-8, atol=1e-8)
    lr = ik.shap(reg, rows, y=y[:12], output="loss", background=X.iloc[100:130], random_state=0)
    bg_mean = reg.predict(X.iloc[100:130]).mean()
    assert_allclose(lr.values.sum(axis=1), (y[:12] - bg_mean) ** 2 - (y[:12] - reg.predict(rows)) ** 2, rtol=1e-9)


@pytest.mark.parametrize("kind", ["regression", "classification"])
def test_mean_loss_shap_is_marginal_sage_exactly(kind):
    # Covert et al. (2020): SAGE's v(S) is the mean over rows of the row games v_i(S) =
    # ℓ(y_i, f_∅) − ℓ(y_i, f_S(x_i)); Shapley values are linear in the game, so the mean over the
    # rows of the loss-SHAP values is SAGE's values -- exactly, with the same background and loss.
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsRegressor

    X, y = _data(120, 3)
    if kind == "regression":
        model, loss, target = KNeighborsRegressor(n_neighbors=5).fit(X, y), "squared_error", y
    else:
        target = (y > 0).astype(int)
        model, loss = RandomForestClassifier(n_estimators=10, max_depth=4, random_state=0).fit(X, target), "log_loss"
    bg = X.iloc[:24]
    local = ik.shap(model, X, y=target, output="loss", loss=loss, background=bg, exact=True, random_state=0)
    glob = ik.sage(model, X, target, loss=loss, background=bg, exact=True, random_state=0)
    assert_allclose(local.values.mean(axis=0), glob.importance, rtol=1e-9, atol=1e-12)
    assert_allclose(local.base_values.mean(), glob.extra["loss_empty"], rtol=1e-10)
    # and the permutation estimators agree with them within their standard errors (4 SE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = ik.sage(model, X, target, loss=loss, background=bg, max_permutations=512, random_state=1)
    assert np.all(np.abs(est.importance - glob.importance) <= 4 * est.std + 1e-12)


def test_boosted_classifier_margin_and_probability_shap():
    # A boosted classifier's log-odds is affine in its trees: link="logit" is interventional
    # TreeSHAP of the raw margin, shap.TreeExplainer(model_output="raw") to float32 rounding of
    # the thresholds (1e-7). Its probability σ(margin) is not: imlkit's values are the Shapley
    # values of v_x(S) = 1/B Σ_b σ(g(x_S, z_b)), equal to brute-force enumeration of that game to
    # rounding. (shap's model_output="probability" rescales each reference's margin attributions
    # to the change in probability, which is not the Shapley value of this game: 0.07 off here.)
    import itertools
    import math

    from sklearn.ensemble import GradientBoostingClassifier

    X, y = _data(400, 4)
    target = (y > 0).astype(int)
    model = GradientBoostingClassifier(n_estimators=30, max_depth=3, random_state=0).fit(X, target)
    bg, rows = X.iloc[:50], X.iloc[100:106]
    logit = ik.shap(model, rows, background=bg, link="logit", random_state=0)
    raw = shap_lib.TreeExplainer(model, data=bg, feature_perturbation="interventional",
                                 model_output="raw").shap_values(rows)
    assert_allclose(logit.values, np.asarray(raw), atol=1e-6)
    prob = ik.shap(model, rows, background=bg, random_state=0)
    B, m = bg.to_numpy(), X.shape[1]
    for i, x in enumerate(rows.to_numpy()):
        def v(S):
            H = B.copy()
            H[:, list(S)] = x[list(S)]
            return model.predict_proba(pd.DataFrame(H, columns=X.columns))[:, 1].mean()

        phi = np.zeros(m)
        for j in range(m):
            others = [k for k in range(m) if k != j]
            for size in range(m):
                for S in itertools.combinations(others, size):
                    w = math.factorial(size) * math.factorial(m - size - 1) / math.factorial(m)
                    phi[j] += w * (v(S + (j,)) - v(S))
        assert_allclose(prob.values[i], phi, rtol=1e-7, atol=1e-9)
    assert_allclose(prob.values.sum(axis=1) + prob.base_values, model.predict_proba(rows)[:, 1], rtol=1e-9)
