"""The report's automatic reading: every verdict rests on the interval or adjusted p-value."""
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd

from imlkit.cli import build_parser
from imlkit.importance import ImportanceResult
from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck
from imlkit.report._reading import cli_advice, disagreements, reading_blocks, unsettled


def _res(method, values, low, high, p_adjusted=None, **params):
    v = np.asarray(values, dtype=float)
    return ImportanceResult(method=method, feature_names=tuple("abcd"[:len(v)]), importance=v, std=0 * v,
                            ci_low=np.asarray(low, float), ci_high=np.asarray(high, float), loss="squared_error",
                            p_adjusted=None if p_adjusted is None else np.asarray(p_adjusted, float),
                            p_value=None if p_adjusted is None else np.asarray(p_adjusted, float), params=params)


def _ctx(results, no_better_than=None):
    # Only the typed outputs the reading may read: a field it misspells is an AttributeError here.
    return SimpleNamespace(importance=ImportanceOutputs(**results), effects=EffectsOutputs(),
                           data_outputs=DataOutputs(), model_check=ModelCheck(no_better_than=no_better_than),
                           X_test=None)


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
    assert "b: important for" in text and "[0.1, 0.3]" in text


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
    blocks = reading_blocks(_ctx({"pfi": PFI}, no_better_than="predicting the training mean"))
    assert blocks[0]["kind"] == "heading"
    assert "no better than predicting the training mean" in blocks[1]["text"] and "noise" in blocks[1]["text"]
    assert "no better" not in _all_text(reading_blocks(_ctx({"pfi": PFI})))


def test_all_agree_says_the_intervals_exclude_zero():
    text = _all_text(reading_blocks(_ctx({"pfi": PFI, "cfi": _res("cfi", [9, 4, 1], [8, 3, 0.5], [10, 5, 1.5])})))
    assert "rank a first, and for each its interval" in text
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
    assert "Use n_null" not in out[2] and "imlkit.pimp" in out[2]
    # every command-line option recommended exists (or is one the report helper adds)
    sub = build_parser()._subparsers._group_actions[0].choices["report"]
    known = {o for a in sub._actions for o in a.option_strings} | {"--n-refits", "--sage-orderings"}
    for text in out:
        assert set(re.findall(r"--[a-z][a-z-]+", text)) <= known
