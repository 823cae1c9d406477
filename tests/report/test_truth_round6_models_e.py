"""Round 6 (models): a tie on the deciding RMSE beside an MAE whose interval favours the model is no sign that "the
simpler model may explain the data as well"; the MAE is named (shown, not decisive), as the log loss is."""
from types import SimpleNamespace

import numpy as np
import pandas as pd

from imlkit.report._context import ModelCheck
from imlkit.report._fit import MeanBaseline
from imlkit.report._scores import deciding_metrics, score_intervals
from imlkit.report._sec_alternatives import paired_comparison
from imlkit.report._sec_model import _verdict


class _Fixed:
    def __init__(self, pred):
        self.pred = np.asarray(pred, dtype=float)

    def predict(self, X):
        return self.pred


def _rows(seed=0, n=120):
    """The model: small errors but a few large misses; the GLM: moderate errors everywhere."""
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n) * 3
    err = rng.normal(scale=0.2, size=n)
    err[:6] = 5.5 * np.sign(rng.normal(size=6))
    return y, y + err, y + rng.normal(scale=1.2, size=n)


def _check(said, res, other):
    d = res["differences"][other]
    rmse = res.get("simultaneous_differences", res["differences"])[other]["RMSE"]
    assert rmse[1] < 0 < rmse[2]  # the premise: RMSE ties ...
    assert d["MAE"][2] < 0  # ... and the MAE's interval favours the model
    assert "The simpler model may explain the data as well" not in said
    assert "the simpler model may explain the data as well" not in said
    assert "The MAE (shown, not decisive) favours the model: difference" in said
    assert "no sign that the simpler model explains the data as well" in said


def test_section2_mae_breaks_the_rmse_tie():
    y, model, glm = _rows()
    outputs = {"model": {"pred": model, "proba": None}, "mean": {"pred": np.full(len(y), y.mean()), "proba": None},
               "GLM (gaussian)": {"pred": glm, "proba": None}}
    deciding = deciding_metrics("regression")
    res = score_intervals(outputs, y, "regression", 0, reference="model", simultaneous=deciding)
    ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows", y_test=y,
                          task="regression", model=object())
    said = " ".join(b.get("text", "") for b in _verdict(ctx, res, {"mean": MeanBaseline(),
                                                                  "GLM (gaussian)": MeanBaseline()}, deciding))
    _check(said, res, "GLM (gaussian)")


def test_section6_mae_breaks_the_rmse_tie_and_a_plain_tie_keeps_its_reading():
    y, model, glm = _rows()
    twin = model + np.random.default_rng(5).normal(scale=0.05, size=len(y))  # ties on RMSE and on MAE
    X = pd.DataFrame({"a": np.arange(len(y))})
    ctx = SimpleNamespace(task="regression", model_label="model", model=_Fixed(model), y_train=pd.Series(y),
                          y_test=pd.Series(y), X_test=X, X_train=X, seed=0, score_word="test", eval_rows="test rows",
                          evaluation="split", model_check=SimpleNamespace(decided_by=("RMSE",)),
                          alternative_models={"GLM (gaussian)": _Fixed(glm), "decision tree (depth 3)": _Fixed(twin)})
    blocks = paired_comparison(ctx)
    out = {"model": {"pred": model, "proba": None}, "GLM (gaussian)": {"pred": glm, "proba": None},
           "decision tree (depth 3)": {"pred": twin, "proba": None}}
    res = score_intervals(out, y, "regression", 0, reference="model", simultaneous=("RMSE",))
    glm_said = " ".join(b["text"] for b in blocks if "GLM (gaussian)" in b.get("text", ""))
    _check(glm_said, res, "GLM (gaussian)")
    tree_said = " ".join(b["text"] for b in blocks if "decision tree" in b.get("text", ""))
    assert "The MAE" not in tree_said and "the simpler model may explain the data as well" in tree_said
