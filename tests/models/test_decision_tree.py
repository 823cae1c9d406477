"""Teaching decision tree: the course's worked examples, impurities by hand, scikit-learn."""
import itertools

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from imlkit.models import DecisionTree
from imlkit.models._impurity import (
    entropy,
    gini,
    misclassification,
    squared_error,
    squared_error_from_sums,
    weighted_impurity,
)

# The course prints three decimals and rounds inconsistently (0.1625 -> 0.163 but
# 0.46875 -> 0.468): one unit of the last printed digit is the honest tolerance. Where the
# exact fraction is known it is checked with EXACT as well.
COURSE = dict(atol=1e-3, rtol=0)
# Exact arithmetic done two ways (sums in a different order): a few ulps.
EXACT = dict(rtol=1e-12, atol=1e-12)


def tax_data():
    """The course's 10-row tax / loan-default table."""
    X = pd.DataFrame({
        "home": ["Yes", "No", "No", "Yes", "No", "No", "Yes", "No", "No", "No"],
        "marital": ["Single", "Married", "Single", "Married", "Divorced", "Married", "Divorced", "Single",
                    "Married", "Single"],
        "income": [125.0, 100, 70, 120, 95, 60, 220, 85, 75, 90],
    })
    y = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])
    return X, y


# --------------------------------------------------------------------------- impurities by hand
@pytest.mark.parametrize("counts, expected", [
    ([0, 6], 0.000), ([1, 5], 0.278), ([2, 4], 0.444), ([3, 3], 0.500),   # the course's table
    ([7, 5], 0.486),                                                     # the parent of the example
])
def test_gini_course_table(counts, expected):
    assert_allclose(gini(counts), expected, **COURSE)


def test_impurities_by_hand():
    # (1, 5): p = 1/6
    p = 1 / 6
    assert_allclose(gini([1, 5]), 1 - p**2 - (1 - p) ** 2, **EXACT)
    assert_allclose(gini([1, 5]), 2 * p * (1 - p), **EXACT)  # the two-class formula 2p(1−p)
    assert_allclose(entropy([1, 5]), -(p * np.log2(p) + (1 - p) * np.log2(1 - p)), **EXACT)
    assert_allclose(misclassification([1, 5]), p, **EXACT)
    # extremes: pure node 0 everywhere; uniform node 1 − 1/K, log2(K), 1 − 1/K
    for f in (gini, entropy, misclassification):
        assert_allclose(f([0, 6, 0]), 0.0, atol=0)
    assert_allclose(gini([2, 2, 2, 2]), 0.75, **EXACT)
    assert_allclose(entropy([2, 2, 2, 2]), 2.0, **EXACT)
    assert_allclose(misclassification([2, 2, 2, 2]), 0.75, **EXACT)
    # squared error = population variance
    y = np.array([1.0, 2.0, 3.0, 4.0])
    assert_allclose(squared_error(y), 1.25, **EXACT)
    assert_allclose(squared_error_from_sums(4, y.sum(), (y**2).sum()), np.var(y), **EXACT)


def test_impurities_vectorised_over_nodes():
    counts = np.array([[[1, 5], [3, 3], [0, 6]], [[7, 5], [2, 4], [6, 0]]])
    for f in (gini, entropy, misclassification):
        out = f(counts)
        assert out.shape == (2, 3)
        assert_allclose(out, [[f(c) for c in row] for row in counts], **EXACT)
    # proportions give the same impurity as counts
    assert_allclose(gini([0.25, 0.75]), gini([1, 3]), **EXACT)


