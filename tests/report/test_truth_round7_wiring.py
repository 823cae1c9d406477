"""Round 7 (lead): the helpers' proposals wired into the report -- the remapped-level sentence heads section 6, the
GLM table's caption names HC3 intervals, the closing note of a GLM reading survives the per-feature limit, a
constant model's SAGE gives no 'converged after 0 orderings' caveat and section 2's warning names its value, and
the GLM family's cross-validation is a step of its own."""
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from test_truth_round7_lvl_levels import _tables

from imlkit.models import GLM
from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context
from imlkit.report._sec_alternatives import _feature_sentences, _hc3_caption, section_alternatives


def _quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def test_section_6_opens_with_the_rows_whose_level_had_no_training_row():
    train, test = _tables()
    ctx = _quiet(prepare_context, ReportConfig(data=train, test_data=test, target="y", model="glm", quick=True,
                                               methods=("models",), strict=True))
    sec = _quiet(section_alternatives, ctx)
    said = [b.get("text", "") for b in sec["blocks"]]
    # --model glm: the explained model is behind the guard too, so no sentence on the gradient boosting's own mapping
    assert said[0] == ("8 test rows have levels of g with no training row ('zeta' (6), '(rare levels)' (2)); "
                       "the GLM baseline and this section's interpretable models score them as 'a' (the most frequent "
                       "training level), as if they had that level.")
    assert "histogram gradient boosting" not in said[1]


def _engel():
    d = sm.datasets.engel.load_pandas().data
    return d[["income"]], d["foodexp"]


def test_the_glm_caption_names_hc3_intervals_and_the_test_that_chose_them():
    X, y = _engel()
    glm = GLM(family="gaussian").fit(X, y)
    assert glm.covariance_ == "HC3" and glm.heteroscedastic()
    cap = _hc3_caption(glm)
    assert cap.startswith("; the intervals use HC3 sandwich standard errors (std_error; model_std_error is the "
                          "gaussian family's model-based one), as a Breusch–Pagan test rejects one variance")
    assert "p < 1e-16" in cap or f"p = {glm.heteroscedasticity_p_:.3g}" in cap
    assert _hc3_caption(GLM(family="gaussian", covariance="model").fit(X, y)) == ""


def test_the_closing_note_is_kept_for_a_categorical_with_exactly_k_levels_read():
    rng = np.random.default_rng(0)
    n = 400
    g = rng.choice(["r", "a", "b", "c"], size=n)
    x = rng.normal(size=n)
    y = x + (g == "a") * 1.0 - (g == "b") * 0.5 + rng.normal(size=n) * (1 + 2 * (g == "c"))
    X = pd.DataFrame({"g": pd.Categorical(g, categories=["r", "a", "b", "c"]), "x": x})
    glm = GLM(family="gaussian").fit(X, y)
    said = list(glm.interpret("g"))
    closing = [s for s in said if s.startswith("Intervals in brackets")]
    assert closing, said
    got = _feature_sentences(glm, "g", k=3)
    assert got[-1] == closing[0]          # before: said[:3] cut it (three level sentences come first)
    assert len([s for s in got if s.startswith("g = ")]) == 3


@pytest.fixture(scope="module")
def constant_report():
    """statsmodels statecrime: 35 training rows, the report's gradient boosting (min_samples_leaf 20) is constant."""
    from imlkit.report._build import build_sections

    data = sm.datasets.statecrime.load_pandas().data.reset_index()
    ctx = _quiet(prepare_context, ReportConfig(data=data, target="violent", model="gbm", quick=True, seed=0,
                                               methods=("pfi", "sage")))
    sections = _quiet(build_sections, ctx)
    return ctx, sections


def _all_text(sections):
    out = []
    for s in sections:
        for b in s["blocks"]:
            for key in ("text", "caption"):
                if isinstance(b.get(key), str):
                    out.append(b[key])
            for item in b.get("items", ()) or ():
                out.append(str(item))
    return " ".join(out)


def test_a_constant_model_gets_no_convergence_caveat_and_its_value_is_named(constant_report):
    ctx, sections = constant_report
    said = _all_text(sections)
    one = float(np.unique(ctx.model.predict(ctx.X_test))[0])
    assert "converged after 0 orderings" not in said
    assert "it may predict the same for every row" not in said
    from imlkit.report._claims import num
    assert f"it predicts the same value, {num(one)}, for every one of these rows" in said


def test_the_family_cross_validation_is_its_own_step():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x": rng.normal(size=300)})
    y = rng.poisson(np.exp(1 + 0.5 * X["x"]))
    data = X.assign(y=y)
    ctx = _quiet(prepare_context, ReportConfig(data=data, target="y", model="gbm", quick=True, methods=("pfi",),
                                               task="regression"))
    from imlkit.report._sec_model import section_model
    _quiet(section_model, ctx)
    steps = [e.step for e in ctx.log]
    assert "baseline: GLM family (5-fold CV on the training rows)" in steps
    assert steps.index("baseline: GLM family (5-fold CV on the training rows)") < steps.index(
        next(s for s in steps if s.startswith("baseline: GLM (")))


def test_the_rules_sentence_gives_marginal_sages_background_total_beside_the_rows():
    """Marginal SAGE of several features sums to its background sample's total (so that an unused feature is exactly
    0): the rules sentence gives that sum, the background's size and the rows' total (sage7's numbers, wired)."""
    from types import SimpleNamespace

    from sklearn.linear_model import LinearRegression

    import imlkit as ik
    from imlkit.report._claims import num, sage_total
    from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck
    from imlkit.report._reading import reading_claims

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    y = 3 * X["a"] + X["b"] + rng.normal(size=300)
    model = LinearRegression().fit(X, y)
    pfi = ik.pfi(model, X, y, n_repeats=5, random_state=0)
    # one fixed background of 8 rows: an explicit one (a background drawn from X is drawn afresh for every ordering
    # since round 8, and its values sum to the mean over the orderings' backgrounds: extra["empty"] "backgrounds")
    sage = ik.sage(model, X, y, removal="marginal", background=X.iloc[:8], max_permutations=512, random_state=0)
    assert sage.extra["empty"] == "background"
    ctx = SimpleNamespace(importance=ImportanceOutputs(pfi=pfi, sage_marginal=sage),
                          effects=EffectsOutputs(h_overall=None), data_outputs=DataOutputs(dependence_r2=None),
                          model_check=ModelCheck(), X_test=X, y_test=y)
    text = " ".join(c.text() for para in reading_claims(ctx) for item in para.items for c in item)
    assert (f"(here {num(sage.extra['v_all'])} over {sage.info['background_rows']:,} background rows against "
            f"{num(sage_total(sage.extra))})") in text
