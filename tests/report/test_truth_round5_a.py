"""Round 5 (a): sections 1-2 and the shared claims on tables not tried before (ISLP NCI60, Weekly, statsmodels
anes96, sunspots, macrodata; users' own models), each sentence checked against the numbers behind it."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from scipy import stats

from imlkit.report._context import ModelCheck
from imlkit.report._fit import MeanBaseline
from imlkit.report._scores import deciding_metrics, min_class_rows, min_test_rows, score_intervals, too_few_rows
from imlkit.report._sec_model import _verdict
from imlkit.report._shared import compare_models


def _class_outputs(y, labels, rng, skill=2.0):
    """A classifier whose probabilities favour the true class (log-odds ``skill``), and the majority baseline."""
    k = len(labels)
    logits = rng.normal(size=(len(y), k))
    logits[np.arange(len(y)), [labels.index(v) for v in y]] += skill
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    model = {"pred": np.array(labels)[proba.argmax(axis=1)], "proba": proba}
    freq = np.array([np.mean(y == c) for c in labels])
    base = {"pred": np.full(len(y), labels[int(freq.argmax())]), "proba": np.tile(freq, (len(y), 1))}
    return model, base


def _classify(y, labels, rng, skill=2.0, glm=False):
    model, base = _class_outputs(y, labels, rng, skill)
    outputs = {"model": model, "majority class": base}
    if glm:
        outputs["GLM"] = _class_outputs(y, labels, rng, skill)[0]
    deciding = deciding_metrics("classification")
    res = score_intervals(outputs, y, "classification", 0, labels=labels, reference="model", simultaneous=deciding)
    ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows", y_test=y)
    fitted = {"majority class": MeanBaseline(), **({"GLM": None} if glm else {})}
    blocks = _verdict(ctx, res, fitted, deciding, others=None)
    return ctx, res, " ".join(b["text"] for b in blocks)


def test_min_test_rows_is_where_the_percentile_interval_misses_at_most_half_again_its_level():
    """The rule's numbers: the percentile interval of a normal mean on n rows misses P(|T_{n-1}| > z sqrt((n-1)/n))."""
    for level in (0.95, 1 - 0.05 / 3):
        n = min_test_rows(level)
        z = stats.norm.ppf(1 - (1 - level) / 2)

        def miss(m):
            return 2 * stats.t.sf(z * np.sqrt((m - 1) / m), m - 1)

        assert miss(n) <= 1.5 * (1 - level) < miss(n - 1)
    assert min_test_rows(0.95) == 18 and min_test_rows(1 - 0.05 / 3) == 32
    # the formula is what a percentile bootstrap does: 10 normal rows, a 95% interval misses about 9.6%, not 5%
    rng = np.random.default_rng(1)
    reps, n = 1500, 10
    x = rng.normal(size=(reps, n))
    idx = rng.integers(0, n, size=(reps, 400, n))
    means = np.take_along_axis(x[:, None, :].repeat(400, axis=1), idx, axis=2).mean(axis=2)
    lo, hi = np.percentile(means, [2.5, 97.5], axis=1)
    missed = np.mean((lo > 0) | (hi < 0))
    z = stats.norm.ppf(0.975)
    assert_allclose(missed, 2 * stats.t.sf(z * np.sqrt((n - 1) / n), n - 1), atol=0.025)
    assert missed > 1.5 * 0.05


def test_min_class_rows_is_where_the_stratified_interval_misses_at_most_half_again_its_level():
    """The bootstrap is stratified by class (round 8): no resample lacks a class, so the rule is how often the
    interval of a mean over classes misses when each class is resampled within its own rows (it was: how often a
    class is missing from an unstratified resample)."""
    from imlkit.report._scores import class_interval_miss

    for n in (60, 200, 5000):
        for level in (0.95, 1 - 0.05 / 3):
            c = min_class_rows(n, level)
            assert class_interval_miss((c, n - c), level)[0] <= 1.5 * (1 - level)
            assert class_interval_miss((c - 1, n - c + 1), level)[0] > 1.5 * (1 - level)


