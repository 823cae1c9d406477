"""Second round of "every sentence carries the numbers that justify it": each test is a sentence found false."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit.importance._sage import _converged
from imlkit.report._build import _model_label
from imlkit.report._sec_importance import _sage_caveat


def _sage_ctx(n):
    return SimpleNamespace(row_use={("sage", "test"): SimpleNamespace(used=n)}, eval_rows="test rows")


@pytest.fixture(scope="module")
def linear_sage():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    y = 2 * X["a"] + X["b"] + 0.5 * rng.normal(size=300)
    model = LinearRegression().fit(X, y)
    return ik.sage(model, X, y, n_background=32, tolerance=0.05, random_state=0), X, y, model


def test_sage_converged_sentence_states_the_rule_applied(linear_sage):
    """It said "the largest standard error is below 0.05 of the largest value"; the rule (importance._sage._converged)
    is max SE <= tolerance x (max value - min value), of the range of the values."""
    r = linear_sage[0]
    assert r.extra["converged"]
    said = _sage_caveat(_sage_ctx(300), "sage_marginal", r)
    assert "of the largest value" not in said
    assert "the range of its values (largest minus smallest)" in said
    ok, ratio = _converged(r.importance, r.std, 0.05, r.extra["v_all"])
    assert ok and ratio <= 0.05
    # the ratio printed is the one the rule compared with the tolerance, recomputed from the values and SEs
    printed = float(said.split("standard error is ")[1].split(" x ")[0])
    np.testing.assert_allclose(printed, np.max(r.std) / np.ptp(r.importance), rtol=5e-3)
    assert "within the tolerance 0.05" in said


def test_sage_exact_sentence_does_not_claim_orderings(linear_sage):
    _, X, y, model = linear_sage
    r = ik.sage(model, X, y, n_background=16, exact=True, random_state=0)
    said = _sage_caveat(_sage_ctx(300), "sage_marginal", r)
    assert "computed exactly" in said and "converged after 0 orderings" not in said


@pytest.mark.parametrize("name, family, task", [("glm", "binomial", "classification"), ("glm", "gaussian", "r"),
                                                ("gam", "gaussian", "r")])
def test_model_label_names_the_family(name, family, task):
    """The title read "GLM (GLM)" / "GAM (GAM)"; section 2 names the family."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
    y = (X["a"] + rng.normal(size=200) > 0).astype(int) if family == "binomial" else X["a"] + rng.normal(size=200)
    est = (ik.models.GLM if name == "glm" else ik.models.GAM)(family=family).fit(X, y)
    label = _model_label(est, SimpleNamespace(model_file=None, model=name))
    link = {"binomial": "logit", "gaussian": "identity"}[family]
    assert label == f"{name.upper()} ({family}, {link} link)"


def _captions(blocks):
    return [b.get("caption") or "" for b in blocks if isinstance(b, dict)]


@pytest.mark.parametrize("interacting", [False, True])
def test_pd2_of_an_additive_model_is_not_called_the_strongest_pair(interacting):
    """With --model glm every pairwise H² is 0 (rounding), yet the 2-D PD was titled "the strongest pair"."""
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_effects import _hstat_blocks, effect_output

    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(300, 3)), columns=["a", "b", "c"])
    y = 2 * X["a"] + X["b"] + (3 * X["a"] * X["b"] if interacting else 0) + 0.1 * rng.normal(size=300)
    if interacting:
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import PolynomialFeatures
        model = make_pipeline(PolynomialFeatures(2, interaction_only=True), LinearRegression()).fit(X, y)
    else:
        model = LinearRegression().fit(X, y)
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=model, quick=True,
                                       methods=("effects", "hstat"), strict=True))
    caps = " ".join(_captions(_hstat_blocks(ctx, effect_output(ctx))))
    if interacting:
        assert "the strongest pair: a × b" in caps
    else:
        assert "strongest" not in caps
        assert "every pairwise H² is 0 up to rounding: no pair interacts" in caps


def test_shortened_lists_say_one_other():
    """"and 1 others" (PIMP's not-rejected list on Boston); "1 of 12 features are significantly important"."""
    from imlkit.report._claims import name_list

    assert name_list(list("abcdefghij"), k=9).endswith("and 1 other")
    assert name_list(list("abcdefghijk"), k=9).endswith("and 2 others")


@pytest.mark.parametrize("word", ["test", "evaluation"])
def test_losing_to_an_in_sample_model_is_not_called_not_the_best(word):
    """Default (ISLP) with a fitted model and one table: RuleFit, fitted and scored on the same rows, 'beats the model
    ... The report explains a model that is not the best available' -- an in-sample score shows no such thing."""
    from imlkit.report._shared import compare_models

    res = {"scores": {"m": {"RMSE": (2.0, 1.8, 2.2)}, "RuleFit": {"RMSE": (1.5, 1.3, 1.7)}},
           "level": 0.95, "simultaneous_level": 0.95}
    block = compare_models(res, "m", "RuleFit", {"RMSE": (0.5, 0.2, 0.8)}, ["RMSE"], "", word)
    said = block["text"]
    assert "RuleFit beats the model" in said
    if word == "test":
        assert "not the best available" in said
    else:
        assert "not the best available" not in said and "in-sample for the RuleFit" in said


