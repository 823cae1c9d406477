"""The reading's claims on the cases a reviewer found false on real tables (small tables built here)."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from imlkit.importance import ImportanceResult
from imlkit.report import _claims as cl
from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck


def _sim(est, lo, hi, m, level=0.95):
    """The reading's interval of a marginal normal interval [lo, hi] over m entries (Bonferroni level, round 3c)."""
    from scipy.stats import norm
    half = (hi - lo) / 2 * norm.ppf(1 - (1 - level) / (2 * m)) / norm.ppf(0.5 + level / 2)
    return f"simultaneous over {m} [{cl.num(est - half)}, {cl.num(est + half)}]"


def _res(method, values, low, high, names, p_adjusted=None, baseline_loss=None, loss="squared_error", extra=None,
         **params):
    v = np.asarray(values, dtype=float)
    p = None if p_adjusted is None else np.asarray(p_adjusted, float)
    return ImportanceResult(method=method, feature_names=tuple(names), importance=v, std=0 * v,
                            ci_low=np.asarray(low, float), ci_high=np.asarray(high, float), loss=loss,
                            p_adjusted=p, p_value=p, params=params, baseline_loss=baseline_loss, extra=extra or {})


def _ctx(results, y=None, r2=None, no_better_than=None, decision=None, pimp=None):
    imp = ImportanceOutputs(**results)
    imp.pimp = pimp
    n = 30 if y is None else len(y)
    return SimpleNamespace(importance=imp, effects=EffectsOutputs(h_overall=None),
                           data_outputs=DataOutputs(dependence_r2=None if r2 is None else pd.Series(r2)),
                           model_check=ModelCheck(no_better_than=no_better_than, decision=decision or {}),
                           X_test=pd.DataFrame({"z": np.zeros(n)}), y_test=None if y is None else pd.Series(y))


def _text(claims):
    return "\n".join(c.text() for c in claims)


# Boston: squared error of the mean 84.4 on the test rows, the model's 5.3 -> the features explain 79.1.
BOSTON_Y = np.r_[np.full(50, 22.5 - 9.19), np.full(50, 22.5 + 9.19)]
BOSTON = ("lstat", "rm", "tax")


# ----- 1. "negligible" only when the value is small in absolute terms and no test puts it above 0
def test_small_beside_the_largest_is_not_negligible_when_it_is_a_share_of_the_loss_that_matters():
    explained = float(np.var(BOSTON_Y)) - 5.3
    pfi = _res("pfi", [42.0, 20.0, 0.718], [40.0, 18.0, 0.589], [44.0, 22.0, 0.847], BOSTON, baseline_loss=5.3)
    e = cl.evidence(pfi, BOSTON_Y)["tax"]
    assert_allclose(e.explained, explained, rtol=1e-12)
    assert e.relatively_small() and not e.negligible() and e.small_beside()
    assert e.small_words() == "small beside lstat (1.7% of it), though 0.91% of what the features explain together" or \
        e.small_words().startswith("small beside lstat (1.7% of it), though its interval reaches 1.1%")
    # a value 100 times smaller is negligible on both counts
    tiny = _res("pfi", [42.0, 20.0, 0.00718], [40.0, 18.0, 0.00589], [44.0, 22.0, 0.00847], BOSTON, baseline_loss=5.3)
    assert cl.evidence(tiny, BOSTON_Y)["tax"].negligible()


def test_a_significant_test_is_never_negligible():
    # Bikeshare: LOCO "negligible" with adjusted p = 0.0003
    loco = _res("loco", [10.0, 5.0, 0.2], [9.0, 4.0, 0.1], [11.0, 6.0, 0.3], BOSTON, p_adjusted=[1e-4, 1e-4, 3e-4],
                baseline_loss=5.3)
    e = cl.evidence(loco, None)["tax"]  # no yardstick: the test alone keeps it from "negligible"
    assert e.relatively_small() and e.significant() and not e.negligible()
    assert "adjusted p = 0.0003" in e.small_words()


