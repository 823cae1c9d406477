"""Sentences of the report that said more than their numbers (found on real tables; rebuilt here on data made in code).

Each test builds the numbers behind one sentence and checks the sentence says what they support -- no more.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import imlkit as ik
from imlkit.models import GLM
from imlkit.report import _claims as cl
from imlkit.report._sec_effects import MATERIAL_REGIONAL_SHARE, regional_words
from imlkit.report._sec_model import _compare


# --------------------------------------------------------------------------- GLM readings
def test_a_glm_odds_ratio_whose_interval_holds_one_is_not_called_no_change():
    """BrainCancer (88 rows): "multiplies the odds by 0.322 [0.0306, 3.39] (not distinguishable from 1, no change)"
    called a 97% fall "no change". Not rejecting 1 is no evidence of 1."""
    rng = np.random.default_rng(0)
    n = 80
    X = pd.DataFrame({"signal": rng.normal(size=n), "noise": rng.normal(size=n)})
    y = pd.Series((X["signal"] + rng.logistic(size=n) > 0).astype(int), name="y")
    m = GLM(family="binomial").fit(X, y)
    s = m.summary().loc["noise"]
    assert s.ci_low < 0 < s.ci_high  # the noise weight's interval holds 0: its odds ratio's holds 1
    sentence = m.interpret("noise")[0]
    assert "not distinguishable from 1" in sentence
    assert "(not distinguishable from 1, no change)" not in sentence
    assert ("(not distinguishable from 1: the data allow every value in the interval, no change (1) among them)"
            in sentence)
    lo, hi = np.exp([s.ci_low, s.ci_high])
    assert f"[{lo:.3g}, {hi:.3g}]" in sentence
    # a clear effect gets no such clause
    assert "not distinguishable" not in m.interpret("signal")[0]


# --------------------------------------------------------------------------- section 2 / 6 comparisons
def _res(model, other, scores_model, scores_other):
    return {"scores": {model: {m: (v, v, v) for m, v in scores_model.items()},
                       other: {m: (v, v, v) for m, v in scores_other.items()}}}


def test_a_comparison_lists_after_beats_only_the_measures_that_decide_it():
    """Default (10,000 rows): "GLM beats the model on test Brier score and ROC AUC: Brier ...; ROC AUC ...; balanced
    accuracy 0.6814 against 0.6726 (difference 0.008793 [-0.02083, 0.04042])" listed an undecided measure (one the
    model is even ahead on) inside the list of the GLM's wins."""
    deciding = ["Brier score", "ROC AUC", "balanced accuracy"]
    res = _res("model", "GLM", {"Brier score": 0.0458, "ROC AUC": 0.944, "balanced accuracy": 0.681},
               {"Brier score": 0.0396, "ROC AUC": 0.961, "balanced accuracy": 0.673})
    d = {"Brier score": (0.0062, 0.0026, 0.0096), "ROC AUC": (-0.0166, -0.028, -0.0068),
         "balanced accuracy": (0.0088, -0.0208, 0.0404)}
    block = _compare(res, "model", "GLM", d, deciding, "")
    said = block["text"]
    assert block["kind"] == "warning"
    head, _, rest = said.partition("Not decided on")
    assert "GLM beats the model on test Brier score and ROC AUC:" in head
    assert "balanced accuracy" not in head  # not among the GLM's wins
    assert rest.startswith(" balanced accuracy (the interval includes 0): balanced accuracy 0.681 against 0.673")
    assert "0.0088 [-0.0208, 0.0404]" in rest
    # the model wins on one, the other two undecided: both named apart
    d2 = {"Brier score": (-0.0062, -0.0096, -0.0026), "ROC AUC": (0.001, -0.01, 0.012),
          "balanced accuracy": (0.0088, -0.0208, 0.0404)}
    said2 = _compare(res, "model", "GLM", d2, deciding, "")["text"]
    head2, _, rest2 = said2.partition("Not decided on")
    assert "The model improves over GLM on test Brier score:" in head2 and "ROC AUC" not in head2
    assert rest2.startswith(" ROC AUC or balanced accuracy (each interval includes 0)")
    # nothing decided: one list of every measure, no "not decided" clause
    d3 = {m: (0.0, -1.0, 1.0) for m in deciding}
    said3 = _compare(res, "model", "GLM", d3, deciding, "")["text"]
    assert "not distinguishable on test Brier score, ROC AUC and balanced accuracy" in said3
    assert "Not decided" not in said3


