"""Section 2's quality gate: "no better than the baseline" only when the model beats it on no deciding measure.

Classification decides on the Brier score, ROC AUC and balanced accuracy (simultaneous
intervals over the three); the log loss is shown but never decides. Regression decides on RMSE.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from imlkit.report import ReportConfig
from imlkit.report._blocks import fmt
from imlkit.report._context import ModelCheck
from imlkit.report._fit import MeanBaseline
from imlkit.report._scores import beats, deciding_metrics, score_intervals, simultaneous_level, worse
from imlkit.report._sec_model import _verdict


def _ctx(label="model"):
    return SimpleNamespace(model_label=label, model_check=ModelCheck(), alerts=[], eval_rows="test rows")


def _verdict_of(outputs, y, task, has_proba=True, seed=0):
    deciding = deciding_metrics(task, has_proba)
    labels = ["a", "b"] if task == "classification" else None
    res = score_intervals(outputs, y, task, seed, labels=labels, reference="model", simultaneous=deciding)
    ctx = _ctx()
    blocks = _verdict(ctx, res, {"majority class" if task == "classification" else "mean": MeanBaseline()},
                      deciding)
    return ctx, res, blocks


def _texts(blocks):
    return " ".join(b.get("text", "") for b in blocks)


def _majority(y):
    """The majority-class baseline's outputs on the test rows (training frequencies = test ones here)."""
    p_b = float(np.mean(y == "b"))
    return {"pred": np.full(len(y), "a" if p_b < 0.5 else "b"), "proba": np.tile([1 - p_b, p_b], (len(y), 1))}


def test_deciding_measures():
    assert deciding_metrics("regression") == ("RMSE",)
    assert deciding_metrics("classification") == ("Brier score", "ROC AUC", "balanced accuracy")
    assert deciding_metrics("classification", has_proba=False) == ("balanced accuracy",)
    assert_allclose(simultaneous_level(0.95, 3), 1 - 0.05 / 3)
    assert simultaneous_level(0.95, 1) == 0.95


def test_confident_misses_blow_up_the_log_loss_but_not_the_verdict():
    # 240 test rows, 40% class b. The model gives the right class 0.85 on every row but 8, where
    # it is certain of the wrong class: its log loss (8 x 34.5 / 240) exceeds the prior's, while
    # it ranks and classifies 232 of 240 rows right.
    rng = np.random.default_rng(0)
    n = 240
    y = np.where(rng.uniform(size=n) < 0.4, "b", "a")
    p_true = np.full(n, 0.85)
    miss = rng.choice(n, size=8, replace=False)
    p_true[miss] = 1e-16
    p_b = np.where(y == "b", p_true, 1 - p_true)
    model = {"pred": np.where(p_b > 0.5, "b", "a"), "proba": np.column_stack([1 - p_b, p_b])}
    ctx, res, blocks = _verdict_of({"model": model, "majority class": _majority(y)}, y, "classification")
    d = res["differences"]["majority class"]
    # The old rule (log loss alone) would have raised the alarm: its interval does not favour the model.
    assert not beats(d["log loss"], "log loss") and d["log loss"][0] > 0
    check = ctx.model_check
    assert check.no_better_than is None and not ctx.alerts
    assert set(check.decided_by) == {"Brier score", "ROC AUC", "balanced accuracy"}
    assert check.baseline == "majority class" and check.deciding == deciding_metrics("classification")
    assert_allclose(check.decision_level, 1 - 0.05 / 3)
    # The stored numbers are the point scores and the simultaneous intervals of their difference.
    auc = check.decision["ROC AUC"]
    assert_allclose(auc["model"] - auc["baseline"], auc["difference"][0], rtol=1e-12)
    assert auc["baseline"] == 0.5 and auc["model"] > 0.9
    lo95, hi95 = res["differences"]["majority class"]["ROC AUC"][1:]
    lo, hi = auc["difference"][1:]
    assert lo <= lo95 and hi >= hi95  # the simultaneous interval is the wider one
    said = _texts(blocks)
    assert "The model beats the majority class baseline on test Brier score, ROC AUC and balanced accuracy" in said
    assert "98.3% paired bootstrap intervals" in said
    how = "favours the majority class" if worse(d["log loss"], "log loss") else "does not separate them"
    assert f"The log loss (shown, not decisive) {how}: difference " in said


