"""Round 8 (r3a): section 2's comparison and no-better sentences say no more than the measures they decided on."""
from __future__ import annotations

import numpy as np

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
