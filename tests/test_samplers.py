"""Samplers: what each one keeps fixed, and its conditional distribution."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from imlkit.samplers import (
    ConditionalPermutationSampler,
    GaussianSampler,
    MarginalSampler,
    SubgroupSampler,
    make_sampler,
)


@pytest.fixture
def mixed():
    rng = np.random.default_rng(0)
    n = 600
    g = rng.choice(["a", "b", "c"], n)
    x = rng.normal(size=n) + (g == "b") * 5.0
    return pd.DataFrame({"g": pd.Categorical(g), "x": x, "z": rng.uniform(size=n)})


def test_marginal_keeps_column_multiset(mixed):
    s = MarginalSampler().fit(mixed)
    out = s.sample(mixed, ["x", "z"], n_samples=3, rng=1)
    assert out.shape == (3 * len(mixed), 2)
    for r in range(3):
        block = out.iloc[r * len(mixed):(r + 1) * len(mixed)]
        assert_allclose(np.sort(block["x"]), np.sort(mixed["x"]))
        # a joint permutation: the (x, z) pairs are rows of the original
        pairs = set(zip(block["x"], block["z"]))
        assert pairs == set(zip(mixed["x"], mixed["z"]))
    assert not np.array_equal(out["x"].to_numpy()[:len(mixed)], mixed["x"].to_numpy())


def test_conditional_permutation_keeps_each_groups_multiset(mixed):
    s = ConditionalPermutationSampler(conditioning=["g"]).fit(mixed)
    out = s.sample(mixed, "x", n_samples=2, rng=0)
    for r in range(2):
        block = out["x"].to_numpy()[r * len(mixed):(r + 1) * len(mixed)]
        for level in ["a", "b", "c"]:
            mask = (mixed["g"] == level).to_numpy()
            assert_allclose(np.sort(block[mask]), np.sort(mixed["x"].to_numpy()[mask]))


def test_conditional_permutation_numeric_bins_and_new_rows(mixed):
    s = ConditionalPermutationSampler(n_bins=4, conditioning=["x"]).fit(mixed)
    out = s.sample(mixed, "z", rng=0)
    bins = pd.qcut(mixed["x"], 4, labels=False).to_numpy()
    for b in range(4):
        m = bins == b
        assert_allclose(np.sort(out["z"].to_numpy()[m]), np.sort(mixed["z"].to_numpy()[m]))
    # rows that are not the fitted data draw from their group's fitted rows
    new = mixed.iloc[:50].copy()
    new["z"] = -1.0
    drawn = s.sample(new, "z", rng=0)["z"].to_numpy()
    assert np.isin(drawn, mixed["z"].to_numpy()).all()  # fitted values, not the -1 given


def test_subgroup_sampler_respects_dependence(mixed):
    s = SubgroupSampler(max_depth=2).fit(mixed)
    out = s.sample(mixed, "x", n_samples=1, rng=0)["x"].to_numpy()
    # x depends strongly on g: conditional draws keep the g="b" rows high, a permutation would not
    b = (mixed["g"] == "b").to_numpy()
    assert out[b].mean() > 4.0 and out[~b].mean() < 1.0
    marg = MarginalSampler().fit(mixed).sample(mixed, "x", rng=0)["x"].to_numpy()
    assert marg[b].mean() < 3.0


def test_gaussian_sampler_conditional_moments():
    rng = np.random.default_rng(1)
    cov = np.array([[1.0, 0.8], [0.8, 1.0]])
    A = rng.multivariate_normal([0, 0], cov, size=20_000)
    X = pd.DataFrame(A, columns=["a", "b"])
    s = GaussianSampler().fit(X)
    draws = s.sample(X.iloc[:1].assign(b=1.0), "a", n_samples=20_000, rng=2)["a"].to_numpy()
    # a | b = 1 ~ N(0.8, 1 - 0.64): tolerance ~5 standard errors of the mean / of the variance
    assert_allclose(draws.mean(), 0.8, atol=0.02)
    assert_allclose(draws.var(), 0.36, rtol=0.05)


def test_gaussian_sampler_handles_exact_copies():
    rng = np.random.default_rng(2)
    a = rng.normal(size=500)
    X = pd.DataFrame({"a": a, "b": a, "c": rng.normal(size=500)})
    out = GaussianSampler().fit(X).sample(X, "a", rng=0)["a"].to_numpy()
    assert_allclose(out, a, atol=1e-6)  # a is determined by its copy b


def test_make_sampler_auto(mixed):
    # distribution-free default for every data type; Gaussian only when asked for
    assert isinstance(make_sampler("auto", mixed), SubgroupSampler)
    assert isinstance(make_sampler("auto", mixed[["x", "z"]]), SubgroupSampler)
    assert isinstance(make_sampler("gaussian", mixed[["x", "z"]]), GaussianSampler)


def _discrete(n=2000, seed=0):
    """a binary, b integer 0..4, c nominal; s binary depends on (a, b) and c on a."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = rng.binomial(4, 0.5, n)
    s = (rng.uniform(size=n) < np.where((a == 1) & (b >= 2), 0.9, 0.1)).astype(np.int64)
    c = np.where(a == 1, rng.choice(["u", "v"], n), rng.choice(["v", "w"], n))
    return pd.DataFrame({"a": a, "b": b, "s": s, "c": pd.Categorical(c)})


