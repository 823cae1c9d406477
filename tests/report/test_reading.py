"""The report's automatic reading: every verdict rests on the interval or adjusted p-value."""
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
from numpy.testing import assert_allclose

from imlkit.cli import build_parser
from imlkit.importance import ImportanceResult
from imlkit.report import _claims as cl
from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck
from imlkit.report._reading import (
    _pimp_resolution,
    disagreements,
    reading_blocks,
    reading_claims,
    unsettled,
)
from imlkit.report._sec_importance import cli_advice


def _sim(est, lo, hi, m, level=0.95):
    """The reading's interval of a marginal normal interval [lo, hi] over m entries (Bonferroni level, round 3c)."""
    from scipy.stats import norm
    half = (hi - lo) / 2 * norm.ppf(1 - (1 - level) / (2 * m)) / norm.ppf(0.5 + level / 2)
    return f"simultaneous over {m} [{cl.num(est - half)}, {cl.num(est + half)}]"


def _res(method, values, low, high, p_adjusted=None, names="abcd", baseline_loss=None, **params):
    v = np.asarray(values, dtype=float)
    return ImportanceResult(method=method, feature_names=tuple(names[:len(v)]), importance=v, std=0 * v,
                            ci_low=np.asarray(low, float), ci_high=np.asarray(high, float), loss="squared_error",
                            p_adjusted=None if p_adjusted is None else np.asarray(p_adjusted, float),
                            p_value=None if p_adjusted is None else np.asarray(p_adjusted, float), params=params,
                            baseline_loss=baseline_loss)


def _ctx(results, no_better_than=None, r2=None, h=None, y=None, decision=None):
    # Only the typed outputs the reading may read: a field it misspells is an AttributeError here.
    # y: the test target (the yardstick "what the features explain together" needs it; None: unknown).
    return SimpleNamespace(importance=ImportanceOutputs(**results), effects=EffectsOutputs(h_overall=h),
                           data_outputs=DataOutputs(dependence_r2=None if r2 is None else pd.Series(r2)),
                           model_check=ModelCheck(no_better_than=no_better_than, decision=decision or {}),
                           X_test=None if y is None else pd.DataFrame({"a": np.zeros(len(y))}),
                           y_test=None if y is None else pd.Series(y))


def _claims(ctx):
    """Every claim of the reading, after checking each against its numbers and each paragraph for contradictions."""
    paragraphs = reading_claims(ctx)
    out = []
    for para in paragraphs:
        for item in para.items:
            assert cl.consistent(item) == [], [c.text() for c in item]
            for c in item:
                assert cl.check(c) == [], (c.kind, c.text(), cl.check(c))
                out.append(c)
    assert cl.consistent(out) == []
    return out


def _all_text(blocks):
    out = []
    for b in blocks:
        out.append(b.get("text") or "")
        out.append(b.get("title") or "")
        out += b.get("items", [])
    return "\n".join(out)


PFI = _res("pfi", [10, 8, 1], [9.5, 7.5, 0.8], [10.5, 8.5, 1.2])


def test_point_estimate_alone_is_no_verdict():
    # The case: LOCO of b is 5.8e-06 with interval [-3.2e-07, 1.6e-05] and Holm p 0.42 --
    # the largest LOCO value, yet not evidence that b is important for LOCO.
    loco = _res("loco", [1e-6, 5.8e-06, 1e-7], [-1e-6, -3.2e-07, -1e-6], [3e-6, 1.6e-05, 1e-6],
                p_adjusted=[0.9, 0.42, 0.9], alpha=0.025)
    assert disagreements({"pfi": PFI, "loco": loco}) == []
    assert unsettled({"pfi": PFI, "loco": loco}) == {"loco": ["b", "a"]}
    text = _all_text(reading_blocks(_ctx({"pfi": PFI, "loco": loco})))
    assert "important for LOCO" not in text and "important for Leave" not in text
    assert "interval includes 0" in text and "do not settle" in text