def test_eighteen_test_rows_of_nine_classes_give_no_verdict():
    """ISLP NCI60 (first 200 genes, --quick): 18 test rows, 9 classes of two rows each; section 2 said "The model
    beats the majority class baseline on test ROC AUC ... (difference 0.1679 [0.01045, 0.3758])" and compared it
    with the GLM, from resamples of which one in seven lacked any given class."""
    labels = [f"c{k}" for k in range(9)]
    y = np.repeat(labels, 2)
    rng = np.random.default_rng(0)
    ctx, res, said = _classify(y, labels, rng, skill=3.0, glm=True)
    check = ctx.model_check
    assert res["rows"] == 18
    assert check.no_better_than is None and check.decided_by == () and check.deciding == ()
    assert "The model beats the majority class" not in said and "could not be shown" not in said
    assert "Too few test rows to decide whether the model beats the majority class baseline" in said
    assert "n = 18 test rows, fewer than the 32 a 98.3% percentile-bootstrap interval needs" in said
    assert "Too few test rows to decide between the model and GLM" in said
    assert not ctx.alerts
    # the same model on 20 times the rows is judged
    y = np.repeat(labels, 40)
    ctx, _, said = _classify(y, labels, np.random.default_rng(0), skill=3.0)
    assert "Too few" not in said and ctx.model_check.decided_by


def test_a_class_with_few_test_rows_leaves_the_per_class_measures_undecided():
    """300 test rows, one class of 3: balanced accuracy and ROC AUC average that class's recall / AUC, resampled
    within its 3 rows; the Brier score (a mean over rows) still decides."""
    labels = ["a", "b", "rare"]
    y = np.array(["a"] * 150 + ["b"] * 147 + ["rare"] * 3)
    ctx, res, said = _classify(y, labels, np.random.default_rng(2), skill=2.0)
    assert too_few_rows(res, "Brier score") == ""
    assert "rare (3)" in too_few_rows(res, "balanced accuracy")
    assert ctx.model_check.deciding == ("Brier score",)
    assert "Not judged on ROC AUC and balanced accuracy: too few test rows" in said
    assert "the classes' test rows (smallest first: rare (3), b (147), a (150)) are too few" in said


def test_compare_models_gives_no_verdict_on_too_few_rows():
    labels = ["a", "b"]
    y = np.array(["a", "b"] * 10)
    rng = np.random.default_rng(4)
    model, base = _class_outputs(y, labels, rng, skill=4.0)
    deciding = deciding_metrics("classification")
    res = score_intervals({"model": model, "GLM": base}, y, "classification", 0, labels=labels, reference="model",
                          simultaneous=deciding)
    d = res["simultaneous_differences"]["GLM"]
    blk = compare_models(res, "model", "GLM", d, deciding, "", "test")
    assert blk["kind"] == "text"
    assert blk["text"].startswith("Too few test rows to decide between the model and GLM")
    assert "n = 20 test rows" in blk["text"]


