"""Third round (helper b) of "every sentence carries the numbers that justify it": sections 4-7 and explain()."""
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import LinearRegression

import imlkit as ik


class Float32Regressor(RegressorMixin, BaseEstimator):
    """A model that predicts in float32, as xgboost does, reached only through ``predict`` (no tree engine)."""

    def fit(self, X, y):
        self.inner_ = LinearRegression().fit(X, y)
        return self

    def predict(self, X):
        return self.inner_.predict(X).astype(np.float32)


def _additive_float32_ctx(methods):
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=["a", "b", "c"])
    y = 100 + 3 * X["a"] - 2 * X["b"] + X["c"] + 0.3 * rng.normal(size=400)
    model = Float32Regressor().fit(X, y)
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=model, quick=True, methods=methods,
                                       strict=True))
    ctx.results = {"pfi": ik.pfi(ctx.model, ctx.X_test, ctx.y_test, random_state=0)}
    return ctx


def _texts(sec):
    return " ".join(b.get("text", "") for b in sec["blocks"] if isinstance(b, dict))


def test_repid_of_a_float32_additive_model_splits_no_rounding_noise():
    """A float32 model of an additive function (xgboost's predict path): REPID's float64 floor (64 eps max|f|, 1.4e-12
    at |f| ~ 100) let it split the float32 rounding (root mean square ~1e-6): "the splits by b, c remove 58% of the
    curves' heterogeneity" and "The feature with the most heterogeneous mean-centred ICE curves ... is a" ranked
    rounding noise. The report's floor follows the output's dtype."""
    from imlkit.report._sec_effects import section_regional

    ctx = _additive_float32_ctx(("pfi", "repid"))
    sec = section_regional(ctx)
    g = ctx.regional.repid
    said = _texts(sec)
    assert "most heterogeneous" not in said
    assert "equal up to rounding" in said and "coincide up to rounding" in said
    assert "remove" not in said and "interacts with" not in said
    assert not any(b.get("caption", "").startswith(("Features interacting", "Split features"))
                   for b in sec["blocks"] if isinstance(b, dict))
    from imlkit.report._sec_effects import _root_rms

    # REPID's own floor follows the output's dtype (float32 here): the rounding is within it
    floor = g.extra["rounding_floor"]
    assert g.extra["equal_up_to_rounding"] and g.extra["rounding_dtype"] == "float32"
    assert _root_rms(g) <= floor
    # the floor's scale is the largest |prediction| (~100 + the effects)
    np.testing.assert_allclose(floor / (64 * np.finfo(np.float32).eps), 100, rtol=0.2)


def test_float64_model_keeps_repids_floor():
    """The same model in float64: no extra floor, REPID's own decides (it does not split)."""
    from imlkit.report._sec_effects import section_regional

    ctx = _additive_float32_ctx(("pfi", "repid"))
    ctx.model = ctx.model.inner_
    section_regional(ctx)
    g = ctx.regional.repid
    # float64's epsilon: no float32 floor on top of REPID's own
    assert g.extra["rounding_dtype"] == "float64" and g.extra["rounding_eps"] == np.finfo(float).eps


def _interaction_ctx(methods=("pfi", "hstat")):
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=["a", "b", "c"])
    y = X["a"] * X["b"] + 0.05 * X["c"] + 0.01 * rng.normal(size=400)

    class Product(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            self.fitted_ = True
            return self

        def predict(self, X):
            return np.asarray(X["a"] * X["b"] + 0.05 * X["c"], dtype=float)

    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=Product().fit(X, y), quick=True,
                                       methods=methods, strict=True))
    ctx.results = {"pfi": ik.pfi(ctx.model, ctx.X_test, ctx.y_test, random_state=0)}
    return ctx