def test_disagreement_only_where_the_intervals_disagree():
    r2 = pd.Series({"a": 0.1, "b": 0.95, "c": 0.0})
    # CFI of b: point 0.2 (2% of its largest), but the interval reaches 6 -> not negligible
    wide = _res("cfi", [10, 0.2, 1], [9.5, -0.5, 0.8], [10.5, 6.0, 1.2])
    assert disagreements({"pfi": PFI, "cfi": wide}, r2) == []
    # the same point with a tight interval below 10% of CFI's largest -> a disagreement
    tight = _res("cfi", [10, 0.2, 1], [9.5, 0.1, 0.8], [10.5, 0.3, 1.2])
    found = disagreements({"pfi": PFI, "cfi": tight}, r2)
    assert [(d["feature"], d["high"], d["low"]) for d in found] == [("b", ["pfi"], ["cfi"])]
    assert "R² = 0.95" in found[0]["reason"]
    # PFI of b not significant (interval includes 0): not "important", so no disagreement
    vague = _res("pfi", [10, 8, 1], [9.5, -1.0, 0.8], [10.5, 17.0, 1.2])
    assert disagreements({"pfi": vague, "cfi": tight}, r2) == []
    text = _all_text(reading_blocks(_ctx({"pfi": PFI, "cfi": tight}, )))
    assert "b: important for" in text and _sim(0.2, 0.1, 0.3, 3) in text


def test_adjusted_p_value_decides_significance_when_given():
    # interval above 0 but adjusted p above alpha: the test is the verdict (not important)
    pimp_like = _res("loco", [10, 8, 1], [9.5, 7.5, 0.8], [10.5, 8.5, 1.2], p_adjusted=[0.001, 0.2, 0.5],
                     alpha=0.025)
    cfi = _res("cfi", [10, 0.2, 1], [9.5, 0.1, 0.8], [10.5, 0.3, 1.2])
    assert disagreements({"loco": pimp_like, "cfi": cfi}) == []
    ok = _res("loco", [10, 8, 1], [9.5, 7.5, 0.8], [10.5, 8.5, 1.2], p_adjusted=[0.001, 0.001, 0.5], alpha=0.025)
    assert [d["feature"] for d in disagreements({"loco": ok, "cfi": cfi})] == ["b"]


def test_ratio_importances_are_read_against_one():
    lofo = _res("lofo", [3.0, 1.02, 1.0], [2.5, 0.99, 0.98], [3.5, 1.03, 1.02], relation="ratio")
    pfi = _res("pfi", [10, 8, 0.1], [9.5, 7.5, 0.0], [10.5, 8.5, 0.2])
    found = disagreements({"pfi": pfi, "lofo": lofo})
    assert [(d["feature"], d["low"]) for d in found] == [("b", ["lofo"])]  # 1.03 - 1 <= 10% of 2


def test_no_better_than_baseline_opens_the_reading():
    blocks = reading_blocks(_ctx({"pfi": PFI}, no_better_than="mean"))
    assert blocks[0]["kind"] == "heading"
    # without the differences nothing shows the gain is small: no "describe noise"
    assert "could not be shown to beat the mean baseline" in blocks[1]["text"] and "noise" not in blocks[1]["text"]
    assert "could not be shown" not in _all_text(reading_blocks(_ctx({"pfi": PFI})))


def test_advice_for_pimp_names_the_n_null_option_and_shortens_name_lists():
    names = [f"M{j}" for j in range(29)]
    w = (f"With the empirical null p-value (k+1)/(n_null+1), n_null=60 and p_adjust='holm', the smallest adjusted "
         f"p-value feature(s) {names} can reach is 29/61 = 0.475 > alpha=0.05: nothing there can be significant, "
         f"however large its importance (PIMP cannot tell with 60 null refits). Use n_null >= 579, or a parametric "
         f"null (distribution='auto' or 'normal', with n_null >= 30).")
    out = cli_advice(w)
    assert "feature(s) M0, M1, M2, M3, M4, M5, M6, M7, M8, M9 and 19 others can reach" in out
    assert out.endswith("(PIMP cannot tell with 60 null refits). Rerun the report with --n-null 579.")
    assert cli_advice("feature(s) ['a', 'b'] can") == "feature(s) ['a', 'b'] can"  # short lists stay