def test_best_constant_fitted_on_the_training_rows_matches_sklearn():
    """The yardstick's constant fitted on the training rows and scored on others: scikit-learn's losses of that
    constant prediction."""
    from sklearn import metrics

    from imlkit.report._claims import best_constant_loss

    rng = np.random.default_rng(5)
    y_fit = rng.choice(["a", "b", "c"], size=120, p=[0.5, 0.3, 0.2])
    y = rng.choice(["a", "b"], size=40)             # the scored rows lack class c
    freq = np.array([np.mean(y_fit == c) for c in ("a", "b", "c")])
    proba = np.tile(freq, (len(y), 1))
    assert_allclose(best_constant_loss("log_loss", y, y_fit), metrics.log_loss(y, proba, labels=["a", "b", "c"]),
                    rtol=1e-12)
    onehot = (y[:, None] == np.array(["a", "b", "c"])[None, :]).astype(float)
    assert_allclose(best_constant_loss("brier", y, y_fit), np.mean(np.sum((proba - onehot) ** 2, axis=1)),
                    rtol=1e-12)
    assert_allclose(best_constant_loss("zero_one", y, y_fit), 1 - np.mean(y == "a"), rtol=1e-12)
    v, v_fit = rng.normal(size=50), rng.normal(1.0, size=80)
    assert_allclose(best_constant_loss("squared_error", v, v_fit),
                    metrics.mean_squared_error(v, np.full(50, v_fit.mean())), rtol=1e-12)
    assert_allclose(best_constant_loss("absolute_error", v, v_fit),
                    metrics.mean_absolute_error(v, np.full(50, np.median(v_fit))), rtol=1e-12)
    # without the training rows: the constant in hindsight, as before
    p = np.array([np.mean(y == c) for c in ("a", "b")])
    assert_allclose(best_constant_loss("log_loss", y), -np.sum(p * np.log(p)), rtol=1e-12)


def test_a_share_of_the_yardstick_is_not_inflated_by_a_class_missing_from_the_scored_rows():
    """sklearn wine, a gradient boosting fitted on 110 rows of three classes, scored on 54 rows of two (--test-data):
    the yardstick in hindsight was the entropy of the two classes (0.676) minus the model's log loss (0.179), 0.497,
    and proline's PFI of 0.653 was 131% of "what the features explain together"; the constant a model without
    features learns (the training frequencies) loses 1.058 there, so the features explain 0.879 and proline 74%."""
    from imlkit.report._claims import explained_loss

    y_fit = np.repeat([0, 1, 2], [37, 39, 34])
    y = np.repeat([0, 1], [22, 32])
    result = SimpleNamespace(extra={}, baseline_loss=0.1792, loss="log_loss")
    hindsight, fitted = explained_loss(result, y), explained_loss(result, y, y_fit)
    assert 0.653 / hindsight > 1.0          # the old yardstick: more than all of it
    assert_allclose(fitted, -np.mean(np.log(np.where(y == 0, 37 / 110, 39 / 110))) - 0.1792, rtol=1e-12)
    assert_allclose(0.653 / fitted, 0.743, atol=0.001)


def test_a_whole_number_class_is_spelled_without_a_decimal_point_once_for_every_section():
    """statsmodels anes96, PID (0.0 .. 6.0 in a float column) with --task classification: section 1 listed
    "0.0 (200), 1.0 (180), ...", section 4 "the 7 classes (0.0, 1.0, 6.0, ...)", provenance "output=0.0"; the
    labels are now made once when the data are read."""
    import statsmodels.api as sm

    from imlkit.report._data import load_dataset
    from imlkit.report._labels import class_text

    df = sm.datasets.anes96.load_pandas().data
    ds = load_dataset(df, target="PID", task="classification")
    assert sorted(ds.y.unique()) == [str(k) for k in range(7)]
    assert ds.y.value_counts()["0"] == int((df["PID"] == 0).sum())
    # only whole numbers lose the ".0"; text and other numbers keep their spelling
    assert list(class_text(pd.Series([1.5, 2.0]))) == ["1.5", "2.0"]
    assert list(class_text(pd.Series(["0.0", "b"]))) == ["0.0", "b"]
    assert list(class_text(pd.Series([True, False]))) == ["True", "False"]


