"""Sixth round (helper reading6): the reading's counts -- intervals of width 0, and the counts section 4 rests on."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from sklearn.datasets import load_diabetes
from sklearn.ensemble import HistGradientBoostingRegressor

import imlkit as ik
from imlkit.importance import ImportanceResult
from imlkit.report import _claims as cl
from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck
from imlkit.report._ranking import most_important


def _res(method, values, low, high, names, baseline_loss=None, extra=None, p_adjusted=None, **params):
    v = np.asarray(values, dtype=float)
    p = None if p_adjusted is None else np.asarray(p_adjusted, float)
    return ImportanceResult(method=method, feature_names=tuple(names), importance=v, std=0 * v,
                            ci_low=np.asarray(low, float), ci_high=np.asarray(high, float), loss="squared_error",
                            p_adjusted=p, p_value=p, params=params, baseline_loss=baseline_loss, extra=extra or {})


def _ctx(results, y):
    return SimpleNamespace(importance=ImportanceOutputs(**results), effects=EffectsOutputs(h_overall=None),
                           data_outputs=DataOutputs(dependence_r2=None), model_check=ModelCheck(),
                           X_test=pd.DataFrame({"z": np.zeros(len(y))}), y_test=pd.Series(y))


def _one_feature():
    """Diabetes' bmi alone: a gradient boosting model and its marginal SAGE, computed here (no hard-coded values)."""
    d = load_diabetes(as_frame=True).frame
    X, y = d[["bmi"]], d["target"]
    model = HistGradientBoostingRegressor(max_iter=50, random_state=0).fit(X.iloc[:300], y.iloc[:300])
    Xt, yt = X.iloc[300:].reset_index(drop=True), y.iloc[300:].reset_index(drop=True)
    return model, Xt, yt


def test_sage_of_one_feature_has_an_interval_of_width_0_that_is_not_read_as_important(checked_reading):
    """One feature: SAGE has one ordering, and its control variate makes its value exactly what the feature explains
    on these rows, v(N) = R(mean prediction) - R(model): its interval [637, 637] has width 0 and covers nothing of the
    sampling of the rows. "Important by its interval (low > 0)" was then the sign of the estimate: SAGE counted bmi
    important for 2 of the 4 methods of a one-feature report on that alone."""
    model, Xt, yt = _one_feature()
    sage = ik.sage(model, Xt, yt, removal="marginal", n_background=32, random_state=0)
    assert_allclose(sage.importance[0], sage.extra["v_all"], rtol=1e-9)  # exactly v(N) on these rows
    assert_allclose(sage.ci_high[0] - sage.ci_low[0], 0.0, atol=1e-9 * abs(sage.importance[0]))
    e = cl.evidence(sage, yt)["bmi"]
    assert e.estimate > 0 and e.low > 0  # the old rule: "its interval puts it above 0"
    assert e.zero_width and not e.above_null() and not e.below_null() and not e.important()
    # explain() of the result says what its interval covers and when it has width 0
    assert "With one feature (a single ordering" in sage.explain() and "width 0" in sage.explain()

    # beside it, PFI with a real spread over permutations still decides
    pfi = ik.pfi(model, Xt, yt, n_repeats=5, random_state=0)
    ctx = _ctx({"pfi": pfi, "sage_marginal": sage}, yt.to_numpy())
    claims = checked_reading(ctx)
    text = " ".join(c.text() for c in claims)
    top = next(c for c in claims if c.kind == "top").text()
    assert "each method's interval (or adjusted p-value) puts it above 0" not in top
    assert "for SAGE (marginal) its interval has width 0, which decides no side of 0" in top
    flat = next(c for c in claims if c.kind == "zero_width")
    lo = cl.num(sage.ci_low[0])
    assert f"SAGE (marginal): bmi {cl.num(sage.importance[0])} [{lo}, {lo}]" in flat.text()
    assert "here, with one feature there is a single ordering" in flat.text()
    # the counts, the ranking of sections 4-6 and the reading say the same: PFI's 1 of 2, SAGE not deciding
    assert "bmi (1 of 2: PFI; not decided by SAGE (marginal): interval of width 0)" in text
    features, words = most_important(ctx)
    assert features == ["bmi"]
    assert "bmi (1 of 2; not decided by SAGE (marginal), whose interval of width 0 decides no side of 0)" in words
    assert "interval includes 0" not in text  # width 0 does not "include 0" either


def test_an_interval_of_width_0_at_0_stays_negligible_and_a_real_interval_is_unchanged(checked_reading):
    """The rule reads only a width-0 interval around a non-zero value: a credit of exactly 0 (a feature the model
    does not use) is still 0, and an interval with any spread is read as before."""
    y = np.r_[np.zeros(20), np.ones(20) * 4]
    sage = _res("sage_marginal", [3.0, 0.0], [2.0, 0.0], [4.0, 0.0], ("a", "b"), extra=dict(v_all=3.0,
                                                                                          converged=True))
    ev = cl.evidence(sage, y)
    assert not ev["b"].zero_width and ev["b"].negligible()
    assert not ev["a"].zero_width and ev["a"].important()
    # a narrow but real interval (width 1e-6 of the value) is read
    tight = _res("sage_marginal", [3.0, 1.0], [3.0 - 3e-6, 1.0 - 1e-6], [3.0 + 3e-6, 1.0 + 1e-6], ("a", "b"),
                 extra=dict(v_all=4.0, converged=True))
    assert all(not x.zero_width and x.important() for x in cl.evidence(tight, y).values())
    # a width-0 interval below 0 is not "entirely below 0" (Portfolio's single feature: SAGE -0.244 [-0.244, -0.244])
    neg = _res("sage_marginal", [-0.244], [-0.244], [-0.244], ("X",), extra=dict(v_all=-0.244, converged=True))
    e = cl.evidence(neg, y)["X"]
    assert e.zero_width and not e.below_null()
    top = next(c for c in checked_reading(_ctx({"sage_marginal": neg}, y)) if c.kind == "top").text()
    assert "whole interval lies below 0" not in top and "width 0" in top


