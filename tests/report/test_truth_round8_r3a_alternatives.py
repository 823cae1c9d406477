"""Round 8 (r3a): section 6's comparisons with the model read as section 2's do -- a log loss that separates the
model from an interpretable one withholds "the simpler model may explain the data as well" (statsmodels anes96: the
GLM, the GAM and RuleFit "may explain the data as well" while log loss separated them, 0.2855 against 0.4339,
difference 0.1484 [0.066, 0.242])."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from imlkit.report._blocks import fmt
from imlkit.report._context import ModelCheck
from imlkit.report._scores import deciding_metrics, score_intervals
from imlkit.report._sec_alternatives import paired_comparison


class _Prob:
    """A fixed two-class scorer: P(y = "1") = sigmoid(slope * eta + noise weight * noise)."""

    classes_ = np.array(["0", "1"])

    def __init__(self, slope, noise):
        self.slope, self.noise = slope, noise

    def predict_proba(self, X):
        p = 1 / (1 + np.exp(-(self.slope * X["eta"].to_numpy() + self.noise * X["noise"].to_numpy())))
        return np.c_[1 - p, p]

    def predict(self, X):
        return np.where(self.predict_proba(X)[:, 1] > 0.5, "1", "0")


def _anes_like_ctx(n=200, seed=4):
    """A calibrated GLM and a model with about the same ranking made overconfident: the deciding measures tie on
    200 test rows, the log loss does not (as in tests/report/test_truth_round8_scores.py)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"eta": rng.normal(0, 2.0, 2 * n), "noise": rng.normal(0, 0.5, 2 * n)})
    p = 1 / (1 + np.exp(-X["eta"].to_numpy()))
    y = pd.Series(np.where(rng.uniform(size=2 * n) < p, "1", "0"), name="y")
    model, glm = _Prob(2.5, 0.5), _Prob(1.0, 0.0)
    Xtr, Xte, ytr, yte = X.iloc[:n], X.iloc[n:], y.iloc[:n], y.iloc[n:]
    ctx = SimpleNamespace(task="classification", model_label="model", model=model, X_train=Xtr, y_train=ytr,
                          X_test=Xte, y_test=yte, seed=0, score_word="test", eval_rows="test rows",
                          evaluation="split", config=SimpleNamespace(model="gbm", model_file=None),
                          model_check=ModelCheck(decided_by=("ROC AUC",)), alerts=[],
                          alternative_models={"GLM (binomial)": glm},
                          rows=lambda step, which: (Xtr, ytr))
    return ctx, model, glm


def test_section_6_withholds_the_simpler_model_verdict_when_log_loss_separates_the_two():
    ctx, model, glm = _anes_like_ctx()
    labels = ["0", "1"]
    deciding = deciding_metrics("classification")
    Xte, yte = ctx.X_test, ctx.y_test.to_numpy()
    out = {k: {"pred": m.predict(Xte), "proba": m.predict_proba(Xte)} for k, m in
           [("model", model), ("GLM (binomial)", glm)]}
    res = score_intervals(out, yte, "classification", 0, labels=labels, reference="model", simultaneous=deciding)
    sim = res["simultaneous_differences"]["GLM (binomial)"]
    d = res["differences"]["GLM (binomial)"]["log loss"]
    # the premise: a tie on every deciding measure, a log loss that separates them (the GLM better)
    assert all(sim[m][1] < 0 < sim[m][2] for m in deciding), sim
    assert d[1] > 0, d
    said = " ".join(b.get("text", "") for b in paired_comparison(ctx))
    assert "The model and GLM (binomial) are not distinguishable" in said
    assert "may explain the data as well" not in said
    ours, theirs = res["scores"]["model"]["log loss"][0], res["scores"]["GLM (binomial)"]["log loss"][0]
    assert (f"the GLM (binomial) is better: {fmt(theirs)} against {fmt(ours)} for the model (difference "
            f"{fmt(d[0])} [{fmt(d[1])}, {fmt(d[2])}], 95% interval") in said
    assert "so the tie is no sign that the model and the GLM (binomial) explain the data equally well" in said


def test_section_6_keeps_the_simpler_model_verdict_when_log_loss_does_not_separate_them():
    ctx, model, glm = _anes_like_ctx()
    ctx.model = _Prob(1.02, 0.0)  # nearly the GLM itself: nothing separates them
    said = " ".join(b.get("text", "") for b in paired_comparison(ctx))
    assert "The simpler model may explain the data as well" in said
    assert "shown, not deciding" not in said


# --- the GLM's coefficient caption names the t distribution its intervals use ----------------------------------------


def _said(path):
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", " ", open(path, encoding="utf-8").read()))


def test_the_glm_caption_names_students_t_and_its_residual_df(tmp_path):
    """A gaussian GLM's intervals use t(df_resid) (glm8); the caption said "95% Wald intervals", which reads as
    normal quantiles. The df is statsmodels OLS's df_resid on the same training rows, and the table's interval is its
    t interval."""
    import re

    import statsmodels.api as sm

    from imlkit.report import build_report

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(30, 3)), columns=["a", "b", "c"])
    train = X.assign(y=2 * X["a"] + X["b"] + rng.normal(size=30))
    Xt = pd.DataFrame(rng.normal(size=(30, 3)), columns=["a", "b", "c"])
    test = Xt.assign(y=2 * Xt["a"] + Xt["b"] + rng.normal(size=30))
    said = _said(build_report(data=train, test_data=test, target="y", quick=True, methods=["models"],
                              out=str(tmp_path / "r"), progress=False))
    ols = sm.OLS(train["y"], sm.add_constant(train[["a", "b", "c"]])).fit()
    assert ols.df_resid == 26
    assert ("Coefficients with 95% Wald intervals from Student's t on 26 residual df (the dispersion is estimated)"
            in said)
    lo, hi = ols.conf_int().loc["a"]
    row = re.search(r"\ba\s+([-\d.e]+)\s+([-\d.e]+)\s+([-\d.e]+)\s+([-\d.e]+)", said.split("Student's t on 26")[1])
    assert row is not None
    np.testing.assert_allclose([float(row.group(3)), float(row.group(4))], [lo, hi], rtol=2e-3)


def test_a_binomial_glm_caption_says_no_t():
    from imlkit import models
    from imlkit.report._sec_alternatives import _t_words

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
    y = (rng.uniform(size=200) < 1 / (1 + np.exp(-X["a"]))).astype(int)
    assert _t_words(models.GLM(family="binomial").fit(X, y).summary()) == ""
    g = models.GLM(family="gaussian").fit(X, X["a"] + rng.normal(size=200))
    assert _t_words(g.summary()) == " from Student's t on 197 residual df (the dispersion is estimated)"
