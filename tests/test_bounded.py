"""Bounded cost and memory by default (issue 14, item 3).

Each change is checked two ways: the numbers equal what the unbounded computation gives (a
direct reference, written out here), and the large intermediate is no longer built (its
size is asserted through tracemalloc or by spying on the function that built it).
"""
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit import _model
from imlkit._dependence import dependence_r2

# --------------------------------------------------------------------------- PFI blocks

@pytest.fixture(scope="module")
def reg_data():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.uniform(size=n),
                      "g": pd.Categorical(rng.choice(list("pqr"), n))})
    y = 2 * X.a - X.b + (X.g == "p") + 0.1 * rng.normal(size=n)
    return X, y.to_numpy()


def _spy_stack(monkeypatch):
    """Record the rows of every frame PFI hands to the model (the stacked copies it built)."""
    sizes = []
    real = _model.Predictor.predict

    def spy(self, X, *args, **kwargs):
        sizes.append(len(X))
        return real(self, X, *args, **kwargs)

    monkeypatch.setattr(_model.Predictor, "predict", spy)
    return sizes


def test_pfi_identical_for_any_max_rows(reg_data, monkeypatch):
    X, y = reg_data
    n = len(X)

    def f(Z):  # a non-linear callable: always the stacked-predict path
        return np.sin(2 * Z["a"].to_numpy()) * Z["b"].to_numpy() + Z["c"].to_numpy() ** 2 + (Z["g"] == "p")

    features = {"a": ["a"], "b": ["b"], "c": ["c"], "g": ["g"], "ab": ["a", "b"]}
    sizes = _spy_stack(monkeypatch)
    ref = ik.pfi(f, X, y, features=features, n_repeats=7, random_state=3)
    assert max(sizes) == 7 * n * 5            # unbounded: all features in one call
    for max_rows in [7 * n, 3 * n + 1, n // 2]:
        sizes.clear()
        r = ik.pfi(f, X, y, features=features, n_repeats=7, random_state=3, max_rows=max_rows)
        assert max(sizes) <= max(max_rows, n), (max_rows, max(sizes))
        assert_allclose(r.repeats, ref.repeats, rtol=1e-12, atol=0)
        assert_allclose(r.observation_importance, ref.observation_importance, rtol=1e-12, atol=1e-15)
        assert r.info["n_rows"] == n


def test_pfi_blocks_tree_engine_group_and_classifier(reg_data):
    X, y = reg_data
    Xn = X.assign(g=X.g.cat.codes)
    yc = (y > np.median(y)).astype(int)
    rf = RandomForestClassifier(n_estimators=20, max_depth=4, random_state=0).fit(Xn, yc)
    feats = {"a": ["a"], "ab": ["a", "b"]}
    for loss in ["log_loss", "roc_auc"]:
        ref = ik.pfi(rf, Xn, yc, features=feats, n_repeats=5, loss=loss, random_state=1, engine="trees")
        assert ref.info["engine"] == "trees"
        small = ik.pfi(rf, Xn, yc, features=feats, n_repeats=5, loss=loss, random_state=1, engine="trees",
                       max_rows=2 * len(X))
        brute = ik.pfi(rf, Xn, yc, features=feats, n_repeats=5, loss=loss, random_state=1, engine="predict",
                       max_rows=len(X))
        assert_allclose(small.repeats, ref.repeats, rtol=1e-10)
        if loss == "log_loss":  # AUC ranks tied probabilities, which agree only to ~1e-12
            assert_allclose(brute.repeats, ref.repeats, rtol=1e-10)


# --------------------------------------------------------------------------- dependence R²

def _dense_r2(X):
    """The definition: least squares of each numeric column on the others, dummies drop_first."""
    Z = pd.get_dummies(X, drop_first=True, dtype=float)
    out = {}
    for c in X.columns:
        if isinstance(X[c].dtype, pd.CategoricalDtype) or X[c].dtype.kind not in "biuf" or X[c].std() == 0:
            continue
        rest = Z.drop(columns=c)
        out[c] = LinearRegression().fit(rest, Z[c]).score(rest, Z[c])
    return pd.Series(out)


def test_dependence_r2_equals_dense_least_squares():
    rng = np.random.default_rng(1)
    n = 1500
    g1 = rng.integers(0, 40, n)
    eff = rng.normal(size=40)
    X = pd.DataFrame({"x": eff[g1] + 0.5 * rng.normal(size=n), "y": rng.normal(size=n),
                      "z": rng.normal(size=n), "g1": pd.Categorical(g1),
                      "g2": (g1 // 3 + rng.integers(0, 3, n)).astype(str),   # correlated with g1
                      "g3": pd.Categorical(g1 // 8),                         # nested in g1
                      "flag": rng.random(n) < 0.3})
    X["w"] = 0.5 * X.y + X.z + rng.normal(size=n)
    r2 = dependence_r2(X)
    expected = _dense_r2(X)
    assert_allclose(r2[expected.index], expected, rtol=1e-8, atol=1e-10)
    assert r2[["g1", "g2", "g3"]].isna().all()
    # Fully explained by a categorical: R² = 1.
    X2 = X.assign(m=eff[g1])
    assert_allclose(dependence_r2(X2)["m"], 1.0)


@pytest.mark.parametrize("loader", ["grunfeld", "fair"])
def test_dependence_r2_matches_on_statsmodels_data(loader):
    import statsmodels.api as sm

    X = getattr(sm.datasets, loader).load_pandas().data
    r2 = dependence_r2(X)
    expected = _dense_r2(X)
    assert_allclose(r2[expected.index], expected, rtol=1e-7, atol=1e-9)


def test_dependence_r2_many_levels_without_dummies(monkeypatch):
    rng = np.random.default_rng(2)
    n, L = 20_000, 400
    g = rng.integers(0, L, n)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "g": pd.Categorical(g)})
    X["d"] = X.a + rng.normal(size=L)[g] + 0.1 * rng.normal(size=n)

    def no_dummies(*args, **kwargs):
        raise AssertionError("dependence_r2 must not build dummies")

    monkeypatch.setattr(pd, "get_dummies", no_dummies)
    tracemalloc.start()
    r2 = dependence_r2(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < n * L * 8 / 10, peak              # a tenth of one dense dummy matrix
    # Known answer: d - a is the level effect plus small noise, so d is explained almost fully.
    assert r2["d"] > 0.95 and r2["b"] < 0.05
    monkeypatch.undo()
    # Exact: a within-level regression gives the same R² as the dense fit on a subset.
    sub = X.iloc[:1200].copy()
    sub["g"] = sub["g"].cat.remove_unused_categories()
    assert_allclose(dependence_r2(sub)[["a", "b", "d"]], _dense_r2(sub)[["a", "b", "d"]], rtol=1e-8)


# --------------------------------------------------------------------------- REPID nominal splits

def _nominal_split_onehot(C, codes, min_node_size):
    """The former dense implementation: an n × L one-hot matrix times the curves."""
    n = len(codes)
    if n < 2 * min_node_size:
        return None
    codes = codes.astype(int)
    L = int(codes.max()) + 1
    Cc = C - C.mean(axis=0)
    T = float(np.einsum("ij,ij->", Cc, Cc))
    onehot = np.zeros((n, L))
    onehot[np.arange(n), codes] = 1.0
    S = onehot.T @ Cc
    nl = onehot.sum(axis=0)
    ok = (nl >= min_node_size) & (n - nl >= min_node_size)
    if not ok.any():
        return None
    s2 = np.einsum("ij,ij->i", S, S)
    gain = s2 / np.maximum(nl, 1) + s2 / np.maximum(n - nl, 1)
    gain[~ok] = -np.inf
    k = int(np.argmax(gain))
    return max(T - float(gain[k]), 0.0), k


def test_nominal_split_equals_onehot_version():
    from imlkit.effects._repid import best_nominal_split

    rng = np.random.default_rng(3)
    for n, m, L, mns in [(200, 5, 4, 10), (1000, 20, 60, 5), (500, 8, 300, 1), (90, 3, 3, 40)]:
        codes = rng.integers(0, L, n).astype(float)
        C = rng.normal(size=(n, m)) + (codes[:, None] == 1) * np.linspace(-1, 1, m)
        got, ref = best_nominal_split(C, codes, mns), _nominal_split_onehot(C, codes, mns)
        if ref is None:
            assert got is None
            continue
        assert got[1] == ref[1]
        assert_allclose(got[0], ref[0], rtol=1e-10)


def test_nominal_split_memory_is_per_level_not_per_row_and_level():
    from imlkit.effects._repid import best_nominal_split

    rng = np.random.default_rng(4)
    n, m, L = 40_000, 20, 2000
    codes = rng.integers(0, L, n).astype(float)
    C = rng.normal(size=(n, m))
    tracemalloc.start()
    best_nominal_split(C, codes, 5)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < n * L * 8 / 20, peak        # the one-hot alone would be n·L·8 = 640 MB
    assert peak < 3 * C.nbytes + 4 * L * m * 8


def test_repid_identical_splits_on_regional_data():
    X, _ = ik.datasets.make_regional(900, random_state=2)
    X = X.assign(colour=np.array(["red", "green", "blue"])[np.arange(len(X)) % 3])

    def f(Z):  # the effect of x2 differs most between green and the other colours, then by x1's sign
        x1, x2 = Z["x1"].to_numpy(), Z["x2"].to_numpy()
        return 16 * x2 * (Z["colour"] == "green").to_numpy() + 8 * x2 * (x1 > 0)

    r = ik.repid(f, X, "x2", max_depth=2)
    root = r.tree[0]
    assert (root.feature, root.kind, root.level) == ("colour", "nominal", "green")
    assert r.tree[2].feature == "x1" and abs(r.tree[2].threshold) < 0.05
    assert r.info["n_rows"] == len(X) and root.n == len(X)


# --------------------------------------------------------------------------- ALE level order

def _order_reference(X, name, levels):
    """Pairwise KS statistics from scipy, frequency differences, classical MDS."""
    from scipy.stats import ks_2samp

    L = len(levels)
    codes = pd.Index(levels.tolist()).get_indexer(X[name].astype(object).tolist())
    D = np.zeros((L, L))
    for col in X.columns.drop(name):
        s = X[col]
        if s.dtype.kind in "fi":
            v = s.to_numpy(float)
            for a in range(L):
                for b in range(a + 1, L):
                    va, vb = v[(codes == a) & np.isfinite(v)], v[(codes == b) & np.isfinite(v)]
                    if len(va) and len(vb):
                        ks = ks_2samp(va, vb).statistic
                        D[a, b] += ks
                        D[b, a] += ks
        else:
            tab = pd.crosstab(codes, s.astype(object).fillna("NaN")).to_numpy(float)
            tab = tab / tab.sum(axis=1, keepdims=True)
            D += np.abs(tab[:, None] - tab[None]).sum(axis=2)
    J = np.eye(L) - 1.0 / L
    coord = np.linalg.eigh(-0.5 * J @ D ** 2 @ J)[1][:, -1]
    coord = -coord if coord[-1] < coord[0] else coord
    return np.argsort(coord, kind="stable"), D


def test_ale_level_order_equals_pairwise_reference():
    from imlkit.effects._ale import _ks_matrix, order_levels
    from imlkit.effects._grid import observed_levels

    rng = np.random.default_rng(5)
    for L, n in [(4, 150), (9, 500), (25, 1200)]:
        g = rng.integers(0, L, n)
        X = pd.DataFrame({"g": np.array([f"l{i:02d}" for i in range(L)])[g],
                          "x": rng.normal(size=n) + 0.2 * g, "r": np.round(2 * rng.normal(size=n)) + g % 3,
                          "c": rng.choice(list("abc"), n)})
        X.loc[rng.random(n) < 0.05, "x"] = np.nan
        X.loc[rng.random(n) < 0.05, "c"] = None
        levels = observed_levels(X["g"])
        ref_order, ref_D = _order_reference(X, "g", levels)
        assert_allclose(_ks_matrix(X["x"].to_numpy(), g, L) + _ks_matrix(X["r"].to_numpy(float), g, L),
                        ref_D - _order_reference(X[["g", "c"]], "g", levels)[1], atol=1e-12)
        np.testing.assert_array_equal(order_levels(X, "g", levels), ref_order)


# --------------------------------------------------------------------------- row caps, rows used

def test_ice_pd_repid_default_row_cap():
    from imlkit.effects._ice import DEFAULT_N_SAMPLES

    n = DEFAULT_N_SAMPLES + 700
    X, _ = ik.datasets.make_regional(n, random_state=0)
    f = ik.datasets.regional_function
    e = ik.ice(f, X, "x2", grid=5, random_state=1)
    assert e.individual.shape[0] == DEFAULT_N_SAMPLES == e.info["n_rows"]
    same = ik.ice(f, X, "x2", grid=5, n_samples=DEFAULT_N_SAMPLES, random_state=1)
    np.testing.assert_array_equal(e.extra["row_index"], same.extra["row_index"])
    assert_allclose(e.individual, same.individual)
    full = ik.partial_dependence(f, X, "x2", grid=5, n_samples=n)
    assert full.info["n_rows"] == n
    pd_capped = ik.partial_dependence(f, X, "x2", grid=5, random_state=1)
    assert pd_capped.info["n_rows"] == DEFAULT_N_SAMPLES
    assert_allclose(pd_capped.average, e.average)            # the same rows
    r = ik.repid(f, X, "x2", grid=5, max_depth=1, random_state=1)
    assert r.info["n_rows"] == DEFAULT_N_SAMPLES == r.tree[0].n
    r_all = ik.repid(f, X, "x2", grid=5, max_depth=1, n_samples=n)
    assert r_all.tree[0].n == n and r_all.tree[0].feature == r.tree[0].feature == "x3"
    # Small data: every row, no randomness involved.
    small = X.iloc[:500]
    assert ik.ice(f, small, "x2", grid=5).info["n_rows"] == 500


def test_every_result_records_rows_used(reg_data):
    X, y = reg_data
    Xn = X.assign(g=X.g.cat.codes)
    lin = LinearRegression().fit(Xn, y)
    assert ik.pfi(lin, Xn, y, n_repeats=2, random_state=0).info["n_rows"] == len(X)
    assert ik.ale(lin, Xn, "a", bins=5).info["n_rows"] == len(X)
    s = ik.sage(lin, Xn, y, n_background=16, max_permutations=64, random_state=0)
    assert s.info["n_rows"] == len(X)
    from imlkit.importance._sage import DEFAULT_PERMUTATION_CAP
    assert DEFAULT_PERMUTATION_CAP == 10_000


def test_dependence_r2_exact_dependence_among_many_columns():
    # An exact copy and an exact sum among 40 columns: R² = 1 for those in the dependence, the
    # dense least-squares value for every other column (one eigendecomposition serves all).
    rng = np.random.default_rng(3)
    n = 400
    X = pd.DataFrame(rng.normal(size=(n, 37)), columns=[f"x{j}" for j in range(37)])
    X["copy"] = X.x0
    X["sum"] = X.x1 + 2 * X.x2
    X["near"] = X.x3 + 0.05 * rng.normal(size=n)
    r2 = dependence_r2(X)
    expected = _dense_r2(X)
    assert_allclose(r2[expected.index], expected, rtol=1e-8, atol=1e-10)
    assert_allclose(r2[["x0", "copy", "x1", "x2", "sum"]], 1.0)
    assert r2.attrs["ridge"] == 0.0


def test_dependence_r2_ridge_when_columns_reach_the_rows():
    # p >= n: every exact R² would be 1. The ridge value is 1 - min_w ||z_k - Z w||² + λ||w||²
    # on the correlation scale (columns centred, unit norm), checked column by column.
    from imlkit._dependence import RIDGE

    rng = np.random.default_rng(4)
    n, p = 30, 60
    X = pd.DataFrame(rng.normal(size=(n, p)) + rng.normal(size=(n, 1)), columns=[f"g{j}" for j in range(p)])
    r2 = dependence_r2(X)
    assert r2.attrs["ridge"] == RIDGE
    Z = X - X.mean()
    Z = Z / np.sqrt((Z ** 2).sum())
    for k in ["g0", "g17", "g59"]:
        A = Z.drop(columns=k).to_numpy()
        z = Z[k].to_numpy()
        w = np.linalg.solve(A.T @ A + RIDGE * np.eye(p - 1), A.T @ z)
        value = np.sum((z - A @ w) ** 2) + RIDGE * np.sum(w ** 2)
        assert_allclose(r2[k], 1 - value, rtol=1e-9)
    assert (r2 < 1).all()


def test_dependence_r2_wide_table_is_one_factorisation():
    # 63 rows x 2,000 columns (a gene-expression shape): one eigendecomposition, seconds, not
    # one pseudo-inverse per column (which took minutes).
    import time

    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(63, 2000)), columns=[f"g{j}" for j in range(2000)])
    start = time.perf_counter()
    r2 = dependence_r2(X)
    assert time.perf_counter() - start < 30
    assert r2.notna().all() and r2.attrs["ridge"] > 0
