"""Known answers for the feature effects: scikit-learn's partial dependence, PyALE, the closed
forms of a linear model, Friedman & Popescu's H formulas computed by brute force, and
Herbinger et al.'s (2022) REPID simulation.

Tolerances: where the same formula is evaluated on the same numbers (sklearn's brute PD, PyALE on
the same bin edges, the brute-force H) the answer must agree to rounding (1e-10 absolute on
outputs of size ~1-300). Where a population value is compared with a finite-sample estimate
the tolerance is a few standard errors of that estimate (stated at each test).
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik


@pytest.fixture(scope="module")
def diabetes():
    from sklearn.datasets import load_diabetes
    return load_diabetes(return_X_y=True, as_frame=True)


@pytest.fixture(scope="module")
def forest(diabetes):
    from sklearn.ensemble import RandomForestRegressor
    X, y = diabetes
    return RandomForestRegressor(n_estimators=30, min_samples_leaf=5, random_state=0).fit(X, y)


# ----------------------------------------------------------------------------- ICE / PD
@pytest.mark.parametrize("engine", ["predict", "auto"])
@pytest.mark.parametrize("feature", ["bmi", "sex"])
def test_ice_and_pd_equal_sklearn_brute(diabetes, feature, engine):
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.inspection import partial_dependence as sk_pd
    X, y = diabetes
    m = GradientBoostingRegressor(n_estimators=40, random_state=0).fit(X, y)
    grid = np.unique(X[feature])[::3]
    ref = sk_pd(m, X, [feature], custom_values={feature: grid}, method="brute", kind="both")
    r = ik.ice(m, X, feature, grid=grid, engine=engine)
    assert_allclose(r.grid, grid)
    assert_allclose(r.individual, ref["individual"][0], atol=1e-10)
    assert_allclose(r.average, ref["average"][0], atol=1e-10)
    p = ik.partial_dependence(m, X, feature, grid=grid, engine=engine)
    assert_allclose(p.average, ref["average"][0], atol=1e-10)


def test_classifier_pd_and_pair_pd_equal_sklearn():
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.inspection import partial_dependence as sk_pd
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:, :6]
    m = GradientBoostingClassifier(n_estimators=30, random_state=0).fit(X, y)
    a, b = X.columns[:2]
    ga, gb = np.quantile(X[a], np.linspace(0.05, 0.95, 7)), np.quantile(X[b], [0.2, 0.5, 0.8])
    ref = sk_pd(m, X, [a], custom_values={a: ga}, method="brute", kind="both", response_method="predict_proba")
    r = ik.ice(m, X, a, grid=ga)             # P(second class), as sklearn's binary PD
    assert_allclose(r.individual, ref["individual"][0], atol=1e-12)
    ref2 = sk_pd(m, X, [a, b], custom_values={a: ga, b: gb}, method="brute", kind="average",
                 response_method="predict_proba")
    r2 = ik.partial_dependence(m, X, (a, b), grid=(ga, gb))
    assert_allclose(r2.average, ref2["average"][0], atol=1e-12)


def test_pair_pd_accepts_a_list_of_two_grids():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(50, 2)), columns=["a", "b"])
    ga, gb = np.array([0.1, 0.5, 0.9]), np.array([0.2, 0.8])
    r = ik.partial_dependence(lambda Z: Z["a"] * Z["b"], X, ["a", "b"], grid=[ga, gb])
    # both features set: PD_ab(a, b) = a·b; before, the list was read as one grid for both
    # features (an error for unequal lengths, and for equal lengths 4 shared points, silently)
    assert_allclose(r.average, np.outer(ga, gb), atol=1e-12)
    r = ik.partial_dependence(lambda Z: Z["a"] * Z["b"], X, ["a", "b"], grid=[ga[:2], gb])
    assert r.average.shape == (2, 2)
    assert_allclose(r.average, np.outer(ga[:2], gb), atol=1e-12)


@pytest.mark.parametrize("center", ["first", "mean"])
def test_centred_ice_definition(diabetes, forest, center):
    X, _ = diabetes
    grid = np.quantile(X["bmi"], np.linspace(0, 1, 9))
    raw = ik.ice(forest, X, "bmi", grid=grid).individual
    c = ik.ice(forest, X, "bmi", grid=grid, center=center)
    ref = raw - (raw[:, :1] if center == "first" else raw.mean(axis=1, keepdims=True))
    assert_allclose(c.individual, ref, atol=1e-10)
    assert_allclose(c.average, ref.mean(axis=0), atol=1e-10)


# ----------------------------------------------------------------------------- ALE
@pytest.mark.parametrize("feature,bins", [("bmi", 10), ("s5", 20), ("age", 7), ("s4", 8)])
def test_ale_equals_pyale_on_the_same_bins(diabetes, forest, feature, bins):
    PyALE = pytest.importorskip("PyALE")
    X, _ = diabetes
    ref = PyALE.ale(X, forest, [feature], grid_size=bins, plot=False, include_CI=False)
    # PyALE's quantile_ied indexes the sorted values with n - 1 instead of n, so its edges are
    # not exactly type-1 quantiles (imlkit's and ALEPlot's); the same edges give the same ALE.
    r = ik.ale(forest, X, feature, bins=ref.index.to_numpy())
    assert_allclose(r.grid, ref.index.to_numpy())
    assert_allclose(r.average, ref["eff"].to_numpy(), atol=1e-10)


def test_ale_edges_are_type1_quantiles(diabetes, forest):
    # R's quantile(type = 1), as ALEPlot uses: the ceil(n p)-th smallest value
    X, _ = diabetes
    x = np.sort(X["bmi"].to_numpy())
    n, K = len(x), 10
    expected = np.unique([x[max(int(np.ceil(n * p - 1e-9)) - 1, 0)] for p in np.linspace(0, 1, K + 1)])
    assert_allclose(ik.ale(forest, X, "bmi", bins=K).grid, expected)


@pytest.mark.parametrize("feature", ["bmi", "sex", "s3"])
def test_ale_of_a_linear_model_is_beta_times_x_centred(diabetes, feature):
    from sklearn.linear_model import LinearRegression
    X, y = diabetes
    lm = LinearRegression().fit(X, y)
    beta = lm.coef_[list(X.columns).index(feature)]
    r = ik.ale(lm, X, feature, bins=10)
    cnt = r.extra["bin_count"]
    # Apley & Zhu's ALEPlot centring: the mean over the rows of the ALE, each bin taking the
    # average of its two edges, is 0 -- for a linear f that is β·(x − c), c = Σ n_k (z_{k-1}+z_k)/2 / n
    c = np.sum(cnt * (r.grid[:-1] + r.grid[1:]) / 2) / cnt.sum()
    scale = abs(beta) * np.ptp(X[feature])
    assert_allclose(r.average, beta * (r.grid - c), atol=1e-10 * scale)
    assert abs(np.sum(cnt * (r.average[:-1] + r.average[1:]) / 2) / cnt.sum()) < 1e-10 * scale


def test_categorical_ale_of_an_additive_model():
    # f = g(level) + h(x): the ALE of the factor is g minus its row-weighted mean, whatever
    # order the levels are put in (Apley & Zhu sec. 5.3; iml's ordering by similarity)
    rng = np.random.default_rng(0)
    n = 400
    lev = rng.choice(["a", "b", "c", "d"], n, p=[0.1, 0.2, 0.3, 0.4])
    X = pd.DataFrame({"g": pd.Categorical(lev), "x": rng.normal(size=n) + (lev == "d")})
    effect = {"a": 1.0, "b": -2.0, "c": 0.5, "d": 3.0}

    def f(Z):
        return Z["g"].astype(object).map(effect).to_numpy(dtype=float) + np.sin(Z["x"].to_numpy())
    r = ik.ale(f, X, "g")
    g = np.array([effect[level] for level in r.grid])
    counts = pd.Series(lev).value_counts()
    centre = sum(effect[k] * counts[k] for k in effect) / n
    assert_allclose(r.average, g - centre, atol=1e-12)


# ----------------------------------------------------------------------------- H-statistic
def _brute_h(f, X):
    """Friedman & Popescu (2008) eqs. 44-46 with every PD a plain double loop over the rows."""
    n, p = X.shape

    def pd_on(S):
        out = np.empty(n)
        for i in range(n):
            Z = X.copy()
            Z[:, S] = X[i, S]
            out[i] = f(Z).mean()
        return out - out.mean()
    fx = f(X) - f(X).mean()
    one = {j: pd_on([j]) for j in range(p)}
    rest = {j: pd_on([k for k in range(p) if k != j]) for j in range(p)}
    overall = np.array([np.sum((fx - one[j] - rest[j]) ** 2) / np.sum(fx ** 2) for j in range(p)])
    pair = {}
    for a in range(p):
        for b in range(a + 1, p):
            pab = pd_on([a, b])
            den = np.sum(pab ** 2)
            pair[f"x{a}", f"x{b}"] = np.sum((pab - one[a] - one[b]) ** 2) / den if den > 1e-12 else 0.0
    return overall, pair


FUNCTIONS = {
    "additive": lambda Z: Z[:, 0] + Z[:, 1],
    "product": lambda Z: Z[:, 0] * Z[:, 1],
    "mixed": lambda Z: Z[:, 0] + Z[:, 1] + Z[:, 0] * Z[:, 1] + 0.5 * Z[:, 2],
    "nonlinear": lambda Z: np.sin(2 * Z[:, 0]) * Z[:, 1] ** 2 + Z[:, 2] * Z[:, 0],
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_h_statistic_equals_brute_force_formulas(name):
    f = FUNCTIONS[name]
    X = np.random.default_rng(0).uniform(-1, 1, (80, 3))
    h = ik.h_statistic(f, X, n_samples=80, pairs="all", random_state=0)
    overall, pair = _brute_h(f, X)
    assert_allclose(h.overall, overall, atol=1e-12)
    got = {(a, b): v for a, b, v in zip(h.pairwise.feature_1, h.pairwise.feature_2, h.pairwise.h2)}
    for key, value in pair.items():
        assert_allclose(got[key], value, atol=1e-12)


def test_h_statistic_known_population_values():
    # x ~ U(-1, 1)^3 independent, Var x = 1/3, Var x0·x1 = 1/9.
    # f = x0 + x1: H² = 0 exactly. f = x0·x1: PD_0 = x0·E x1 = 0, so H²_01 = 1.
    # f = x0 + x1 + x0·x1 + 0.5 x2: H²_01 = (1/9) / (2/3 + 1/9) = 1/7,
    # overall H²_0 = (1/9) / (2/3 + 1/9 + 1/12) = 4/31, H²_2 = 0.
    # With n = 500 the estimates' sampling sd over data seeds 0-9 is about 0.01 (1, 1/7 and 4/31
    # alike; means 0.993, 0.142, 0.130): tolerance 0.03 (3 sd).
    X = np.random.default_rng(1).uniform(-1, 1, (500, 3))
    h0 = ik.h_statistic(FUNCTIONS["additive"], X, n_samples=500, pairs="all", random_state=0)
    assert_allclose(h0.overall, 0, atol=1e-20)
    assert_allclose(h0.pairwise.h2, 0, atol=1e-20)
    h1 = ik.h_statistic(FUNCTIONS["product"], X, features=[0, 1], n_samples=500, pairs="all", random_state=0)
    assert_allclose(h1.pairwise.h2[0], 1.0, atol=0.03)
    h2 = ik.h_statistic(FUNCTIONS["mixed"], X, n_samples=500, pairs="all", random_state=0)
    table = h2.pairwise.set_index(["feature_1", "feature_2"])["h2"]
    assert_allclose(table["x0", "x1"], 1 / 7, atol=0.03)
    assert_allclose(h2.overall, [4 / 31, 4 / 31, 0.0], atol=0.03)
    assert h2.overall[2] < 1e-20


# ----------------------------------------------------------------------------- REPID
def _herbinger(n=500, seed=1):
    # Herbinger, Bischl & Casalicchio (2022), sec. 5: y = 0.2 x1 − 8 x2 + 16 x2 1[x3 > 0] + ε:
    # the effect of x2 is −8 for x3 <= 0 and +8 for x3 > 0.
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.uniform(-1, 1, (n, 3)), columns=["x1", "x2", "x3"])
    y = 0.2 * X.x1 - 8 * X.x2 + 16 * X.x2 * (X.x3 > 0) + rng.normal(0, 0.3, n)
    return X, y


def test_repid_herbinger_simulation_true_function():
    X, _ = _herbinger()

    def f(Z):
        return 0.2 * Z["x1"] - 8 * Z["x2"] + 16 * Z["x2"] * (Z["x3"] > 0)
    g = ik.repid(lambda Z: f(Z).to_numpy(), X, "x2", max_depth=2)
    root = g.tree[0]
    assert root.feature == "x3"
    # the threshold is a midpoint between neighbouring x3 values around 0 (spacing ~ 2/500)
    assert abs(root.threshold) < 0.02
    frame = g.to_frame()
    assert len(frame) == 2                  # regional curves are exactly linear: no further split
    assert_allclose(frame["risk"], 0, atol=1e-6 * root.risk)
    # the regional PDs: slope −8 where x3 <= 0 and +8 where x3 > 0 (the global PD's slope is ~0)
    left, right = g.regions
    assert_allclose(np.polyfit(g.grid, left.average, 1)[0], -8, atol=1e-8)
    assert_allclose(np.polyfit(g.grid, right.average, 1)[0], 8, atol=1e-8)
    assert (left.n, right.n) == ((X["x3"] <= root.threshold).sum(), (X["x3"] > root.threshold).sum())


@pytest.mark.slow
def test_repid_herbinger_simulation_random_forest():
    from sklearn.ensemble import RandomForestRegressor
    X, y = _herbinger()
    m = RandomForestRegressor(n_estimators=100, min_samples_leaf=3, random_state=0).fit(X, y)
    g = ik.repid(m, X, "x2", max_depth=2)
    root = g.tree[0]
    assert root.feature == "x3" and abs(root.threshold) < 0.1
    # regional ICE curves nearly homogeneous: the two leaves keep < 5% of the root's risk
    assert g.to_frame()["risk"].sum() < 0.05 * root.risk


def test_weighted_pd_equals_sklearn_brute(diabetes, forest):
    from sklearn.inspection import partial_dependence as sk_pd
    X, _ = diabetes
    w = np.random.default_rng(0).uniform(0.1, 3, len(X))
    grid = np.quantile(X["bmi"], np.linspace(0, 1, 11))
    ref = sk_pd(forest, X, ["bmi"], custom_values={"bmi": grid}, method="brute", sample_weight=w)
    assert_allclose(ik.partial_dependence(forest, X, "bmi", grid=grid, sample_weight=w).average,
                    ref["average"][0], atol=1e-10)


def test_unnormalised_h_is_the_rms_of_the_numerators():
    # f = x0 + x1 + c·x0·x1 with x ~ U(-1, 1): the interaction part is c·x0·x1 (centred), whose
    # RMS is c/3 in the population; the normalised H² shrinks with the main effects, the
    # unnormalised H does not. Exact: the brute-force numerators on the same rows.
    X = np.random.default_rng(2).uniform(-1, 1, (400, 2))
    for c in (0.3, 3.0):
        def f(Z, c=c):
            return Z[:, 0] + Z[:, 1] + c * Z[:, 0] * Z[:, 1]
        h = ik.h_statistic(f, X, n_samples=400, pairs="all", random_state=0)
        overall, pair = _brute_h(f, X)
        # brute RMS of the pair numerator: H² · mean(PD_01²) with PD_01 = f centred here
        fc = f(X) - f(X).mean()
        rms_pair = np.sqrt(pair["x0", "x1"] * np.mean(fc ** 2))
        assert_allclose(h.pairwise["h_unnormalized"][0], rms_pair, rtol=1e-10)
        assert_allclose(h.to_frame()["h_unnormalized"], np.sqrt(overall * np.mean(fc ** 2)), rtol=1e-10)
        # population value c/3, sampling error of 400 rows a few %: rtol 0.1
        assert_allclose(h.pairwise["h_unnormalized"][0], c / 3, rtol=0.1)
        assert_allclose(h["x0"].to_frame()["h_unnormalized"], h.to_frame()["h_unnormalized"].iloc[:1])


@pytest.mark.parametrize("ordered", [True, False])
def test_categorical_ale_equals_pyale(ordered):
    # a model with a level × x interaction, so the local effects differ between rows; unordered:
    # both order the levels by iml's rule (KS / frequency distances, classical MDS)
    PyALE = pytest.importorskip("PyALE")
    rng = np.random.default_rng(0)
    n = 400
    lev = rng.choice(list("abcd"), n, p=[0.1, 0.2, 0.3, 0.4])
    X = pd.DataFrame({"g": pd.Categorical(lev, categories=list("abcd"), ordered=True) if ordered else lev,
                      "x": rng.normal(size=n) + (lev == "d"), "h": rng.choice(["u", "v"], n),
                      "z": rng.normal(size=n) + 2 * (lev == "b")})
    effect = {"a": 1.0, "b": -2.0, "c": 0.5, "d": 3.0}

    def encode(df):
        return pd.DataFrame({f"g_{k}": (df.iloc[:, 0].astype(str) == k).astype(float) for k in "abcd"},
                            index=df.index)

    class Model:
        def predict(self, Z):
            g = sum(Z[f"g_{k}"].to_numpy() * v for k, v in effect.items())
            return g + np.sin(Z["x"].to_numpy()) + g * Z["x"].to_numpy() + Z["z"].to_numpy()

    ref = PyALE.ale(X.copy(), Model(), ["g"], encode_fun=encode, predictors=["g_a", "g_b", "g_c", "g_d", "x", "z"],
                    plot=False, include_CI=False)
    r = ik.ale(lambda Z: Model().predict(pd.concat([Z[["x", "z"]], encode(Z[["g"]])], axis=1)), X, "g")
    ours = dict(zip(map(str, r.grid), r.average))
    theirs = dict(zip(map(str, ref.index), ref["eff"]))
    assert ours.keys() == theirs.keys()
    assert_allclose([ours[k] for k in "abcd"], [theirs[k] for k in "abcd"], atol=1e-10)
    # the same order of the levels (up to the direction, which is arbitrary)
    order = [str(v) for v in r.grid]
    assert order in ([str(v) for v in ref.index], [str(v) for v in ref.index][::-1])
