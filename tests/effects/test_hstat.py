"""H-statistic: theory, a brute-force check of the formulas, invariances and the error table."""
import itertools

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik


def additive(Z):
    Z = np.asarray(Z, dtype=float)
    return np.sin(3 * Z[:, 0]) + Z[:, 1] ** 2 - 2 * Z[:, 2]


def inter(Z):
    Z = np.asarray(Z, dtype=float)
    return Z[:, 0] * Z[:, 1] + Z[:, 2]


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).uniform(-1, 1, size=(600, 3))


def test_additive_model_has_no_interaction(X):
    h = ik.h_statistic(additive, X, n_samples=200, pairs="all", random_state=0)
    assert_allclose(h.overall, 0, atol=1e-10)
    assert_allclose(h.pairwise["h2"], 0, atol=1e-10)


def test_product_has_clear_interaction(X):
    h = ik.h_statistic(inter, X, n_samples=400, pairs="all", random_state=1)
    # Theory for independent U(-1,1): H_0² = H_1² = Var(x0 x1) / Var(f) = (1/9) / (1/9 + 1/3) = 0.25,
    # H_01² = 1 and x2 interacts with nothing. Sampling error of the moments at n = 400 is a few %.
    assert_allclose(h.overall, [0.25, 0.25, 0.0], atol=0.06)
    table = h.pairwise.set_index(["feature_1", "feature_2"])["h2"]
    assert table[("x0", "x1")] > 0.9
    assert_allclose(table[("x0", "x2")], 0, atol=1e-10)


def _brute(f, X):
    """Friedman & Popescu's formulas evaluated with explicit loops over the rows."""
    n, p = X.shape

    def pd_fn(S, x_s):
        Z = X.copy()
        Z[:, S] = x_s
        return f(Z).mean()

    fx = f(X)
    def c(v):
        return v - v.mean()
    pds = {j: c(np.array([pd_fn([j], X[i, j]) for i in range(n)])) for j in range(p)}
    overall = []
    for j in range(p):
        rest = [k for k in range(p) if k != j]
        pd_rest = c(np.array([pd_fn(rest, X[i, rest]) for i in range(n)]))
        overall.append(np.sum((c(fx) - pds[j] - pd_rest) ** 2) / np.sum(c(fx) ** 2))
    pair = {}
    for j, k in itertools.combinations(range(p), 2):
        pjk = c(np.array([pd_fn([j, k], X[i, [j, k]]) for i in range(n)]))
        pair[(j, k)] = np.sum((pjk - pds[j] - pds[k]) ** 2) / np.sum(pjk ** 2)
    return np.array(overall), pair


def test_equals_brute_force_formulas():
    rng = np.random.default_rng(5)
    Xs = rng.normal(size=(25, 3))
    Xs[:5, 0] = Xs[5:10, 0]  # ties in x0: the distinct-value shortcut must not change anything
    def f(Z):
        return np.tanh(Z[:, 0] * Z[:, 1]) + Z[:, 2] ** 2 * Z[:, 0]
    overall, pair = _brute(f, Xs)
    h = ik.h_statistic(f, Xs, n_samples=25, pairs="all", random_state=0)
    assert_allclose(h.overall, overall, rtol=1e-10)
    table = h.pairwise.set_index(["feature_1", "feature_2"])["h2"]
    for (j, k), v in pair.items():
        assert_allclose(table[(f"x{j}", f"x{k}")], v, rtol=1e-10)


@pytest.mark.slow
def test_invariances(X):
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    a = ik.h_statistic(inter, X, n_samples=80, random_state=3, n_jobs=1)
    b = ik.h_statistic(inter, X, n_samples=80, random_state=3, n_jobs=2)
    c = ik.h_statistic(lambda Z: inter(Z.to_numpy()), df, n_samples=80, random_state=3)
    assert_allclose(a.overall, b.overall)
    assert_allclose(a.pairwise["h2"], b.pairwise["h2"])
    assert_allclose(a.overall, c.overall)
    assert list(c.to_frame().index) == ["a", "b", "c"]


def test_pairs_selection_and_categoricals():
    rng = np.random.default_rng(7)
    n = 200
    X = pd.DataFrame({"g": pd.Categorical(rng.choice(["a", "b"], n)), "u": rng.uniform(size=n),
                      "v": rng.uniform(size=n), "w": rng.uniform(size=n)})
    def f(Z):
        return np.where(Z["g"].astype(object) == "a", 1.0, -1.0) * Z["u"].to_numpy() + Z["v"].to_numpy()
    h = ik.h_statistic(f, X, n_samples=100, n_top=2, random_state=0)
    assert len(h.pairwise) == 1 and set(h.pairwise.loc[0, ["feature_1", "feature_2"]]) == {"g", "u"}
    # s·u with s = ±1 (mean ~0) and u ~ U(0, 1): the pure interaction s·(u − 1/2) has variance
    # 1/12 against Var(s·u) = 1/3, so H² = 0.25 (sampling error of n = 100 rows: a few %).
    assert_allclose(h.pairwise.loc[0, "h2"], 0.25, atol=0.08)
    listed = ik.h_statistic(f, X, features=["v"], pairs=[("v", "w")], n_samples=50, random_state=0)
    assert listed.feature_names == ("v",) and len(listed.pairwise) == 1
    none = ik.h_statistic(f, X, pairs=None, n_samples=50, random_state=0)
    assert none.pairwise.empty
    assert len(h.to_frame("pairwise")) == 1
    assert len(h.plot().patches) == 4  # one bar per feature
    assert [t.get_text() for t in h.plot("pairwise").get_yticklabels()] == ["g × u"]


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(features=["zz"]), ValueError, "Unknown feature 'zz'"),
    (dict(n_samples=1), ValueError, "'n_samples' must be an int >= 2; got 1"),
    (dict(n_top=1), ValueError, "'n_top' must be an int >= 2"),
    (dict(pairs="some"), ValueError, "'pairs' must be 'top', 'all', None or a list"),
    (dict(pairs=[("x0",)]), ValueError, "'pairs' must be 'top', 'all', None or a list"),
    (dict(pairs=[("x0", "x0")]), ValueError, "two different features"),
    (dict(n_jobs=0), ValueError, "'n_jobs' must be None, -1 or an int >= 1"),
])
def test_errors(X, kwargs, err, match):
    with pytest.raises(err, match=match):
        ik.h_statistic(inter, X, **kwargs)


def test_result_to_frame_kind_error(X):
    h = ik.h_statistic(inter, X, n_samples=20, pairs=None, random_state=0)
    with pytest.raises(ValueError, match="'kind' must be one of 'overall', 'pairwise'"):
        h.to_frame("both")
