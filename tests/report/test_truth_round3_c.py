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
from imlkit.report._ranking import no_ranking_reason, top_features
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
