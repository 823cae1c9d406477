"""The verdict without the test rows beyond the training range is decided by a paired interval, not two point scores.

A model that loses to a rival on every test row, with the rows beyond the training range carrying most of its
squared error, is said to lose "without those rows" too only when the paired bootstrap interval of the difference on
the other rows still lies on the losing side; a point RMSE a hair above the rival's there is "not distinguishable",
and the verdict then rests on the rows beyond.
"""
from types import SimpleNamespace

import numpy as np
import pandas as pd

from imlkit.report._scores import score_intervals
from imlkit.report._shared import beyond_training


def _case(inside_gap, seed=0, n=200):
    rng = np.random.default_rng(seed)
    X_tr = pd.DataFrame({"x": rng.uniform(0, 1, 300)})
    X_te = pd.DataFrame({"x": np.r_[rng.uniform(0, 1, n - 3), 3.0, 4.0, 5.0]})
    y = rng.normal(size=n)
    rival = y + rng.normal(scale=1.0, size=n)
    # the model: the rival's errors in another order (the same RMSE, paired differences of either sign) scaled by
    # 1 + inside_gap inside, and far off on the three rows beyond
    model = y.copy()
    model[:-3] = y[:-3] + rng.permutation(rival[:-3] - y[:-3]) * (1 + inside_gap)
    model[-3:] = y[-3:] + 40
    ctx = SimpleNamespace(task="regression", X_train=X_tr, X_test=X_te, y_test=pd.Series(y), evaluation="split",
                          config=SimpleNamespace(seed=0))
    return ctx, y, model, rival


def _inside_difference(ctx, y, model, rival):
    keep = np.ones(len(y), dtype=bool)
    keep[-3:] = False
    res = score_intervals({"m": {"pred": model[keep], "proba": None}, "r": {"pred": rival[keep], "proba": None}},
                          y[keep], "regression", 0, reference="m")
    return res["differences"]["r"]["RMSE"]


def test_a_point_score_a_hair_worse_inside_is_not_called_still_worse():
    ctx, y, model, rival = _case(inside_gap=0.002)
    value, lo, hi = _inside_difference(ctx, y, model, rival)
    assert value > 0 and lo < 0 < hi            # worse by a hair as two points, not distinguishable as a pair
    said, turns = beyond_training(ctx, model, "the GAM", rival, "the GLM")
    assert turns
    assert ("the GAM not distinguishable from the GLM); this verdict rests on those rows, where the GAM "
            "extrapolates.") in said
    assert "holds without" not in said


def test_a_model_still_worse_inside_keeps_its_verdict():
    ctx, y, model, rival = _case(inside_gap=0.5)
    value, lo, hi = _inside_difference(ctx, y, model, rival)
    assert lo > 0                                # worse on the other rows as a pair too
    said, turns = beyond_training(ctx, model, "the GAM", rival, "the GLM")
    assert not turns
    assert "still worse); the verdict holds without those rows" in said


def test_a_model_better_inside_turns():
    ctx, y, model, rival = _case(inside_gap=-0.5)
    said, turns = beyond_training(ctx, model, "the GAM", rival, "the GLM")
    assert turns and "better); this verdict rests on those rows" in said


def _no_skill_case(signal):
    rng = np.random.default_rng(4)
    n = 200
    X_tr = pd.DataFrame({"x": rng.uniform(0, 1, 300)})
    X_te = pd.DataFrame({"x": np.r_[rng.uniform(0.1, 0.9, n - 1), 9.0]})
    y = rng.normal(size=n)
    ctx = SimpleNamespace(task="regression", X_train=X_tr, X_test=X_te, y_test=pd.Series(y), evaluation="split",
                          config=SimpleNamespace(seed=0))
    pred = y.mean() + signal * (y - y.mean()) + rng.normal(scale=0.1, size=n)
    pred[-1] = y[-1] + 60            # the row beyond: nearly all the squared error
    r2 = score_intervals({"m": {"pred": pred[:-1], "proba": None}}, y[:-1], "regression", 0)["scores"]["m"]["R²"]
    return ctx, pred, r2


def test_no_skill_turns_only_when_the_r2_interval_inside_lies_above_zero():
    ctx, pred, r2 = _no_skill_case(signal=0.5)
    assert r2[1] > 0
    said, turns = beyond_training(ctx, pred, "the GAM")
    assert turns and "the interval is above 0); this verdict rests on that row" in said
    ctx, pred, r2 = _no_skill_case(signal=0.0)
    assert r2[1] <= 0
    said, turns = beyond_training(ctx, pred, "the GAM")
    assert not turns and "the interval is not above 0); the verdict holds without that row" in said


def test_the_difference_keeps_the_model_minus_the_other_when_the_other_loses():
    """Section 2 gives every difference as the model minus the other; the sentence about the rows beyond keeps that
    order when the other model is the one that loses (review rev8 r1-9: College, "difference -154.2 ..." then
    "difference 440.6 ... still worse" in one sentence)."""
    from imlkit.report._shared import comparison_beyond_note

    ctx, y, other, model = _case(inside_gap=0.5)     # the other model: far off beyond the range, worse inside too
    outputs = {"gbm": {"pred": model, "proba": None}, "tree": {"pred": other, "proba": None}}
    rmse = lambda p: np.sqrt(np.mean((y - p) ** 2))   # noqa: E731
    d = {"RMSE": (rmse(model) - rmse(other), -9.0, -1.0)}   # the model better on every row (model minus tree < 0)
    said = comparison_beyond_note(ctx, d, ("RMSE",), "gbm", "tree", outputs)
    value, lo, hi = _inside_difference(ctx, y, other, model)   # the tree minus the model, inside
    assert value > 0 and lo > 0
    assert "(difference, the model minus the tree, -" in said
    assert "the tree still worse); the verdict holds without those rows" in said
