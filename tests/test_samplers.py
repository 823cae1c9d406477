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
    assert (drawn >= 0).all()


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
    assert isinstance(make_sampler("auto", mixed), SubgroupSampler)
    assert isinstance(make_sampler("auto", mixed[["x", "z"]]), GaussianSampler)


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
