"""Section 2's sentences say what the numbers support: "describe noise" only by the reading's rule,
the GLM named when it beats the baseline the model could not beat."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from imlkit.report._claims import NOISE_GAIN
from imlkit.report._context import ModelCheck
from imlkit.report._fit import MeanBaseline
from imlkit.report._reading import _gain
from imlkit.report._scores import deciding_metrics, score_intervals
from imlkit.report._sec_model import _others_against_baseline, _verdict


def _run(outputs, y, glm=None):
    deciding = deciding_metrics("regression")
    res = score_intervals(outputs, y, "regression", 0, reference="model", simultaneous=deciding)
    ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows", y_test=y)
    others = _others_against_baseline(outputs, y, "regression", 0, None, "model", "mean", deciding) if glm else None
    _verdict(ctx, res, {"mean": MeanBaseline(), **({glm: None} if glm else {})}, deciding, others=others)
    return ctx


def test_few_rows_cannot_show_a_gain_and_the_alert_says_so():
    # 27 rows: the model halves the error on most rows but the interval of the difference still includes 0.
    rng = np.random.default_rng(3)
    y = rng.standard_t(2, size=27) * 3
    mean = {"pred": np.full(27, 0.0), "proba": None}
    model = {"pred": 0.5 * y + rng.normal(scale=3.0, size=27), "proba": None}
    glm = {"pred": 0.6 * y, "proba": None}
    ctx = _run({"model": model, "mean": mean, "GLM": glm}, y, glm="GLM")
    check = ctx.model_check
    assert check.no_better_than == "mean"
    d = check.decision["RMSE"]
    assert d["difference"][1] <= 0 <= d["difference"][2]
    assert _gain(d["difference"], "RMSE", d["baseline"]) >= NOISE_GAIN  # the interval allows a real gain
    alert = ctx.alerts[0]
    assert alert.startswith("The model could not be shown to beat the mean baseline on the 27 test rows: ")
    assert "describe noise" not in alert and "The intervals also allow a real improvement (RMSE up to " in alert
    # the GLM's own paired difference to the mean baseline excludes 0: it is said and stored for the reading
    assert check.others_beating_baseline == {"GLM": ("RMSE",)}
    assert " GLM does beat the mean baseline on the same rows (GLM minus the mean, same paired intervals: RMSE " \
        in alert


def test_a_model_within_noise_gain_of_the_baseline_describes_noise():
    rng = np.random.default_rng(0)
    n = 4000
    y = rng.normal(size=n)
    mean = {"pred": np.full(n, 0.0), "proba": None}
    model = {"pred": rng.normal(scale=0.01, size=n), "proba": None}  # the mean, jittered
    ctx = _run({"model": model, "mean": mean}, y)
    d = ctx.model_check.decision["RMSE"]
    assert _gain(d["difference"], "RMSE", d["baseline"]) < NOISE_GAIN
    assert "less than 2% of the baseline's score, so its importance and effect explanations below describe noise" \
        in ctx.alerts[0]
    assert ctx.model_check.others_beating_baseline == {}


def _plain(path):
    import html
    import re

    with open(path, encoding="utf-8") as fh:
        return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fh.read())))


def test_a_fitted_model_with_one_table_never_calls_its_rows_test(tmp_path):
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import LinearRegression

    from imlkit.report import ReportConfig, build_report
    from imlkit.report._sec_alternatives import _where

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(150, 3)), columns=["a", "b", "c"])
    y = 2 * X["a"] + rng.normal(scale=0.5, size=150)
    model = RandomForestRegressor(n_estimators=20, random_state=1).fit(X.iloc[:100], y.iloc[:100])
    frame = X.assign(y=y)
    doc = _plain(build_report(data=frame, target="y", model=model, quick=True, methods=("pfi",), out=str(tmp_path)))
    start = doc.rindex("2. Model and baselines")  # the section, not the table of contents
    sec2 = doc[start:doc.index("3. Feature importance", start)]
    assert "Scores on all 150 rows of the table (possibly the model's training rows)" in sec2
    assert "Test scores" not in sec2 and "test RMSE" not in sec2
    assert "The model beats the mean baseline on evaluation RMSE" in sec2
    assert "This comparison is not fair: the GLM (gaussian) is fitted and scored on the same 150 rows (in-sample)" \
        in sec2
    assert "PFI, CFI and SAGE explain the fitted model on all the table's rows (possibly its training rows)" in doc
    assert "explain the fitted model on test data" not in doc
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_alternatives import paired_comparison

    ctx = prepare_context(ReportConfig(data=frame, target="y", model=model, quick=True))
    ctx.alternative_models = {"linear": LinearRegression().fit(X, y)}
    said = " ".join(b.get("text", "") for b in paired_comparison(ctx))
    assert "same 150 rows" in said and "not a fair comparison: these models were fitted on the same rows" in said
    assert "on evaluation RMSE" in said and "test RMSE" not in said
    assert _where(SimpleNamespace(evaluation="all_rows", X_test=X)).startswith(
        "Performance on all 150 rows of the table (possibly the black box's training rows")
    assert _where(SimpleNamespace(evaluation="split", X_test=X)) == "Test performance on the same split"


@pytest.mark.filterwarnings("ignore:Perfect separation")  # the point of the test
def test_a_separated_glm_baseline_is_called_a_diverged_fit():
    import pandas as pd

    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._fit import separated
    from imlkit.report._sec_model import section_model

    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    x = x + np.sign(x) * 0.5  # a gap around 0: x > 0 separates the classes completely
    frame = pd.DataFrame({"x": x, "z": rng.normal(size=200), "y": np.where(x > 0, "yes", "no")})
    ctx = prepare_context(ReportConfig(data=frame, target="y", quick=True))
    sec = section_model(ctx)
    said = " ".join(b.get("text", "") for b in sec["blocks"])
    assert "The GLM (binomial) baseline is a diverged fit: the classes are (almost) perfectly separable" in said
    # the same rule as section 6's warning, and it does not fire on overlapping classes
    frame["y"] = np.where(x + rng.normal(scale=1.0, size=200) > 0, "yes", "no")
    ctx = prepare_context(ReportConfig(data=frame, target="y", quick=True))
    said = " ".join(b.get("text", "") for b in section_model(ctx)["blocks"])
    assert "diverged fit" not in said
    from imlkit.report._fit import baseline_models

    glm = baseline_models("classification", ctx.X_train, ctx.y_train)["GLM (binomial)"].fit(ctx.X_train, ctx.y_train)
    assert not separated(glm, ctx.X_train)


@pytest.mark.filterwarnings("ignore:Perfect separation")
def test_the_brier_score_is_named_as_the_sum_over_classes():
    import pandas as pd
    from sklearn.metrics import brier_score_loss

    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._scores import BRIER_WORDS, model_outputs, scores
    from imlkit.report._sec_model import section_model

    rng = np.random.default_rng(1)
    x = rng.normal(size=300)
    frame = pd.DataFrame({"x": x, "z": rng.normal(size=300),
                          "y": np.where(x + rng.normal(size=300) > 0, "yes", "no")})
    ctx = prepare_context(ReportConfig(data=frame, target="y", quick=True))
    out = model_outputs(ctx.model, ctx.X_test, "classification", ["no", "yes"])
    report = scores(out, ctx.y_test, "classification", np.ones((1, len(ctx.y_test))), ["no", "yes"])["Brier score"][0]
    sk = brier_score_loss((ctx.y_test == "yes").astype(int), out["proba"][:, 1])
    np.testing.assert_allclose(report, 2 * sk, rtol=1e-12)  # the sum over two classes is twice scikit-learn's
    sec = section_model(ctx)
    tables = [b for b in sec["blocks"] if b.get("kind") == "table"]
    assert all(BRIER_WORDS in t["columns"] for t in tables) and len(tables) == 2  # scores and differences
    caption = next(t["caption"] for t in tables if t.get("caption", "").startswith("Test scores"))
    assert "the Brier score is summed over the classes, Σ_k (p_k − 1{y = k})², from 0 to 2: for two classes twice " \
           "scikit-learn's brier_score_loss" in caption


def test_the_glm_model_is_not_compared_with_itself():
    import pandas as pd

    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_model import section_model

    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.normal(size=(150, 2)), columns=["a", "b"])
    frame["y"] = frame["a"] + rng.normal(scale=0.5, size=150)
    ctx = prepare_context(ReportConfig(data=frame, target="y", model="glm", quick=True))
    said = " ".join(b.get("text", "") for b in section_model(ctx)["blocks"])
    assert "The model is imlkit's GLM (gaussian), the same model as the GLM (gaussian) baseline" in said
    assert "not distinguishable" not in said and "may explain the data as well" not in said
    assert "The model beats the mean baseline on test RMSE" in said