def test_all_agree_says_the_intervals_exclude_zero():
    text = _all_text(reading_blocks(_ctx({"pfi": PFI, "cfi": _res("cfi", [9, 4, 1], [8, 3, 0.5], [10, 5, 1.5])})))
    assert "All 2 methods rank a first, and each method's interval (or adjusted p-value) puts it above 0." in text
    assert "No disagreement the intervals support" in text


def test_advice_names_only_options_the_command_line_has():
    loco_w = ("The learner is stochastic (it has a random_state) and was refitted once per feature: refit-based "
              "importances are noisy; use n_refits > 1 to see their spread.")
    sage_w = ("SAGE did not converge within 1024 orderings: the largest standard error is 0.07 x the range of the "
              "values (tolerance 0.05). Raise max_permutations or the tolerance.")
    pimp_w = ("With the empirical null p-value (k+1)/(n_null+1), n_null=100 and p_adjust='holm', the smallest "
              "adjusted p-value every feature can reach is 12/101 = 0.119 > alpha=0.05: nothing there can be "
              "significant, however large its importance. Use n_null >= 239, or a parametric null "
              "(distribution='auto' or 'normal').")
    test_w = ("test='wilcoxon' is a test of the pseudo-median of the loss differences, so the importance, its "
              "interval and its p-value are all about the pseudo-median (not the median); use test='auto' for "
              "the median.")
    out = [cli_advice(w) for w in (loco_w, sage_w, pimp_w, test_w)]
    assert out[3].endswith("(not the median).") and "test=" not in out[3].split("so the")[1]
    assert "--n-refits" in out[0] and "n_refits >" not in out[0]
    assert "--sage-orderings" in out[1] and "max_permutations" not in out[1]
    assert "Use n_null" not in out[2] and out[2].endswith("however large its importance. Rerun the report with "
                                                          "--n-null 239.")
    # every command-line option recommended exists (or is one the report helper adds)
    sub = build_parser()._subparsers._group_actions[0].choices["report"]
    known = {o for a in sub._actions for o in a.option_strings} | {"--n-refits", "--sage-orderings"}
    for text in out:
        assert set(re.findall(r"--[a-z][a-z-]+", text)) <= known


# --------------------------------------------------------------------------- every sentence is a checked claim
# b is important for LOCO (tested, its largest) and negligible for PFI (interval below 5% of PFI's largest)
PFI_B_SMALL = _res("pfi", [10, 0.2, 1], [9.5, 0.1, 0.8], [10.5, 0.3, 1.2])
LOCO_B_LARGE = _res("loco", [1, 2, 0.5], [0.5, 1.5, 0.1], [1.5, 2.5, 0.9], p_adjusted=[0.001, 0.001, 0.01], alpha=0.05)


