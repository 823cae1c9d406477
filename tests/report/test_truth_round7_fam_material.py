"""Truth review rev7 r1, finding 6: "beats the model" / "not the best available" on immaterial differences.

Weekly with its leak (Direction = Up iff Today > 0): every model classified all 327 test rows correctly, yet "decision
tree beats the model on test Brier score: 9.46e-10 against 0 (difference 9.46e-10 [9.18e-10, 9.73e-10]) ... not the
best available" -- an interval that excluded 0 only because both scores are deterministic, 2e-9 of the model's gain
over the constant (0.494). A difference now counts only when it is at least MATERIAL_SHARE of the larger gain over a
constant on that measure."""
import numpy as np
from numpy.testing import assert_allclose

from imlkit.report._blocks import fmt
from imlkit.report._scores import MATERIAL_SHARE, deciding_metrics, material_floor, score_intervals
from imlkit.report._shared import compare_models, level_note, score_cell


def _perfect_pair(n=327, eps=2.2e-5, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.55, "Up", "Down")
    labels = ["Down", "Up"]
    hit = (y == "Up").astype(float)
    model = np.column_stack([1 - hit, hit])  # sure and right on every row: Brier 0
    near = np.clip(hit, eps, 1 - eps)  # sure and right up to eps: Brier 2 eps² per row
    tree = np.column_stack([1 - near, near])
    outs = {"model": {"pred": y, "proba": model}, "tree": {"pred": y.copy(), "proba": tree}}
    return y, labels, outs


def _said(res, deciding, other="tree"):
    d = res.get("simultaneous_differences", res["differences"])[other]
    return compare_models(res, "model", other, d, deciding, level_note(res, deciding, short=True))["text"]


def test_a_deterministic_difference_between_two_perfect_classifiers_is_not_a_win():
    y, labels, outs = _perfect_pair()
    deciding = deciding_metrics("classification")
    res = score_intervals(outs, y, "classification", 0, labels=labels, reference="model", simultaneous=deciding)
    d = res["simultaneous_differences"]["tree"]["Brier score"]
    assert d[1] < 0 and d[2] < 0  # the interval excludes 0 ...
    floor = material_floor(res, "model", "tree", "Brier score")
    p = np.mean(y == "Up")
    assert_allclose(floor, MATERIAL_SHARE * (1 - p ** 2 - (1 - p) ** 2), rtol=1e-9)  # the constant's Brier score
    assert abs(d[0]) < floor  # ... but is far below the floor
    said = _said(res, deciding)
    assert "beats" not in said and "not the best available" not in said and "improves" not in said
    # ROC AUC and balanced accuracy are 1 for both (difference 0 [0, 0]); the Brier score differs by rounding
    assert said.startswith("The model and tree are not distinguishable on test ROC AUC and balanced accuracy")
    assert (f"The same on Brier score on these rows (the interval excludes 0, but the difference is immaterial: "
            f"Brier score {score_cell(d)}, below {fmt(floor)} (1% of the larger gain over a constant on it, "
            f"{fmt(floor / MATERIAL_SHARE)})).") in said


def test_a_material_difference_still_decides():
    y, labels, outs = _perfect_pair(eps=0.2)  # right on every row, but only 80% sure: Brier 0.08 per row
    deciding = deciding_metrics("classification")
    res = score_intervals(outs, y, "classification", 0, labels=labels, reference="model", simultaneous=deciding)
    said = _said(res, deciding)
    assert said.startswith("The model improves over tree on test Brier score")


def test_regression_twin_within_the_floor_is_the_same_and_a_worse_one_is_not():
    rng = np.random.default_rng(1)
    n = 400
    y = rng.normal(size=n) * 10
    pred = y + rng.normal(size=n)
    outs = {"model": {"pred": pred, "proba": None}, "twin": {"pred": pred - 1e-4 * np.sign(y - pred), "proba": None},
            "worse": {"pred": y + 3 * rng.normal(size=n), "proba": None}}
    res = score_intervals(outs, y, "regression", 0, reference="model", simultaneous=("RMSE",))
    d = res["differences"]["twin"]["RMSE"]
    assert d[1] < 0 and d[2] < 0  # the twin is worse on every row, so the interval excludes 0
    said = _said(res, ("RMSE",), "twin")
    assert said.startswith("The model and twin score the same on test RMSE on these rows (the interval excludes 0, "
                           "but the difference is immaterial: RMSE ")
    assert "the simpler model may explain the data as well" in said
    assert _said(res, ("RMSE",), "worse").startswith("The model improves test RMSE over worse from ")


def test_without_a_constant_s_score_the_rule_is_the_old_one():
    y, labels, outs = _perfect_pair()
    deciding = deciding_metrics("classification")
    res = score_intervals(outs, y, "classification", 0, labels=labels, reference="model", simultaneous=deciding)
    del res["constant"]
    assert material_floor(res, "model", "tree", "Brier score") == 0.0
    assert "The model improves over tree on test Brier score" in _said(res, deciding)


def test_an_immaterial_mae_difference_favours_no_one():
    """A tie on RMSE beside an MAE difference of 1e-6 whose interval excludes 0: "the MAE favours the model ... so the
    tie is no sign that the simpler model explains the data as well" was said on 1e-6 of an MAE gain of 7.2."""
    from imlkit.report._fit import mae_split

    res = {"scores": {"model": {"RMSE": (1.0, 0.9, 1.1), "MAE": (0.8, 0.7, 0.9)},
                      "glm": {"RMSE": (0.999, 0.9, 1.1), "MAE": (0.800001, 0.7, 0.9)}},
           "differences": {"glm": {"RMSE": (0.001, -0.1, 0.1), "MAE": (-1e-6, -1.1e-6, -0.9e-6)}},
           "constant": {"RMSE": 10.0, "MAE": 8.0}, "rows": 400, "level": 0.95}
    assert_allclose(material_floor(res, "model", "glm", "MAE"), 0.01 * 7.2, rtol=1e-6)
    assert mae_split(res, "glm", ("RMSE",)) == ("", False)
    del res["constant"]  # the old rule: any difference whose interval excludes 0
    note, ahead = mae_split(res, "glm", ("RMSE",))
    assert ahead and note.startswith(" The MAE (shown, not decisive) favours the model")
