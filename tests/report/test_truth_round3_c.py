"""Round 3 (c) of the report's truth: the reading's verdicts on marginal intervals are simultaneous over the features
(Bonferroni), its strong interactions follow section 4's halves, a lost comparison names the measures it rests on,
and failed importance methods are said to have failed."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from scipy import stats

from imlkit.importance import ImportanceResult
from imlkit.report import _claims as cl
from imlkit.report._context import DataOutputs, EffectsOutputs, Failure, ImportanceOutputs, ModelCheck
from imlkit.report._ranking import no_ranking_reason, single_features, top_features
from imlkit.report._reading import reading_claims
from imlkit.report._shared import compare_models


def _sage(values, low, high, names, method="sage_conditional", v_all=None):
    v = np.asarray(values, dtype=float)
    se = (np.asarray(high, float) - np.asarray(low, float)) / 2 / stats.norm.ppf(0.975)
    return ImportanceResult(method=method, feature_names=tuple(names), importance=v, std=se,
                            ci_low=np.asarray(low, float), ci_high=np.asarray(high, float), loss="squared_error",
                            params={"confidence_level": 0.95},
                            extra={"v_all": float(v_all if v_all is not None else v.sum()), "converged": True})


def _pfi(reps, names, method="pfi", level=0.95):
    reps = np.asarray(reps, dtype=float)
    r = reps.shape[1]
    mean, sd = reps.mean(axis=1), reps.std(axis=1, ddof=1)
    half = stats.t.ppf(0.5 + level / 2, r - 1) * sd / np.sqrt(r)
    return ImportanceResult(method=method, feature_names=tuple(names), importance=mean, std=sd, ci_low=mean - half,
                            ci_high=mean + half, loss="squared_error", repeats=reps,
                            params={"confidence_level": level})


def _ctx(results, h=None, halves=None, h_rows=None, y=None):
    return SimpleNamespace(importance=ImportanceOutputs(**results),
                           effects=EffectsOutputs(h_overall=h, h_halves=halves, h_rows=h_rows),
                           data_outputs=DataOutputs(dependence_r2=None), model_check=ModelCheck(no_better_than=None),
                           X_test=None if y is None else pd.DataFrame({"a": np.zeros(len(y))}),
                           y_test=None if y is None else pd.Series(y))


def _texts(ctx):
    out = []
    for para in reading_claims(ctx):
        for item in para.items:
            for c in item:
                assert cl.check(c) == [], (c.kind, c.text(), cl.check(c))
            out.append(" ".join(c.text() for c in item))
    return "\n".join(out)


# --------------------------------------------------------------------------- 1. simultaneous intervals
# The review's numbers: conditional SAGE on a 2,000-column table, 16 entries (15 features and 'all other features');
# x958 (pure noise) 0.572 [0.0087, 1.14], 24% of the largest.
NAMES16 = ["x0", "x1", "x2", "x3", "x958", "x753"] + [f"n{j}" for j in range(9)] + ["all other features"]
EST16 = [2.4, 2.0, 1.7, 0.9, 0.572, 0.45] + [0.05] * 9 + [0.3]


def _sage16():
    est = np.asarray(EST16)
    half = np.array([0.3, 0.3, 0.3, 0.3, 0.5633, 0.44] + [0.5] * 9 + [0.4])
    return _sage(est, est - half, est + half, NAMES16)


def test_noise_entry_clearing_zero_by_a_marginal_interval_is_not_important():
    r = _sage16()
    e = cl.evidence(r)["x958"]
    # the marginal interval clears 0 (the verdict before this round: "important")
    assert e.marginal_low > 0 and e.share >= cl.IMPORTANT_SHARE
    # at the Bonferroni level over the 16 entries the interval is z(1 - 0.05/32) / z(0.975) times wider
    z = stats.norm.ppf(1 - 0.05 / 32)
    assert_allclose([e.low, e.high], [0.572 - z * r.std[4], 0.572 + z * r.std[4]], rtol=1e-9)
    assert e.family == 16 and not e.important() and not e.above_null()
    # the strong features stay important
    assert all(cl.evidence(r)[f].important() for f in ("x0", "x1", "x2", "x3"))
    text = _texts(_ctx({"sage_conditional": r}))
    assert "x958: important" not in text
    ranked = [x.feature for x in cl.ranked_features({"sage_conditional": r})]
    assert ranked == ["x0", "x1", "x2", "x3"]


def test_the_rules_state_the_level_and_the_number_of_entries():
    text = _texts(_ctx({"sage_conditional": _sage16()}))
    assert "The table's intervals of SAGE (conditional) are marginal: each is at 95% for its feature alone" in text
    # the reading reads the 15 single features (the budget's group is no feature and not read: round 5), so the
    # family is 15, not the 16 entries with the group
    assert "Bonferroni level over the entries the method reports (1 - (1 - level)/m): SAGE (conditional) over " \
           "its 15 entries at 99.67%" in text
    # an unsettled noise entry shows the interval its verdict rests on, and the table's marginal one beside it
    e = cl.evidence(single_features({"s": _sage16()})["s"])["x958"]
    assert f"Monte-Carlo interval simultaneous over 15 [{cl.num(e.low)}, {cl.num(e.high)}], marginal [0.0087, " \
           f"1.14]" in text


def test_an_unsettled_first_place_names_the_simultaneous_intervals_it_shows():
    est = np.array([2.0, 1.78, 0.5])
    r = _sage(est, est - 0.1, est + 0.1, ["a", "b", "c"], method="sage_marginal")
    ev = cl.evidence(r)
    # apart by the table's intervals, overlapping at the Bonferroni level
    assert ev["a"].marginal_low > ev["b"].marginal_high and ev["a"].low <= ev["b"].high
    text = _texts(_ctx({"sage_marginal": r}))
    assert (f"(SAGE (marginal) simultaneous over 3: a 2 [{cl.num(ev['a'].low)}, {cl.num(ev['a'].high)}], b 1.78 "
            f"[{cl.num(ev['b'].low)}, {cl.num(ev['b'].high)}])") in text


def test_pfi_rests_on_students_t_with_its_repeats_at_the_bonferroni_level():
    rng = np.random.default_rng(1)
    reps = np.vstack([5 + rng.normal(size=5), 0.4 + 0.3 * rng.normal(size=5), 0.3 * rng.normal(size=(10, 5))])
    names = [f"f{j}" for j in range(12)]
    r = _pfi(reps, names)
    ev = cl.evidence(r)
    sd, mean = reps.std(axis=1, ddof=1), reps.mean(axis=1)
    q = stats.t.ppf(1 - 0.05 / (2 * 12), 4)  # t with r - 1 = 4 degrees of freedom at 1 - alpha/(2m)
    assert_allclose([ev[f].low for f in names], mean - q * sd / np.sqrt(5), rtol=1e-9, atol=1e-12)
    assert_allclose([ev[f].high for f in names], mean + q * sd / np.sqrt(5), rtol=1e-9, atol=1e-12)
    assert_allclose([ev[f].marginal_low for f in names], r.ci_low, rtol=1e-12)


def test_among_many_null_features_the_marginal_rule_calls_some_important_the_simultaneous_none():
    # 400 features with no importance (mean 0) and one real one: PFI-like repeats, 5 each
    rng = np.random.default_rng(7)
    reps = np.vstack([10 + rng.normal(size=(1, 5)), 1.5 + rng.normal(size=(400, 5))]) - np.r_[0, [1.5] * 400][:, None]
    r = _pfi(reps, [f"f{j}" for j in range(401)])
    marginal = int(np.sum(r.ci_low[1:] > 0))
    assert marginal >= 3  # about 2.5% of 400 clear 0 on their own (the rule before this round)
    ev = cl.evidence(r)
    assert sum(ev[f"f{j}"].above_null() for j in range(1, 401)) == 0
    assert ev["f0"].important()


def test_methods_with_their_own_simultaneous_intervals_or_tests_are_read_as_they_are():
    v = np.array([3.0, 1.0, 0.2])
    loco = ImportanceResult(method="loco", feature_names=("a", "b", "c"), importance=v, std=0 * v,
                            ci_low=v - 0.5, ci_high=v + 0.5, loss="squared_error", p_value=np.array([1e-4, 0.01, .3]),
                            p_adjusted=np.array([3e-4, 0.02, 0.6]), params={"p_adjust": "holm", "alpha": 0.025},
                            info={"p_adjust_applied": "holm", "interval_adjust": "bonferroni"})
    e = cl.evidence(loco)
    assert e["a"].family == 0 and (e["a"].low, e["a"].high) == (2.5, 3.5) and e["b"].p_adjusted == 0.02
    # a test run with no correction: Bonferroni's over its entries in the reading
    raw = ImportanceResult(method="loco", feature_names=("a", "b", "c"), importance=v, std=0 * v,
                           ci_low=v - 0.5, ci_high=v + 0.5, loss="squared_error", p_value=np.array([1e-4, 0.01, .3]),
                           p_adjusted=np.array([1e-4, 0.01, 0.3]), params={"p_adjust": None, "alpha": 0.025},
                           info={"p_adjust_applied": None, "interval_adjust": None})
    assert_allclose([x.p_adjusted for x in cl.evidence(raw).values()], [3e-4, 0.03, 0.9])
    assert not cl.evidence(raw)["b"].significant()


# --------------------------------------------------------------------------- 2. strong interactions by the halves
def test_strong_interactions_follow_section_4s_halves_with_the_row_count():
    r = _sage(EST16[:4], np.asarray(EST16[:4]) - 0.1, np.asarray(EST16[:4]) + 0.1, NAMES16[:4])
    ctx = _ctx({"sage_conditional": r}, h={"x0": 0.3, "x1": 0.11, "x2": 0.05},
               halves={"x0": (0.25, 0.35), "x1": (0.08, 0.14), "x2": (0.04, 0.06)}, h_rows=120)
    text = _texts(ctx)
    assert "Features with strong interactions (H² > 0.1 in each half of the H-statistic's 120 rows, as section 4 " \
           "reads it): x0 (H² = 0.3; halves 0.25 and 0.35)." in text
    assert "not distinguishable from 0.1 at 120 rows: x1 (H² = 0.11; halves 0.08 and 0.14)." in text
    assert "x1 (H² = 0.11)" not in text and "x2" not in text.split("interactions")[-1]
    # only unsettled ones: no "strong" list, the unsettled named
    ctx = _ctx({"sage_conditional": r}, h={"x1": 0.11}, halves={"x1": (0.08, 0.14)}, h_rows=120)
    text = _texts(ctx)
    assert "No feature has a strong interaction (H² > 0.1 in each half of the H-statistic's 120 rows" in text
    assert "Features with strong interactions" not in text


def test_a_disagreement_is_not_explained_by_an_interaction_the_halves_do_not_settle():
    from imlkit.report._reading import _reasons

    ev = {"pfi": {}, "sage_marginal": {}}
    h, halves = {"b": 0.11}, {"b": (0.08, 0.14)}
    kinds = [c.kind for c in _reasons("b", ["pfi"], ["sage_marginal"], None, h, None, None, halves)]
    assert "interaction" not in kinds
    kinds = [c.kind for c in _reasons("b", ["pfi"], ["sage_marginal"], None, h, None, None, None)]
    assert "interaction" in kinds  # without halves: the overall H² (as before)
    # "not explained ... or a strong interaction" only when the halves are at or below 0.1 too
    claims = _reasons("b", ["pfi"], ["cfi"], {"b": 0.0}, {"b": 0.09}, None, None, {"b": (0.05, 0.13)})
    assert all("h2" not in c.numbers for c in claims if c.kind == "not_dependence")
    claims = _reasons("b", ["pfi"], ["cfi"], {"b": 0.0}, {"b": 0.09}, None, None, {"b": (0.05, 0.08)})
    said = " ".join(c.text() for c in claims if c.kind == "not_dependence")
    assert "(overall H² = 0.09 <= 0.1, and in each half of its rows: 0.05 and 0.08)" in said
    del ev


# --------------------------------------------------------------------------- 3. a lost comparison names its measures
def _res3(d):
    scores = {"m": {k: (0.5, np.nan, np.nan) for k in d}, "GLM (binomial)": {k: (0.5, np.nan, np.nan) for k in d}}
    return {"scores": scores, "simultaneous_level": 1 - 0.05 / 3, "level": 0.95}


def test_lost_on_one_measure_and_undecided_on_the_others_names_the_measure():
    # Credit (Student), a one-hot logistic regression against a completely separated GLM
    d = {"Brier score": (0.046, -0.013, 0.11), "ROC AUC": (-0.014, -0.047, 0.0),
         "balanced accuracy": (-0.226, -0.405, -0.063)}
    said = compare_models(_res3(d), "m", "GLM (binomial)", d, list(d), "")["text"]
    assert "GLM (binomial) beats the model on test balanced accuracy" in said
    assert "The report explains a model that is not the best available." not in said
    assert "On balanced accuracy the report explains a model that is not the best available; on Brier score and " \
           "ROC AUC neither is shown better" in said
    # lost on every deciding measure: the conclusion stands unqualified
    d = {k: (-0.2, -0.3, -0.1) if k != "Brier score" else (0.2, 0.1, 0.3) for k in d}
    said = compare_models(_res3(d), "m", "GLM (binomial)", d, list(d), "")["text"]
    assert said.endswith("The report explains a model that is not the best available.")


# --------------------------------------------------------------------------- 4. failed methods are named
def _failctx(methods, failures):
    return SimpleNamespace(config=SimpleNamespace(methods=methods), failures=failures,
                           methods=lambda *n: any(x in methods for x in n),
                           importance=ImportanceOutputs(), X_test=pd.DataFrame({"a": [1.0], "b": [2.0]}))


def test_selected_methods_that_failed_are_named_not_said_unselected():
    ctx = _failctx(("pfi", "sage"), [Failure(part="PFI", kind="method", reason="boom"),
                                     Failure(part="SAGE", kind="method", reason="boom")])
    cols, words = top_features(ctx, 2)
    assert cols == ["a", "b"]
    assert "no importance method was selected" not in words
    assert "PFI and SAGE were selected, but PFI and SAGE failed" in words
    assert no_ranking_reason(_failctx((), [])) == "no importance method was selected to rank them"
    ctx = _failctx(("pfi", "loco"), [Failure(part="PFI", kind="method", reason="boom")])
    assert no_ranking_reason(ctx) == ("no importance ranks them: PFI and LOCO were selected, but PFI failed (see the "
                                      "warnings of section 3) and LOCO gave no importance (see section 3)")


def test_comparison_figure_caption_names_its_marginal_whiskers():
    # the side-by-side figure draws the tables' intervals; a whisker clearing 0 there is not the reading's verdict
    # for PFI/CFI/SAGE (marginal, judged at the Bonferroni level), while LOCO's own intervals are simultaneous
    from imlkit.report._sec_importance import _comparison_figure

    names = ["a", "b", "c"]
    pfi = _pfi([[3.0, 3.2, 2.9], [0.1, 0.3, 0.2], [0.0, 0.05, -0.02]], names)
    loco = ImportanceResult(method="loco", feature_names=tuple(names), importance=np.array([1.0, 0.2, 0.0]),
                            std=np.zeros(3), ci_low=np.array([0.8, 0.0, -0.1]), ci_high=np.array([1.2, 0.4, 0.1]),
                            loss="squared_error", params={"confidence_level": 0.95},
                            info={"interval_adjust": "bonferroni"})
    caption = _comparison_figure({"pfi": pfi, "loco": loco})[0]["caption"]
    assert "PFI" in caption and "marginal" in caption and "Bonferroni" in caption
    assert "LOCO" not in caption
    assert "marginal" not in _comparison_figure({"loco": loco})[0]["caption"]