def test_subgroup_draws_only_observed_values_and_keeps_conditional():
    X = _discrete()
    smp = make_sampler("auto", X)
    out = smp.sample(X, ["s", "c"], n_samples=5, rng=0)
    assert out["s"].dtype == X["s"].dtype and set(out["s"].unique()) <= {0, 1}
    assert isinstance(out["c"].dtype, pd.CategoricalDtype) and set(out["c"].unique()) <= {"u", "v", "w"}
    # every joint draw (s, c) is a combination that occurs in the data
    assert set(zip(out["s"], out["c"])) <= set(zip(X["s"], X["c"]))
    # P(s = 1 | a = 1, b >= 2) = 0.9 and 0.1 elsewhere; c never "w" when a = 1.
    # Tolerance: ~5 binomial standard errors on ~4,000 / ~6,000 draws.
    cell = np.tile(((X["a"] == 1) & (X["b"] >= 2)).to_numpy(), 5)
    assert_allclose(out["s"].to_numpy()[cell].mean(), 0.9, atol=0.025)
    assert_allclose(out["s"].to_numpy()[~cell].mean(), 0.1, atol=0.02)
    a1 = np.tile((X["a"] == 1).to_numpy(), 5)
    assert (out["c"].to_numpy()[a1] != "w").all()
    # rows that are not the fitted data (a subset, string column): same leaves, same rules
    Xo = X.assign(c=X["c"].astype(str))
    sub = Xo.iloc[::7].reset_index(drop=True)
    drawn = make_sampler("auto", Xo).sample(sub, "c", n_samples=20, rng=1)["c"].to_numpy()
    assert (drawn[np.tile((sub["a"] == 1).to_numpy(), 20)] != "w").all()


def test_subgroup_tree_cache_changes_nothing():
    X = _discrete(600)
    smp = SubgroupSampler().fit(X)
    first = smp.sample(X.iloc[:50], "s", n_samples=3, rng=4)
    smp.sample(X, ["a", "b"], rng=0)  # fill the cache with another set
    again = smp.sample(X.iloc[:50], "s", n_samples=3, rng=4)
    fresh = SubgroupSampler().fit(X).sample(X.iloc[:50], "s", n_samples=3, rng=4)
    pd.testing.assert_frame_equal(first, again)
    pd.testing.assert_frame_equal(first, fresh)
    with pytest.raises(ValueError, match="'min_samples_leaf' must be an int >= 1"):
        SubgroupSampler(min_samples_leaf=0)


def test_errors(mixed):
    with pytest.raises(ValueError, match="not fitted"):
        MarginalSampler().sample(mixed, "x")
    with pytest.raises(ValueError, match=r"column\(s\) \['g'\] are not numeric"):
        GaussianSampler().fit(mixed)
    with pytest.raises(ValueError, match="Unknown feature 'w'"):
        MarginalSampler().fit(mixed).sample(mixed, "w")
    with pytest.raises(ValueError, match="'n_bins' must be an int >= 2"):
        ConditionalPermutationSampler(n_bins=1)
    with pytest.raises(ValueError, match="must not contain the sampled"):
        ConditionalPermutationSampler(conditioning=["x"]).fit(mixed).sample(mixed, "x")


# ----------------------------------------------------------------------------- the numba CART
def _same_partition(a, b):
    """Two labelings describe the same partition iff their label pairs form a bijection."""
    pairs = set(zip(np.asarray(a).tolist(), np.asarray(b).tolist()))
    return len(pairs) == len(set(np.asarray(a).tolist())) == len(set(np.asarray(b).tolist()))


@pytest.mark.parametrize("n, p, d, depth, leaf, levels", [
    (300, 1, 1, 12, 5, None), (700, 4, 3, 6, 10, None), (1200, 6, 2, 12, 23, None), (500, 3, 8, 3, 40, None),
    (400, 5, 1, 12, 1, None),
    # few distinct values: split from per-node histograms (imlkit._sampler_cart.HIST_MAX_BINS)
    (800, 4, 2, 12, 10, [2, 7, 24, 60]), (1000, 3, 1, 8, 3, [3, 64, 200]), (600, 2, 8, 12, 23, [12, 4])])
