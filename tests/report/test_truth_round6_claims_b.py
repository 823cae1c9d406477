"""Round 6 (claims6): the ranking's words name each feature's own methods."""
from types import SimpleNamespace

import numpy as np
import pandas as pd

from imlkit.importance import ImportanceResult
from imlkit.report import _claims as cl
from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck
from imlkit.report._ranking import most_important


def _res(method, values, low, high, names, baseline_loss=5.0, extra=None):
    v = np.asarray(values, dtype=float)
    return ImportanceResult(method=method, feature_names=tuple(names), importance=v, std=0 * v,
                            ci_low=np.asarray(low, float), ci_high=np.asarray(high, float), loss="squared_error",
                            baseline_loss=baseline_loss, extra=extra or {})


def _ctx(results, y, r2):
    return SimpleNamespace(importance=ImportanceOutputs(**results), effects=EffectsOutputs(h_overall=None),
                           data_outputs=DataOutputs(dependence_r2=pd.Series(r2)), model_check=ModelCheck(),
                           X_test=pd.DataFrame({"z": np.zeros(len(y))}), y_test=pd.Series(y))


def test_the_marginal_only_clause_names_each_features_own_marginal_methods():
    """Breast cancer (quick): "worst texture (R² = 0.946) and worst perimeter (R² = 0.998) are important only for PFI
    and SAGE (marginal)" -- worst perimeter was important for SAGE (marginal) alone (the count said "1 of 4: SAGE
    (marginal)"); the clause pooled the two features' methods."""
    names = ("texture", "perimeter", "c")
    y = np.r_[np.zeros(30), np.ones(30) * 10]
    pfi = _res("pfi", [10.0, 0.1, 2.0], [9.0, -0.5, 1.5], [11.0, 0.7, 2.5], names)
    cfi = _res("cfi", [0.1, 0.1, 9.0], [-0.5, -0.5, 8.0], [0.7, 0.7, 10.0], names)
    sage = _res("sage_marginal", [8.0, 9.0, 0.1], [7.0, 8.0, -0.5], [9.0, 10.0, 0.7], names,
                extra=dict(v_all=20.0, converged=True, ratio=0.01, n_permutations=64))
    ctx = _ctx({"pfi": pfi, "cfi": cfi, "sage_marginal": sage}, y, {"texture": 0.946, "perimeter": 0.998, "c": 0.1})
    ev = cl.evidence_by_method({"pfi": pfi, "cfi": cfi, "sage_marginal": sage}, lambda m: y)
    important = {f: [m for m in ev if ev[m][f].important()] for f in names}
    assert important["texture"] == ["pfi", "sage_marginal"] and important["perimeter"] == ["sage_marginal"]
    _, words = most_important(ctx)
    assert ("texture (R² = 0.946) is important only for PFI and SAGE (marginal), and perimeter (R² = 0.998) only "
            "for SAGE (marginal)") in words
    assert "texture (R² = 0.946) and perimeter" not in words
    assert "while CFI does not find them important" in words


def _iris_ctx(order):
    """Iris with its rows in ``order``: 35 training rows of each class (a stratified 70/30 split of 150 rows)."""
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    d = load_iris(as_frame=True)
    X, y = d.data, d.target.map(dict(enumerate(d.target_names)))
    train = pd.concat([X[y == c].iloc[:35] for c in d.target_names]).index
    rows = np.asarray(train)[order]
    model = LogisticRegression(max_iter=500).fit(X.loc[train], y.loc[train])
    return SimpleNamespace(task="classification", model=model, target_class=None, data=SimpleNamespace(target="y"),
                           y_train=y.loc[rows].reset_index(drop=True))


def test_a_tie_of_training_rows_names_no_class_the_most_frequent():
    """Iris (35 training rows of each class): section 4 said "the predicted probability of class virginica, the most
    frequent of the 3 classes" -- value_counts' first of a three-way tie, which moves with the rows' order."""
    from imlkit.report._sec_effects import _output_text, frequent_classes
    from imlkit.report._shared import effect_output

    chosen = set()
    for seed in range(4):
        ctx = _iris_ctx(np.random.default_rng(seed).permutation(105))
        counts = ctx.y_train.value_counts()
        assert (counts == 35).all() and len(counts) == 3
        out = effect_output(ctx)
        chosen.add(out)
        said = _output_text(ctx, out)
        assert "most frequent" not in said
        assert (f"the predicted probability of class {out}, one of the 3 classes, all tied for the most training rows "
                f"(35 each; the first in the model's order)") in said
        assert frequent_classes(ctx, 2) == list(ctx.model.classes_[:2])
    assert chosen == {ctx.model.classes_[0]}  # the same class for any order of the rows
    # without a tie the words stay "the most frequent"
    ctx.y_train = pd.concat([ctx.y_train, pd.Series(["virginica"])], ignore_index=True)
    out = effect_output(ctx)
    assert out == "virginica"
    assert "class virginica, the most frequent of the 3 classes" in _output_text(ctx, out)