def test_a_time_ordered_table_is_found_from_its_columns():
    """statsmodels sunspots (YEAR 1700-2008) and macrodata (year, quarter) lie in time order; a random split of them
    got no caveat."""
    import statsmodels.api as sm

    from imlkit.report._data import time_order

    sun = sm.datasets.sunspots.load_pandas().data
    assert time_order(sun).startswith("column 'YEAR' never decreases from one row to the next over the 309 rows")
    assert "from 1700 to 2008, 309 distinct values" in time_order(sun)
    macro = sm.datasets.macrodata.load_pandas().data
    assert time_order(macro).startswith("column 'year' never decreases")
    # dates as dates or as ISO text (ISLP NYSE's date column)
    days = pd.date_range("2001-01-01", periods=30, freq="D")
    assert time_order(pd.DataFrame({"when": days, "y": np.arange(30.0) % 7})) == \
        "column 'when' holds dates (2001-01-01 to 2001-01-30)"
    assert time_order(pd.DataFrame({"date": days.strftime("%Y-%m-%d"), "y": np.zeros(30)})) == \
        "column 'date' holds dates (2001-01-01 to 2001-01-30)"
    rng = np.random.default_rng(0)
    # not time: a row number, a table sorted by price, years shuffled, a sorted 0/1 column
    assert time_order(pd.DataFrame({"id": np.arange(1, 51), "y": rng.normal(size=50)})) == ""
    assert time_order(pd.DataFrame({"price": np.sort(rng.normal(size=50)), "y": rng.normal(size=50)})) == ""
    assert time_order(pd.DataFrame({"year": rng.permutation(np.arange(1950, 2000)), "y": rng.normal(size=50)})) == ""
    assert time_order(pd.DataFrame({"year_flag": np.sort(rng.integers(0, 2, 50)), "y": rng.normal(size=50)})) == ""


def test_section_one_warns_that_a_random_split_of_time_ordered_rows_is_optimistic_for_forecasting():
    import statsmodels.api as sm

    from imlkit.report._data import load_dataset
    from imlkit.report._sec_data import time_order_warning

    sun = sm.datasets.sunspots.load_pandas().data
    ds = load_dataset(sun, target="SUNACTIVITY")
    said = time_order_warning(SimpleNamespace(data=ds, evaluation="split"))[0]["text"]
    assert said.startswith("The rows look ordered in time: column 'YEAR' never decreases")
    assert "rows later than the test rows are among those the model was trained on" in said
    assert "optimistic" in said and "--test-data" in said
    # the user's own split (--test-data) or a fitted model on one table: no random split to warn about
    assert time_order_warning(SimpleNamespace(data=ds, evaluation="test_data")) == []
    shuffled = sun.sample(frac=1.0, random_state=0)
    assert time_order_warning(SimpleNamespace(data=load_dataset(shuffled, target="SUNACTIVITY"),
                                              evaluation="split")) == []