def _random_label_context(tmp_path, model):
    from imlkit.report._build import prepare_context

    rng = np.random.default_rng(4)
    n = 400
    frame = pd.DataFrame(rng.normal(size=(n, 4)), columns=["x1", "x2", "x3", "x4"])
    frame["y"] = rng.choice(["no", "yes"], size=n, p=[0.6, 0.4])  # unrelated to every column
    path = tmp_path / "random_labels.csv"
    frame.to_csv(path, index=False)
    return prepare_context(ReportConfig(data=str(path), target="y", model=model, quick=True))


@pytest.mark.parametrize("model", ["gbm", "rf"])
def test_random_labels_keep_the_alarm(tmp_path, model):
    from imlkit.report._sec_model import section_model

    ctx = _random_label_context(tmp_path, model)
    section_model(ctx)
    check = ctx.model_check
    from imlkit.report._fit import CLASS_FREQUENCIES  # the baseline predicts the class frequencies (rev7 r1 finding 9)

    assert check.no_better_than == CLASS_FREQUENCIES and check.decided_by == ()
    assert len(ctx.alerts) == 1
    alert = ctx.alerts[0]
    assert alert.startswith(f"The model could not be shown to beat the {CLASS_FREQUENCIES} baseline on the "
                            f"{len(ctx.y_test)} test rows: on none of "
                            "Brier score, ROC AUC and balanced accuracy does the interval")
    for m in check.deciding:  # each deciding measure is named with the model's value, the baseline's, the interval
        v = check.decision[m]
        assert not beats(v["difference"], m)
        assert_allclose(v["model"] - v["baseline"], v["difference"][0], rtol=1e-9, atol=1e-15)
        assert f"{m} {fmt(v['model'])} against {fmt(v['baseline'])} for the {CLASS_FREQUENCIES} (difference " in alert
    # "describe noise" only by the reading's rule: even the favourable end of every interval gains < NOISE_GAIN
    from imlkit.report._claims import NOISE_GAIN
    from imlkit.report._reading import _gain

    noise = all(_gain(v["difference"], m, v["baseline"]) < NOISE_GAIN for m, v in check.decision.items())
    assert ("describe noise" in alert) == noise
    assert ("The intervals also allow a real improvement" in alert) == (not noise)


def test_a_model_without_probabilities_decides_on_balanced_accuracy():
    rng = np.random.default_rng(2)
    n = 200
    y = np.where(rng.uniform(size=n) < 0.3, "b", "a")
    pred = np.where(rng.uniform(size=n) < 0.9, y, np.where(y == "a", "b", "a"))  # 90% right, both classes
    base = _majority(y)
    ctx, res, blocks = _verdict_of({"model": {"pred": pred, "proba": None},
                                    "majority class": {"pred": base["pred"], "proba": None}},
                                   y, "classification", has_proba=False)
    assert ctx.model_check.deciding == ("balanced accuracy",) and ctx.model_check.decided_by == ("balanced accuracy",)
    assert ctx.model_check.decision_level == 0.95  # one measure: the table's own interval
    assert _texts(blocks).startswith("The model beats the majority class baseline on test balanced accuracy: ")


def test_regression_still_decides_on_rmse():
    rng = np.random.default_rng(1)
    y = rng.normal(size=120)
    mean = {"pred": np.full(120, y.mean()), "proba": None}
    ctx, _, blocks = _verdict_of({"model": {"pred": y + rng.normal(scale=0.3, size=120), "proba": None},
                                  "mean": mean}, y, "regression")
    assert ctx.model_check.decided_by == ("RMSE",) and ctx.model_check.no_better_than is None
    assert _texts(blocks).startswith("The model beats the mean baseline on test RMSE: difference ")
    ctx, _, blocks = _verdict_of({"model": {"pred": rng.normal(size=120), "proba": None}, "mean": mean},
                                 y, "regression")
    assert ctx.model_check.no_better_than == "mean"
    assert "test RMSE" in ctx.alerts[0] and "favours the baseline" in ctx.alerts[0]
