"""Round 6 (models): section 2's verdict judges another model (the GLM) against the baseline only on the measures
the rows can decide, also when the model's own verdict is a fact of the rows (it predicts exactly as the mean)."""
from types import SimpleNamespace

import numpy as np

from imlkit.report._context import ModelCheck
from imlkit.report._fit import MeanBaseline
from imlkit.report._scores import deciding_metrics, score_intervals
from imlkit.report._sec_model import _others_against_baseline, _verdict


def _flat_model_and_good_glm(n):
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    y = 170 + 20 * x + rng.normal(scale=2, size=n)
    mean = {"pred": np.full(n, 170.0), "proba": None}
    glm = {"pred": 170 + 20 * x, "proba": None}
    return y, {"model": dict(mean), "mean": mean, "GLM (poisson)": glm}


def _run(n):
    y, outputs = _flat_model_and_good_glm(n)
    deciding = deciding_metrics("regression")
    res = score_intervals(outputs, y, "regression", 0, reference="model", simultaneous=deciding)
    others = _others_against_baseline(outputs, y, "regression", 0, None, "model", "mean", deciding)
    ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows", y_test=y)
    _verdict(ctx, res, {"mean": MeanBaseline(), "GLM (poisson)": MeanBaseline()}, deciding, others=others)
    return ctx, others


def test_other_model_not_said_to_beat_the_baseline_on_too_few_rows():
    """linnerud (10 test rows): "GLM (poisson) does beat the mean baseline on the same rows (RMSE -2.148 [-3.98,
    -0.2467])" next to "10 rows, fewer than the 18 a 95% percentile-bootstrap interval needs"."""
    ctx, others = _run(10)
    # the GLM's interval does exclude 0 on these rows: only the rule keeps it from being a verdict
    lo, hi = others["GLM (poisson)"]["RMSE"][1:]
    assert hi < 0
    assert ctx.model_check.others_beating_baseline == {}
    alert = ctx.alerts[0]
    assert "does beat the mean baseline" not in alert
    assert "Whether GLM (poisson) beats the mean baseline is not decided: too few test rows (on RMSE: n = 10" in alert


def test_other_model_still_said_to_beat_the_baseline_on_enough_rows():
    ctx, others = _run(60)
    assert ctx.model_check.others_beating_baseline == {"GLM (poisson)": ("RMSE",)}
    alert = ctx.alerts[0]
    assert "GLM (poisson) does beat the mean baseline on the same rows" in alert
    assert "is not decided" not in alert