def test_cart_grows_scikit_learns_tree(n, p, d, depth, leaf, levels):
    from sklearn.tree import DecisionTreeRegressor

    from imlkit import _sampler_cart as _cart

    # Continuous targets: no two distinct splits of a node tie on the criterion.
    rng = np.random.default_rng(n + p)
    X = rng.normal(size=(n, p)).astype(np.float32)
    if levels is not None:  # integer-valued features (scaled), as counts and level codes are
        X = (rng.integers(0, 10_000, size=(n, p)) % np.array(levels)).astype(np.float32) * np.float32(0.37)
    Y = np.tanh(X[:, :1]) @ np.ones((1, d)) + X[:, -1:] ** 2 + 0.5 * rng.normal(size=(n, d))
    sk = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf, random_state=0).fit(X, Y)
    leaves, tree = _cart.grow(X, _cart.presort(X), np.arange(p), Y, depth, leaf)
    assert _same_partition(sk.apply(X), leaves)
    assert leaves.min() == 0 and leaves.max() == sk.get_n_leaves() - 1
    if leaf > 1:
        # Same nodes in the same (depth-first) order: same split features and thresholds, so
        # new rows (with missing values: to the larger child, as scikit-learn) reach the same leaf.
        # With 1-row leaves two features can cut a 2-row node identically; scikit-learn then
        # picks one at random, so only the partition of the fitted rows is compared.
        assert_array_equal(np.where(sk.tree_.feature < 0, -1, sk.tree_.feature), tree[0])
        split = sk.tree_.feature >= 0
        assert_array_equal(sk.tree_.threshold[split], tree[1][split])
        Xq = rng.normal(size=(400, p)).astype(np.float32) if levels is None else X[rng.integers(0, n, 400)]
        Xq[rng.uniform(size=Xq.shape) < 0.2] = np.nan
        to_cart = dict(zip(sk.apply(X).tolist(), leaves.tolist()))
        assert_array_equal([to_cart[v] for v in sk.apply(Xq).tolist()], _cart.apply(Xq, tree))


def test_cart_known_answer_and_stopping_rules():
    from imlkit import _sampler_cart as _cart

    # y is a step in x0 at 0.5 (x1 is noise): the one split is x0 <= midpoint of 0.4 and 0.6.
    X = np.array([[0.1, 5], [0.2, 3], [0.3, 9], [0.4, 1], [0.6, 2], [0.7, 8], [0.8, 4], [0.9, 7]], np.float32)
    Y = np.array([[0.0], [0.0], [0.0], [0.0], [1.0], [1.0], [1.0], [1.0]])
    leaves, tree = _cart.grow(X, _cart.presort(X), [0, 1], Y, 5, 1)
    assert_array_equal(leaves, [0, 0, 0, 0, 1, 1, 1, 1])  # constant children are leaves
    assert tree[0][0] == 0 and np.isclose(tree[1][0], 0.5)
    # min_samples_leaf 3: no split leaves >= 3 rows on each side of a 5-row node
    assert _cart.grow(X[:5], _cart.presort(X[:5]), [0], Y[:5], 5, 3)[0].max() == 0
    # max_depth 1: one split; a constant feature is never split on
    const = np.column_stack([np.ones(8, np.float32), X[:, 1]])
    leaves, tree = _cart.grow(const, _cart.presort(const), [0, 1], np.arange(8.0)[:, None], 1, 1)
    assert leaves.max() == 1 and tree[0][0] == 1


def _continuous(n=600, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = a + 0.5 * rng.normal(size=n)
    c = np.sin(2 * b) + 0.3 * rng.normal(size=n)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": rng.uniform(size=n)})


def test_subgroup_sampler_numba_tree_equals_sklearn_path():
    # The sampler's numbers are unchanged by the numba tree: same partitions -> same draws.
    X = _continuous()
    new = _continuous(80, seed=1)
    nb = SubgroupSampler().fit(X)
    sk = SubgroupSampler().fit(X)
    sk._numba_tree = False
    rows = np.arange(0, 600, 3)
    for S in (["a"], ["b", "c"], ["a", "d"], ["a", "b", "c"]):
        assert_array_equal(nb.fit_row_indices(rows, S, 4, np.random.default_rng(0)),
                           sk.fit_row_indices(rows, S, 4, np.random.default_rng(0)))
        pd.testing.assert_frame_equal(nb.sample(X, S, n_samples=2, rng=1), sk.sample(X, S, n_samples=2, rng=1))
        pd.testing.assert_frame_equal(nb.sample(new, S, n_samples=2, rng=1), sk.sample(new, S, n_samples=2, rng=1))
    assert isinstance(nb._tree(["a"])[0], tuple) and not isinstance(sk._tree(["a"])[0], tuple)


def test_subgroup_sampler_missing_values_use_sklearns_tree():
    X = _continuous()
    X.loc[::10, "a"] = np.nan
    smp = SubgroupSampler().fit(X)
    assert not isinstance(smp._tree(["c"])[0], tuple)  # conditioning on 'a' (with NaN): scikit-learn
    assert isinstance(smp._tree(["a"])[0], tuple)  # 'a' sampled, the rest complete: numba
    out = smp.sample(X, "c", n_samples=2, rng=0)
    assert out.shape == (1200, 1) and set(out["c"]) <= set(X["c"])


def test_keyword_only_constructors():
    with pytest.raises(TypeError):
        SubgroupSampler(3)
    with pytest.raises(TypeError):
        ConditionalPermutationSampler(4)
