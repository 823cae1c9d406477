"""Fifth round (helper b): section 6 never prints a false or unsupported sentence.

RuleFit's table listed rules fitted to a handful of rows as findings (Boston: 8 of the 79 kept terms cover 3 to 9
of 354 training rows, one of them among the top rows); the GAM's p-values were printed without their caveat.
"""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose

from imlkit.models import RuleFit
from imlkit.models._rulefit import MIN_RULE_ROWS


def test_rulefit_table_keeps_rules_on_few_rows_out_and_says_so(outlier_rows):
    """A 3-row rule is kept by the L1 fit (its weight is the mean of 3 rows) and ranks high by importance; the
    section's table leaves every such rule out and names how many, with the most important one's row count."""
    from imlkit.report._sec_alternatives import rulefit_table

    X, y = outlier_rows()
    rf = RuleFit(n_estimators=60, include_linear=False, random_state=0).fit(X, y)
    few = rf.rules_[rf.rules_["few_rows"]]
    assert len(few)  # the setting plants one
    lead, tab, words = rulefit_table(rf, 8)
    text = lead["text"]
    assert f"leaving out {len(few)} kept rule" in text
    top = few.iloc[0]
    assert f"{top['rule']}, covers {int(top['n_rows']):,} of {rf.n_rows_used_:,} rows" in text
    assert "400 training rows" in text
    # the table: the first 8 terms of rules_ without the flagged ones, each with its row count
    want = rf.rules_[~rf.rules_["few_rows"]].head(8)
    assert [row[0] for row in tab["rows"]] == list(want["rule"])
    assert "few_rows" not in tab["columns"] and "n_rows" in tab["columns"]
    counts = np.minimum(want["n_rows"], rf.n_rows_used_ - want["n_rows"])
    assert (counts >= MIN_RULE_ROWS).all()
    assert words["text"].startswith("weight: what a rule adds to the prediction on the rows it covers")


def test_rulefit_weights_are_said_to_be_parts_of_an_effect_on_the_right_scale():
    """The table's weights had no words: a linear term's weight (per unit of the clipped feature) read as the
    feature's effect, though the rules on that feature carry the rest of it; a classifier's weights are log-odds."""
    from imlkit.report._sec_alternatives import rulefit_table

    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(400, 2)), columns=["a", "b"])
    y = np.where(2 * X.a + rng.logistic(size=400) > 0, "yes", "no")
    rf = RuleFit(n_estimators=5, random_state=0).fit(X, y)  # keeps the linear term of a
    words = rulefit_table(rf, 5)[-1]["text"]
    assert "what a rule adds to the log-odds of yes on the rows it covers" in words
    assert "clipped to its 2.5% and 97.5% training quantiles" in words
    assert "no single weight is that effect" in words
    # the clip: a linear term is flat beyond the quantiles named
    lin = rf.rules_[rf.rules_["type"] == "linear"]
    assert len(lin)
    f = lin["rule"].iloc[0]
    far = X.iloc[[0, 0]].copy()
    far[f] = [X[f].max() + 1.0, X[f].max() + 50.0]  # beyond every rule's threshold and the 97.5% quantile
    assert_allclose(np.diff(rf.decision_function(far)), 0.0, atol=1e-12)


def test_rulefit_table_says_nothing_when_no_rule_is_on_few_rows():
    from imlkit.report._sec_alternatives import rulefit_table

    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(300, 2)), columns=["a", "b"])
    y = 2.0 * (X.a > 0) + rng.normal(scale=0.1, size=300)
    rf = RuleFit(n_estimators=5, mean_tree_size=2, random_state=0).fit(X, y)
    assert not rf.rules_["few_rows"].any()
    lead, _, _ = rulefit_table(rf, 8, all_rows=True)
    assert "leaving out" not in lead["text"]
    assert "300 rows (the same rows it is scored on)" in lead["text"]
    assert_allclose(rf.rules_["n_rows"], rf.rules_["support"] * 300)