def test_the_reading_states_the_counts_section_4_names(checked_reading):
    """Wine (quick): section 4 showed "proline (3 of 4) and flavanoids (2 of 4)" while the reading named proline
    only as CFI's first place; diabetes: "bmi (2 of 4) and s6 (2 of 4)", s6 never called important there. The reading
    now says how many features are important for every method, for some (each with its methods) and for none, from
    the same ranking section 4 takes its features from."""
    names = ("a", "b", "c", "d")
    y = np.r_[np.zeros(30), np.ones(30) * 10]  # variance 25: what the features explain is 25 - 5 = 20
    pfi = _res("pfi", [10.0, 6.0, 0.5, 0.1], [9.0, 5.0, -2.0, -0.5], [11.0, 7.0, 3.0, 0.4], names, baseline_loss=5.0)
    cfi = _res("cfi", [8.0, 0.4, 3.0, 0.1], [7.0, 0.3, 2.0, -0.2], [9.0, 0.5, 4.0, 0.3], names, baseline_loss=5.0)
    loco = _res("loco", [5.0, 0.1, 0.1, 0.0], [4.0, -1.0, -1.0, -0.5], [6.0, 1.0, 1.0, 0.5], names,
                p_adjusted=[0.001, 1.0, 1.0, 1.0], baseline_loss=5.0, interval_adjust="bonferroni")
    ctx = _ctx({"pfi": pfi, "cfi": cfi, "loco": loco}, y)
    ev = {m: cl.evidence(r, y) for m, r in ctx.importance.compared().items()}
    important = {f: [m for m in ev if ev[m][f].important()] for f in names}
    claims = checked_reading(ctx)
    counts = next(c for c in claims if c.kind == "counts").text()
    every = [f for f, ms in important.items() if len(ms) == 3]
    some = [f for f, ms in important.items() if 0 < len(ms) < 3]
    none = [f for f, ms in important.items() if not ms]
    assert every == ["a"] and some and none  # the table is built for all three groups
    assert f"{len(every)} feature is important for every method that scores it (a)" in counts
    for f in some:
        assert f"{f} ({len(important[f])} of 3: {cl.name_list([cl.label(m) for m in important[f]])})" in counts
    assert f"the other {len(none)} for none" in counts
    # section 4's words name the same counts
    features, words = most_important(ctx, 2)
    assert features[0] == "a" and "a (3 of 3)" in words
    assert f"{features[1]} ({len(important[features[1]])} of 3)" in words


def test_an_unconverged_conditional_method_is_not_said_to_find_a_feature_unimportant():
    """Wine (quick): section 4 said flavanoids "is important only for PFI and SAGE (marginal) ..., while CFI, LOCO and
    SAGE (conditional) do not find it important" -- conditional SAGE had not converged, and the reading said its values
    "are not read here: they call no feature important"; the clause names the conditional methods read."""
    names = ("a", "b")
    y = np.r_[np.zeros(30), np.ones(30) * 10]
    pfi = _res("pfi", [10.0, 2.0], [9.0, 1.5], [11.0, 2.5], names, baseline_loss=5.0)
    cfi = _res("cfi", [0.1, 2.0], [-0.5, 1.5], [0.7, 2.5], names, baseline_loss=5.0)
    sage = _res("sage_conditional", [1.0, 9.0], [-5.0, 3.0], [7.0, 15.0], names, tolerance=0.1,
                extra=dict(v_all=20.0, converged=False, ratio=0.33, n_permutations=64))
    ctx = _ctx({"pfi": pfi, "cfi": cfi, "sage_conditional": sage}, y)
    ctx.data_outputs = DataOutputs(dependence_r2=pd.Series({"a": 0.9, "b": 0.1}))
    assert not cl.evidence(sage, y)["a"].readable
    _, words = most_important(ctx)
    assert "a (R² = 0.9) is important only for PFI" in words
    assert "while CFI does not find it important" in words and "SAGE (conditional)" not in words


def test_the_only_feature_of_a_one_feature_table_keeps_its_effects_when_no_method_decides():
    """With SAGE alone on a one-feature table (intervals of width 0), no feature is important, and section 4 showed
    "No feature effects shown" for the model's only feature; it shows it, saying why it is shown."""
    from imlkit.report._ranking import top_features

    model, Xt, yt = _one_feature()
    sage = ik.sage(model, Xt, yt, removal="marginal", n_background=32, random_state=0)
    ctx = _ctx({"sage_marginal": sage}, yt.to_numpy())
    ctx.X_test = Xt
    assert most_important(ctx)[0] == []
    features, words = top_features(ctx, 3)
    assert features == ["bmi"]
    assert words.startswith("the only feature, bmi (shown although no feature is important for any method")
    assert "intervals of width 0 decide no side of 0 and are not read: SAGE (marginal) (bmi)" in words
    # a method that decides (PFI, its interval including 0) keeps the old rule: nothing important, nothing shown
    pfi = _res("pfi", [50.0], [-20.0], [120.0], ("bmi",), baseline_loss=float(sage.baseline_loss))
    ctx.importance = ImportanceOutputs(pfi=pfi, sage_marginal=sage)
    assert not cl.evidence(pfi, yt)["bmi"].important() and not cl.evidence(pfi, yt)["bmi"].zero_width
    assert top_features(ctx, 3)[0] == []