def test_disagreement_says_small_beside_with_the_numbers_and_no_barely_uses(checked_reading):
    pfi = _res("pfi", [42.0, 20.0, 1.5], [40.0, 18.0, 1.2], [44.0, 22.0, 1.8], BOSTON, baseline_loss=5.3)
    sage = _res("sage_conditional", [30.0, 20.0, 10.0], [28.0, 18.0, 8.0], [32.0, 22.0, 12.0], BOSTON,
                extra=dict(v_all=79.1, converged=True))
    claims = checked_reading(_ctx({"pfi": pfi, "sage_conditional": sage}, y=BOSTON_Y, r2={"tax": 0.8}))
    text = _text(claims)
    assert "tax: important for SAGE (conditional)" in text
    # was "but small beside lstat (3.6% of it) but 1.9% of ... for PFI": two "but"s, the method named last
    assert f"but for PFI (1.5, permutation spread {_sim(1.5, 1.2, 1.8, len(pfi.feature_names))}" in text
    assert "small beside lstat (3.6% of it), though 1.9% of what the features explain together." in text
    assert "negligible" not in text.split("tax:")[1].split("\n")[0]
    assert "barely uses" not in text  # PFI's 1.9% is not "the model barely uses it"


# ----- 2. one yardstick: what the features explain together
def test_sage_shares_are_of_v_all_and_sum_to_one():
    sage = _res("sage_marginal", [0.05, 0.03, 0.02], [0.04, 0.02, 0.01], [0.06, 0.04, 0.03], BOSTON,
                baseline_loss=0.0069, loss="log_loss", extra=dict(v_all=0.1, converged=True))
    ev = cl.evidence(sage)
    assert_allclose(sum(e.loss_share for e in ev.values()), 1.0, rtol=1e-12)
    assert "50% of what the features explain together" in ev["lstat"].words()
    assert "of the model's loss" not in ev["lstat"].words()


def test_a_share_beyond_ten_times_is_said_as_a_multiple():
    # the model barely beats the constant (0.25 vs 0.2499): a PFI of 0.05 is 500 times what the features explain
    y = np.tile([0.0, 1.0], 20)
    pfi = _res("pfi", [0.05, 0.01], [0.04, 0.005], [0.06, 0.015], ("a", "b"), baseline_loss=0.2499)
    words = cl.evidence(pfi, y)["a"].words()
    assert "500 times what the features explain together (0.0001)" in words and "%" not in words.split("largest")[1]


@pytest.mark.parametrize("loss, y, want", [
    ("squared_error", [1.0, 2.0, 3.0, 6.0], np.var([1.0, 2.0, 3.0, 6.0])),
    ("absolute_error", [1.0, 2.0, 3.0, 6.0], np.mean(np.abs(np.array([1.0, 2.0, 3.0, 6.0]) - 2.5))),
    ("log_loss", ["x", "y", "y", "y"], -(0.25 * np.log(0.25) + 0.75 * np.log(0.75))),
    ("brier", ["x", "y", "y", "y"], 1 - 0.25 ** 2 - 0.75 ** 2),
    ("zero_one", ["x", "y", "y", "y"], 0.25)])
def test_best_constant_loss_is_the_loss_of_the_best_constant(loss, y, want):
    assert_allclose(cl.best_constant_loss(loss, y), want, rtol=1e-12)
    # no constant does better (a grid of constants / class probabilities)
    if loss in ("squared_error", "absolute_error"):
        v = np.asarray(y)
        grid = np.linspace(0, 7, 701)
        f = (lambda c: np.mean((v - c) ** 2)) if loss == "squared_error" else (lambda c: np.mean(np.abs(v - c)))
        assert min(f(c) for c in grid) >= want - 1e-12
    assert np.isnan(cl.best_constant_loss("r2", y))