def test_gam_captions_say_what_the_bands_and_p_values_are():
    """The GAM's figure said "with their bands" and its table printed p-values bare. The bands are pointwise (f̂(x) ±
    z·SE(x) at each x), on the link scale, and each numeric term is centred over the training rows; the p-values are
    from an approximate test. The caption now says so, and each claim is checked on the fit."""
    from scipy import stats

    from imlkit.models import GAM
    from imlkit.report._sec_alternatives import gam_band_words, gam_terms_caption

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.uniform(-2, 2, 300), "g": rng.choice(["a", "b", "c"], 300)})
    eta = np.sin(X["x"]) + (X["g"] == "b")
    y = (rng.uniform(size=300) < 1 / (1 + np.exp(-eta))).astype(int)
    gam = GAM(family="binomial").fit(X, y)
    words = gam_band_words(gam)
    assert "log-odds scale" in words and "pointwise 95% bands" in words
    assert "centred over the training rows (a categorical term: against its first level)" in words
    pe = gam.partial_effect("x")
    z = stats.norm.ppf(0.975)
    assert_allclose(pe.ci_high - pe.average, z * pe.extra["se"], rtol=1e-12)  # pointwise: one SE per grid value
    # centred: the numeric term's contribution sums to 0 over the training rows
    only_x = X.assign(g="a")
    contrib = gam.linear_predictor(only_x) - gam.intercept_
    assert_allclose(contrib.mean(), 0.0, atol=1e-8)
    pg = gam.partial_effect("g")
    assert pg.grid[0] == "a"
    assert_allclose(pg.average[0], 0.0)
    cap = gam_terms_caption(gam)
    assert "approximate Wald test" in cap and "somewhat too small as the smoothing parameters λ are estimated" in cap
    assert "somewhat too small" not in gam_terms_caption(GAM(family="binomial", smoothing=1.0).fit(X, y))


def test_separation_warning_comes_before_the_table_it_speaks_of():
    """wine (class 1 vs the rest): "the logistic GLM's weights ... and intervals below are not interpretable" was
    printed after the weights' table, so "below" pointed at the GLM's readings and the GAM, not at the weights."""
    import warnings

    from sklearn.linear_model import LogisticRegression

    import imlkit.report._sec_alternatives as alt
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
    y = (X["a"] > 0).astype(int)  # separable by a
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=LogisticRegression().fit(X, y),
                                           quick=True, methods=("models",)))
        blocks = alt._glm_blocks(ctx, alt._Target(ctx), {})
    kinds = [b["kind"] for b in blocks]
    sep = [i for i, b in enumerate(blocks) if b["kind"] == "warning" and "perfectly separable" in b["text"]]
    assert len(sep) == 1 and "below" in blocks[sep[0]]["text"]
    assert sep[0] < kinds.index("table")


def test_overdispersed_counts_get_quasi_poisson_intervals_in_section_6():
    """strikes: section 6's poisson GLM printed intervals 6.3 times too narrow (Pearson dispersion 39.9). Counts that
    vary more than a poisson allows are now read with the dispersion estimated, and the section says why."""
    import warnings

    from sklearn.ensemble import HistGradientBoostingRegressor

    import imlkit.report._sec_alternatives as alt
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.uniform(0, 1, 400), "b": rng.uniform(0, 1, 400)})
    y = rng.negative_binomial(2, 1 / (1 + np.exp(1.5 + X["a"]) / 2))  # mean e^(1.5 + a), variance far above it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y",
                                           model=HistGradientBoostingRegressor(max_iter=20).fit(X, y), quick=True,
                                           methods=("models",)))
        tg = alt._Target(ctx)
        assert tg.family == "poisson"
        blocks = alt._glm_blocks(ctx, tg, {})
    Xt, yt = ctx.rows("glm", "train")
    plain = models_glm("poisson").fit(Xt, yt)
    phi = plain.pearson_dispersion_
    assert phi > 2 and plain.overdispersed()
    note = next(b["text"] for b in blocks if b["kind"] == "text" and "Pearson dispersion" in b["text"])
    assert f"the Pearson dispersion of this fit is {phi:.3g}" in note and f"= {np.sqrt(phi):.3g}" in note
    table = next(b for b in blocks if b["kind"] == "table")
    assert f"(quasi-poisson: dispersion {phi:.3g})" in table["caption"]
    quasi = models_glm("poisson", dispersion="pearson").fit(Xt, yt)
    se = dict(zip([r[0] for r in table["rows"]], [r[table["columns"].index("std_error")] for r in table["rows"]]))
    assert_allclose(float(se["a"]), quasi.summary().loc["a", "std_error"], rtol=1e-3)
    assert_allclose(quasi.summary().loc["a", "std_error"] / plain.summary().loc["a", "std_error"], np.sqrt(phi),
                    rtol=1e-6)


def models_glm(family, **kw):
    from imlkit.models import GLM

    return GLM(family=family, **kw)