def test_course_gini_split_example():
    """Parent (7, 5), children N1 = (5, 1), N2 = (2, 4): 0.486, 0.361, gain 0.125."""
    assert_allclose(weighted_impurity([[5, 1], [2, 4]], "gini"), 0.361, **COURSE)
    X = pd.DataFrame({"A": ["yes"] * 6 + ["no"] * 6})
    y = ["C1"] * 5 + ["C2"] + ["C1"] * 2 + ["C2"] * 4
    tree = DecisionTree(criterion="gini", max_depth=1).fit(X, y)
    row = tree.split_trace_.iloc[0]
    assert_allclose(row["parent_impurity"], 0.486, **COURSE)
    assert_allclose(row["children_impurity"], 0.361, **COURSE)
    assert_allclose(row["gain"], 0.125, **COURSE)
    # the exact fractions behind the rounded numbers: 70/144, 52/144, 18/144
    assert_allclose(row[["parent_impurity", "children_impurity", "gain"]].to_numpy(dtype=float),
                    [70 / 144, 52 / 144, 18 / 144], **EXACT)
    assert (row["n_left"], row["n_right"]) == (6, 6)


def test_course_cartype_partitions():
    """Multi-way 0.163; two-way {Sports, Luxury}|{Family} 0.468 and {Sports}|{Family, Luxury} 0.167."""
    family, sports, luxury = np.array([1, 3]), np.array([8, 0]), np.array([1, 7])
    assert_allclose(weighted_impurity([family, sports, luxury]), 0.163, **COURSE)
    assert_allclose(weighted_impurity([sports + luxury, family]), 0.468, **COURSE)
    assert_allclose(weighted_impurity([sports, family + luxury]), 0.167, **COURSE)
    assert_allclose(weighted_impurity([family, sports, luxury]), 13 / 80, **EXACT)
    assert_allclose(weighted_impurity([sports + luxury, family]), 15 / 32, **EXACT)
    assert_allclose(weighted_impurity([sports, family + luxury]), 1 / 6, **EXACT)
    # the tree (Breiman's ordering, not an exhaustive search) finds the best two-way split
    levels = ["Family"] * 4 + ["Sports"] * 8 + ["Luxury"] * 8
    y = ["C1"] * 1 + ["C2"] * 3 + ["C1"] * 8 + ["C1"] * 1 + ["C2"] * 7
    X = pd.DataFrame({"CarType": pd.Categorical(levels, categories=["Family", "Sports", "Luxury"])})
    row = DecisionTree(max_depth=1).fit(X, y).split_trace_.iloc[0]
    assert_allclose(row["children_impurity"], 0.167, **COURSE)
    assert set(row["left_levels"]) in ({"Sports"}, {"Family", "Luxury"})


def test_course_continuous_income_scan():
    """Every split position of Annual Income: the course's Gini row, best 0.300 at 97."""
    X, y = tax_data()
    yes_le = [0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3]   # counts of the course's table, positions 55 .. 230
    no_le = [0, 1, 2, 3, 3, 3, 3, 4, 5, 6, 7]
    course = [0.420, 0.400, 0.375, 0.343, 0.417, 0.400, 0.300, 0.343, 0.375, 0.400, 0.420]
    got = [weighted_impurity([[a, b], [3 - a, 7 - b]]) if 0 < a + b < 10 else gini([3, 7])
           for a, b in zip(yes_le, no_le)]
    assert_allclose(got, course, **COURSE)
    tree = DecisionTree(max_depth=1).fit(X[["income"]], y)
    row = tree.split_trace_.iloc[0]
    assert_allclose(row["parent_impurity"], 0.420, **COURSE)
    assert_allclose(row["children_impurity"], 0.300, **COURSE)
    assert row["threshold"] == 97.5  # midpoint of 95 and 100 (the course rounds to 97)


def test_ties_between_features_go_to_the_first_column():
    # {Married} vs rest and income <= 97.5 both leave 0.300 at the root of the tax data
    X, y = tax_data()
    assert DecisionTree(max_depth=1).fit(X, y).split_trace_["feature"].iloc[0] == "marital"
    reordered = DecisionTree(max_depth=1).fit(X[["income", "marital", "home"]], y)
    assert reordered.split_trace_["feature"].iloc[0] == "income"