# ----- 3. "correlated features" only with R² >= 0.5, and the R² in the sentence
def test_info_vs_use_needs_the_dependence_and_carries_it():
    bad = cl.Claim("info_vs_use", ("year",), numbers=dict(high=("sage_conditional",), low=("pfi",), r2=0.015,
                                                           threshold=cl.R2_STRONG))
    assert any("R² 0.015" in b for b in cl.check(bad))
    good = cl.Claim("info_vs_use", ("year",), numbers=dict(high=("sage_conditional",), low=("pfi",), r2=0.9,
                                                            threshold=cl.R2_STRONG, partners=(("age", 0.93),)))
    assert cl.check(good) == []
    assert "R² = 0.9 >= 0.5, most with age (|r| = 0.93)" in good.text()


# ----- 4. an unconverged estimate creates no verdict
def test_unconverged_sage_is_said_once_and_decides_nothing(checked_reading):
    names = ("PriceDiff", "Store7", "region")
    pfi = _res("pfi", [0.3, -0.01, 0.0], [0.25, -0.02, 0.0], [0.35, -0.005, 0.0], names, baseline_loss=0.4,
               loss="log_loss")
    noisy = _res("sage_conditional", [0.01, 0.2, 0.15], [-0.3, 0.12, 0.1], [0.32, 0.28, 0.2], names, loss="log_loss",
                 extra=dict(v_all=0.25, converged=False, ratio=0.62, n_permutations=64), tolerance=0.05)
    y = np.tile(["CH", "MM"], 20)
    claims = checked_reading(_ctx({"pfi": pfi, "sage_conditional": noisy}, y=y))
    text = _text(claims)
    assert [c.kind for c in claims].count("unconverged") == 1
    assert ("SAGE (conditional) did not converge: after 64 orderings its largest standard error is 0.62 x the range "
            "of its values (the tolerance is 0.05)") in text
    assert "important for SAGE" not in text and "differs between methods" not in text
    assert [c.kind for c in claims if "Store7" in c.features] == ["below_zero"]  # PFI's own verdict only
    # the ranking ignores it too: PriceDiff, never Store7 (below 0 for PFI) or the constant region
    assert [r.feature for r in cl.ranked_features({"pfi": pfi, "sage_conditional": noisy}, y_of=lambda m: y)] == [
        "PriceDiff"]
    # a little short of its tolerance (0.067 vs 0.05, within NEAR_CONVERGED = 2 x): read, and said once
    near = _res("sage_conditional", [0.2, 0.01, 0.0], [0.15, -0.01, 0.0], [0.25, 0.03, 0.0], names, loss="log_loss",
                extra=dict(v_all=0.25, converged=False, ratio=0.067, n_permutations=1024), tolerance=0.05)
    claims = checked_reading(_ctx({"pfi": pfi, "sage_conditional": near}, y=y))
    assert [c.kind for c in claims if c.kind.endswith("converged")] == ["near_converged"]
    assert "All 2 methods rank PriceDiff first" in _text(claims)
    assert "stopped after 1024 orderings a little short of its tolerance: its largest standard error is 0.067" in \
        _text(claims)
    assert [r.feature for r in cl.ranked_features({"pfi": pfi, "sage_conditional": noisy}, y_of=lambda m: y)] == [
        "PriceDiff"]