def test_overdispersed_poisson_gam_warns_that_its_bands_are_too_narrow():
    """randhie (mdvis): the poisson GAM's table printed 'p_value 0' and its curves bands that assume a dispersion of 1
    where the Pearson dispersion is 6.3. The section now warns, with the numbers."""
    from scipy import stats

    from imlkit.models import GAM
    from imlkit.report._sec_alternatives import gam_dispersion_warning

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.uniform(0, 1, 500)})
    mu = np.exp(1.0 + np.sin(3 * X["a"]))
    y = rng.negative_binomial(1.5, 1.5 / (1.5 + mu))  # mean mu, variance mu + mu²/1.5
    gam = GAM(family="poisson").fit(X, y)
    m = np.exp(gam.linear_predictor(X))
    df = len(y) - gam.edf_total_
    chi2 = float(np.sum((y - m) ** 2 / m))
    assert_allclose(gam.pearson_dispersion_, chi2 / df, rtol=1e-8)
    assert_allclose(gam.overdispersion_p_, stats.chi2.sf(chi2, df), rtol=1e-8, atol=1e-300)
    (w,) = gam_dispersion_warning(gam)
    phi = chi2 / df
    assert f"Pearson dispersion of this GAM is {phi:.3g}" in w["text"]
    assert f"√{phi:.3g} = {np.sqrt(phi):.3g}" in w["text"]
    # a gaussian GAM estimates its dispersion: the Pearson one is its scale, and nothing is said
    g = GAM().fit(X, np.log1p(y))
    assert_allclose(g.pearson_dispersion_, g.scale_, rtol=1e-10)
    assert np.isnan(g.overdispersion_p_) and gam_dispersion_warning(g) == []
    # poisson counts that are poisson: no warning
    yp = np.random.default_rng(0).poisson(mu)  # the Pearson test's p is uniform here: this draw is not in its tail
    gp = GAM(family="poisson").fit(X, yp)
    assert gp.overdispersion_p_ > 0.05 and gam_dispersion_warning(gp) == []


def _noise_ctx(signal, classification=False, seed=0):
    """A report context with a held-out split (the report fits its own model) on y = signal * a + noise."""
    import warnings

    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    y = signal * X["a"] + rng.normal(size=300)
    if classification:
        y = np.where(y > 0, "up", "down")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return prepare_context(ReportConfig(data=X.assign(y=y), target="y", model="gbm", quick=True,
                                            methods=("models",), seed=seed))


def test_a_model_without_predictive_value_on_the_test_rows_is_said_so():
    """Publication (ISLP, time): RuleFit's rules were listed with a test R² of -0.158; Weekly: the GLM read 'Lag2
    multiplies the odds by 1.08 [1.01, 1.15]' with a test balanced accuracy of 0.475. Such a model now gets a warning
    with its test score; a model that predicts gets none."""
    import imlkit.report._sec_alternatives as alt

    ctx = _noise_ctx(0.0)
    perf = {}
    blocks = alt._tree_blocks(ctx, perf)
    (name,) = perf
    r2 = perf[name]["R²"]
    assert r2 <= 0  # a depth-3 tree on pure noise
    warn = [b["text"] for b in blocks if b["kind"] == "warning"]
    assert warn == [f"On the {len(ctx.y_test):,} test rows the tree predicts no better than a constant (its test R² is "
                    f"{r2:.3g}: its squared error on them is at least that of their own mean): what it shows below "
                    f"describes the rows it was fitted on, and these rows give no evidence that it holds on new ones."]
    ctx = _noise_ctx(3.0)
    perf = {}
    blocks = alt._tree_blocks(ctx, perf)
    assert next(iter(perf.values()))["R²"] > 0.5
    assert not [b for b in blocks if b["kind"] == "warning"]


def test_chance_balanced_accuracy_is_no_predictive_value():
    import imlkit.report._sec_alternatives as alt

    ctx = _noise_ctx(0.0, classification=True, seed=3)
    out = alt.no_skill_note(ctx, {"balanced accuracy": 0.475, "accuracy": 0.51, "ROC AUC": 0.476}, "this GLM")
    assert ("its test balanced accuracy is 0.475, at most the 0.5 of guessing among 2 classes, and its ROC AUC 0.476, "
            "at most the 0.5 of guessing") in out[0]["text"]
    assert "balanced accuracy is 0.5," in alt.no_skill_note(ctx, {"balanced accuracy": 0.5}, "RIPPER")[0]["text"]
    assert alt.no_skill_note(ctx, {"balanced accuracy": 0.55}, "this GLM") == []
    # always the majority class, yet its probabilities rank the rows (a rare class): not without value
    assert alt.no_skill_note(ctx, {"balanced accuracy": 0.5, "ROC AUC": 0.93}, "this GLM") == []
    ctx.evaluation = "all_rows"  # in-sample scores: nothing is said
    assert alt.no_skill_note(ctx, {"balanced accuracy": 0.4}, "this GLM") == []