def test_h_statistic_says_how_far_its_numbers_move_with_the_rows():
    """Smarket (--quick, 120 rows): "Features with strong interactions (overall H² > 0.1): ... Lag5 (H² = 0.143),
    Lag4 (H² = 0.1374)" -- on the two halves of those rows Lag5 gives 0.227 and 0.088: at 120 rows the estimate
    does not tell it from the threshold. The section now gives each half's H² and names the features above the
    threshold in both halves and those that are not."""
    from imlkit.report._sec_effects import section_effects

    ctx = _interaction_ctx()
    sec = section_effects(ctx)
    said = _texts(sec)
    halves = ctx.effects.h_halves
    assert ctx.effects.h_rows == 120 and set(halves) == {"a", "b", "c"}
    # a x b is a pure interaction of a and b: H² ~ 1 on any rows; c enters additively: H² ~ 0 in both halves
    for f in ("a", "b"):
        assert min(halves[f]) > 0.9
    assert max(halves["c"]) < 1e-6
    assert "each half of the 120 rows" in said and "Above 0.1 in both halves: a, b." in said
    assert "not distinguishable" not in said
    assert "the strongest pair: a × b" in " ".join(b.get("caption") or "" for b in sec["blocks"]
                                                    if isinstance(b, dict))


def test_halves_name_a_feature_on_both_sides_of_the_threshold():
    from imlkit.report._sec_effects import halves_words

    said = halves_words({"x": 0.143, "y": 0.30, "z": 0.01}, {"x": (0.227, 0.088), "y": (0.28, 0.31),
                                                             "z": (0.02, 0.0)}, 120, 60, 60)
    assert "Above 0.1 in both halves: y." in said
    assert "not distinguishable from that threshold at 120 rows: x (H² 0.143; halves 0.227 and 0.088)" in said
    assert "z" not in said.split("halves differ")[1]
    assert "halves differ by up to 0.14" in said


def test_the_strongest_pair_is_one_only_when_each_half_agrees():
    """The 2-D PD was of "the strongest pair" whenever its H² on all rows was the largest; on Smarket's 120 rows
    Lag3 x Lag1 (0.185) leads Lag2 x Lag1 (0.162) but not in the second half (0.169 < 0.178)."""
    from imlkit.report._sec_effects import _pd2_blocks

    ctx = _interaction_ctx()
    X_h = ctx.rows("hstat")[0]
    h = ik.h_statistic(ctx.model, X_h, n_samples=len(X_h), n_top=3, random_state=0)
    top = list(h.pairwise["h2"])
    shown = h.pairwise.copy()
    shown["H² (half 1)"] = top
    shown["H² (half 2)"] = top[::-1]      # the second half puts the last pair first
    cap = _pd2_blocks(ctx, h, None, shown)[0]["caption"]
    assert "the strongest pair" not in cap and "not settled at 120 rows" in cap
    shown["H² (half 2)"] = top
    assert "the strongest pair: a × b" in _pd2_blocks(ctx, h, None, shown)[0]["caption"]


def test_a_model_fitted_on_integer_classes_gets_every_importance_method(tmp_path):
    """A pickled xgboost classifier fitted on 0/1 (Smarket, --model-file, --test-data): the report read the labels
    as text "0"/"1", which are not among the model's classes [0, 1], and PFI, CFI, SAGE and LOCO all failed ("y
    contains the label '0', which is not among the model's classes [0, 1]"): section 3 was empty."""
    import re

    from sklearn.linear_model import LogisticRegression

    from imlkit.report import build_report

    rng = np.random.default_rng(7)
    df = pd.DataFrame(rng.normal(size=(240, 3)), columns=["a", "b", "c"])
    df["label"] = (df["a"] + 0.5 * rng.normal(size=240) > 0).astype(int)
    model = LogisticRegression().fit(df[["a", "b", "c"]].iloc[:160], df["label"].iloc[:160])
    path = build_report(data=df.iloc[:160], test_data=df.iloc[160:], target="label", model=model, quick=True,
                        methods=["pfi", "cfi", "sage"], out=str(tmp_path / "r"))
    doc = re.sub(r"<[^>]+>", " ", open(path).read())
    assert "failed" not in doc and "not among the model's classes" not in doc
    # PFI's first feature is the one the labels depend on
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    ctx = prepare_context(ReportConfig(data=df.iloc[:160], test_data=df.iloc[160:], target="label", model=model,
                                       quick=True))
    r = ik.pfi(ctx.model, ctx.X_test, ctx.y_test, random_state=0)
    assert r.feature_names[int(np.argmax(r.importance))] == "a"
    acc = float(np.mean(model.predict(df[["a", "b", "c"]].iloc[160:]) == df["label"].iloc[160:]))
    np.testing.assert_allclose(ctx.model_check.performance["accuracy"], acc, rtol=0, atol=1e-12)