# --------------------------------------------------------------------------- the automatic reading
def _loco_evidence(p):
    # LOCO's one-sided test at level 0.95 rejects at alpha = 0.025 (importance._inference.significance_threshold)
    return cl.Evidence(method="loco", feature="ShelveLoc", estimate=0.439, low=-0.0179, high=1.17, largest=0.447,
                       p_adjusted=p, alpha=0.025, rank=2)


def test_an_adjusted_p_value_is_shown_with_the_level_it_is_judged_at():
    """Carseats with a fitted model: "the data do not settle these: ... ShelveLoc (0.439, interval [-0.0179, 1.17],
    adjusted p = 0.0392, ...)" read as significant to anyone assuming 0.05; LOCO's one-sided level is 0.025."""
    e = _loco_evidence(0.0392)
    assert not e.above_null()
    assert "adjusted p = 0.0392, above the level 0.025" in e.words()
    s = _loco_evidence(0.01)
    assert s.above_null() and "adjusted p = 0.01, at most the level 0.025" in s.words()
    claim = cl.Claim("unsettled", ("ShelveLoc",), methods=("loco",), evidence=(e,),
                     numbers=dict(share=cl.IMPORTANT_SHARE, loss_share=cl.LOSS_SHARE))
    assert not claim.check() and "above the level 0.025" in claim.text()


def _rules(**extra):
    n = dict(important_share=cl.IMPORTANT_SHARE, negligible_share=cl.NEGLIGIBLE_SHARE, loss_share=cl.LOSS_SHARE,
             **extra)
    return cl.Claim("rules", methods=("pfi", "loco"), numbers=n)


def test_the_rules_name_the_rows_loco_tests_on_when_a_fitted_model_came_with_one_table():
    assert "LOCO intervals come from a test over the test rows." in _rules().text()
    one_table = _rules(refit_rows="the scoring rows of the refits' own seeded split of the table").text()
    assert "test over the test rows" not in one_table
    assert "LOCO intervals come from a test over the scoring rows of the refits' own seeded split" in one_table
    assert not _rules(refit_rows="x").check()


@pytest.mark.parametrize("maybe_training", [False, True])
def test_could_not_beat_the_baseline_names_the_rows_it_was_scored_on(maybe_training):
    """One table and a fitted model: the model is scored on rows that may have fitted it; the sentence said
    "this says the test rows cannot show one" of rows that are not test rows."""
    nums = dict(baseline="mean", small_gain=cl.NOISE_GAIN, n_rows=400,
                rows_word="rows" if maybe_training else "test rows", maybe_training=maybe_training,
                differences={"RMSE": (-0.01, -0.2, 0.18)}, noise=False, others={})
    said = cl.Claim("no_better", numbers=nums).text()
    if maybe_training:
        assert "test rows" not in said
        assert "on 400 rows (rows it may have been fitted on, where a model looks its best)" in said
        assert "these rows cannot show one" in said
    else:
        assert "on 400 test rows (the model minus" in said and "these test rows cannot show one" in said


# --------------------------------------------------------------------------- REPID's regions
class _Product:
    """f = x1 + 0.01 · x1 · x2 (curves nearly alike) or f = x1 · x2 (curves differ without a clean cut)."""

    def __init__(self, interact):
        self.interact = interact

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        return X[:, 0] * X[:, 1] if self.interact else X[:, 0] + 0.01 * X[:, 0] * X[:, 1]


def _left(g):
    m = np.size(g.regions[0].centered_average)
    return np.sqrt(sum(r.risk for r in g.regions) / (g.tree[0].n * m))


