"""Review r1 (rev8), finding 10: with a model that has no exact TreeSHAP and more features than the feature budget,
section 5b says SHAP was not computed, but section 7 listed "SHAP of the chosen rows rows=3" as a step and "SHAP test
rows 300 of 321" as rows used (the step was opened, to try TreeSHAP, before the budget check). Now the step is
recorded as "(not run: ...)" and no SHAP rows are listed. Synthetic data."""
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context
from imlkit.report._sec_local import section_local
from imlkit.report._sec_provenance import _rows_blocks


def _ctx(max_features):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 6)), columns=[f"x{j}" for j in range(6)])
    y = np.where(X.x0 + 0.5 * X.x1 + rng.normal(size=200) > 0, "yes", "no")
    model = LogisticRegression().fit(X, y)
    return prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=model, quick=True, methods=("shap",),
                                        max_features=max_features))


def _rows_table(ctx):
    return [r[0] for b in _rows_blocks(ctx) for r in b["rows"]]


def test_shap_over_the_feature_budget_lists_no_step_and_no_rows():
    ctx = _ctx(3)
    sec = section_local(ctx)
    assert sec["blocks"][0]["text"].startswith("Not computed: this model's SHAP values need the permutation estimator")
    shap_steps = [e for e in ctx.log if e.step.startswith("SHAP")]
    assert len(shap_steps) == 1
    assert shap_steps[0].step.startswith("SHAP (not run: ") and "6 features, budget 3" in shap_steps[0].step
    assert shap_steps[0].parameters == {}
    assert "SHAP" not in _rows_table(ctx)


def test_shap_within_the_budget_keeps_its_step_and_rows():
    ctx = _ctx(None)
    section_local(ctx)
    assert any(e.step == "SHAP of the chosen rows" for e in ctx.log)
    assert "SHAP" in _rows_table(ctx)
