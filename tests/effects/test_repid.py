"""REPID: the course's simulated example, the split search against brute force, errors."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import imlkit as ik
from imlkit.effects._repid import best_nominal_split, best_numeric_split, node_risk


@pytest.fixture(scope="module")
def regional():
    X, _ = ik.datasets.make_regional(1500, random_state=11)
    return X, ik.repid(ik.datasets.regional_function, X, "x2", max_depth=2)


def test_make_regional_splits_x3_then_x1(regional):
    X, r = regional
    root = r.tree[0]
    assert root.feature == "x3" and root.threshold == 0.5
    children = [nd for nd in r.tree if nd.parent == 0]
    assert len(children) == 2
    for nd in children:
        assert nd.feature == "x1"
        # x1 ~ U(-1, 1): the true change point is 0; the midpoint between neighbouring
        # sampled values is within the largest gap of 1,500 uniform draws (< 0.02).
        assert abs(nd.threshold) < 0.02
    # four leaves whose c-ICE curves are identical lines: no heterogeneity left
    assert len(r.regions) == 4
    assert_allclose([reg.heterogeneity for reg in r.regions], 0, atol=1e-12)


def test_interaction_scores_rank_x3_then_x1(regional):
    _, r = regional
    s = r.interaction_scores
    assert list(s.index[:2]) == ["x3", "x1"]
    assert_allclose(s[["x4", "x5", "x6"]], 0)
    # the tree explains all of the heterogeneity (the leaves have zero risk)
    assert_allclose(s.sum(), 1.0, rtol=1e-10)
    # slopes of x2 by region are -8 + 8·1(x1 > 0) + 16·1(x3 = 0): intImp of the x3 split is the
    # share of the slope variance explained by x3: Var(16·1(x3=0)) / Var(slope) = 64 / 80.
    assert_allclose(s["x3"], 0.8, atol=0.03)


def test_regions_hold_regional_pd_and_apply_is_consistent(regional):
    X, r = regional
    F = ik.ice(ik.datasets.regional_function, X, "x2", grid=r.grid).individual
    ids = r.apply(X)
    for reg in r.regions:
        rows = ids == reg.id
        assert rows.sum() == reg.n
        assert_allclose(reg.average, F[rows].mean(axis=0))
        C = F[rows] - F[rows].mean(axis=1, keepdims=True)
        assert_allclose(reg.risk, node_risk(C), atol=1e-8)
    assert_allclose(r.average, F.mean(axis=0))
    # new data: a row with x3 = 1 and x1 > 0 has slope 0
    new = pd.DataFrame({"x1": [0.5], "x2": [0.0], "x3": [1.0], "x4": [0.0], "x5": [0.0], "x6": [0.0]})
    reg = r.regions[r.apply(new)[0]]
    assert_allclose(np.ptp(reg.average), 0, atol=1e-10)
    assert set(r.to_frame().columns) == {"rule", "n", "risk", "heterogeneity"}
    assert "x3" in r.tree_text()
    assert len(r.plot().lines) == len(r.regions) + 1  # the regions and the global PD


def test_random_forest_on_make_regional():
    # the course's setting: a random forest fitted to the noisy data, not the true function
    from sklearn.ensemble import RandomForestRegressor

    X, y = ik.datasets.make_regional(1000, random_state=5)
    rf = RandomForestRegressor(n_estimators=30, min_samples_leaf=5, random_state=0).fit(X, y)
    r = ik.repid(rf, X, "x2", max_depth=2, grid=10)
    assert r.tree[0].feature == "x3"
    for nd in r.tree[1:3]:
        # the forest learns the change point only up to its split resolution: within 0.05 of 0
        assert nd.feature == "x1" and abs(nd.threshold) < 0.05
    assert list(r.interaction_scores.index[:2]) == ["x3", "x1"]
    # the same shares as the truth (0.8 and 0.2) within the forest's estimation error
    assert_allclose(r.interaction_scores[["x3", "x1"]], [0.8, 0.2], atol=0.05)
    assert_allclose(r.interaction_scores[["x4", "x5", "x6"]], 0)


def test_min_improvement_and_stopping_rules():
    X, _ = ik.datasets.make_regional(600, random_state=2)
    f = ik.datasets.regional_function
    assert len(ik.repid(f, X, "x2", min_improvement=0.9).regions) == 1  # root intImp ≈ 0.8 < 0.9
    r1 = ik.repid(f, X, "x2", max_depth=1)
    assert len(r1.regions) == 2 and max(nd.depth for nd in r1.tree) == 1
    big = ik.repid(f, X, "x2", min_node_size=250)
    assert all(reg.n >= 250 for reg in big.regions)
    none = ik.repid(f, X, "x2", min_node_size=301)  # fewer than 2 × 301 rows: no split
    assert len(none.regions) == 1 and none.regions[0].rule == "all"
    # a deeper split needs γ × its parent's intImp: γ = 0.2 keeps the root (0.8) but drops
    # the x1 splits (intImp ≈ 0.1 < 0.2 × 0.8)
    r = ik.repid(f, X, "x2", min_improvement=0.2)
    assert len(r.regions) == 2 and r.tree[0].feature == "x3"


def test_categorical_split_features():
    rng = np.random.default_rng(4)
    n = 600
    X = pd.DataFrame({"x": rng.uniform(-1, 1, n),
                      "col": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
                      "size": pd.Categorical(rng.choice(["S", "M", "L"], n), categories=["S", "M", "L"],
                                             ordered=True)})

    def f(Z):
        slope = np.where(Z["col"].astype(object) == "green", 3.0, -1.0)
        return slope * Z["x"].to_numpy()

    r = ik.repid(f, X, "x", max_depth=1)
    assert r.tree[0].kind == "nominal" and r.tree[0].level == "green"
    assert r.regions[0].rule == "col == 'green'"
    assert_allclose(r.interaction_scores["col"], 1.0)

    def g(Z):
        return np.where(Z["size"].astype(object) == "S", 2.0, 0.0) * Z["x"].to_numpy()

    r = ik.repid(g, X, "x", max_depth=1)
    assert r.tree[0].kind == "ordinal" and r.regions[0].rule == "size <= 'S'"
    assert r.regions[1].rule == "size >= 'M'"
    assert (r.apply(X) == np.where(X["size"] == "S", 0, 1)).all()


def _brute_numeric(C, z, min_node_size):
    vals = np.unique(z)
    best = None
    for a, b in zip(vals[:-1], vals[1:]):
        t = (a + b) / 2
        left = z <= t
        if left.sum() < min_node_size or (~left).sum() < min_node_size:
            continue
        risk = node_risk(C[left]) + node_risk(C[~left])
        if best is None or risk < best[0]:
            best = (risk, t)
    return best


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 40), m=st.integers(1, 5), levels=st.integers(1, 12), min_node_size=st.integers(1, 8),
       seed=st.integers(0, 2**32 - 1))
def test_prefix_sum_split_equals_brute_force(n, m, levels, min_node_size, seed):
    rng = np.random.default_rng(seed)
    C = rng.normal(size=(n, m)) * rng.uniform(0.1, 10)
    z = rng.integers(0, levels, n).astype(float)  # few levels: many ties
    fast = best_numeric_split(C, z, min_node_size)
    slow = _brute_numeric(C, z, min_node_size)
    if slow is None:
        assert fast is None
        return
    # float sums in a different order: agree to 1e-9 of the node's total sum of squares
    tol = 1e-9 * (1 + np.sum(C ** 2))
    assert_allclose(fast[0], slow[0], atol=tol)
    left = z <= fast[1]
    assert left.sum() >= min_node_size and (~left).sum() >= min_node_size
    assert_allclose(node_risk(C[left]) + node_risk(C[~left]), slow[0], atol=tol)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 40), m=st.integers(1, 4), levels=st.integers(1, 6), min_node_size=st.integers(1, 8),
       seed=st.integers(0, 2**32 - 1))
def test_nominal_split_equals_brute_force(n, m, levels, min_node_size, seed):
    rng = np.random.default_rng(seed)
    C = rng.normal(size=(n, m))
    codes = rng.integers(0, levels, n)
    fast = best_nominal_split(C, codes.astype(float), min_node_size)
    best = None
    for lv in np.unique(codes):
        left = codes == lv
        if left.sum() < min_node_size or (~left).sum() < min_node_size:
            continue
        risk = node_risk(C[left]) + node_risk(C[~left])
        best = risk if best is None else min(best, risk)
    if best is None:
        assert fast is None
        return
    assert_allclose(fast[0], best, atol=1e-9 * (1 + np.sum(C ** 2)))


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(feature="nope"), ValueError, "Unknown feature 'nope'"),
    (dict(feature="x2", grid=1), ValueError, "'grid' must be an int >= 2; got 1"),
    (dict(feature="x2", min_node_size=0), ValueError, "'min_node_size' must be an int >= 1; got 0"),
    (dict(feature="x2", max_depth=0), ValueError, "'max_depth' must be an int >= 1; got 0"),
    (dict(feature="x2", min_improvement=-0.1), ValueError, "'min_improvement' must be a number >= 0.0"),
    (dict(feature="const"), ValueError, "Feature 'const' is constant"),
    (dict(feature="x2", split_features=["x2"]), ValueError, "must not contain the feature 'x2'"),
    (dict(feature="x2", split_features=["zz"]), ValueError, "Unknown feature 'zz' in 'split_features'"),
])
def test_errors(kwargs, err, match):
    X, _ = ik.datasets.make_regional(100, random_state=0)
    X = X.assign(const=1.0)
    with pytest.raises(err, match=match):
        ik.repid(lambda Z: ik.datasets.regional_function(Z), X, **kwargs)


def test_array_equals_dataframe_and_apply_errors():
    X, _ = ik.datasets.make_regional(400, random_state=8)
    f = ik.datasets.regional_function
    a = ik.repid(f, X, "x2", max_depth=2)
    arr = X.to_numpy()
    b = ik.repid(lambda Z: f(pd.DataFrame(Z, columns=X.columns)), arr, 1, max_depth=2)
    assert [nd.threshold for nd in a.tree] == [nd.threshold for nd in b.tree]
    assert_allclose(a.interaction_scores.to_numpy(), b.interaction_scores.to_numpy())
    assert (a.apply(X) == b.apply(arr)).all()
    with pytest.raises(ValueError, match=r"lacks the split feature\(s\) \['x3'\]"):
        a.apply(X.drop(columns="x3"))