@pytest.mark.parametrize("interact", [False, True])
def test_repid_says_the_same_everywhere_only_when_the_curves_left_are_close(interact):
    """BrainCancer (27 REPID rows): "No split improved the homogeneity of the ki curves enough: its effect is about
    the same everywhere" -- a depth-2 tree not finding a region is no evidence that there is none."""
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"x1": rng.uniform(-1, 1, 300), "x2": rng.uniform(-1, 1, 300)})
    # a split of x2 at 0 removes about 3/4 of the x1·x2 heterogeneity, short of min_improvement = 0.9
    g = ik.repid(_Product(interact), X, "x1", grid=10, max_depth=1, min_node_size=30, min_improvement=0.9)
    assert not (g.interaction_scores > 0).any()
    said = regional_words(g, "x1", 1, 0.9)
    assert said.startswith("No split improved the homogeneity of the x1 curves enough (min_improvement = 0.9)")
    span = np.ptp(np.asarray(g.average, dtype=float))
    left = _left(g)
    if interact:
        assert left > MATERIAL_REGIONAL_SHARE * span
        assert "is the same for every row" in said and "not evidence" in said
        # round 7: the largest spread over the grid points, where it is, and the grid's root mean square beside it
        from imlkit.report._sec_effects import spread_by_point

        within = spread_by_point(g)[0]
        k = int(np.argmax(within))
        assert (f"by up to {within[k]:.3g} (root mean square over the rows at x1 = {g.grid[k]:.4g}, "
                f"{within[k] / span:.1%} of the effect's range {span:.3g}; {left:.3g} in root mean square over the "
                f"grid)") in said
        assert "about the same for every row" not in said
    else:
        assert 0 < left < MATERIAL_REGIONAL_SHARE * span
        assert "the effect of x1 is about the same for every row" in said and "not evidence" not in said


# --------------------------------------------------------------------------- the class an effect explains
@pytest.mark.parametrize("n_classes", [3, 8])
def test_the_reason_for_one_class_is_true_for_the_number_of_classes(n_classes):
    """Wine (3 classes): "REPID explains ... class grignolino, the most frequent of the 3 classes (one class is shown
    when there are more than 6 ...)" gave a reason that did not hold: REPID explains one class whatever their number."""
    from types import SimpleNamespace

    from imlkit.report._sec_effects import MAX_CLASS_PANELS, _output_text

    classes = [f"c{k}" for k in range(n_classes)]
    ctx = SimpleNamespace(task="classification", model=SimpleNamespace(classes_=classes), target_class=None,
                          data=SimpleNamespace(target="y"))
    said = _output_text(ctx, "c1")
    assert said.startswith(f"the predicted probability of class c1, the most frequent of the {n_classes} classes")
    assert "more than" not in said and n_classes != MAX_CLASS_PANELS  # digits (10 classes): the same reason holds
    assert said.endswith("(this method explains one class at a time; choose another with --class)")


# --------------------------------------------------------------------------- section 1's dependence
def _few_complete(seed=0, n=200, p=8, missing=0.35):
    """n rows of p unrelated features; about (1 - missing)**4 of the rows are complete (four columns have holes)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    for c in ["x0", "x1", "x2", "x3"]:
        X.loc[rng.random(n) < missing, c] = np.nan
    return X.assign(y=rng.normal(size=n))


def test_section_one_judges_no_dependence_from_too_few_complete_rows():
    """Carseats with 45% of four columns missing: the R² of section 1 came from 33 complete rows for 10 regressors and
    "Marginal methods will extrapolate: Advertising (R² = 0.80), Education (R² = 0.66), ..." (Education's R² on all
    400 rows is near 0) -- an R² of unrelated columns on so few rows is about d / (n - 1)."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import LinearRegression

    from imlkit._dependence import MIN_ROWS_PER_REGRESSOR, dependence_r2
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_data import section_data

    df = _few_complete()
    X = df.drop(columns="y")
    r2 = dependence_r2(X)
    n, d = r2.attrs["n_rows"], r2.attrs["n_regressors"]
    assert n == int(X.notna().all(axis=1).sum()) and n < MIN_ROWS_PER_REGRESSOR * d
    model = HistGradientBoostingRegressor(max_iter=5).fit(X, df.y)  # takes NaN
    ctx = prepare_context(ReportConfig(data=df, target="y", model=model, quick=True, prepare=False))
    said = " ".join(str(b.get("text", "")) for b in section_data(ctx)["blocks"])
    assert f"The R² above come from {n:,} complete rows for {d:,} regressors" in said
    assert f"d / (n − 1) = {d / (n - 1):.2f}" in said
    assert "will extrapolate" not in said and "should broadly agree" not in said
    assert ctx.data_outputs.dependence_r2.isna().all()  # the reading gets no R² to tell a story from
    # enough complete rows: section 1 judges as before
    full = _few_complete(missing=0.0)
    ctx2 = prepare_context(ReportConfig(data=full, target="y", model=LinearRegression().fit(full.drop(columns="y"),
                                                                                             full.y), quick=True))
    said2 = " ".join(str(b.get("text", "")) for b in section_data(ctx2)["blocks"])
    assert "complete rows for" not in said2 and "should broadly agree" in said2
    assert ctx2.data_outputs.dependence_r2.notna().any()