def test_strong_dependence_never_reads_as_not_explained_by_it():
    # Auto: displacement's R² on the others is 0.95; the old fallback said "not explained by linear dependence".
    ctx = _ctx({"pfi": PFI_B_SMALL, "loco": LOCO_B_LARGE}, r2={"a": 0.1, "b": 0.95, "c": 0.0})
    kinds = [c.kind for c in _claims(ctx) if c.features == ("b",)]
    assert "dependence" in kinds and "not_dependence" not in kinds
    text = _all_text(reading_blocks(ctx))
    assert "R² = 0.95 >= 0.5" in text and "not explained by linear dependence" not in text
    # moderate dependence: neither story, the number is shown
    text = _all_text(reading_blocks(_ctx({"pfi": PFI_B_SMALL, "loco": LOCO_B_LARGE}, r2={"b": 0.4})))
    assert "moderately dependent on the other features (R² = 0.4, between 0.25 and 0.5)" in text
    assert "not explained by linear dependence" not in text
    # weak dependence: the sentence states R² and the threshold; a strong H² is not denied
    ctx = _ctx({"pfi": PFI_B_SMALL, "loco": LOCO_B_LARGE}, r2={"b": 0.1}, h={"a": 0.0, "b": 0.3, "c": 0.0})
    text = _all_text(reading_blocks(ctx))
    assert "not explained by linear dependence (R² = 0.1 < 0.25)." in text and "or a strong interaction" not in text
    _claims(ctx)
    text = _all_text(reading_blocks(_ctx({"pfi": PFI_B_SMALL, "loco": LOCO_B_LARGE}, r2={"b": 0.1}, h={"b": 0.02})))
    assert "(R² = 0.1 < 0.25) or a strong interaction (overall H² = 0.02 <= 0.1)" in text


def test_an_interval_below_zero_is_reported_as_such_never_negligible():
    # Credit: Income's marginal SAGE interval is [-2.59e+04, -7.72e+03] while CFI finds it the largest.
    cfi = _res("cfi", [3.08e4, 1.0e4, 2e3], [2.71e4, 0.8e4, 1e3], [3.44e4, 1.2e4, 3e3])
    sage = _res("sage_marginal", [-1.68e4, 1.03e5, 5e3], [-2.59e4, 9.4e4, 1e3], [-7.72e3, 1.12e5, 9e3])
    ctx = _ctx({"cfi": cfi, "sage_marginal": sage})
    found = disagreements({"cfi": cfi, "sage_marginal": sage})
    assert [(d["feature"], d["high"], d["low"]) for d in found] == [("a", ["cfi"], ["sage_marginal"])]
    text = _all_text(reading_blocks(ctx))
    assert ("entirely below 0 for SAGE (marginal) (-16,800, Monte-Carlo interval [-25,900, -7,720]" in text
            and "the model does worse with it" in text)
    assert "negligible for SAGE (marginal)" not in text
    _claims(ctx)
    # below 0 without a disagreement: its own list, with the numbers
    text = _all_text(reading_blocks(_ctx({"sage_marginal": sage})))
    assert "Below 0" in text and "a (-16,800, Monte-Carlo interval [-25,900, -7,720]" in text


def test_significance_without_size_is_not_important():
    # Caravan: LOCO medians of about 1e-7 (the model's Brier loss 0.05) with tiny p-values were called important.
    loco = _res("loco", [1e-7, 2e-7, 5e-8], [5e-8, 1.5e-7, 1e-8], [1.5e-7, 2.5e-7, 9e-8],
                p_adjusted=[1e-6, 1e-6, 1e-3], alpha=0.05, baseline_loss=0.05)
    y = np.tile([0.0, 1.0], 50)  # the mean's squared error 0.25: the features explain 0.25 - 0.05 = 0.2
    assert disagreements({"pfi": PFI_B_SMALL, "loco": loco}, y=y) == []
    ctx = _ctx({"pfi": PFI_B_SMALL, "loco": loco}, y=y)
    small = [c for c in _claims(ctx) if c.kind == "small"]
    assert [(c.methods, c.features) for c in small] == [(("loco",), ("b", "a", "c"))]
    text = _all_text(reading_blocks(ctx))
    assert "important for LOCO" not in text
    assert ("LOCO: above 0, but less than 1% of what the features explain together, so not called important: "
            "b (2e-07") in text
    assert "0.0001% of what the features explain together" in text