# ----- 5. the ranking that picks the features for the effects
def test_ranking_counts_methods_not_summed_scores():
    names = ("worst perimeter", "mean area", "texture")
    y = np.tile([0, 1], 50)
    kw = dict(baseline_loss=0.1, loss="brier")
    res = {"pfi": _res("pfi", [0.2, 0.1, 0.05], [0.15, 0.08, 0.04], [0.25, 0.12, 0.06], names, **kw),
           "sage_marginal": _res("sage_marginal", [0.3, 0.05, 0.02], [0.25, 0.04, 0.01], [0.35, 0.06, 0.03], names,
                                 loss="brier", extra=dict(v_all=0.4, converged=True)),
           "cfi": _res("cfi", [-0.05, 0.1, 0.06], [-0.08, 0.08, 0.05], [-0.02, 0.12, 0.07], names, **kw),
           "loco": _res("loco", [-0.04, 0.08, 0.05], [-0.07, 0.06, 0.04], [-0.01, 0.1, 0.06], names, **kw)}
    # a summed relative score: worst perimeter 1 + 1 - 0.5 - 0.5 = 1 < mean area 0.5 + 0.17 + 1 + 1 = 2.67
    ranked = cl.ranked_features(res, y_of=lambda m: y)
    counts = {r.feature: r.n_important for r in ranked}
    # texture is 6.7% of marginal SAGE's largest: not important there
    assert counts == {"mean area": 4, "texture": 3, "worst perimeter": 2}
    assert [r.feature for r in ranked] == ["mean area", "texture", "worst perimeter"]
    assert cl.ranking_words(ranked[:2]) == ("the 2 most important features by how many of the 4 methods find each "
                                            "important: mean area (4 of 4) and texture (3 of 4)")
    # equal counts: first by the median rank where important -- worst perimeter (1st for PFI and SAGE, below 0
    # for CFI and LOCO) before a feature 2nd wherever it is important
    wp = {"pfi": res["pfi"], "sage_marginal": res["sage_marginal"],
          "cfi": _res("cfi", [-0.05, 0.015, 0.2], [-0.08, 0.01, 0.15], [-0.02, 0.02, 0.25], names, **kw)}
    ranked = cl.ranked_features(wp, y_of=lambda m: y)
    assert [(r.feature, r.n_important, r.rank_where_important) for r in ranked] == [
        ("worst perimeter", 2, 1.0), ("mean area", 2, 2.0), ("texture", 2, 2.0)]
    assert ranked[1].median_rank < ranked[2].median_rank  # then by the median rank over every method
    # equal counts (2 of 2) are ordered by the median rank over the methods (1 before 2)
    tie = {"pfi": res["pfi"], "sage_marginal": res["sage_marginal"]}
    assert [r.feature for r in cl.ranked_features(tie, y_of=lambda m: y)] == ["worst perimeter", "mean area", "texture"]


def test_a_constant_model_has_no_most_important_feature():
    # spector: every importance exactly 0 -> "the 2 most important features (TUCE, PSI)" was false
    names = ("GPA", "TUCE", "PSI")
    zero = _res("pfi", [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], names, baseline_loss=0.2)
    assert cl.ranked_features({"pfi": zero, "cfi": zero}) == []
    assert cl.no_important_words({"pfi": zero}) == \
        "no feature is important for any method: every importance is 0 [0, 0]"
    below = _res("pfi", [-0.1, 0.002, 0.0], [-0.2, 0.001, 0.0], [-0.05, 0.003, 0.0], names, baseline_loss=0.2)
    assert cl.ranked_features({"pfi": below}, fill=True) == []
    assert cl.no_important_words({"pfi": below}).startswith("no feature is important for any method by the reading")


def test_fill_adds_the_unsettled_never_the_negligible():
    from imlkit.report._sec_importance import OTHERS

    others = _res("pfi", [1.0, 2.0], [0.9, 1.9], [1.1, 2.1], ("a", OTHERS))
    assert [r.feature for r in cl.ranked_features({"pfi": others})] == ["a"]  # the budget's group is no feature
    names = ("a", "b", "c")
    pfi = _res("pfi", [1.0, 0.5, 0.001], [0.9, -0.2, 0.0005], [1.1, 1.2, 0.0015], names)
    assert [r.feature for r in cl.ranked_features({"pfi": pfi})] == ["a"]
    assert [r.feature for r in cl.ranked_features({"pfi": pfi}, fill=True)] == ["a", "b"]


# ----- 6. PIMP of a constant column
def test_pimp_of_a_column_the_model_does_not_use(checked_reading):
    names = ("price", "region")
    null = np.array([np.linspace(0.0, 0.01, 10), np.r_[np.full(9, -1e-17), 2e-16]])
    pimp = _res("pimp", [0.3, 1.1e-16], [0.3, 1.1e-16], [0.3, 1.1e-16], names, p_adjusted=[0.0909, 0.909],
                baseline_loss=0.4, extra=dict(null=null, distribution=("empirical", "empirical")), n_null=10,
                p_adjust="holm", alpha=0.05, importance="pfi")
    pfi = _res("pfi", [0.3, 0.0], [0.25, 0.0], [0.35, 0.0], names, baseline_loss=0.4)
    claims = checked_reading(_ctx({"pfi": pfi}, pimp=pimp))
    text = _text(claims)
    assert "PIMP: the model does not use region: the observed importance is 0 (up to rounding)" in text
    assert "observed above 9 of 10" not in text and "region (adjusted p" not in text