def test_full_tax_tree_fits_training_data_and_trace_is_consistent():
    X, y = tax_data()
    tree = DecisionTree().fit(X, y)
    assert (tree.predict(X) == y).all()
    tr = tree.split_trace_
    assert_allclose(tr["gain"], tr["parent_impurity"] - tr["children_impurity"], **EXACT)
    assert_allclose(tr["weighted_gain"], tr["n"] / len(X) * tr["gain"], **EXACT)
    assert (tr["n_left"] + tr["n_right"] == tr["n"]).all()
    imp = tr.groupby("feature")["weighted_gain"].sum()
    expected = np.array([imp.get(c, 0.0) for c in X.columns]) / imp.sum()
    assert_allclose(tree.feature_importances_, expected, **EXACT)
    assert_allclose(tree.feature_importances_.sum(), 1.0, **EXACT)
    # the root's weighted gain is the whole impurity drop of the root split: 0.42 − 0.30
    assert_allclose(tr["weighted_gain"].iloc[0], 0.12, **EXACT)
    text = tree.export_text()
    assert "marital in {Married}" in text and "class: Yes" in text
    assert len(tree.nodes_) == tree.node_count_ == 2 * len(tr) + 1


# --------------------------------------------------------------------------- categorical search
def _brute_force_best(codes, y, criterion):
    """Smallest weighted child impurity over every two-way partition of the present levels."""
    levels = np.unique(codes)
    classes = np.unique(y)
    best = np.inf
    for r in range(1, len(levels)):
        for left in itertools.combinations(levels, r):
            mask = np.isin(codes, left)
            if criterion == "squared_error":
                m = weighted_impurity([y[mask], y[~mask]], criterion)
            else:
                m = weighted_impurity([[(y[mask] == c).sum() for c in classes],
                                       [(y[~mask] == c).sum() for c in classes]], criterion)
            best = min(best, m)
    return best


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regression"])
def test_categorical_split_is_optimal(seed, kind):
    """Breiman's ordering (binary, regression) and the exhaustive search (multiclass) both
    reach the optimum of a brute-force search over all partitions."""
    rng = np.random.default_rng(seed)
    n, L = 60, 6
    codes = rng.integers(0, L, n)
    effect = rng.normal(size=L)
    if kind == "regression":
        y, criterion = effect[codes] + rng.normal(scale=0.5, size=n), "squared_error"
    elif kind == "binary":
        y, criterion = (effect[codes] + rng.normal(size=n) > 0).astype(int), "gini"
    else:
        y, criterion = np.digitize(effect[codes] + rng.normal(size=n), [-0.5, 0.5]), "entropy"
    X = pd.DataFrame({"g": pd.Categorical([f"L{c}" for c in codes])})
    tree = DecisionTree(criterion=criterion, max_depth=1).fit(X, y)
    assert_allclose(tree.split_trace_["children_impurity"].iloc[0], _brute_force_best(codes, y, criterion), **EXACT)


def test_many_level_multiclass_heuristic_is_consistent():
    # 12 levels, 3 classes: beyond MAX_EXHAUSTIVE_LEVELS, one ordering per class is scanned.
    # Not guaranteed optimal, so check that the reported partition has the reported impurity
    # and is no better than the brute-force optimum.
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 12, 120)
    y = np.digitize(rng.normal(size=12)[codes] + rng.normal(size=120), [-0.5, 0.5])
    X = pd.DataFrame({"g": [f"L{c:02d}" for c in codes]})
    row = DecisionTree(max_depth=1).fit(X, y).split_trace_.iloc[0]
    mask = X["g"].isin(row["left_levels"]).to_numpy()
    counts = [[(y[m] == c).sum() for c in range(3)] for m in (mask, ~mask)]
    assert_allclose(row["children_impurity"], weighted_impurity(counts), **EXACT)
    assert row["children_impurity"] >= _brute_force_best(codes, y, "gini") - 1e-12


def test_unseen_and_absent_levels_follow_the_larger_child():
    X = pd.DataFrame({"g": ["a"] * 6 + ["b"] * 3})
    y = [0] * 6 + [1] * 3
    tree = DecisionTree(max_depth=1).fit(X, y)
    assert tree.predict(pd.DataFrame({"g": ["zzz"]}))[0] == 0   # "a" side holds 6 rows
    # a level of the dtype that no training row has also follows the larger child
    Xc = X.assign(g=pd.Categorical(X["g"], categories=["a", "b", "c"]))
    tree = DecisionTree(max_depth=1).fit(Xc, y)
    assert tree.predict(pd.DataFrame({"g": pd.Categorical(["c"], categories=["a", "b", "c"])}))[0] == 0


