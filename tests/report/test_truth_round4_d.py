"""Round 4 (d): sentences of sections 1-3 read on tables not tried before (statsmodels anes96, star98; users' own
SVC, RandomForest and MLPRegressor on their own split), each checked against the numbers behind it."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from imlkit.report import _claims as cl
from imlkit.report._context import ModelCheck
from imlkit.report._fit import MeanBaseline
from imlkit.report._scores import deciding_metrics, score_intervals
from imlkit.report._sec_model import _verdict


def _run(outputs, y):
    """Section 2's verdict on given predictions (regression: the model against the mean)."""
    deciding = deciding_metrics("regression")
    res = score_intervals(outputs, y, "regression", 0, reference="model", simultaneous=deciding)
    ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows", y_test=y)
    _verdict(ctx, res, {"mean": MeanBaseline()}, deciding, others=None)
    return ctx


def test_no_better_alert_does_not_call_a_loss_a_small_gain():
    """star98 (proportion above the median), a user's MLPRegressor on its own split: RMSE 0.266 against the mean's
    0.179, difference 0.0873 [0.0312, 0.147] -- "even the end of each interval most in the model's favour improves on
    the baseline by less than 2%" called a model worse at every end of the interval a small improvement."""
    rng = np.random.default_rng(0)
    y = rng.normal(size=90)
    mean = {"pred": np.zeros(90), "proba": None}
    model = {"pred": rng.normal(scale=1.2, size=90), "proba": None}   # worse than the mean everywhere
    ctx = _run({"model": model, "mean": mean}, y)
    d = ctx.model_check.decision["RMSE"]["difference"]
    assert d[1] > 0   # the whole interval favours the baseline
    alert = ctx.alerts[0]
    assert "improves on the baseline by less than" not in alert
    assert "is worse than the baseline (no gain at all)" in alert
    n = dict(baseline="mean", n_rows=90, noise=True, small_gain=cl.NOISE_GAIN,
             differences={"RMSE": tuple(float(v) for v in d)})
    said = cl.Claim("no_better", numbers=n).text()
    assert "improves on the baseline by less than" not in said and "(no gain at all)" in said
    assert cl.Claim("no_better", numbers=n).check() == []
    # a measure whose interval still reaches a (small) gain keeps the "less than 2%" sentence
    n["differences"] = {"RMSE": (0.01, -0.001, 0.02)}
    said = cl.Claim("no_better", numbers=n).text()
    assert "improves on the baseline by less than 2% of the baseline's score" in said


def test_multinomial_baseline_fits_labels_held_as_python_numbers():
    """anes96's PID (7 classes stored as 0.0-6.0) with a user's RandomForest fitted on them: the report keeps the
    labels as the model's objects, and the multinomial GLM baseline failed on them ("Unknown label type: unknown"),
    so section 2 had no GLM. Fitted on the labels as text, its probabilities line up with the model's classes."""
    import pickle

    import pandas as pd

    from imlkit.report._fit import MULTINOMIAL_BASELINE, baseline_models
    from imlkit.report._scores import class_labels, model_outputs

    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=150), "b": rng.normal(size=150)})
    codes = np.digitize(X["a"] + 0.3 * rng.normal(size=150), [-0.7, 0.0, 0.7])
    y = pd.Series([float(c) for c in codes], dtype=object)   # 0.0, 1.0, 2.0, 3.0 as Python floats
    glm = baseline_models("classification", X, y)[MULTINOMIAL_BASELINE].fit(X, y)
    model = SimpleNamespace(classes_=np.array([0.0, 1.0, 2.0, 3.0], dtype=object))
    labels = class_labels(model, y)
    out = model_outputs(glm, X, "classification", labels)
    np.testing.assert_allclose(out["proba"].sum(axis=1), 1.0, rtol=1e-9)
    # each row's largest probability is its predicted class, in the model's label order
    assert (np.array(labels)[out["proba"].argmax(axis=1)] == out["pred"]).all()
    assert np.mean(out["pred"] == y.astype(str).to_numpy()) > 0.5   # it learned something: a in, class out
    again = pickle.loads(pickle.dumps(glm))
    np.testing.assert_allclose(again.predict_proba(X), glm.predict_proba(X))