def test_a_linear_model_tying_with_the_glm_is_not_told_the_simpler_model_may_do():
    """ISLP Default, a user's StandardScaler + LogisticRegression pipeline fitted on their own split (--model-file,
    --test-data): "The model and GLM (binomial) are not distinguishable ... The simpler model may explain the data as
    well" -- the GLM is no simpler than a logistic regression."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from imlkit.report._shared import interpretable_model

    labels = ["No", "Yes"]
    rng = np.random.default_rng(6)
    y = rng.choice(labels, size=400)
    model, _ = _class_outputs(y, labels, rng, skill=1.0)
    deciding = deciding_metrics("classification")
    outputs = {"model": model, "majority class": _class_outputs(y, labels, rng, 0.0)[1], "GLM (binomial)": model}
    res = score_intervals(outputs, y, "classification", 0, labels=labels, reference="model", simultaneous=deciding)

    def said(est):
        cfg = SimpleNamespace(model="gbm", model_file="m.joblib")
        ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="test rows",
                              y_test=y, config=cfg, model=est)
        return " ".join(b["text"] for b in _verdict(ctx, res, {"majority class": MeanBaseline(),
                                                                "GLM (binomial)": None}, deciding))

    logit = make_pipeline(StandardScaler(), LogisticRegression())
    assert interpretable_model(SimpleNamespace(config=SimpleNamespace(model="gbm", model_file="m"), model=logit))
    text_ = said(logit)
    assert "not distinguishable" in text_ and "simpler model" not in text_
    assert "Neither is shown to fit these rows better" in text_
    assert "The simpler model may explain the data as well" in said(RandomForestClassifier())
    # the report's own kinds
    assert interpretable_model(SimpleNamespace(config=SimpleNamespace(model="gam", model_file=None), model=None))
    assert not interpretable_model(SimpleNamespace(config=SimpleNamespace(model="gbm", model_file=None), model=None))


def test_section_7_says_the_rows_used_beside_the_rows_read():
    """ISLP Hitters: section 7 said "Data: Hitters.csv: 263 rows" of a file of 322 rows (59 without a Salary)."""
    from imlkit.report._build import prepare_context
    from imlkit.report._config import ReportConfig
    from imlkit.report._sec_provenance import data_text

    rng = np.random.default_rng(7)
    df = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    df["y"] = df.a + rng.normal(size=80)
    df.loc[:9, "y"] = np.nan
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True))
    assert data_text(ctx) == ("a DataFrame (80 rows): 70 rows used (80 rows read; section 1 says which were dropped "
                              "or set aside and why)")
    full = prepare_context(ReportConfig(data=df.dropna(), target="y", quick=True))
    assert data_text(full) == "a DataFrame (70 rows): 70 rows used"


def test_the_reading_can_say_why_section_2_took_no_verdict():
    """The reading's claim for a model section 2 could not judge (NCI60: 18 test rows): its sentence carries the rule's
    numbers, and it fails its own check without them."""
    from imlkit.report import _claims as cl
    from imlkit.report._shared import undecided_words

    labels = [f"c{k}" for k in range(9)]
    ctx, _, _ = _classify(np.repeat(labels, 2), labels, np.random.default_rng(0), skill=3.0)
    check = ctx.model_check
    assert set(check.undecided) == {"Brier score", "ROC AUC", "balanced accuracy"}
    assert check.baseline == "majority class"
    n = dict(baseline=check.baseline, n_rows=18, rows_word="test rows", why=undecided_words(check.undecided))
    claim = cl.Claim("too_few", numbers=n)
    assert claim.check() == []
    said = claim.text()
    assert said.startswith("Read this with care: there are too few test rows to decide whether the model beats the "
                           "majority class baseline (on Brier score, ROC AUC and balanced accuracy: n = 18 test rows")
    assert cl.Claim("too_few", numbers=dict(n, why="")).check() != []


def test_one_feature_is_not_said_to_have_no_high_r2_from_the_others():
    """statsmodels strikes (duration from iprod alone): section 1 said "62 rows with 1 features" and "No feature has
    an R² above 0.5 from the others: marginal and conditional methods should broadly agree"."""
    import statsmodels.api as sm

    from imlkit.report._build import prepare_context
    from imlkit.report._config import ReportConfig
    from imlkit.report._sec_data import section_data

    df = sm.datasets.strikes.load_pandas().data
    ctx = prepare_context(ReportConfig(data=df, target="duration", quick=True))
    said = " ".join(b.get("text", "") for b in section_data(ctx)["blocks"] if isinstance(b, dict))
    assert "62 rows with 1 feature are used" in said
    assert "No feature has an R²" not in said and "should broadly agree" not in said
    assert "With one feature ('iprod') there are no other features" in said


def test_a_leak_check_that_cannot_run_says_so_and_logs_no_step():
    """NCI60 (18 test rows): section 2 was silent about the leak check while section 7 listed "leak check (one-feature
    models) columns=6830" as a step that ran (in 0.00006 s); now section 2 says it was not run and why."""
    from imlkit.report._sec_model import LEAK_MIN_ROWS, _leak_blocks

    steps = []
    ctx = SimpleNamespace(task="classification", refit_rows=None, y_test=pd.Series(list("ab") * 9),
                          step=lambda *a, **k: steps.append(a))
    said = _leak_blocks(ctx)[0]["text"]
    assert said == (f"The leak check (one model per column, on rows it was not fitted on) was not run: 18 test rows, "
                    f"fewer than the {LEAK_MIN_ROWS['classification']} on which a near-perfect score of one column "
                    f"would be evidence.")
    assert steps == []
    ctx.y_test = pd.Series(["a"] * 60)
    assert _leak_blocks(ctx)[0]["text"].endswith("was not run: the test rows hold a single class.")