def test_permutation_intervals_are_named_as_permutation_spread():
    ctx = _ctx({"pfi": PFI_B_SMALL, "loco": LOCO_B_LARGE}, r2={"b": 0.95})
    text = _all_text(reading_blocks(ctx))
    assert "PFI intervals are the spread over permutations: they cover permutation noise only, not the sampling" in text
    assert f"PFI (0.2, permutation spread {_sim(0.2, 0.1, 0.3, len(PFI_B_SMALL.feature_names))}" in text
    assert re.search(r"PFI \([^)]*confidence", text) is None
    assert "LOCO (2, interval [1.5, 2.5], adjusted p = 0.001" in text


def test_reasons_name_only_the_methods_on_their_side():
    # penguins: marginal SAGE found the feature important, yet the reason said "PFI and marginal SAGE show that
    # the model barely uses" it. Here both SAGEs are important and PFI negligible: no "barely uses" at all.
    pfi = _res("pfi", [10, 0.2, 1], [9.5, 0.1, 0.8], [10.5, 0.3, 1.2])
    sm = _res("sage_marginal", [5, 3, 1], [4.5, 2.5, 0.5], [5.5, 3.5, 1.5])
    sc = _res("sage_conditional", [5, 3, 1], [4.5, 2.5, 0.5], [5.5, 3.5, 1.5])
    ctx = _ctx({"pfi": pfi, "sage_marginal": sm, "sage_conditional": sc}, r2={"b": 0.3})
    claims = _claims(ctx)
    assert "info_vs_use" not in [c.kind for c in claims]
    assert "barely uses" not in _all_text(reading_blocks(ctx))
    # only conditional SAGE high, only PFI low: the sentence names PFI alone
    sm_mid = _res("sage_marginal", [5, 0.4, 1], [4.5, -0.2, 0.5], [5.5, 1.0, 1.5])
    ctx = _ctx({"pfi": pfi, "sage_marginal": sm_mid, "sage_conditional": sc}, r2={"b": 0.8})
    _claims(ctx)
    text = _all_text(reading_blocks(ctx))
    assert "while PFI shows that the model itself barely uses b" in text and "marginal SAGE show" not in text
    assert "b is predictable from the other features (R² = 0.8 >= 0.5)" in text
    # R² 0.3: the others do not predict b, so no "the model takes it from correlated features"
    ctx = _ctx({"pfi": pfi, "sage_marginal": sm_mid, "sage_conditional": sc}, r2={"b": 0.3})
    assert "info_vs_use" not in [c.kind for c in _claims(ctx)]
    assert "barely uses" not in _all_text(reading_blocks(ctx))


def test_checks_catch_false_claims():
    good = cl.evidence(LOCO_B_LARGE)["b"]
    negligible = cl.evidence(PFI_B_SMALL)["b"]
    assert cl.check(cl.Claim("not_dependence", ("b",), numbers=dict(r2=0.95, threshold=cl.R2_WEAK)))
    assert cl.check(cl.Claim("dependence", ("b",), numbers=dict(r2=0.3, threshold=cl.R2_STRONG)))
    # the same method on both sides, and "important" for a negligible value
    both = cl.Claim("disagreement", ("b",), methods=("pfi",), low=("pfi",), evidence=(negligible,))
    assert any("both important and not" in r for r in cl.check(both))
    wrong = cl.Claim("disagreement", ("b",), methods=("pfi",), low=("loco",), evidence=(negligible, good))
    assert len(cl.check(wrong)) == 2
    assert cl.check(cl.Claim("top", ("b",), methods=("pfi",), evidence=(negligible,)))  # b is not PFI's largest
    assert cl.check(cl.Claim("below_zero", ("b",), methods=("pfi",), evidence=(negligible,)))
    floor_high = dict(alpha=0.05, n_null=10, p_adjusted=(0.5,), p_floor=(0.9,))
    assert cl.check(cl.Claim("pimp_no_evidence", ("b",), numbers=floor_high))
    assert cl.check(cl.Claim("pimp_matters", ("b",), numbers=floor_high))
    # two claims of one paragraph that give b two verdicts for PFI
    ok = cl.Claim("disagreement", ("b",), methods=("loco",), low=("pfi",), evidence=(good, negligible))
    assert cl.check(ok) == []
    unsettled_b = cl.Claim("unsettled", ("b",), methods=("loco",), evidence=(good,))
    assert cl.consistent([ok, unsettled_b]) == ["b is important and unsettled for LOCO"]
    assert cl.consistent([ok, cl.Claim("info_vs_use", ("b",), numbers=dict(high=("pfi",), low=()))])


