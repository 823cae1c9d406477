"""Round 8 (review r2, findings 6, 10, 7): the stratified bootstrap of classification scores, a resolved log loss
beside a tie on the deciding measures, and the partner column of section 1's extrapolation picture."""
from __future__ import annotations

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from imlkit.report import _scores
from imlkit.report._context import ModelCheck
from imlkit.report._fit import MeanBaseline
from imlkit.report._scores import (
    bootstrap_weights,
    class_interval_miss,
    deciding_metrics,
    min_test_rows,
    score_intervals,
    scores,
    shown_split,
)
from imlkit.report._sec_model import _verdict

# --- finding 6: the stratified bootstrap -------------------------------------------------------------------------


def _majority(y, labels):
    freq = np.array([np.mean(y == c) for c in labels])
    return {"pred": np.full(len(y), labels[int(freq.argmax())]), "proba": np.tile(freq, (len(y), 1))}


def test_the_majority_baseline_has_balanced_accuracy_one_half_on_every_resample():
    """spector: 10 test rows, 3 positives; the majority class scored "balanced accuracy 0.5 [0.5, 1]" because one
    unstratified resample in 36 (0.7^10) lacked the positives and its "mean recall over the classes present" was 1."""
    labels = ["0", "1"]
    y = np.array(["0"] * 7 + ["1"] * 3)
    res = score_intervals({"majority": _majority(y, labels)}, y, "classification", 0, labels=labels)
    assert_allclose(res["scores"]["majority"]["balanced accuracy"], (0.5, 0.5, 0.5), atol=1e-12)
    assert_allclose(res["scores"]["majority"]["ROC AUC"], (0.5, 0.5, 0.5), atol=1e-12)
    # any model minus the baseline: its balanced accuracy is a mean of both classes' recalls on every resample
    rng = np.random.default_rng(0)
    p = np.clip(0.5 + 0.3 * (y == "1") + rng.normal(0, 0.2, 10), 0.01, 0.99)
    model = {"pred": np.where(p > 0.5, "1", "0"), "proba": np.c_[1 - p, p]}
    res = score_intervals({"model": model, "majority": _majority(y, labels)}, y, "classification", 0, labels=labels,
                          reference="model")
    W = bootstrap_weights(10, 0, res["n_boot"], strata=y)
    ba = scores(model, y, "classification", W, labels)["balanced accuracy"]
    lo, hi = np.percentile(ba - 0.5, [2.5, 97.5])
    assert_allclose(res["differences"]["majority"]["balanced accuracy"][1:], (lo, hi), atol=1e-12)


def test_stratified_weights_keep_every_class_count_and_the_seed_decides_them(monkeypatch):
    y = np.array(list("aabbbbbbbbcccccccccccccccccccc"))  # 2, 8 and 20 rows
    W = bootstrap_weights(len(y), 7, 500, strata=y)
    for c in "abc":
        assert_array_equal(W[:, y == c].sum(axis=1), np.full(500, (y == c).sum()))
    assert (W[:, y == "a"] > 0).any(axis=0).all()  # both rows of the small class are drawn, in some resamples
    assert_array_equal(W, bootstrap_weights(len(y), 7, 500, strata=y))
    # the memory blocks (MAX_WEIGHTS) draw the same numbers
    monkeypatch.setattr(_scores, "MAX_WEIGHTS", 90)
    assert_array_equal(W, bootstrap_weights(len(y), 7, 500, strata=y))


def test_regression_weights_are_the_unstratified_draw_as_before():
    """No strata: multinomial counts from one integers() draw per block, the numbers of every earlier round."""
    n, seed, b = 25, 3, 300
    rng = np.random.default_rng(np.random.SeedSequence([seed, 20111]))
    idx = rng.integers(0, n, size=(b, n))
    expected = np.stack([np.bincount(r, minlength=n) for r in idx]).astype(float)
    assert_array_equal(bootstrap_weights(n, seed, b), expected)


def test_stratified_balanced_accuracy_resamples_are_the_mean_of_two_binomial_recalls():
    """Known answer: with 5 of 7 negatives and 2 of 3 positives right, a stratified resample's balanced accuracy is
    (Bin(7, 5/7)/7 + Bin(3, 2/3)/3) / 2: mean 0.6905, variance (5/7 2/7 / 7 + 2/3 1/3 / 3) / 4."""
    labels = ["0", "1"]
    y = np.array(["0"] * 7 + ["1"] * 3)
    pred = np.array(["0"] * 5 + ["1"] * 2 + ["1"] * 2 + ["0"])
    W = bootstrap_weights(10, 1, 40_000, strata=y)
    ba = scores({"pred": pred, "proba": None}, y, "classification", W, labels)["balanced accuracy"]
    p0, p1 = 5 / 7, 2 / 3
    assert_allclose(ba.mean(), (p0 + p1) / 2, atol=0.003)
    assert_allclose(ba.var(), (p0 * (1 - p0) / 7 + p1 * (1 - p1) / 3) / 4, rtol=0.03)