def test_section_6_does_not_call_the_glm_simpler_than_a_users_logistic_regression():
    """Section 6 compares each interpretable model with the model in section 2's words: a user's logistic
    regression (a --model-file pipeline) tying with the GLM is not told "the simpler model may explain the data as
    well" there either (section 6 used to decide that from --model alone, which is None for a model file)."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from imlkit.report._sec_alternatives import paired_comparison

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(600, 3)), columns=["a", "b", "c"])
    y = np.where(X["a"] + 0.5 * rng.normal(size=600) > 0, "Yes", "No")
    Xtr, Xte, ytr, yte = X[:400], X[400:], y[:400], y[400:]

    def said(model):
        glm = LogisticRegression().fit(Xtr, ytr)  # the GLM (binomial) baseline: the same fit as the user's
        ctx = SimpleNamespace(alternative_models={"GLM (binomial)": glm}, model=model, X_test=Xte, y_train=ytr,
                              y_test=yte, task="classification", model_label="model", seed=0, score_word="test",
                              eval_rows="test rows", evaluation="split",
                              config=SimpleNamespace(model="gbm", model_file="m.joblib"))
        return " ".join(b.get("text", "") for b in paired_comparison(ctx) if isinstance(b, dict))

    tie = said(make_pipeline(StandardScaler(), LogisticRegression()).fit(Xtr, ytr))
    assert "not distinguishable" in tie
    assert "simpler model" not in tie and "Neither is shown to fit these rows better" in tie
    forest = said(RandomForestClassifier(n_estimators=50, random_state=0).fit(Xtr, ytr))
    assert "GLM (binomial)" in forest


def test_the_reading_fits_the_yardstick_constant_on_the_training_rows():
    """The reading and the "most important" ranking take the training rows' target for the yardstick's constant (the
    fix of best_constant_loss wired into _reading/_ranking): test rows of two of three classes, log loss."""
    from imlkit.importance import ImportanceResult
    from imlkit.report import _claims as cl
    from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs
    from imlkit.report._reading import reading_claims

    y_train = pd.Series(["a"] * 40 + ["b"] * 40 + ["c"] * 40)
    y_test = pd.Series(["a"] * 20 + ["b"] * 10)  # no "c"
    names = ("x1", "x2")
    v = np.array([0.5, 0.01])
    pfi = ImportanceResult(method="pfi", feature_names=names, importance=v, std=0 * v, ci_low=v - 0.01,
                           ci_high=v + 0.01, loss="log_loss", baseline_loss=0.2, params={}, extra={})
    ctx = SimpleNamespace(importance=ImportanceOutputs(pfi=pfi), effects=EffectsOutputs(h_overall=None),
                          data_outputs=DataOutputs(dependence_r2=None), model_check=ModelCheck(no_better_than=None),
                          X_test=pd.DataFrame({"x1": np.zeros(30), "x2": np.zeros(30)}), y_test=y_test,
                          y_train=y_train)
    ev = [x for p in reading_claims(ctx) for item in p.items for c in item for x in c.evidence]
    assert ev
    fitted = -np.log(1 / 3) - 0.2  # the training rows' constant gives every class 1/3
    hindsight = -(2 / 3 * np.log(2 / 3) + 1 / 3 * np.log(1 / 3)) - 0.2
    assert_allclose([x.explained for x in ev], fitted, rtol=1e-12)
    assert not np.isclose(fitted, hindsight)
    assert_allclose(cl.best_constant_loss("log_loss", y_test, y_train) - 0.2, fitted, rtol=1e-12)


def test_the_reading_says_section_2_took_no_verdict_on_too_few_rows():
    """NCI60-like: section 2 could decide nothing on 18 test rows; the reading opens with that, with the rule's
    numbers, before it reads any feature's importance."""
    from imlkit.importance import ImportanceResult
    from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs
    from imlkit.report._reading import reading_claims

    labels = [f"c{k}" for k in range(9)]
    y = pd.Series(np.repeat(labels, 2))
    ctx0, _, _ = _classify(y.to_numpy(), labels, np.random.default_rng(0), skill=3.0)
    v = np.array([0.5, 0.01])
    pfi = ImportanceResult(method="pfi", feature_names=("x1", "x2"), importance=v, std=0 * v, ci_low=v - 0.01,
                           ci_high=v + 0.01, loss="log_loss", baseline_loss=0.2, params={}, extra={})
    ctx = SimpleNamespace(importance=ImportanceOutputs(pfi=pfi), effects=EffectsOutputs(h_overall=None),
                          data_outputs=DataOutputs(dependence_r2=None), model_check=ctx0.model_check,
                          X_test=pd.DataFrame({"x1": np.zeros(18), "x2": np.zeros(18)}), y_test=y,
                          eval_rows="test rows")
    claims = [c for p in reading_claims(ctx) for item in p.items for c in item]
    assert claims[0].kind == "too_few" and not claims[0].check()
    assert "too few test rows to decide whether the model beats the majority class baseline" in claims[0].text()
    assert "n = 18 test rows" in claims[0].text()


