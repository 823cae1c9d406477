"""Section 6 says, with section 2's paired intervals, when an interpretable model beats the model."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor

from imlkit.report._scores import score_intervals
from imlkit.report._sec_alternatives import paired_comparison


def _texts(blocks):
    return " ".join(b.get("text", "") for b in blocks)


def test_a_linear_model_that_beats_a_stump_is_said_to_beat_it():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    y = pd.Series(2 * X["a"] + X["b"] + rng.normal(scale=0.3, size=300), name="y")
    Xtr, Xte, ytr, yte = X.iloc[:200], X.iloc[200:], y.iloc[:200], y.iloc[200:]
    stump = DecisionTreeRegressor(max_depth=1).fit(Xtr, ytr)
    lin = LinearRegression().fit(Xtr, ytr)
    noisy = LinearRegression().fit(Xtr[["b"]].assign(a=rng.normal(size=200))[["a", "b"]], ytr)  # b only, a noise
    ctx = SimpleNamespace(task="regression", model_label="stump", model=stump, y_train=ytr, y_test=yte, X_test=Xte,
                          seed=0, score_word="test", eval_rows="test rows", evaluation="split",
                          alternative_models={"linear": lin, "noisy linear": noisy})
    said = _texts(paired_comparison(ctx))
    out = {k: {"pred": m.predict(Xte), "proba": None} for k, m in [("stump", stump), ("linear", lin),
                                                                      ("noisy linear", noisy)]}
    res = score_intervals(out, yte, "regression", 0, reference="stump", simultaneous=("RMSE",))
    d = res["differences"]["linear"]["RMSE"]
    assert d[1] > 0  # the stump's RMSE minus the linear model's: the interval lies above 0
    assert "Each interpretable model against the model on the same 100 test rows" in said
    assert (f"linear beats the model on test RMSE (difference {d[0]:.4g} [{d[1]:.4g}, {d[2]:.4g}]): the report "
            f"explains a model that is not the best available.") in said
    # the other comparison follows the same rule: one of the three sentences, by its own interval
    e = res["differences"]["noisy linear"]["RMSE"]
    if e[1] > 0:
        assert "noisy linear beats the model on test RMSE" in said
    elif e[2] < 0:
        assert "The model improves test RMSE over noisy linear" in said
    else:
        assert "The model and noisy linear are not distinguishable on test RMSE" in said


def test_nothing_fitted_says_nothing():
    assert paired_comparison(SimpleNamespace(alternative_models={})) == []


def test_with_model_glm_the_glm_alternative_is_not_compared_with_itself():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
    y = pd.Series(X["a"] + rng.normal(scale=0.5, size=200), name="y")
    lin = LinearRegression().fit(X.iloc[:150], y.iloc[:150])
    tree = DecisionTreeRegressor(max_depth=2).fit(X.iloc[:150], y.iloc[:150])
    ctx = SimpleNamespace(task="regression", model_label="GLM model", model=lin, y_train=y.iloc[:150],
                          y_test=y.iloc[150:], X_test=X.iloc[150:], seed=0, score_word="test", eval_rows="test rows",
                          evaluation="split", config=SimpleNamespace(model="glm", model_file=None),
                          alternative_models={"GLM (gaussian)": lin, "decision tree (depth 3)": tree})
    said = _texts(paired_comparison(ctx))
    assert "; GLM (gaussian) is the model itself and is not compared with it:" in said
    assert "GLM (gaussian) (difference" not in said and "over GLM (gaussian)" not in said
    assert "decision tree (depth 3)" in said