def test_rule_learners_show_the_rows_each_rule_decides_on_training_and_test_rows():
    """RIPPER's and OneR's lists showed rules with no coverage (Weekly's OneR: 40 intervals of Lag1, some deciding a
    handful of rows). Each rule now carries the rows it decides and the share of them in its class, on the training
    rows and, named apart, on the test rows; OneR's training errors follow from its table."""
    import imlkit.report._sec_alternatives as alt

    ctx = _noise_ctx(1.0, classification=True, seed=2)
    perf = {}
    ctx.alternative_models = {}
    blocks = alt._rule_learner_blocks(ctx, perf)
    tabs = [b for b in blocks if b["kind"] == "table"]
    assert len(tabs) == 2 and not [b for b in blocks if b["kind"] == "pre"]
    ripper, oner = tabs
    assert ripper["columns"] == ["rule", "class", "training rows it decides", "share in its class (training)",
                                 "test rows it decides", "share in its class (test rows)"]
    X_tr, y_tr = ctx.rows("ripper", "train")
    for tab, name in ((ripper, "RIPPER"), (oner, "OneR")):
        n_fit = [int(r[2].replace(",", "")) for r in tab["rows"]]
        n_test = [int(r[4].replace(",", "")) for r in tab["rows"]]
        assert sum(n_fit) == len(y_tr) and sum(n_test) == len(ctx.y_test)  # every row decided once
        # the shares: the pipeline's predictions on the rows each rule decides
        pipe = ctx.alternative_models[name]
        pred_ok = np.asarray(pipe.predict(ctx.X_test)).astype(str) == np.asarray(ctx.y_test).astype(str)
        share = np.array([float(r[5]) if r[5] != "–" else 0.0 for r in tab["rows"]])
        assert_allclose(np.sum(share * n_test), pred_ok.sum(), atol=0.01 * len(pred_ok))
    X_on, y_on = ctx.rows("oner", "train")
    oner_model = ctx.alternative_models["OneR"][-1]
    wrong = sum(n * (1 - float(p)) for n, p in ((int(r[2].replace(",", "")), r[3]) for r in oner["rows"]) if p != "–")
    assert_allclose(wrong, oner_model.errors_[oner_model.feature_], atol=0.01 * len(y_on))


def test_rulefit_table_with_nothing_left_to_list_says_so():
    """On 13 rows every rule covers fewer than 10 or all but fewer than 10: 'The top 0 by importance:' over an empty
    table became one sentence that lists nothing."""
    from imlkit.report._sec_alternatives import rulefit_table

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(13, 2)), columns=["a", "b"])
    y = 3.0 * (X["a"] > 0.5) + 0.1 * rng.normal(size=13)
    rf = RuleFit(n_estimators=20, include_linear=False, cv=3, random_state=0).fit(X, y)
    assert len(rf.rules_) and rf.rules_["few_rows"].all()
    blocks = rulefit_table(rf, 8)
    assert len(blocks) == 1 and "None is listed, leaving out" in blocks[0]["text"]
    assert "The top 0" not in blocks[0]["text"]


def test_gam_table_prints_no_p_value_of_zero():
    from imlkit.models import GAM
    from imlkit.report._sec_alternatives import gam_terms

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.uniform(0, 1, 3000), "b": rng.uniform(0, 1, 3000)})
    y = rng.poisson(np.exp(3 * X["a"]))
    gam = GAM(family="poisson").fit(X, y)
    raw = gam.summary()["p_value"]
    assert raw["a"] == 0.0  # below the double's floor
    shown = gam_terms(gam)["p_value"]
    assert shown["a"] == "< 1e-16" and shown["b"] == f"{raw['b']:.3g}"


def test_gam_without_an_important_feature_to_draw_keeps_its_part(tmp_path):
    """statsmodels strikes on 11 test rows: no feature was important for any method, the GAM's figure got an empty
    grid of panels and failed, and section 6 said "GAM failed on these data and is left out" under a table that still
    scored it. The GAM's part now says why it has no figure (strict: any failing part raises)."""
    import html
    import re

    from imlkit.report._build import build_report

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"iprod": rng.normal(size=62)})
    df["duration"] = rng.poisson(10, size=62).astype(float)  # unrelated to iprod
    path = build_report(data=df, target="duration", test_size=0.17, quick=True, strict=True, out=str(tmp_path),
                        methods=("pfi", "models"), progress=False)
    said = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", open(path).read())))
    assert ("No figure of the GAM's terms: none of the features it would show is among the report's most "
            "important") in said
    assert "GAM failed" not in said
