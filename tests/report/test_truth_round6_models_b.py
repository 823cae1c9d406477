"""Round 6 (models): a tie with a failed fit -- a GAM whose penalised IRLS did not converge, a GLM whose weights
diverge on separable classes -- is no sign that "the simpler model may explain the data as well"."""
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from imlkit import models
from imlkit.report._fit import separated
from imlkit.report._sec_alternatives import paired_comparison


def _separable(seed, n):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    return X, pd.Series((X["a"] > 0).astype(int), name="y")


def _said(blocks):
    return " ".join(b.get("text", "") for b in blocks)


def test_no_simpler_model_from_a_tie_with_a_diverged_gam_or_glm():
    """breast cancer: "The model and GAM (binomial, reduced) are not distinguishable ... The simpler model may explain
    the data as well." while the GAM diverged (|eta| = 113)."""
    Xtr, ytr = _separable(0, 200)
    Xte, yte = _separable(1, 120)
    tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(Xtr, ytr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gam = models.GAM(family="binomial").fit(Xtr, ytr)
        glm = models.GLM(family="binomial").fit(Xtr, ytr)
    assert gam.converged_ is False and separated(glm, Xtr)  # the premise: both fits failed
    other_tree = DecisionTreeClassifier(max_depth=1, random_state=1).fit(Xtr, ytr)
    ctx = SimpleNamespace(task="classification", model_label="model", model=tree, y_train=ytr, y_test=yte, X_test=Xte,
                          X_train=Xtr, seed=0, score_word="test", eval_rows="test rows", evaluation="split",
                          model_check=SimpleNamespace(decided_by=("ROC AUC",)),
                          alternative_models={"GAM (binomial)": gam, "GLM (binomial)": glm,
                                              "decision tree (depth 1)": other_tree})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blocks = paired_comparison(ctx)
    by = {name: _said([b for b in blocks if f"and {name} are not distinguishable" in b.get("text", "")])
          for name in ctx.alternative_models}
    # every model is perfect on these test rows: each is a tie
    assert all(by.values()), by
    assert "The simpler model may explain the data as well" not in by["GAM (binomial)"]
    assert "The GAM (binomial) fit did not converge" in by["GAM (binomial)"]
    assert "The simpler model may explain the data as well" not in by["GLM (binomial)"]
    assert "The GLM (binomial) is a diverged fit" in by["GLM (binomial)"]
    # a tie with a fit that did not fail keeps the reading
    assert "The simpler model may explain the data as well" in by["decision tree (depth 1)"]


def test_section2_no_simpler_model_from_a_tie_with_a_diverged_glm_baseline():
    from imlkit.report._context import ModelCheck
    from imlkit.report._fit import MeanBaseline
    from imlkit.report._scores import deciding_metrics, score_intervals
    from imlkit.report._sec_model import _verdict

    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.5).astype(int)
    p = np.clip(np.where(y == 1, 0.8, 0.2) + rng.normal(scale=0.1, size=200), 0.01, 0.99)
    proba = np.c_[1 - p, p]
    hard = np.where(p > 0.5, "1", "0")
    outputs = {"model": {"pred": hard, "proba": proba},
               "majority class": {"pred": np.full(200, "0"), "proba": np.tile([0.5, 0.5], (200, 1))},
               "GLM (binomial)": {"pred": hard.copy(), "proba": proba.copy()}}
    deciding = deciding_metrics("classification", True)
    res = score_intervals(outputs, y.astype(str), "classification", 0, labels=["0", "1"], reference="model",
                          simultaneous=deciding)

    def said(diverged):
        ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows",
                              y_test=y, task="classification", model=DecisionTreeClassifier())
        blocks = _verdict(ctx, res, {"majority class": MeanBaseline(), "GLM (binomial)": MeanBaseline()}, deciding,
                          diverged=diverged)
        return _said(blocks)

    assert "The simpler model may explain the data as well" in said(())
    out = said(("GLM (binomial)",))
    assert "not distinguishable" in out and "The simpler model may explain the data as well" not in out
    assert "so a tie with it says nothing of whether a simpler model explains the data as well" in out