# --------------------------------------------------------------------------- section 6's readings
def _html_text(path):
    import html
    import re

    s = open(path, encoding="utf-8").read()
    s = re.sub(r"<(script|style|svg).*?</\1>", " ", s, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", s)).split())


def test_section_six_names_the_glm_features_by_the_ranking_and_counts_rules_and_errors(tmp_path):
    """Default: "Reading the weights of the most important features" read student, important for none of the 4
    methods; "RIPPER's decision list (1 rules; ...)"; "OneR ... (181 training errors)" without the rows; "No single
    column predicts the target ... (no sign of a leak)" of a check that tries one column at a time."""
    import re

    from sklearn.linear_model import LogisticRegression

    from imlkit.report import build_report

    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    y = np.where(2.5 * X["c"] + rng.logistic(size=n) > 0, "yes", "no")
    frame = X.assign(y=y)
    model = LogisticRegression().fit(X, y)
    path = build_report(data=frame, target="y", model=model, quick=True, methods=["pfi", "models"],
                        out=str(tmp_path / "r"), progress=False)
    said = _html_text(path)
    m = re.search(r"Reading the weights of (.*?) (?:Increasing|[abc] =)", said)
    assert m is not None, said[said.find("Reading the weights"):][:300]
    title = m.group(1)
    assert "the most important features" not in title or "of 1)" not in title
    assert title.startswith("the feature important for PFI: c") or title.startswith("the features")
    rules = re.search(r"RIPPER's decision list \((\d+) (rules?);", said)
    assert rules is not None and (rules.group(2) == "rule") == (rules.group(1) == "1")
    oner = re.search(r"OneR picks the single feature \w+ \(([\d,]+) errors on its ([\d,]+) training rows\)", said)
    # the leak check says what it checked: one column at a time
    assert ("No single column predicts the target almost perfectly on its own (no one-feature model reaches balanced "
            "accuracy >= 0.99 on rows it was not fitted on): no sign of a leak through one column; a leak spread over "
            "several columns is not checked.") in said
    # a fitted model and one table: imlkit's own models are fitted on every row
    assert oner is not None and int(oner.group(2).replace(",", "")) == n


def test_a_share_of_a_negative_largest_value_says_so():
    """statecrime (51 rows, random forest): PFI "hs_grad (0.507, ..., 47% of its largest)" -- hs_grad is PFI's first
    place; its "largest" was single's |-1.09|, a value below 0. The yardstick stays (a size), the words name it."""
    from imlkit.importance import ImportanceResult

    names = ("hs_grad", "violent", "single")
    v = np.array([0.507, 0.183, -1.09])
    r = ImportanceResult(method="pfi", feature_names=names, importance=v, std=0 * v,
                         ci_low=np.array([-0.153, -0.455, -1.56]), ci_high=np.array([1.17, 0.821, -0.616]),
                         loss="squared_error", baseline_loss=4.9, params={}, extra={})
    ev = cl.evidence(r)
    e = ev["hs_grad"]
    assert e.rank == 1 and e.largest_below and e.largest_feature == "single"
    np.testing.assert_allclose(e.share, 0.507 / 1.09)
    assert "47% of its largest |value| (single: -1.09, below 0)" in e.words()
    # a positive largest keeps the short words
    r2 = ImportanceResult(method="pfi", feature_names=names, importance=np.abs(v), std=0 * v,
                          ci_low=np.abs(v) - 0.1, ci_high=np.abs(v) + 0.1, loss="squared_error", baseline_loss=4.9,
                          params={}, extra={})
    e2 = cl.evidence(r2)["hs_grad"]
    assert not e2.largest_below and e2.words().endswith("47% of its largest")


def test_the_reading_says_why_a_method_has_no_share_of_what_the_features_explain():
    """randhie (counts, 77% of them 0 or 1): LOCO's numbers carried no "share of what the features explain
    together" and nothing said why -- the squared-error model does worse than the median in absolute error."""
    from types import SimpleNamespace

    from imlkit.importance import ImportanceResult
    from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck
    from imlkit.report._reading import reading_claims

    y = pd.Series([0.0] * 20 + [1.0] * 5 + [10.0] * 5)
    mae_const = float(np.mean(np.abs(y - y.median())))
    names = ("a", "b")

    def res(method, loss, base, v):
        v = np.asarray(v, dtype=float)
        return ImportanceResult(method=method, feature_names=names, importance=v, std=0 * v, ci_low=v - 0.1,
                                ci_high=v + 0.1, loss=loss, baseline_loss=base, params={}, extra={})

    loco = res("loco", "absolute_error", mae_const + 1.0, [0.5, 0.05])
    pfi = res("pfi", "squared_error", 0.5 * float(np.var(y)), [2.0, 0.3])
    ctx = SimpleNamespace(importance=ImportanceOutputs(pfi=pfi, loco=loco), effects=EffectsOutputs(h_overall=None),
                          data_outputs=DataOutputs(dependence_r2=None), model_check=ModelCheck(no_better_than=None),
                          X_test=pd.DataFrame({"a": np.zeros(30), "b": np.zeros(30)}), y_test=y)
    claims = [c for p in reading_claims(ctx) for item in p.items for c in item]
    rules = next(c for c in claims if c.kind == "rules")
    assert not rules.check()
    said = rules.text()
    assert (f"For LOCO (absolute_error: the constant's {cl.num(mae_const)} against the model's "
            f"{cl.num(mae_const + 1.0)}) the model does not beat the training rows' best constant") in said
    assert "PFI (squared_error" not in said  # PFI's model beats the mean: its shares are given
    assert "of what the features explain together" in cl.evidence(pfi, y)["a"].words()


def test_a_model_that_scores_exactly_as_the_baseline_is_not_said_to_describe_noise():
    """linnerud (10 test rows): a boosted model of 10 rows predicts the training mean for every row; section 2 said
    its explanations "describe noise (what the model does)" -- a model scoring exactly as the mean describes nothing."""
    from types import SimpleNamespace

    from imlkit.report._context import ModelCheck
    from imlkit.report._fit import MeanBaseline
    from imlkit.report._scores import deciding_metrics, score_intervals
    from imlkit.report._sec_model import _verdict

    rng = np.random.default_rng(0)
    y = rng.normal(loc=170, scale=20, size=10)
    same = {"pred": np.full(10, 174.7), "proba": None}
    deciding = deciding_metrics("regression")
    res = score_intervals({"model": same, "mean": dict(same)}, y, "regression", 0, reference="model",
                          simultaneous=deciding)
    ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows", y_test=y)
    _verdict(ctx, res, {"mean": MeanBaseline()}, deciding)
    d = ctx.model_check.decision["RMSE"]["difference"]
    assert tuple(float(v) for v in d) == (0.0, 0.0, 0.0)
    alert = ctx.alerts[0]
    assert "scores exactly as the baseline on every measure, with no spread" in alert
    assert "describe noise" not in alert and "allow a real improvement" not in alert


def test_the_feature_budget_group_is_named_as_a_group():
    """Khan (120 genes, budget 15): "V48: important for PFI (...), but small beside all other features (2.7% of it)"
    read as "smaller than every other feature"; the largest was the budget's group of 105 features."""
    from imlkit.report._labels import OTHERS

    e = cl.Evidence(method="sage_marginal", feature="V48", estimate=0.00533, low=0.00319, high=0.00746,
                    largest=0.197, largest_feature=OTHERS, rank=9)
    assert e.small_words().startswith(f"small beside the group '{OTHERS}' (2.7% of it)")
    below = cl.Evidence(method="pfi", feature="a", estimate=0.1, low=0.05, high=0.15, largest=1.0,
                        largest_feature=OTHERS, largest_below=True, rank=1)
    assert f"10% of its largest |value| (the group '{OTHERS}': -1, below 0)" in below.words()


def test_the_notes_on_every_weight_come_after_the_readings():
    """Khan (44 training rows, 120 genes, ridge GLM): "Increasing V2 ... by 0.713 (penalised fit, no interval). The
    weights are from a ridge-penalised fit ... Increasing V107 ..." -- the note sat between the first two readings."""
    from imlkit.report._sec_alternatives import glm_readings

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    y = pd.Series((X["a"] + rng.logistic(size=40) > 0).astype(int), name="y")
    m = GLM(family="binomial", alpha=0.5).fit(X, y)
    said = glm_readings(m, ["a", "b", "c"])
    notes = [k for k, x in enumerate(said) if x.startswith("The weights are from a ridge-penalised fit")]
    assert len(notes) == 1 and notes[0] == len(said) - 1
    assert [x.split(" by ")[0] for x in said[:3]] == [f"Increasing {f}" for f in "abc"]


@pytest.mark.parametrize("own", ["gam", "rulefit"])
def test_section_six_does_not_compare_the_model_with_itself(own):
    """Publication with --model gam: "The model and GAM (binomial) are not distinguishable ... (difference 0 [0, 0])
    ... The simpler model may explain the data as well" -- of the model itself. A reduced one (other predictions)
    is still compared."""
    from types import SimpleNamespace

    from sklearn.linear_model import LinearRegression, Ridge

    from imlkit.report._sec_alternatives import paired_comparison

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    y = pd.Series(2 * X["a"] + X["b"] + rng.normal(scale=0.3, size=300), name="y")
    Xtr, Xte, ytr, yte = X.iloc[:200], X.iloc[200:], y.iloc[:200], y.iloc[200:]
    model = LinearRegression().fit(Xtr, ytr)
    same = LinearRegression().fit(Xtr, ytr)  # refitted as the model was: identical predictions
    reduced = Ridge(alpha=50.0).fit(Xtr[["a", "b"]], ytr)
    kind = {"gam": "GAM (gaussian)", "rulefit": "RuleFit"}[own]
    ctx = SimpleNamespace(task="regression", model_label="m", model=model, y_train=ytr, y_test=yte, X_test=Xte,
                          seed=0, score_word="test", eval_rows="test rows", evaluation="split",
                          config=SimpleNamespace(model=own, model_file=None),
                          alternative_models={kind: same, f"{kind.split(' ')[0]} (reduced)": reduced})
    said = " ".join(b["text"] for b in paired_comparison(ctx))
    assert f"; {kind} is the model itself and is not compared with it:" in said
    assert f"The model and {kind} are not distinguishable" not in said and "difference 0 [0, 0]" not in said
    assert f"{kind.split(' ')[0]} (reduced)" in said.split(":", 1)[1]  # the reduced one is compared
    # a model given to the report (no --model of that kind) is compared with everything
    ctx.config = SimpleNamespace(model=model, model_file=None)
    assert "is the model itself" not in " ".join(b["text"] for b in paired_comparison(ctx))


@pytest.mark.parametrize("value, text", [(33520.7, "33,520"), (13344.0, "13,340"), (772.3, "772.3"), (2654.0, "2654"),
                                         (-45678.9, "-45,680"), (1.2e8, "1.2e+08"), (0.04145, "0.04145"),
                                         (float("nan"), "–")])
def test_section_one_summaries_print_thousands_as_people_write_them(value, text):
    """Default: "mean 3.352e+04, sd 1.334e+04, range [772, 7.355e+04]" (income) mixed notations in one line."""
    from imlkit.report._sec_data import summary_number

    assert summary_number(value) == text


@pytest.mark.parametrize("sage_estimate, told", [(-0.4, False), (0.02, True)])
def test_an_interaction_explains_a_smaller_sage_value_not_a_negative_one(sage_estimate, told):
    """Publication (--model gam): "posres: important for PFI ..., but entirely below 0 for SAGE (marginal) ...
    posres interacts with other features (H² = 0.172): PFI credits each feature of an interaction with its full
    effect, SAGE splits it among the players" -- splitting an effect makes SAGE's share smaller, never negative."""
    from imlkit.report._reading import _disagreement_claims

    def ev(method, est, low, high, largest):
        return cl.Evidence(method=method, feature="posres", estimate=est, low=low, high=high, largest=largest,
                           explained=1.0, loss=0.5, rank=2, largest_feature="impact")

    sage = ev("sage_marginal", sage_estimate, sage_estimate - 0.02, sage_estimate + 0.02, 1.0)
    evidence = {"pfi": {"posres": ev("pfi", 1.2, 0.55, 1.9, 8.0)}, "sage_marginal": {"posres": sage}}
    (claim, reasons), = _disagreement_claims(evidence, r2=None, h_overall={"posres": 0.172})
    assert claim.methods == ("pfi",) and claim.low == ("sage_marginal",)
    kinds = [r.kind for r in reasons]
    assert ("interaction" in kinds) == told
    for r in reasons:
        assert not r.check(), r.check()
    if told:
        said = next(r for r in reasons if r.kind == "interaction").text()
        assert "SAGE (marginal) splits it among the players" in said


@pytest.mark.filterwarnings("ignore")
def test_the_many_class_effects_sentence_keeps_its_clauses_apart():
    """digits (10 classes): "... ('all other classes': one minus the shown classes' probabilities); one column each;
    choose one class with --class of the 2 most important features ..." spliced the advice into the subject."""
    from sklearn.ensemble import RandomForestClassifier

    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_effects import section_effects

    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    y = np.array([f"k{int(v)}" for v in np.clip(np.floor((X["a"] + 3) * 2), 0, 11)])
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", quick=True, methods=("effects",),
                                       model=RandomForestClassifier(n_estimators=10, random_state=0), strict=True))
    first = section_effects(ctx)["blocks"][0]["text"]
    assert "probabilities; one column each; choose one class with --class) of " in first
    assert "--class of the" not in first


def test_repid_on_an_additive_model_does_not_read_rounding_noise_as_regions():
    """A linear model (--model glm, gaussian): every centred ICE curve is the same up to rounding, yet REPID split it
    ("split on x2 (intImp=715)") and the report said "the splits by x2 remove 44% of the curves' heterogeneity"."""
    from sklearn.linear_model import LinearRegression

    from imlkit.report._sec_effects import regional_difference

    rng = np.random.default_rng(2)
    X = pd.DataFrame({"x1": rng.uniform(-1, 1, 300), "x2": rng.uniform(-1, 1, 300), "x3": rng.normal(size=300)})
    y = 3 * X["x1"] + X["x2"] + rng.normal(size=300)
    g = ik.repid(LinearRegression().fit(X, y), X, "x1", grid=10, max_depth=2, min_node_size=30, min_improvement=0.1)
    _, _, span = regional_difference(g)
    assert span > 1.0  # the model's own slope (about 3) over the grid: a real effect, identical for every row
    said = regional_words(g, "x1", 2, 0.1)
    assert said.startswith("The centred ICE curves of x1 coincide up to rounding")
    assert "remove" not in said and "differs between the regions" not in said