def _pimp(p_values, distribution, n_null=60, alpha=0.05, cls=ImportanceResult):
    p = np.asarray(p_values, dtype=float)
    from imlkit.importance._inference import adjust_pvalues

    names = tuple(f"x{j}" for j in range(len(p)))
    return cls(method="pimp", feature_names=names, importance=np.linspace(10, 1, len(p)), std=0 * p,
               ci_low=0 * p, ci_high=0 * p, loss="squared_error", p_value=p, p_adjusted=adjust_pvalues(p),
               params=dict(n_null=n_null, p_adjust="holm", alpha=alpha, importance="pfi"),
               extra={"distribution": tuple(distribution), "null": np.full((len(p), n_null), 100.0)})


def test_pimp_reading_knows_its_resolution():
    from imlkit.importance._inference import adjust_pvalues

    # x0: a parametric null, p tiny -> matters. x1: observed above all 60 null values, p = 1/61, Holm over the
    # remaining 9 features lifts it above 0.05 -> cannot tell. x2..x9: parametric, large p -> no evidence.
    raw = [1e-6, 1 / 61] + [0.3] * 8
    r = _pimp(raw, ["normal", "empirical"] + ["normal"] * 8)
    frame = _pimp_resolution(r)
    assert_allclose(frame["p_floor"].to_numpy(), [0, 9 / 61] + [0] * 8)
    # the fewest refits that bring x1's floor to alpha, by brute force
    need = next(b for b in range(60, 1000) if adjust_pvalues([1e-6, 1 / (b + 1)] + [0.3] * 8)[1] <= 0.05)
    assert frame["n_null_needed"].tolist()[1] == need == 179
    ctx = _ctx({"pfi": PFI})
    ctx.importance.pimp = r
    claims = {c.kind: c for c in _claims(ctx) if c.kind.startswith("pimp")}
    assert claims["pimp_matters"].features == ("x0",)
    assert claims["pimp_cannot_tell"].features == ("x1",)
    assert claims["pimp_no_evidence"].features == tuple(f"x{j}" for j in range(2, 10))
    text = _all_text(reading_blocks(ctx))
    assert "PIMP cannot tell with 60 null refits (at least 179 are needed): for x1 (adjusted p = 0.148" in text
    assert "x1" not in text.split("PIMP could not show")[1]
    assert "no evidence" not in text.lower()
    assert "x2, x3, x4, x5, x6, x7, x8 and x9" not in text  # each listed with its p-value
    assert "and x9 (adjusted p = 1; observed above 0 of 60 null values)." in text


def test_pimp_reading_uses_pimps_own_floor_columns():
    class WithFloor(ImportanceResult):
        def to_frame(self, *, sort=True):
            frame = super().to_frame(sort=sort)
            frame["p_floor"] = 0.5
            frame["n_null_needed"] = 999
            return frame

    # x0 at the floor of its null (p = 1/61: "cannot tell" is about such a feature only; it was p = 0.2, inside its
    # null, which now reads as "could not show" with its count -- the old "at least 999 are needed" was false there)
    r = _pimp([1 / 61, 0.3], ["normal", "normal"], cls=WithFloor)
    assert _pimp_resolution(r)["n_null_needed"].tolist() == [999, 999]
    ctx = _ctx({"pfi": PFI})
    ctx.importance.pimp = r
    _claims(ctx)
    assert "at least 999 are needed" in _all_text(reading_blocks(ctx))