# ----- 7. "could not be shown to beat the baseline", with the rows; "noise" only when the gain is small too
def test_no_better_says_what_was_shown(checked_reading):
    pfi = _res("pfi", [1.0, 0.5], [0.9, 0.4], [1.1, 0.6], ("a", "b"))
    # BrainCancer: 27 test rows, RMSE difference [-6, 1.5] against a baseline of 20: up to 30% better is allowed
    wide = {"RMSE": {"model": 19.0, "baseline": 20.0, "difference": (-1.0, -6.0, 1.5)}}
    claims = checked_reading(_ctx({"pfi": pfi}, y=np.arange(27.0), no_better_than="mean", decision=wide))
    text = _text(claims)
    assert ("Read this with care: the model could not be shown to beat the mean baseline on 27 test rows (the model "
            "minus the baseline: RMSE -1 [-6, 1.5])") in text
    assert "describe noise" not in text
    # at best 1% better (less than NOISE_GAIN = 2%): now the importances describe noise
    tight = {"RMSE": {"model": 20.0, "baseline": 20.0, "difference": (0.0, -0.2, 0.3)}}
    text = _text(checked_reading(_ctx({"pfi": pfi}, y=np.arange(500.0), no_better_than="mean", decision=tight)))
    assert "less than 2% of the baseline's score, so the importances below describe noise" in text
    assert "on 500 test rows" in text
    # a model that scores exactly as the baseline (spector: a constant model) is said so, not "noise"
    flat = {m: {"model": 0.5, "baseline": 0.5, "difference": (0.0, 0.0, 0.0)} for m in ("Brier score", "ROC AUC")}
    text = _text(checked_reading(_ctx({"pfi": pfi}, y=np.arange(10.0), no_better_than="majority class", decision=flat)))
    assert "scores exactly as the baseline on every measure" in text and "describe noise" not in text
    # another model of the report beats the baseline
    claim = cl.Claim("no_better", numbers=dict(baseline="mean", others={"GLM": ("RMSE",)}))
    assert "GLM does beat the baseline on RMSE." in claim.text()
    bad = cl.Claim("no_better", numbers=dict(baseline="mean", noise=True))
    assert cl.check(bad)


def test_most_important_reads_the_context():
    from imlkit.report._reading import most_important

    names = ("a", "b", "c")
    y = np.tile([0.0, 2.0], 20)  # the mean's squared error 1: the features explain 1 - 0.2 = 0.8
    pfi = _res("pfi", [0.5, 0.3, 0.004], [0.4, 0.2, 0.002], [0.6, 0.4, 0.006], names, baseline_loss=0.2)
    feats, words = most_important(_ctx({"pfi": pfi}, y=y), k=3)
    assert feats == ["a", "b"]  # c is 0.75% of what the features explain: negligible, never "most important"
    assert words == "the 2 features important for PFI: a and b"
    zero = _res("pfi", [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], names, baseline_loss=0.2)
    assert most_important(_ctx({"pfi": zero}, y=y), k=2) == (
        [], "no feature is important for any method: every importance is 0 [0, 0]")


def test_the_yardstick_reads_each_methods_rows_and_leaves_their_record_alone():
    from imlkit.report._reading import _y_of

    asked = []

    def rows(step):
        asked.append(step)
        ctx.row_use[(step, "test")] = "overwritten"
        return None, pd.Series(np.arange(4.0) if step == "sage" else np.arange(6.0))

    ctx = SimpleNamespace(rows=rows, row_use={("pfi", "test"): "pfi's"}, y_test=None)
    y_of = _y_of(ctx)
    assert len(y_of("sage_marginal")) == 4 and len(y_of("pfi")) == 6
    assert asked == ["sage", "pfi"] and ctx.row_use == {("pfi", "test"): "pfi's"}
