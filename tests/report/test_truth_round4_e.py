"""Fourth round (helper e) of "every sentence carries the numbers that justify it": sections 4-7 on new tables."""
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin

import imlkit as ik


def _texts(sec):
    return " ".join(b.get("text", "") for b in sec["blocks"] if isinstance(b, dict))


def _captions(sec):
    return " ".join(b.get("caption") or "" for b in sec["blocks"] if isinstance(b, dict))


def _ctx(X, y, model, methods):
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=model, quick=True, methods=methods,
                                       strict=True))
    ctx.results = {"pfi": ik.pfi(ctx.model, ctx.X_test, ctx.y_test, random_state=0)}
    return ctx


def test_repid_regions_of_a_logistic_regression_are_not_called_interaction_terms():
    """anes96 (vote), --model glm: a logistic regression without interaction terms got "The effect of ClinLR differs
    between the regions: the splits by PID remove 71% ...; it interacts with PID." On the probability the logistic
    link makes any feature's effect depend on the others (the log-odds are additive), so the sentence now says that
    these regions do not show interaction terms -- as the H-statistic's caveat does."""
    from sklearn.linear_model import LogisticRegression

    from imlkit.report._sec_effects import section_regional

    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(600, 3)), columns=["a", "b", "c"])
    y = (2.5 * X["a"] + 2.5 * X["b"] + 0.3 * X["c"] + rng.logistic(size=600) > 0).astype(int)
    lr = LogisticRegression().fit(X, y)
    ctx = _ctx(X, y, lr, ("pfi", "repid"))
    sec = section_regional(ctx)
    said = _texts(sec)
    g = ctx.regional.repid
    # the premise, measured: on the log-odds every centred ICE curve is the same line (no region differs there) ...
    logit = ik.repid(lambda Z: np.asarray(Z, dtype=float) @ lr.coef_[0] + lr.intercept_[0],
                     ctx.rows("repid")[0], g.feature, grid=15, max_depth=2, min_node_size=40)
    assert logit.extra.get("equal_up_to_rounding")
    # ... while on the probability REPID finds regions it calls an interaction
    assert "interacts with" in said
    assert "do not say the model has interaction terms" in said
    assert "log-odds" in said


class _Product(RegressorMixin, BaseEstimator):
    """A fitted regression model of a × b (the interaction REPID should find)."""

    def fit(self, X, y):
        self.fitted_ = True
        return self

    def predict(self, X):
        return np.asarray(X["a"] * X["b"], dtype=float)


def test_repid_of_a_regression_gets_no_link_caveat():
    """The caveat is about the probability scale only: a regression's interaction (a × b) is not qualified."""
    from imlkit.report._sec_effects import section_regional

    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=["a", "b", "c"])
    y = X["a"] * X["b"]
    said = _texts(section_regional(_ctx(X, y, _Product().fit(X, y), ("pfi", "repid"))))
    assert "interacts with" in said and "log-odds" not in said


def test_h_statistic_of_a_multiclass_model_names_its_class():
    """anes96 PID (7 classes), a user's GradientBoostingClassifier: section 4 opens with the effects on "each of the 5
    most frequent of the 7 classes ... and of any of the other 2 classes", and the H-statistic below said only
    "Computed on 120 test rows" -- its H² (and the 2-D PD of its top pair) are of one class, the most frequent, which
    it did not name. Both now say which class."""
    from sklearn.ensemble import RandomForestClassifier

    from imlkit.report._sec_effects import section_effects

    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(500, 3)), columns=["a", "b", "c"])
    score = X["a"] * X["b"] + X["c"]
    y = np.where(score > 0.8, "hi", np.where(score < -0.3, "lo", "mid"))
    model = RandomForestClassifier(n_estimators=30, max_depth=5, random_state=0).fit(X, y)
    ctx = _ctx(X, y, model, ("pfi", "hstat"))
    sec = section_effects(ctx)
    said, caps = _texts(sec), _captions(sec)
    frequent = pd.Series(ctx.y_train).value_counts().index[0]
    assert f"Computed for the predicted probability of class {frequent}, the most frequent of the 3 classes" in said
    assert f"of the predicted probability of class {frequent}" in caps.split("2-D partial dependence", 1)[1]


def test_h_statistic_of_a_binary_model_is_unchanged():
    """Two classes: the H² is of the one probability section 4 shows; no class is named again."""
    from sklearn.linear_model import LogisticRegression

    from imlkit.report._sec_effects import section_effects

    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    y = (2 * X["a"] + 2 * X["b"] + rng.logistic(size=300) > 0).astype(int)
    said = _texts(section_effects(_ctx(X, y, LogisticRegression().fit(X, y), ("pfi", "hstat"))))
    assert "Computed on " in said and "Computed for" not in said