def test_repid_section_of_an_additive_model_ranks_no_noise():
    """--model glm (Carseats): "The feature with the most heterogeneous mean-centred ICE curves ... is Price" over
    heterogeneities of 1.6e-30, 1.6e-30, 1.4e-30: rounding ranked as if it were heterogeneity."""
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_effects import section_regional

    rng = np.random.default_rng(6)
    X = pd.DataFrame(rng.normal(size=(300, 3)) * [1, 10, 100] + [0, 5, 1000], columns=["a", "b", "c"])
    y = 3 * X["a"] - 0.2 * X["b"] + 0.01 * X["c"] + rng.normal(size=300)
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=LinearRegression().fit(X, y),
                                       quick=True, methods=("pfi", "repid"), strict=True))
    ctx.results = {"pfi": ik.pfi(ctx.model, ctx.X_test, ctx.y_test, random_state=0)}
    sec = section_regional(ctx)
    said = " ".join(b.get("text", "") for b in sec["blocks"] if isinstance(b, dict))
    assert ctx.regional.repid.extra["equal_up_to_rounding"]
    assert "most heterogeneous" not in said
    assert "equal up to rounding" in said and "does not split them into regions" in said


def test_a_feature_important_for_no_method_is_not_called_most_important():
    """Default (ISLP), fitted logistic regression: "Effects ... of the 3 most important features by how many of the
    5 methods find each important: balance (4 of 5), student (important for none of 5; not negligible for all)" --
    student is important for none, and "not negligible for all" reads as every method when one kept it."""
    from imlkit.report import _claims as cl

    ranked = [cl.Ranked("balance", ("pfi", "cfi"), 3, 1.0, 1.0),
              cl.Ranked("student", (), 3, 2.0, float("nan"), ("cfi",))]
    said = cl.ranking_words(ranked)
    assert said.startswith("the 2 features ranked first by how many of the 3 methods find each important")
    assert "most important" not in said
    # (round 5: "above 0" read as shown above 0, where every interval of student included 0)
    assert "student (important for none of 3; a positive estimate, not negligible, for CFI)" in said
    assert "above 0" not in said
    assert cl.ranking_words(ranked[:1]).startswith("the most important feature by")


def test_ranked_features_record_where_a_filled_feature_is_open():
    from imlkit.report._claims import ranked_features

    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=["a", "b", "c"])
    y = 3 * X["a"] + 0.5 * X["b"] + rng.normal(size=400)      # b: about 3% of a's importance, clearly above 0
    model = LinearRegression().fit(X, y)
    res = {"pfi": ik.pfi(model, X, y, random_state=0), "cfi": ik.cfi(model, X, y, random_state=0)}
    ranked = ranked_features(res, y_of=lambda m: y, fill=True)
    assert [r.feature for r in ranked] == ["a", "b"]            # c (no effect) is negligible for both: left out
    assert ranked[0].important_for == ("pfi", "cfi")
    assert ranked[1].important_for == () and ranked[1].open_for == ("pfi", "cfi")


def test_a_tie_of_an_interpretable_model_does_not_call_the_other_simpler():
    """--model glm (Default): "The model and GAM (binomial) are not distinguishable ... The simpler model may explain
    the data as well" -- the GAM is not simpler than the GLM; and section 6 listed the GLM as "black box: GLM"."""
    from imlkit.report._shared import compare_models

    res = {"scores": {"m": {"RMSE": (2.0, 1.8, 2.2)}, "GAM": {"RMSE": (2.0, 1.8, 2.2)}},
           "level": 0.95, "simultaneous_level": 0.95}
    d = {"RMSE": (0.0, -0.1, 0.1)}
    assert "the simpler model may explain" in compare_models(res, "m", "GAM", d, ["RMSE"], "")["text"]
    said = compare_models(res, "m", "GAM", d, ["RMSE"], "", simpler=False)["text"]
    assert "simpler" not in said and "neither is shown to fit these rows better" in said


def test_section_six_calls_the_reports_own_glm_the_model(tmp_path):
    import html
    import re

    from imlkit.report import build_report

    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    frame = X.assign(y=2 * X["a"] + X["b"] + rng.normal(size=300))
    path = build_report(data=frame, target="y", model="glm", quick=True, methods=["models"],
                        out=str(tmp_path / "r"), progress=False)
    said = html.unescape(re.sub(r"<[^>]+>", " ", open(path, encoding="utf-8").read()))
    assert "the model: GLM (gaussian, identity link)" in said
    assert "black box: GLM" not in said
    assert "The simpler model may explain" not in said and "the simpler model may explain" not in said