def test_lists_scale():
    assert cl.name_list([f"f{j}" for j in range(12)]) == "f0, f1, f2, f3, f4, f5, f6, f7 and 4 others"
    assert cl.name_list(["a", "b"]) == "a and b" and cl.name_list(["a"]) == "a"
    many = _res("pfi", -np.arange(1.0, 13.0), -np.arange(1.0, 13.0) - 0.5, -np.arange(1.0, 13.0) + 0.5,
                names=[f"f{j}" for j in range(12)])
    text = _all_text(reading_blocks(_ctx({"pfi": many})))
    assert "; and 4 others (see the table above)." in text


# --------------------------------------------------------------------------- caveats, warnings, zeros
def test_caveats_of_one_kind_are_one_line():
    from imlkit.report._sec_importance import group_caveats

    msg = ("Feature {!r} is strongly dependent on the other features (R² = {} from a linear fit): permuting it "
           "creates unrealistic data points.")
    by_text = {msg.format(f"M{j}", f"0.{90 + j}"): ["PFI", "PIMP"] for j in range(12)}
    by_text["The learner is stochastic."] = ["LOCO"]
    by_text[msg.format("solo", "0.5")] = ["CFI"]
    lines = group_caveats(by_text)
    assert lines[0] == ("PFI, PIMP (12 features): Feature '…' is strongly dependent on the other features (R² = … from "
                        "a linear fit): permuting it creates unrealistic data points. -- M0 (0.90), M1 (0.91), M2 "
                        "(0.92), M3 (0.93), M4 (0.94), M5 (0.95), M6 (0.96), M7 (0.97), M8 (0.98), M9 (0.99) and 2 "
                        "others.")
    assert lines[1:] == ["LOCO: The learner is stochastic.", "CFI: " + msg.format("solo", "0.5")]


def test_warning_notes_name_their_step_and_are_deduplicated():
    import warnings

    from imlkit.report._build import _quiet_warnings, _warning_notes
    from imlkit.report._context import ReportContext

    ctx = ReportContext(config=None, params={})
    with _quiet_warnings() as caught:
        for _ in range(3):
            with ctx.step("PFI"):
                warnings.warn("Feature 'a' is odd (R² = 0.9).", stacklevel=1)
                warnings.warn("Feature 'b' is odd (R² = 0.8).", stacklevel=1)
        ctx.guard("ALE: x", lambda: warnings.warn("ill-conditioned", RuntimeWarning, stacklevel=1))
        with ctx.step("CFI"):
            warnings.warn("ill-conditioned", RuntimeWarning, stacklevel=1)
    assert [w.step for w in caught][-2:] == ["ALE: x", "CFI"]
    assert _warning_notes(caught) == [
        "Warning raised while computing PFI (2 features): UserWarning: Feature '…' is odd (R² = …). -- a (0.9), "
        "b (0.8).",
        "Warning raised while computing ALE: x, CFI: RuntimeWarning: ill-conditioned"]


def test_rounding_noise_prints_as_zero():
    from imlkit._display import snap_zero, tidy_frame

    assert snap_zero([0.2, 1e-30, -0.0, -1e-12, 0.05]).tolist() == [0.2, 0.0, 0.0, 0.0, 0.05]
    assert str(snap_zero([-0.0])[0]) == "0.0"
    frame = tidy_frame(pd.DataFrame({"h2": [1e-30, 2e-31], "importance": [0.3, 1e-17], "p_value": [1e-20, 0.5]}))
    assert frame["h2"].tolist() == [0.0, 0.0]  # H² is a share: noise relative to 1, even when all are noise
    assert frame["importance"].tolist() == [0.3, 0.0] and frame["p_value"].tolist() == [1e-20, 0.5]
    from imlkit.report._sec_importance import side_by_side_rows

    loco = _res("loco", [0.3, 1.86e-15, -5e-14], [0.2, -3.3e-12, -1e-13], [0.4, 4.3e-12, -1e-14], baseline_loss=0.05)
    _, rows = side_by_side_rows({"loco": loco})
    assert [r[1] for r in rows] == ["0.3\n[0.2, 0.4]", "0\n[0, 0]", "0\n[0, 0]"]