def test_h_statistic_sentence_does_not_call_a_pairwise_h2_above_one_a_share():
    """Credit (ISLP), a one-hot LogisticRegression pipeline predicting Student: pairwise H² of Rating × Income 1.916,
    Limit × Income 1.599 under "H² of a pair, the share of their joint PD from their interaction" -- no share exceeds
    1. And on the probability scale the logistic regression (no interaction terms) showed overall H² up to 0.956."""
    from types import SimpleNamespace

    from imlkit.report._sec_effects import hstat_caveats

    pw = pd.DataFrame({"feature_1": ["Rating", "Limit", "Limit"], "feature_2": ["Income", "Income", "Rating"],
                       "h2": [1.916, 1.599, 0.064]})
    said = hstat_caveats(SimpleNamespace(task="classification"), SimpleNamespace(pairwise=pw, output="P(class=Yes)"))
    assert "above 1 is not a share" in said and "Rating × Income (1.92); Limit × Income (1.6)." in said
    assert "Limit × Rating" not in said
    assert "does not say the model has interaction terms" in said
    reg = hstat_caveats(SimpleNamespace(task="regression"), SimpleNamespace(pairwise=pw.iloc[2:], output="prediction"))
    assert reg == ""


def test_logistic_regression_has_probability_scale_interactions():
    """The caveat's premise, measured: a logistic regression without interaction terms has overall H² > 0 on the
    probability (the link couples the effects), and H² = 0 on its log-odds (additive)."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    y = (2 * X["a"] + 2 * X["b"] + rng.logistic(size=300) > 0).astype(int)
    lr = LogisticRegression().fit(X, y)
    on_p = ik.h_statistic(lr, X, n_samples=100, random_state=0)
    on_logit = ik.h_statistic(lambda Z: np.asarray(Z) @ lr.coef_[0] + lr.intercept_[0], X, n_samples=100,
                              random_state=0)
    assert min(on_p.overall) > 0.01
    np.testing.assert_allclose(on_logit.overall, 0, atol=1e-12)


def _one_feature_ctx(methods):
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    rng = np.random.default_rng(9)
    X = pd.DataFrame({"income": rng.gamma(4, 200, size=235)})
    y = 100 + 0.5 * X["income"] + 30 * rng.normal(size=235)
    ctx = prepare_context(ReportConfig(data=X.assign(foodexp=y), target="foodexp", quick=True, methods=methods,
                                       strict=False))
    ctx.results = {"pfi": ik.pfi(ctx.model, ctx.X_test, ctx.y_test, random_state=0)}
    return ctx


def test_one_feature_table_gets_no_regional_failure_and_no_interaction_statistic():
    """statsmodels engel (income -> foodexp): section 5 was "Warning: 5. Regional effects failed on these data ...
    'split_features' is empty", and the H-statistic reported on 71 rows that its halves "differ by up to 1.6e-30"
    of a feature with nothing to interact with."""
    from imlkit.report._sec_effects import section_effects, section_regional

    ctx = _one_feature_ctx(("pfi", "effects", "hstat", "repid"))
    reg = section_regional(ctx)
    said = _texts(reg)
    assert "Not computed" in said and "only one feature (income)" in said
    assert not any(b.get("kind") == "warning" for b in reg["blocks"] if isinstance(b, dict))
    eff_said = _texts(section_effects(ctx))
    assert "no other feature to interact with" in eff_said and "halves differ" not in eff_said


def test_halves_of_an_additive_model_agree_up_to_rounding():
    from imlkit.report._sec_effects import halves_words

    said = halves_words({"a": 1e-30, "b": 2e-30}, {"a": (1.6e-30, 0.0), "b": (0.0, 3e-31)}, 71, 35, 36)
    assert "agree up to rounding" in said and "e-30" not in said


def test_section_six_names_the_rows_given_as_test_data_not_a_split():
    """--test-data (Bikeshare, a pickled xgboost): section 6's table read "Test performance on the same split", but
    no split was made: the rows were given."""
    from types import SimpleNamespace

    from imlkit.report._sec_alternatives import _where

    ctx = SimpleNamespace(evaluation="test_data", X_test=pd.DataFrame({"a": range(2594)}),
                          X_train=pd.DataFrame({"a": range(6051)}))
    said = _where(ctx)
    assert "split" not in said and "2,594 rows given as test data" in said and "6,051 rows given as data" in said
    split = _where(SimpleNamespace(evaluation="split", X_test=None, X_train=None))
    assert split == "Test performance on the same split"


def test_provenance_states_the_threads_the_libraries_had():
    """Section 7 said "BLAS/OpenMP threads limited to 1 per process" whatever happened: threadpoolctl limits only the
    libraries loaded when it is called, and a pickled xgboost/lightgbm loads its OpenMP later (measured: libgomp
    with 2 threads inside the limit). The sentence now reads the libraries' threads."""
    from imlkit.report._sec_provenance import threads_text

    ok = threads_text([{"internal_api": "openblas", "filepath": "/x/libopenblas.so", "num_threads": 1}])
    assert "1 thread per process" in ok
    bad = threads_text([{"internal_api": "openblas", "filepath": "/x/libopenblas.so", "num_threads": 1},
                        {"internal_api": "openmp", "filepath": "/y/libgomp.so.1", "num_threads": 2}])
    assert "1 of the 2 libraries loaded had more" in bad and "openmp libgomp.so.1: 2 threads" in bad