# --------------------------------------------------------------------------- scikit-learn
def _float32_data(n, p, seed):
    # scikit-learn grows trees on float32 copies of X; float32-exact data gives the same thresholds
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)).astype(np.float32).astype(float)
    X_test = rng.normal(size=(n, p)).astype(np.float32).astype(float)
    signal = X[:, 0] + X[:, 1] * X[:, 2]
    return X, X_test, signal + rng.normal(size=n)


@pytest.mark.parametrize("max_depth, min_samples_leaf", [(None, 5), (4, 3), (3, 1)])
def test_regression_equals_sklearn(max_depth, min_samples_leaf):
    # (small leaves tie: a node of 2 rows, or of 4 with min_samples_leaf=2, is split equally
    # well by every feature, and scikit-learn then picks a feature at random)
    X, X_test, y = _float32_data(300, 4, 1)
    ours = DecisionTree(criterion="squared_error", max_depth=max_depth, min_samples_leaf=min_samples_leaf).fit(X, y)
    sk, sk1 = (DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=min_samples_leaf, random_state=r).fit(X, y)
               for r in (0, 1))
    # scikit-learn breaks exact ties between features at random; compare only where it does not
    assert np.array_equal(sk.tree_.feature, sk1.tree_.feature)
    assert ours.node_count_ == sk.tree_.node_count
    # leaf means summed in a different order: a few ulps of |y|
    assert_allclose(ours.predict(X_test), sk.predict(X_test), rtol=1e-10, atol=1e-10)
    assert_allclose(ours.feature_importances_, sk.feature_importances_, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("min_samples_leaf", [1, 10])
def test_classification_equals_sklearn(criterion, min_samples_leaf):
    X, X_test, z = _float32_data(300, 4, 1)
    y = np.digitize(z, [-1.0, 0.5])  # three classes
    settings = dict(criterion=criterion, max_depth=3, min_samples_leaf=min_samples_leaf)
    sk = [DecisionTreeClassifier(random_state=r, **settings).fit(X, y) for r in (0, 1)]
    # scikit-learn breaks exact ties between features at random; compare only where it does not
    assert np.array_equal(sk[0].predict_proba(X_test), sk[1].predict_proba(X_test))
    ours = DecisionTree(**settings).fit(X, y)
    assert ours.node_count_ == sk[0].tree_.node_count
    assert np.array_equal(ours.predict(X_test), sk[0].predict(X_test))
    assert_allclose(ours.predict_proba(X_test), sk[0].predict_proba(X_test), **EXACT)
    assert_allclose(ours.feature_importances_, sk[0].feature_importances_, rtol=1e-8, atol=1e-12)


def test_dataframe_and_array_give_the_same_tree():
    X, X_test, y = _float32_data(150, 3, 2)
    a = DecisionTree(criterion="squared_error", max_depth=3).fit(X, y)
    frame = pd.DataFrame(X, columns=["x0", "x1", "x2"])
    b = DecisionTree(criterion="squared_error", max_depth=3).fit(frame, y)
    assert_allclose(a.predict(X_test), b.predict(pd.DataFrame(X_test, columns=frame.columns)), atol=0)
    pd.testing.assert_frame_equal(a.split_trace_, b.split_trace_)


def test_sklearn_estimator_contract():
    X, y = tax_data()
    tree = DecisionTree(criterion="entropy", max_depth=2)
    assert tree.get_params()["criterion"] == "entropy"
    assert is_classifier(tree) and not is_regressor(tree)
    reg = DecisionTree(criterion="squared_error")
    assert is_regressor(reg) and not hasattr(reg, "predict_proba")
    fitted = clone(tree).fit(X, y)
    assert list(fitted.classes_) == ["No", "Yes"]
    proba = fitted.predict_proba(X)
    assert proba.shape == (10, 2)
    assert_allclose(proba.sum(axis=1), 1.0, **EXACT)
    assert fitted.score(X, y) == np.mean(fitted.predict(X) == y)
    assert DecisionTree(min_samples_split=20).fit(X, y).node_count_ == 1
    assert_allclose(DecisionTree(min_samples_split=20).fit(X, y).feature_importances_, 0.0, atol=0)


def test_misclassification_criterion_and_min_impurity_decrease():
    X, y = tax_data()
    tree = DecisionTree(criterion="misclassification").fit(X, y)
    tr = tree.split_trace_
    # the root: 3 of 10 rows are not in the majority class
    assert_allclose(tr["parent_impurity"].iloc[0], 0.3, **EXACT)
    assert (tree.predict(X) == y).all()
    # the root split's weighted gain is 0.12 with gini: a threshold above it keeps a single leaf
    pruned = DecisionTree(min_impurity_decrease=0.13).fit(X, y)
    assert pruned.node_count_ == 1


def test_works_with_imlkit_pfi():
    import imlkit as ik

    X, y = tax_data()
    tree = DecisionTree().fit(X, y)
    r = ik.pfi(tree, X, y, loss="zero_one", n_repeats=3, random_state=0)
    assert list(r.feature_names) == list(X.columns)
    assert np.isfinite(r.importance).all()


# --------------------------------------------------------------------------- errors
X_ERR, Y_ERR = tax_data()


@pytest.mark.parametrize("params, X, y, exc, match", [
    (dict(criterion="gain"), X_ERR, Y_ERR, ValueError, "'criterion' must be one of"),
    (dict(task="ranking"), X_ERR, Y_ERR, ValueError, "'task' must be one of"),
    (dict(max_depth=0), X_ERR, Y_ERR, ValueError, "'max_depth' must be an int >= 1"),
    (dict(max_depth=1.5), X_ERR, Y_ERR, TypeError, "'max_depth' must be an int"),
    (dict(min_samples_leaf=0), X_ERR, Y_ERR, ValueError, "'min_samples_leaf' must be an int >= 1"),
    (dict(min_samples_split=1), X_ERR, Y_ERR, ValueError, "'min_samples_split' must be an int >= 2"),
    (dict(min_impurity_decrease=-1.0), X_ERR, Y_ERR, ValueError, "'min_impurity_decrease' must be"),
    (dict(task="regression", criterion="gini"), X_ERR, Y_ERR, ValueError,
     "'criterion' must be 'squared_error' for regression"),
    (dict(task="regression"), X_ERR, Y_ERR, ValueError, "'y' must be numeric for regression"),
    (dict(task="classification", criterion="squared_error"), X_ERR, Y_ERR, ValueError, "for classification"),
    (dict(criterion="squared_error"), X_ERR, Y_ERR, ValueError, "'y' must be numeric for regression"),
    (dict(), X_ERR, ["No"] * 10, ValueError, "at least 2 classes"),
    (dict(criterion="entropy"), X_ERR, np.linspace(0, 1, 10), ValueError, "non-integer float values"),
    (dict(), X_ERR, Y_ERR[:5], ValueError, "different lengths"),
    (dict(), X_ERR.assign(income=[np.nan] + [1.0] * 9), Y_ERR, ValueError, "missing values in column 'income'"),
    (dict(), X_ERR.assign(home=[None] + ["No"] * 9), Y_ERR, ValueError, "missing values in column 'home'"),
])
def test_fit_errors(params, X, y, exc, match):
    with pytest.raises(exc, match=match):
        DecisionTree(**params).fit(X, y)


def test_predict_errors():
    with pytest.raises(NotFittedError, match="not fitted"):
        DecisionTree().predict(X_ERR)
    tree = DecisionTree().fit(X_ERR, Y_ERR)
    with pytest.raises(ValueError, match="same columns"):
        tree.predict(X_ERR.rename(columns={"income": "wage"}))
    with pytest.raises(ValueError, match="was numeric when the tree was fitted"):
        tree.predict(X_ERR.assign(income="high"))
    with pytest.raises(ValueError, match="must have 3 columns"), \
            pytest.warns(UserWarning, match="X does not have valid feature names"):  # an array after a DataFrame
        tree.predict(np.zeros((2, 2)))


def test_auto_task_picks_the_criterion_from_the_target():
    """A float target is regression (squared error, equal to sklearn's regressor); labels are gini."""
    from sklearn.datasets import load_diabetes
    from sklearn.tree import DecisionTreeRegressor

    d = load_diabetes(as_frame=True)
    tree = DecisionTree(max_depth=3).fit(d.data, d.target)
    assert tree.task_ == "regression" and tree.criterion_ == "squared_error"
    ref = DecisionTreeRegressor(max_depth=3).fit(d.data, d.target)
    assert_allclose(tree.predict(d.data), ref.predict(d.data), rtol=1e-10)
    X, y = tax_data()
    assert DecisionTree().fit(X, y).criterion_ == "gini"
    codes = (np.asarray(y) == "Yes").astype(float)  # 0.0/1.0: labels, not a regression target
    assert DecisionTree().fit(X, codes).task_ == "classification"
    assert DecisionTree(task="regression").fit(X, codes).criterion_ == "squared_error"


def car_type():
    """The course's CarType count matrix: Family (1, 3), Sports (8, 0), Luxury (1, 7) for C1, C2."""
    car = ["Family"] * 4 + ["Sports"] * 8 + ["Luxury"] * 8
    y = ["C1"] + ["C2"] * 3 + ["C1"] * 8 + ["C1"] + ["C2"] * 7
    return pd.DataFrame({"CarType": car}), np.array(y)


def test_course_car_type_multiway_gini_0_163_and_two_way_0_167():
    X, y = car_type()
    multi = DecisionTree(categorical_split="multiway", max_depth=1).fit(X, y)
    row = multi.split_trace_.iloc[0]
    # Σ n_l/n · Gini_l = 4/20 · 0.375 + 8/20 · 0 + 8/20 · 0.21875 = 0.1625
    assert_allclose(row["children_impurity"], 4 / 20 * (1 - (1 / 4) ** 2 - (3 / 4) ** 2)
                    + 8 / 20 * (1 - (1 / 8) ** 2 - (7 / 8) ** 2), **EXACT)
    assert abs(row["children_impurity"] - 0.163) <= 0.0005 + 1e-12  # the course rounds 0.1625 half up
    assert row["kind"] == "multiway" and row["left_levels"] == ("Family", "Luxury", "Sports")
    assert multi.node_count_ == 4 and multi.nodes_.loc[0, "children"] == (1, 2, 3)
    assert multi.nodes_.loc[[1, 2, 3], "n"].tolist() == [4, 8, 8]
    assert_allclose(multi.predict_proba(pd.DataFrame({"CarType": ["Family", "Luxury", "Sports"]})),
                    [[1 / 4, 3 / 4], [1 / 8, 7 / 8], [1, 0]], **EXACT)
    assert "|--- CarType = Sports" in multi.export_text()
    # an unseen level follows the largest child (Luxury and Sports tie at 8: the first, Luxury)
    assert_allclose(multi.predict_proba(pd.DataFrame({"CarType": ["Van"]})), [[1 / 8, 7 / 8]], **EXACT)
    # the two-way split of the course: {Sports} against {Family, Luxury}, Gini 0.167
    binary = DecisionTree(max_depth=1).fit(X, y)
    b = binary.split_trace_.iloc[0]
    assert b["left_levels"] == ("Sports",) or set(b["left_levels"]) == {"Family", "Luxury"}
    assert abs(b["children_impurity"] - 0.167) <= 0.0005


def test_multiway_split_competes_with_numeric_splits_and_recurses():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abc"), n)), "x": rng.uniform(size=n)})
    y = np.where(X.c == "a", X.x > 0.5, X.c == "b").astype(int)
    tree = DecisionTree(categorical_split="multiway", max_depth=2).fit(X, y)
    tr = tree.split_trace_
    assert tr.iloc[0]["feature"] == "c" and tr.iloc[0]["kind"] == "multiway"
    assert tr.iloc[1]["feature"] == "x"  # inside branch a
    assert tree.score(X, y) == 1.0
    assert (tr["feature"] == "c").sum() == 1  # one level per branch: c is never split again