def test_importance_table_fits_its_column_in_chromium(tmp_path):
    # What a reader sees: in a narrow window no cell of the importance table breaks a name or a number
    # ("1.46e-07" broke after its "-"), and the page itself never scrolls sideways (the table does).
    import os

    import pytest

    from imlkit.report._blocks import table
    from imlkit.report._render import render_html
    from imlkit.report._sec_importance import side_by_side_rows

    if not os.path.exists("/usr/bin/chromium"):
        pytest.skip("chromium is not installed")
    playwright = pytest.importorskip("playwright.sync_api")
    names = ("flipper_length_mm", "a_rather_long_feature_name_with_underscores", "PPERSAUT")
    pfi = _res("pfi", [0.04485, 1e-17, 0.0023], [0.039, -2e-16, -0.00224], [0.0507, 3e-16, 0.00688], names=names)
    loco = _res("loco", [1.12e-06, 8.43e-07, -1.06e-08], [1.46e-07, 4.45e-08, -4.48e-07], [3.37e-06, 3.12e-06, 3.8e-07],
                p_adjusted=[2.67e-05, 0.0013, 1.0], names=names, baseline_loss=0.05)
    sage = _res("sage_conditional", [-0.04852, 0.02146, 0.000641], [-0.134, -0.00541, -0.00675],
                [0.0368, 0.0483, 0.00803], names=names)
    cols, rows = side_by_side_rows({"pfi": pfi, "loco": loco, "sage_conditional": sage, "cfi": pfi})
    doc = render_html([{"id": "importance", "title": "3. Feature importance", "intro": None,
                        "blocks": [table(cols, rows, caption="Importance side by side", css="wide")]}],
                      title="t", subtitle="s", version="0", created="now")
    path = tmp_path / "table.html"
    path.write_text(doc, encoding="utf-8")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 560, "height": 800})
            page.goto(f"file://{path}", wait_until="load")
            facts = page.evaluate("""() => ({
                lines: Array.from(document.querySelectorAll('table.wide td')).map(td => {
                    const r = document.createRange(); r.selectNodeContents(td);
                    const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
                    return [td.textContent, tops.size];
                }),
                page: [document.documentElement.scrollWidth, window.innerWidth],
                table: [document.querySelector('table.wide').scrollWidth,
                        document.querySelector('table.wide').clientWidth],
            })""")
        finally:
            browser.close()
    assert facts["page"][0] <= facts["page"][1]  # the page does not scroll sideways
    assert facts["table"][0] > facts["table"][1]  # the table does, in a 560-pixel window
    for content, n_lines in facts["lines"]:
        assert n_lines == len(content.split("\n")), (content, n_lines)  # as written: no break inside
    assert ["1.12e-06\n[1.46e-07, 3.37e-06]", 3] not in facts["lines"]
    assert any(c == "0\n[0, 0]" for c, _ in facts["lines"])  # 1e-17 beside 0.04 is rounding noise


def test_side_by_side_caption_says_what_holm_significance_means():
    from types import SimpleNamespace

    from imlkit.report._sec_importance import _side_by_side_caption

    holm = _side_by_side_caption({"loco": SimpleNamespace(info={"p_adjust_applied": "holm"})})
    bonf = _side_by_side_caption({"loco": SimpleNamespace(info={"p_adjust_applied": "bonferroni"})})
    none = _side_by_side_caption({"pfi": SimpleNamespace(info={})})
    assert "Holm-adjusted" in holm and "may still include 0" in holm and "agrees with" not in holm
    assert "agrees with the interval excluding 0" in bonf and "Holm" not in bonf
    assert "simultaneous" not in none