def test_the_report_limits_a_library_loaded_with_the_model(tmp_path):
    """A library loaded with the model (after the report's first limit) runs with one thread for the sections."""
    import joblib
    from threadpoolctl import threadpool_info, threadpool_limits

    from imlkit.report import _build

    seen = {}
    real, real_prepare = _build.build_sections, _build.prepare_context

    def spy(ctx):
        seen["threads"] = [i["num_threads"] for i in threadpool_info()]
        return real(ctx)

    def loads_a_library(config, **kw):
        # what loading a model that brings its own OpenMP does: after the report's first limit, a library with 2
        ctx = real_prepare(config, **kw)
        threadpool_limits(limits=2)
        return ctx

    rng = np.random.default_rng(10)
    df = pd.DataFrame(rng.normal(size=(120, 2)), columns=["a", "b"])
    df["y"] = df["a"] + rng.normal(size=120)
    joblib.dump(LinearRegression().fit(df[["a", "b"]], df["y"]), tmp_path / "m.joblib")
    import pytest as _pytest

    mp = _pytest.MonkeyPatch()
    mp.setattr(_build, "build_sections", spy)
    mp.setattr(_build, "prepare_context", loads_a_library)
    before = threadpool_limits(limits=None)  # the process's limits, restored after
    try:
        _build.build_report(data=df, target="y", model_file=str(tmp_path / "m.joblib"), trust_model_file=True,
                            quick=True, methods=["pfi"], out=str(tmp_path / "r"))
    finally:
        mp.undo()
        before.restore_original_limits()
    assert seen["threads"] and max(seen["threads"]) == 1