def test_section_one_counts_the_classes_it_does_not_list():
    """anes96's PID: "class target, 7 classes -- 0.0 (200), 1.0 (180), 5.0 (150), 6.0 (121), 2.0 (108), 4.0 (94)":
    six listed, the seventh (3.0, 37 rows) not mentioned, as if it had no rows."""
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_data import section_data

    rng = np.random.default_rng(2)
    sizes = {"a": 60, "b": 50, "c": 40, "d": 30, "e": 25, "f": 20, "g": 9, "h": 6}
    y = np.repeat(list(sizes), list(sizes.values()))
    df = pd.DataFrame({"x": rng.normal(size=len(y)), "z": rng.normal(size=len(y)), "y": y})
    model = LogisticRegression(max_iter=500).fit(df[["x", "z"]], df.y)
    ctx = prepare_context(ReportConfig(data=df, target="y", model=model, quick=True))
    table = next(b for b in section_data(ctx)["blocks"] if b.get("kind") == "table"
                 and "R² from the other features" in str(b.get("columns", b.get("header", ""))))
    cells = [" ".join(map(str, r)) for r in table["rows"]]
    row = next(c for c in cells if "8 classes" in c)
    assert "a (60), b (50), c (40), d (30), e (25), f (20), … 2 more classes (15 rows)" in row


def test_one_method_ranking_marks_each_group_not_the_last_name():
    """anes96 (vote, --quick, PFI only): "Reading the weights of the features ranked first for PFI: PID, selfLR,
    ClinLR and DoleLR (not important for it, not negligible)" -- the parenthesis after the last name reads as said
    of the list, though PID (0.739, PFI's largest), selfLR and ClinLR are important for PFI; only DoleLR is not."""
    rs = [cl.Ranked("PID", ("pfi",), 1, 1.0, 1.0), cl.Ranked("selfLR", ("pfi",), 1, 2.0, 2.0),
          cl.Ranked("ClinLR", ("pfi",), 1, 3.0, 3.0), cl.Ranked("DoleLR", (), 1, 4.0, open_for=("pfi",))]
    said = cl.ranking_words(rs)
    assert said == ("the features ranked first for PFI: PID, selfLR and ClinLR (important for it), then DoleLR "
                    "(not important for it, not negligible)")
    assert cl.ranking_words(rs[:2]) == "the 2 features important for PFI: PID and selfLR"


def test_first_place_below_zero_is_not_an_interval_that_includes_zero():
    """Portfolio (ISLP, one feature X, --quick): "All 4 methods rank X first, but for PFI, CFI, SAGE (marginal) and
    SAGE (conditional) its interval includes 0" -- SAGE's were -0.244 [-0.244, -0.244] and -0.242 [-0.242, -0.242],
    wholly below 0, which section 3 itself lists under "Below 0"."""
    def ev(method, est, lo, hi):
        return cl.Evidence(method=method, feature="X", estimate=est, low=lo, high=hi, largest=abs(est), rank=1)

    firsts = (ev("pfi", 0.282, -0.0921, 0.657), ev("sage_marginal", -0.244, -0.2441, -0.2439))
    said = cl.Claim("top", ("X",), methods=("pfi", "sage_marginal"), evidence=firsts,
                    numbers=dict(second=(None, None))).text()
    assert said == ("All 2 methods rank X first, but for PFI its interval includes 0, and for SAGE (marginal) its "
                    "whole interval lies below 0 (even the method's largest value is below 0).")
    one = cl.Claim("top", ("X",), methods=("sage_marginal",), evidence=firsts[1:], numbers=dict(second=(None,)))
    assert "includes 0" not in one.text() and "whole interval lies below 0" in one.text()
    other = cl.Evidence(method="cfi", feature="Z", estimate=0.5, low=0.1, high=0.9, largest=0.5, rank=1)
    diff = cl.Claim("top", ("Z", "X"), methods=("cfi", "sage_marginal"), evidence=(other, firsts[1]),
                    numbers=dict(second=(None, None))).text()
    assert diff == ("The first feature differs between methods: Z for CFI; X for SAGE (marginal) (for SAGE (marginal) "
                    "the first feature's whole interval lies below 0 (even the method's largest value is below 0)).")
