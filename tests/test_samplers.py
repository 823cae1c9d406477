"""Samplers: what each one keeps fixed, and its conditional distribution."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

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