def test_shap_explain_says_what_the_values_rest_on():
    """ShapResult.explain() gave only the three questions: nothing said that a logit SHAP adds up to the log-odds
    (its base value is the mean log-odds, not the mean probability), whether the values are exact or permutation
    estimates, or that a selection of players no longer adds up. Each sentence is checked against the numbers."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(11)
    X = pd.DataFrame(rng.normal(size=(300, 4)), columns=["a", "b", "c", "d"])
    y = (X["a"] + X["b"] > 0).astype(int)
    m = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    s = ik.shap(m, X.iloc[:20], background=X.iloc[:50], link="logit")
    said = s.explain()
    assert "on the log-odds scale" in said and "50 background rows" in said and "exact" in said
    p = m.predict_proba(X.iloc[:20])[:, 1]
    np.testing.assert_allclose(s.base_values + s.values.sum(1), np.log(p / (1 - p)), rtol=1e-6, atol=1e-8)
    W = pd.DataFrame(rng.normal(size=(20, 12)), columns=[f"x{j}" for j in range(12)])  # > 10 players: estimated
    est = ik.shap(lambda Z: np.asarray(Z, dtype=float) @ np.arange(12.0) + Z["x0"] * Z["x1"], W.iloc[:4],
                  background=W.iloc[4:14], n_permutations=8, random_state=0)
    said = est.explain()
    assert "permutation estimates (8 orderings per row" in said and "exact" not in said.split("Explained")[1]
    assert f"{int(np.sum(est.extra['converged']))} of 4 rows reached the tolerance" in said
    part = est[["x0"]].explain()
    assert "no longer add up" in part
    assert not np.allclose(est[["x0"]].base_values + est[["x0"]].values.sum(1), est.extra["fx"])


def test_the_tree_says_its_leaves_count_training_rows():
    """Bikeshare: the depth-3 tree printed "value: 35.264 (n=523, squared_error=1055.422)" under a section scored on
    the test rows, without saying n and the impurity are of the 6,051 training rows it was fitted on."""
    import re

    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_alternatives import _tree_blocks

    rng = np.random.default_rng(12)
    X = pd.DataFrame(rng.normal(size=(400, 2)), columns=["a", "b"])
    ctx = prepare_context(ReportConfig(data=X.assign(y=X["a"] + rng.normal(size=400)), target="y", model="glm",
                                       quick=True, methods=("models",)))
    assert ctx.evaluation == "split"
    ctx.alternative_models = {}
    blocks = _tree_blocks(ctx, {})
    said = _texts(blocks and {"blocks": blocks})
    n_fit = len(ctx.rows("tree", "train")[0])
    assert f"Fitted on {n_fit:,} training rows" in said
    tree = next(b["text"] for b in blocks if b.get("kind") == "pre")
    leaves = [int(k) for k in re.findall(r"\(n=(\d+)", tree)]
    assert sum(leaves) == n_fit


def test_progress_total_counts_the_h_statistic_steps():
    """The progress bar's total planned 2 steps for the H-statistic; it now runs 3 (H, H on each half, 2-D PD)."""
    from imlkit.report._build import planned_steps
    from imlkit.report._sec_effects import section_effects

    with_h, without = _interaction_ctx(("pfi", "hstat")), _interaction_ctx(("pfi",))
    planned = planned_steps(with_h) - planned_steps(without)
    n0 = len(with_h.log)
    section_effects(with_h)
    assert len(with_h.log) - n0 == planned == 3


def test_halves_of_a_flat_model_are_not_said_to_agree():
    """Every H² 0/0 (NaN): the halves' sentence said they "agree up to rounding" (NaN compares False)."""
    from imlkit.report._sec_effects import halves_words

    said = halves_words({"a": np.nan}, {"a": (np.nan, np.nan)}, 100, 50, 50)
    assert "agree" not in said and "undefined" in said