def test_how_far_the_halves_move_names_the_pairs_gap_beside_the_features():
    """Khan (a 4-class random forest, 20 test rows): "the halves differ by up to 0.068" was the gap of single features
    only, while the pairs table beside it showed V1389 × V1003 at 0.1818 in one half and 0.01996 in the other."""
    import re

    from sklearn.ensemble import RandomForestRegressor

    from imlkit.report._sec_effects import halves_words, section_effects

    said = halves_words({"a": 0.05, "b": 0.02}, {"a": (0.02, 0.088), "b": (0.01, 0.03)}, 20, 10, 10,
                        pair_halves={frozenset(("a", "b")): (0.1818, 0.01996)})
    assert "the halves differ by up to 0.068 for the features' H², and by up to 0.16 for the pairs'" in said

    import imlkit as ik
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(400, 4)), columns=["a", "b", "c", "d"])
    y = X["a"] * X["b"] + X["c"] + 0.3 * rng.normal(size=400)
    model = RandomForestRegressor(n_estimators=30, max_depth=6, random_state=0)
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=model, quick=True,
                                       methods=("pfi", "hstat"), strict=True))
    ctx.results = {"pfi": ik.pfi(ctx.model, ctx.X_test, ctx.y_test, random_state=0)}
    sec = section_effects(ctx)
    blocks = [b for b in sec["blocks"] if isinstance(b, dict)]
    words = " ".join(b.get("text", "") for b in blocks)
    pairs = next(b for b in blocks if b.get("kind") == "table" and "feature " in b["columns"])
    i, j = pairs["columns"].index("H² (half 1)"), pairs["columns"].index("H² (half 2)")
    gap = max(abs(float(r[i]) - float(r[j])) for r in pairs["rows"])
    m = re.search(r"and by up to ([0-9.e-]+) for the pairs'", words)
    assert m, words
    # said to 2 significant digits, the table to 4: half a unit of the second digit, plus the table's rounding
    np.testing.assert_allclose(float(m.group(1)), gap, rtol=0, atol=0.5 * 10 ** (np.floor(np.log10(gap)) - 1) + 1e-4)


def test_section_6_fits_one_against_the_rest_for_the_class_section_4_explains():
    """Iris (35 training rows of each class): section 6's GLM took value_counts' first class, section 4 the model's
    most frequent by its own rule; both now take the most training rows, ties in the model's class order."""
    from imlkit.report._sec_alternatives import binary_task
    from imlkit.report._shared import effect_output

    for seed in range(3):
        ctx = _iris_ctx(np.random.default_rng(seed).permutation(105))
        ctx.y_test = ctx.y_train
        c, y01, _ = binary_task(ctx)
        assert c == str(effect_output(ctx)) == str(ctx.model.classes_[0])
        assert y01.sum() == 35


def test_the_mean_shap_table_of_many_features_shows_the_top_20_and_collapses_the_rest():
    """A synthetic table of 2,000 columns: section 5's mean |SHAP| table listed every one of them, most 0; it shows the
    first 20 and the rest behind a summary line, as section 3's importance table does."""
    from sklearn.datasets import make_regression
    from sklearn.linear_model import Ridge

    import imlkit as ik
    from imlkit.report._sec_local import _beside

    X, y = make_regression(n_samples=60, n_features=60, n_informative=5, random_state=0)
    X = pd.DataFrame(X, columns=[f"x{k}" for k in range(60)])
    model = Ridge().fit(X, y)
    swarm = ik.shap(model, X.iloc[:20], background=X.iloc[20:], random_state=0)
    ctx = SimpleNamespace(importance=ImportanceOutputs(), eval_rows="test rows")
    block = _beside(ctx, swarm)
    assert len(block["rows"]) == 20 and len(block["more"]) == 40
    assert block["more_label"] == "Show the other 40 features (ranked below the top 20)"
    shown = [float(r[1]) for r in block["rows"]]
    hidden = [float(r[1]) for r in block["more"]]
    assert shown == sorted(shown, reverse=True) and min(shown) >= max(hidden)
    # a table a handful longer than 20 stays open
    few = X.iloc[:, :24]
    swarm = ik.shap(Ridge().fit(few, y), few.iloc[:20], background=few.iloc[20:], random_state=0)
    block = _beside(ctx, swarm)
    assert len(block["rows"]) == 24 and "more" not in block


def test_a_share_near_its_threshold_is_printed_on_its_own_side_and_the_failed_bar_is_the_one_named():
    """College (rf, Outstate's REPID): "(10.0%, below the 10% needed to call it an interaction)" -- the ratio was just
    below 0.1 and printed at one decimal. And where the regional curves differ by at least 10% but the splits remove
    less than min_improvement, "(25%, below the 10% needed)" named the wrong bar."""
    import re

    import imlkit as ik
    from imlkit.report._sec_effects import pct_beside, regional_difference, regional_words

    assert pct_beside(0.09996, 0.1) == "9.996%" and pct_beside(0.1, 0.1) == "10.0%"
    for v in (0.0999, 0.09999, 0.1, 0.10001, 0.123, 0.0004):
        said = float(pct_beside(v, 0.1).rstrip("%")) / 100
        assert (said < 0.1) == (v < 0.1), (v, said)
        np.testing.assert_allclose(said, v, rtol=0, atol=0.0005)  # at least one decimal of a percentage

    rng = np.random.default_rng(0)
    n = 600
    X = pd.DataFrame({"x1": rng.uniform(-1, 1, n), "x2": rng.uniform(-1, 1, n), "x3": rng.uniform(-1, 1, n),
                      "x4": rng.normal(size=n)})

    def f(X):  # x4 (not offered as a split feature) leaves heterogeneity no split removes
        X = np.asarray(X, dtype=float)
        return X[:, 0] * (2 * (X[:, 1] > 0) + X[:, 3])

    g = ik.repid(f, X, "x1", split_features=["x2", "x3"], grid=10, max_depth=2, min_node_size=30,
                 min_improvement=0.1)
    share, spread, span = regional_difference(g)
    bar = round((share + 1) / 2, 2)  # a min_improvement the splits do not reach
    assert spread >= 0.1 * span and share < bar
    said = regional_words(g, "x1", 2, bar)
    ratio = re.search(r"of the effect \(([0-9.]+)%", said)
    assert ratio and float(ratio.group(1)) >= 10
    assert "below the 10% needed" not in said
    assert (f"but the splits remove less than the {bar:.0%} of the heterogeneity needed to call it an "
            f"interaction") in said