def test_class_interval_miss_is_min_test_rows_for_one_class_and_matches_a_simulation():
    for level in (0.95, 1 - 0.05 / 3):
        n = min_test_rows(level)
        z = stats.norm.ppf(1 - (1 - level) / 2)
        assert_allclose(class_interval_miss([n], level)[0], 2 * stats.t.sf(z * np.sqrt((n - 1) / n), n - 1),
                        rtol=1e-12)
    assert class_interval_miss([1, 50], 0.95)[0] == 1.0
    # the mean of two class means, normal scores with one spread, classes of 4 and 60 rows: the stratified
    # percentile interval's miss rate against the formula (Welch-Satterthwaite)
    rng = np.random.default_rng(5)
    reps, B, counts = 2000, 400, (4, 60)
    missed = 0
    for _ in range(reps):
        parts = [rng.normal(size=c) for c in counts]
        boot = sum(np.take(x, rng.integers(0, len(x), size=(B, len(x)))).mean(axis=1) for x in parts) / 2
        lo, hi = np.percentile(boot, [2.5, 97.5])
        missed += (lo > 0) or (hi < 0)
    assert_allclose(missed / reps, class_interval_miss(counts, 0.95)[0], atol=0.025)
    assert missed / reps > 1.5 * 0.05


def test_a_class_of_three_test_rows_is_too_few_for_the_per_class_measures_and_says_why():
    labels = ["a", "b", "rare"]
    y = np.array(["a"] * 150 + ["b"] * 147 + ["rare"] * 3)
    out = {"pred": np.full(300, "a"), "proba": np.tile([0.5, 0.49, 0.01], (300, 1))}
    res = score_intervals({"m": out}, y, "classification", 0, labels=labels,
                          simultaneous=deciding_metrics("classification"))
    why = _scores.too_few_rows(res, "balanced accuracy")
    miss = class_interval_miss([3, 147, 150], res["simultaneous_level"])[0]
    assert f"misses {100 * miss:.3g}% of the time" in why and "rare (3)" in why
    assert _scores.too_few_rows(res, "Brier score") == ""
    # three balanced classes of 40: decided
    y = np.repeat(labels, 40)
    res = score_intervals({"m": {**out, "pred": np.full(120, "a"), "proba": np.tile([0.5, 0.49, 0.01], (120, 1))}},
                          y, "classification", 0, labels=labels, simultaneous=deciding_metrics("classification"))
    assert _scores.too_few_rows(res, "balanced accuracy") == ""


# --- finding 10: a resolved log loss beside a tie on the deciding measures ----------------------------------------


def _anes_like():
    """A GLM with calibrated probabilities and a model with the same ranking made overconfident: Brier score, ROC AUC
    and balanced accuracy tie on 200 rows, the log loss does not."""
    rng = np.random.default_rng(11)
    n = 200
    eta = rng.normal(0, 2.0, n)
    p = 1 / (1 + np.exp(-eta))
    y = np.where(rng.uniform(size=n) < p, "1", "0")
    q = 1 / (1 + np.exp(-2.5 * eta - rng.normal(0, 0.5, n)))  # about the same ranking, pushed to 0 and 1
    glm = {"pred": np.where(p > 0.5, "1", "0"), "proba": np.c_[1 - p, p]}
    model = {"pred": np.where(q > 0.5, "1", "0"), "proba": np.c_[1 - q, q]}
    freq = np.mean(y == "1")
    base = {"pred": np.full(n, "0" if freq < 0.5 else "1"), "proba": np.tile([1 - freq, freq], (n, 1))}
    return y, {"model": model, "majority class": base, "GLM (binomial)": glm}