def test_a_reduced_gam_without_importance_is_not_said_to_be_ranked_by_it():
    """star98 (prop), --model gam --methods effects,hstat,repid,shap,models --quick: "GAM of the 10 features ranked
    first by the importance methods only" -- no importance method ran; the 10 were the table's first 10 columns. The
    warning (and the figure's caption) now say how they were chosen."""
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_alternatives import _gam_plan

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 18)), columns=[f"x{j:02d}" for j in range(18)])
    y = X["x17"] + 0.1 * rng.normal(size=300)
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model="glm", quick=True, methods=("models",),
                                       strict=True))
    terms, why = _gam_plan(ctx, ctx.X_train)
    assert list(terms) == [f"x{j:02d}" for j in range(len(terms))]  # the first columns, x17 (the signal) not among them
    assert "importance methods" not in why
    assert "column order (no importance method was selected to rank them)" in why


def test_shap_table_caption_names_only_the_importances_beside_it_and_its_rows():
    """anes96 (vote) --methods effects,hstat,repid,shap,models: the table of mean |SHAP| alone was captioned "beside
    how much it lowers the loss (PFI, SAGE; section 3)" -- neither was computed. A user's SVC: mean |SHAP| over 40 of
    the 283 test rows beside a PFI of all 283, and the caption did not say over which rows."""
    from types import SimpleNamespace

    from imlkit.report._sec_local import _beside

    swarm = SimpleNamespace(values=np.zeros((40, 2)), importance=lambda: SimpleNamespace(
        feature_names=["a", "b"], importance=np.array([0.2, 0.1])))
    alone = SimpleNamespace(importance=SimpleNamespace(compared=lambda: {}), eval_rows="test rows")
    cap = _beside(alone, swarm)["caption"]
    assert "PFI" not in cap and "SAGE" not in cap and "beside" not in cap
    assert "over 40 test rows" in cap
    pfi = SimpleNamespace(feature_names=["a", "b"], importance=np.array([0.3, 0.0]))
    with_pfi = SimpleNamespace(importance=SimpleNamespace(compared=lambda: {"pfi": pfi}), eval_rows="test rows")
    t = _beside(with_pfi, swarm)
    assert "beside how much it lowers the loss (PFI; section 3)" in t["caption"]


