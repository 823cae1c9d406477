"""The quick report up to 10 classes: the beeswarm's coalitions from the trees, RuleFit's class budget."""
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context
from imlkit.report._sec_alternatives import RULEFIT_MAX_CLASSES_QUICK, _rulefit_blocks


def _classes(k, n=240, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=[f"x{j}" for j in range(4)])
    X["x0"] += y
    X["x1"] -= 0.5 * y
    return X.assign(y=pd.Series([f"c{v}" for v in y]))


def _words(blocks):
    return " ".join(str(b.get("text", "")) for b in blocks if b["kind"] == "text")


def test_beeswarm_of_a_boosted_multiclass_model_takes_coalitions_from_the_trees():
    from imlkit.report._sec_local import section_local

    model = HistGradientBoostingClassifier(max_iter=10, max_leaf_nodes=6, random_state=0)
    ctx = prepare_context(ReportConfig(data=_classes(6), target="y", quick=True, methods=("shap",), model=model,
                                       strict=True))
    sec = section_local(ctx)
    words = _words(sec["blocks"])
    assert "exact enumeration of the coalitions, each coalition's mean over the background rows computed from " \
           "the model's trees" in words
    steps = {e.step: e for e in ctx.log}
    assert "SHAP beeswarm" in steps and "No beeswarm" not in words


def test_quick_rulefit_budget_says_why_in_one_line():
    k = RULEFIT_MAX_CLASSES_QUICK + 1
    ctx = prepare_context(ReportConfig(data=_classes(k), target="y", quick=True, methods=("models",), strict=True))
    blocks = _rulefit_blocks(ctx, {})
    texts = [b for b in blocks if b["kind"] == "text"]
    assert len(texts) == 1
    assert texts[0]["text"].startswith(f"Not fitted in --quick: RuleFit's L1 fit of a target with {k} classes")
    assert f"up to {RULEFIT_MAX_CLASSES_QUICK} classes" in texts[0]["text"]
    assert "RuleFit" not in [e.step for e in ctx.log]


def test_quick_rulefit_within_the_budget_is_fitted():
    ctx = prepare_context(ReportConfig(data=_classes(3, n=150), target="y", quick=True, methods=("models",),
                                       strict=True))
    perf = {}
    blocks = _rulefit_blocks(ctx, perf)
    assert "RuleFit" in perf and "RuleFit" in [e.step for e in ctx.log]
    assert "candidate rules" in _words(blocks)
