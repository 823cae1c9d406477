"""Round 8 (r3a): section 2's comparison and no-better sentences say no more than the measures they decided on."""
from __future__ import annotations

import numpy as np
import pandas as pd

from imlkit.report._scores import deciding_metrics, score_intervals
from imlkit.report._shared import compare_models

# --- "Neither is shown to fit these rows better" is scoped to the deciding measures ---------------------------------


def _two_close_classifiers(n=300, seed=5):
    rng = np.random.default_rng(seed)
    eta = rng.normal(0, 1.5, n)
    y = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-eta)), "1", "0")
    out = {}
    for name, shake in (("model", 0.0), ("GLM (binomial)", 0.3)):
        p = 1 / (1 + np.exp(-(eta + shake * rng.normal(size=n))))
        out[name] = {"pred": np.where(p > 0.5, "1", "0"), "proba": np.c_[1 - p, p]}
    return y, out


def test_a_tie_that_is_no_sign_of_the_simpler_model_names_the_measures_it_rests_on():
    y, out = _two_close_classifiers()
    deciding = deciding_metrics("classification")
    res = score_intervals(out, y, "classification", 0, labels=["0", "1"], reference="model", simultaneous=deciding)
    d = res["simultaneous_differences"]["GLM (binomial)"]
    assert all(d[m][1] < 0 < d[m][2] for m in deciding)  # a tie on every deciding measure
    said = compare_models(res, "model", "GLM (binomial)", d, list(deciding), "", simpler=False)["text"]
    assert said.endswith("Neither is shown to fit these rows better on Brier score, ROC AUC and balanced accuracy.")
    one = compare_models(res, "model", "GLM (binomial)", d, ["Brier score"], "", simpler=False)["text"]
    assert one.endswith("neither is shown to fit these rows better on Brier score.")


# --- "describe noise" only when every deciding measure was judged ----------------------------------------------------


def _many_classes(k=200, per=3, hit=0.2, seed=0):
    """k classes with ``per`` test rows each (too few to judge ROC AUC or balanced accuracy) and a model that puts 0.5
    on one class, the right one for a share ``hit`` of the rows (a wrong one for the others): it ranks the true class
    above chance, and its summed Brier score (about 0.2 x 0.25 + 0.8 x 1.25 = 1.05) is worse than the class
    frequencies' (1 - 1/k = 0.995)."""
    rng = np.random.default_rng(seed)
    labels = [str(c) for c in range(k)]
    yi = np.repeat(np.arange(k), per)
    n = len(yi)
    guess = np.where(rng.uniform(size=n) < hit, yi, (yi + rng.integers(1, k, n)) % k)  # else a wrong class
    proba = np.full((n, k), 0.5 / (k - 1))
    proba[np.arange(n), guess] = 0.5
    y = np.array(labels)[yi]
    model = {"pred": np.array(labels)[guess], "proba": proba}
    base = {"pred": np.full(n, labels[0]), "proba": np.full((n, k), 1 / k)}
    return y, labels, {"model": model, "class frequencies (majority class)": base}


def _section2(y, labels, outputs):
    from types import SimpleNamespace

    from imlkit.report._context import ModelCheck
    from imlkit.report._fit import MeanBaseline
    from imlkit.report._sec_model import _verdict

    deciding = deciding_metrics("classification")
    res = score_intervals(outputs, y, "classification", 0, labels=labels, reference="model", simultaneous=deciding)
    ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows", y_test=y,
                          task="classification", evaluation="split",
                          config=SimpleNamespace(model="gbm", model_file=None))
    said = " ".join(b["text"] for b in _verdict(ctx, res, {"class frequencies (majority class)": MeanBaseline()},
                                                deciding, others=None))
    return res, ctx, said


def test_no_noise_verdict_from_the_brier_score_alone_when_roc_auc_and_balanced_accuracy_are_not_judged():
    y, labels, outputs = _many_classes()
    res, ctx, said = _section2(y, labels, outputs)
    base = "class frequencies (majority class)"
    d = res["simultaneous_differences"][base]
    # the premise of the finding: the Brier score judged and wholly on the baseline's side, the other two not judged,
    # and ROC AUC's own interval above 0.5
    assert set(ctx.model_check.undecided) == {"ROC AUC", "balanced accuracy"}
    assert list(ctx.model_check.decision) == ["Brier score"] and d["Brier score"][1] > 0
    assert res["scores"]["model"]["ROC AUC"][1] > 0.5
    assert "describe noise" not in said
    assert ("On Brier score, the only measure these rows can judge, the model is worse than the baseline even at the "
            "end of its interval most in the model's favour; ROC AUC and balanced accuracy were not judged (too few "
            "test rows to decide on them)") in said
    assert "read the importance and effect explanations below as what the model does" in said


def test_the_noise_verdict_stays_when_every_deciding_measure_is_judged():
    # 10 classes of 60 test rows, a model that always puts its 0.5 on a wrong class: every measure judged, every
    # interval on the baseline's side
    y, labels, outputs = _many_classes(k=10, per=60, hit=0.0, seed=1)
    res, ctx, said = _section2(y, labels, outputs)
    assert ctx.model_check.undecided == {}
    assert "describe noise (what a model that predicts worse than the baseline does)" in said


# --- a ridge-penalised GLM baseline is named so wherever the report prints its name --------------------------------


def test_a_wide_tables_ridge_glm_baseline_is_named_with_its_penalty(tmp_path):
    """100 training rows and 300 columns: the GLM baseline is refitted with ridge alpha = 1 (fixed); section 2's table
    and sentence called it "GLM (gaussian)" and only section 7's notes said it was penalised (rev8 r3-5)."""
    import html
    import re

    from imlkit import models
    from imlkit.report import build_report
    from imlkit.report._fit import guarded_pipeline

    rng = np.random.default_rng(0)
    cols = [f"x{j}" for j in range(300)]

    def table(n):
        X = pd.DataFrame(rng.normal(size=(n, 300)), columns=cols)
        return X.assign(y=X["x0"] - X["x1"] + rng.normal(size=n))

    train, test = table(100), table(60)
    path = build_report(data=train, test_data=test, target="y", quick=True, methods=["pfi"],
                        out=str(tmp_path / "r"), progress=False)
    said = html.unescape(re.sub(r"<[^>]+>", " ", open(path, encoding="utf-8").read()))
    name = "GLM (gaussian, ridge α = 1)"
    assert re.search(r"GLM \(gaussian\)", said) is None  # never the bare name of the ordinary GLM
    row = re.search(re.escape(name) + r"\s+([-\d.e]+) \[", said)
    assert row is not None
    # the row is the ridge fit's test RMSE: imlkit's GLM with alpha = 1 on the same rows
    ridge = guarded_pipeline(models.GLM(family="gaussian", alpha=1.0)).fit(train[cols], train["y"])
    rmse = float(np.sqrt(np.mean((test["y"].to_numpy() - ridge.predict(test[cols])) ** 2)))
    np.testing.assert_allclose(float(row.group(1)), rmse, rtol=1e-3)
    assert re.search(r"(improves test RMSE over|beats the model on test RMSE|not distinguishable on test RMSE)[^.]*"
                     + re.escape(name), said) or re.search(re.escape(name) + r"[^.]*(beats|not distinguishable)", said)
    assert f"baseline: {name}" in said  # section 7's step table
    assert f"The {name} baseline has more terms than the 100 training rows" in said