def _repid_like(n, m, root_risk, leaf_risks, span, scores, row=None):
    """A REPID result with the given risks (the sums of squared deviations of the centred ICE curves), n rows, m grid
    points, an effect of range ``span`` and the splits' interaction scores; ``row``: the rows' own effects' spread
    (within, total), each also its largest (rev8 r2 F3: "about the same for every row" is judged on them; a result
    without them is not judged)."""
    from types import SimpleNamespace

    grid = np.linspace(0, span, m)
    # rows split evenly over the leaves, each spread evenly over the grid points (the sentences read the spread at
    # each grid point, round 7: spread evenly, its largest value is the root mean square these numbers give)
    sizes = [n // len(leaf_risks)] * (len(leaf_risks) - 1)
    sizes.append(n - sum(sizes))
    regions = [SimpleNamespace(risk=r, n=k, centered_average=grid - grid.mean(), average=grid,
                               centered_std=np.full(m, np.sqrt(r / (k * m)))) for r, k in zip(leaf_risks, sizes)]
    return SimpleNamespace(tree=[SimpleNamespace(risk=root_risk, n=n)], regions=regions, average=grid, grid=grid,
                           interaction_scores=pd.Series(scores, dtype=float),
                           extra={"centered_std": np.full(m, np.sqrt(root_risk / (n * m))),
                                  **({} if row is None else
                                     {"row_effect_within": row[0], "row_effect_within_max": row[0],
                                      "row_effect_total": row[1], "row_effect_total_max": row[1]})})


def test_regions_and_their_curves_each_below_the_share_but_not_together_are_not_the_same_effect():
    """star98 (prop), a user's MLPRegressor, --quick: REPID's regions differ from the overall curve by 0.148 (8.5% of
    the effect's range 1.74) and the curves within them by 0.122 (7.0%): "the effect of PERSPEN_PTRATIO_PCTAF is about
    the same for every row" -- yet around the overall curve they differ by sqrt(50.21 / (91 × 15)) = 0.19, 11% of the
    range, above the report's own 10%. Same numbers here."""
    from imlkit.report._sec_effects import MATERIAL_REGIONAL_SHARE, regional_difference, regional_words

    total = np.sqrt(50.21 / (91 * 15))
    left = np.sqrt((8.937 + 11.25) / (91 * 15))
    g = _repid_like(91, 15, 50.21, [8.937, 11.25], 1.74, {"x2": 0.598}, row=(left, total))
    share, spread, span = regional_difference(g)
    assert spread < MATERIAL_REGIONAL_SHARE * span and left < MATERIAL_REGIONAL_SHARE * span
    assert total > MATERIAL_REGIONAL_SHARE * span
    said = regional_words(g, "x1", 2, 0.1)
    assert "about the same for every row." not in said
    assert "is not the same for every row" in said and f"{total:.3g}" in said
    # all parts small together: still "about the same" (the rows' own effects: twice the spread at a grid point, a
    # linear curve's on a symmetric grid)
    small = _repid_like(91, 15, 10.0, [4.0, 4.0], 1.74, {"x2": 0.2},
                        row=(2 * np.sqrt(8.0 / (91 * 15)), 2 * np.sqrt(10.0 / (91 * 15))))
    assert "about the same for every row." in regional_words(small, "x1", 2, 0.1)
    # without the rows' own effects (an old result), the per-point spreads cannot show them alike: not said
    assert "about the same for every row." not in regional_words(_repid_like(91, 15, 10.0, [4.0, 4.0], 1.74,
                                                                             {"x2": 0.2}), "x1", 2, 0.1)


def test_repid_on_fewer_rows_than_two_regions_need_says_it_could_not_split():
    """heart (censors), a user's KNeighborsClassifier on its own split, 21 test rows, --quick (REPID's min_node_size
    40): "No split improved the homogeneity of the survival curves enough (min_improvement = 0.1)" -- no split was
    possible: a split leaves at least 40 rows on each side, 80 in all."""
    from imlkit.report._sec_effects import section_regional

    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(70, 3)), columns=["a", "b", "c"])
    y = X["a"] * X["b"]
    ctx = _ctx(X, y, _Product().fit(X, y), ("pfi", "repid"))
    said = _texts(section_regional(ctx))
    n, need = len(ctx.rows("repid")[0]), ctx.params.repid.min_node_size
    assert n < 2 * need
    assert "No split improved" not in said
    assert f"REPID could not split the {n} rows: each region needs at least {need} rows" in said


def test_a_tree_that_stopped_early_is_not_labelled_depth_3():
    """heart (censors), 48 training rows: the tree grew one split (25 and 23 rows; a leaf of 20 on each side allows no
    more) under the heading "Decision tree (depth 3)" and the label "decision tree (depth 3)" of every comparison."""
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_alternatives import _tree_blocks

    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=70), "b": rng.normal(size=70)})
    y = (X["a"] > 0).astype(int)
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model="glm", quick=True, methods=("models",),
                                       strict=True))
    perf = {}
    blocks = _tree_blocks(ctx, perf)
    said = _texts({"blocks": blocks})
    tree = ctx.alternative_models[next(iter(perf))][-1]
    depth = int(tree.nodes_["depth"].max())
    assert depth < 3
    assert list(perf) == [f"decision tree (depth {depth}; at most 3)"]
    assert f"It stopped at depth {depth} of at most 3" in said
    assert "(depth 3)" not in " ".join(str(b.get("text", "")) for b in blocks)


def test_repid_that_could_not_search_does_not_say_no_split_explains():
    """Hitters (79 rows, --quick's min_node_size 40): "REPID could not split the 79 rows ... because it could look for
    none; ... a heterogeneity no split of depth ≤ 2 by another feature explains" -- no split was tried, so none was
    shown not to explain it. The numbers: one leaf (the root), risk 9.71e6 on 79 rows x 15 grid points, range 341."""
    from imlkit.report._sec_effects import regional_words

    g = _repid_like(79, 15, 9.71e6, [9.71e6], 341.0, {})
    said = regional_words(g, "x1", 2, 0.1, min_node_size=40)
    # rev8 r2 F3: the API's words, one rule ("could look for none" was the report's own)
    assert "could not split the 79 rows" in said and "could look for no region" in said
    assert "no evidence either way" in said
    assert "no split of depth" not in said
    assert "might or might not explain" in said
    # with enough rows to search, an unexplained heterogeneity is still "no split ... explains"
    searched = regional_words(_repid_like(300, 15, 9.71e6, [9.71e6], 341.0, {}), "x1", 2, 0.1, min_node_size=40)
    assert "no split of depth ≤ 2 by another feature explains" in searched