def test_a_log_loss_that_resolves_a_tie_on_the_deciding_measures_is_said_with_its_numbers():
    """statsmodels anes96: "not distinguishable on test Brier score, ROC AUC and balanced accuracy ... The simpler
    model may explain the data as well", above a table with the GLM's log loss better by 0.136 [0.058, 0.221]."""
    y, outputs = _anes_like()
    labels = ["0", "1"]
    deciding = deciding_metrics("classification")
    res = score_intervals(outputs, y, "classification", 0, labels=labels, reference="model", simultaneous=deciding)
    sim = res["simultaneous_differences"]["GLM (binomial)"]
    assert all(sim[m][1] < 0 < sim[m][2] for m in deciding)  # the tie of the finding
    d = res["differences"]["GLM (binomial)"]["log loss"]
    assert d[1] > 0  # the GLM's log loss is better, its 95% interval excludes 0
    ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows", y_test=y,
                          task="classification", evaluation="split",
                          config=SimpleNamespace(model="gbm", model_file=None))
    fitted = {"majority class": MeanBaseline(), "GLM (binomial)": None}
    said = " ".join(b["text"] for b in _verdict(ctx, res, fitted, deciding, others=None))
    assert "may explain the data as well" not in said
    ours, theirs = res["scores"]["model"]["log loss"][0], res["scores"]["GLM (binomial)"]["log loss"][0]
    from imlkit.report._blocks import fmt

    assert (f"on log loss (shown, not deciding; unbounded, it weighs most the rows where a model is confidently "
            f"wrong) the GLM (binomial) is better: {fmt(theirs)} against {fmt(ours)} for the model (difference "
            f"{fmt(d[0])} [{fmt(d[1])}, {fmt(d[2])}], 95% interval") in said
    assert "so the tie is no sign that the model and the GLM (binomial) explain the data equally well" in said
    # the rule itself: nothing to say when the log loss does not resolve them, or when a deciding measure says it
    note, split = shown_split(res, "GLM (binomial)", deciding)
    assert split and note
    calm = {**res, "differences": {**res["differences"],
                                   "GLM (binomial)": {**res["differences"]["GLM (binomial)"],
                                                      "log loss": (d[0], -0.01, d[2])}}}
    assert shown_split(calm, "GLM (binomial)", deciding) == ("", False)
    said_too = {**res, "simultaneous_differences": {**res["simultaneous_differences"],
                                                    "GLM (binomial)": {**sim, "Brier score": (0.05, 0.01, 0.09)}}}
    assert shown_split(said_too, "GLM (binomial)", deciding) == ("", False)


# --- finding 7: the single column most associated with a feature ----------------------------------------------------


def _product_table(n=400, seed=0):
    """scotland's COUTAX_FEMALEUNEMP = COUTAX x UNEMPF: the product and the other factor explain a factor jointly."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(2, 3, n)
    b = rng.uniform(1, 3, n)
    return pd.DataFrame({"a": a, "ab": a * b, "b": b, "noise": rng.normal(size=n)})


def test_the_extrapolation_picture_says_when_the_partner_carries_less_than_half_of_the_dependence():
    from imlkit._dependence import dependence_partner, dependence_r2
    from imlkit.report._sec_data import _extrapolation_blocks

    X = _product_table()
    r2 = dependence_r2(X)
    partner, _, r, _ = dependence_partner(X, "a")
    assert partner == "ab"
    alone = np.corrcoef(X["a"], X["ab"])[0, 1] ** 2
    assert alone < r2["a"] / 2 and r2["a"] > 0.9  # the case of the finding
    cap = _extrapolation_blocks(X, "a", 0, r2_all=float(r2["a"]))[0]["caption"]
    assert cap.startswith(f"a against ab, the single column most associated with it (Pearson r = {r:.2f}, "
                          f"r² = {alone:.2f}, of the R² = {r2['a']:.2f} from all the other features)")
    assert (f"The dependence is joint: ab alone explains {alone:.2f} of a's variance, less than half of the "
            f"{r2['a']:.2f} all the other features explain together") in cap
    assert "carries most" not in cap
    # a near copy carries it alone: no such sentence
    rng = np.random.default_rng(1)
    Y = pd.DataFrame({"x1": X["a"], "x2": X["a"] + rng.normal(0, 0.05, len(X)), "x3": rng.normal(size=len(X))})
    cap = _extrapolation_blocks(Y, "x1", 0, r2_all=float(dependence_r2(Y)["x1"]))[0]["caption"]
    assert "the single column most associated with it" in cap and "joint" not in cap


@pytest.mark.parametrize("feature", ["a", "b"])
def test_dependence_partner_is_the_single_column_with_the_largest_adjusted_r2(feature):
    from imlkit._dependence import dependence_partner

    X = _product_table()
    partner, adj, r, categorical = dependence_partner(X, feature)
    n = len(X)
    best = max((c for c in X.columns if c != feature), key=lambda c: np.corrcoef(X[feature], X[c])[0, 1] ** 2)
    assert partner == best and not categorical
    r2 = np.corrcoef(X[feature], X[best])[0, 1] ** 2
    assert_allclose(adj, 1 - (1 - r2) * (n - 1) / (n - 2), rtol=1e-10)