def test_the_interactions_claim_says_which_strong_ones_lie_within_their_se_of_the_threshold():
    """statsmodels fair (affairs): children's H² 0.235 is above 0.1 in both halves but its bootstrap SE is 0.137, so
    0.235 − 1.645 × 0.137 < 0.1: the reading says its SE does not tell it apart from 0.1, and the check holds it."""
    from imlkit.report import _claims as cl

    # (claims6: the heading listed children among the "strong interactions" and then said its SE does not tell it
    # apart from 0.1 -- false as a heading; it now lists only the features that clear the SE margin)
    n = dict(threshold=cl.H_INTERACTION, h2=(0.5,), halves=((0.4, 0.6),), n_rows=300,
             se_close=(("children", 0.235, 0.137),), close_halves=((0.11, 0.694),), se_z=1.645)
    claim = cl.Claim("interactions", ("age",), numbers=n)
    assert claim.check() == []
    said = claim.text()
    assert (f"children (H² = 0.235, SE 0.137: 0.235 − 1.645 × 0.137 = {cl.num(0.235 - 1.645 * 0.137)}; halves "
            f"0.11 and 0.694)") in said
    assert "so not shown to interact strongly" in said
    # a feature whose SE clears the threshold may not be said to lie within it
    bad = cl.Claim("interactions", ("age",), numbers=dict(n, se_close=(("age", 0.5, 0.05),)))
    assert bad.check() != []


def test_a_tie_of_two_models_that_beat_no_constant_does_not_favour_the_simpler():
    """Weekly, strikes: neither the model nor the GLM beats the constant baseline, yet their tie read "the simpler model
    may explain the data as well" -- a tie of two models that may both be noise says nothing of the simpler one."""
    labels = ["Down", "Up"]
    rng = np.random.default_rng(2)
    y = rng.choice(labels, size=400)
    _, _, noise = _classify(y, labels, rng, skill=0.0, glm=True)
    assert "no better than" in noise or "does not beat" in noise or "cannot show" in noise
    assert "simpler model may explain" not in noise
    _, _, skilled = _classify(y, labels, np.random.default_rng(3), skill=3.0, glm=True)
    assert "beats the majority class baseline" in skilled
