"""ICE and PD: known answers, scikit-learn cross-check, invariances and the error table."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.compose import make_column_transformer
from sklearn.ensemble import RandomForestRegressor
from sklearn.inspection import partial_dependence as sk_partial_dependence
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

import imlkit as ik
from imlkit._model import Predictor
from imlkit.effects._grid import ice_matrix, make_grid


def additive(Z):
    Z = np.asarray(Z, dtype=float)
    return np.sin(3 * Z[:, 0]) + Z[:, 1] ** 2 - 2 * Z[:, 2]


def product(Z):
    Z = np.asarray(Z, dtype=float)
    return Z[:, 0] * Z[:, 1] + Z[:, 2]


@pytest.fixture(scope="module")
def uniform_X():
    return np.random.default_rng(0).uniform(-1, 1, size=(300, 3))


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(1)
    n = 400
    X = pd.DataFrame({"num": rng.normal(size=n), "cnt": rng.integers(0, 30, n),
                      "col": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
                      "size": pd.Categorical(rng.choice(["S", "M", "L"], n), categories=["S", "M", "L"],
                                             ordered=True)})
    y = X["num"] + 0.1 * X["cnt"] + X["col"].map({"red": 1.0, "green": 0.0, "blue": -1.0}).astype(float) \
        + rng.normal(0, 0.1, n)
    model = make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["col", "size"]),
                                                  remainder="passthrough"),
                          RandomForestRegressor(n_estimators=20, max_depth=6, random_state=0)).fit(X, y)
    return X, y, model


def test_mean_of_ice_equals_pd(uniform_X):
    e = ik.ice(product, uniform_X, 0, grid=15)
    p = ik.partial_dependence(product, uniform_X, 0, grid=15)
    assert_allclose(e.individual.mean(axis=0), e.average)
    assert_allclose(e.average, p.average)
    assert e.individual.shape == (300, len(e.grid))


def test_ice_curve_is_the_model_on_the_modified_row(uniform_X):
    e = ik.ice(product, uniform_X, 1, grid=[-0.5, 0.0, 0.7])
    for k, g in enumerate(e.grid):
        Z = uniform_X.copy()
        Z[:, 1] = g
        assert_allclose(e.individual[:, k], product(Z))


def test_pd_of_additive_model_recovers_components(uniform_X):
    # PD_j(x) = g_j(x) + E[other components]: equal to g_j up to a constant.
    for j, g in [(0, lambda x: np.sin(3 * x)), (1, lambda x: x ** 2), (2, lambda x: -2 * x)]:
        p = ik.partial_dependence(additive, uniform_X, j, grid=12)
        diff = p.average - g(p.grid)
        assert_allclose(diff, diff[0], atol=1e-12)


def test_matches_sklearn_brute(uniform_X):
    y = additive(uniform_X)
    rf = RandomForestRegressor(n_estimators=10, max_depth=5, random_state=0).fit(uniform_X, y)
    grid = np.linspace(-0.9, 0.9, 7)
    mine = ik.partial_dependence(rf, uniform_X, 0, grid=grid)
    sk = sk_partial_dependence(rf, uniform_X, [0], method="brute", kind="both", custom_values={0: grid})
    assert_allclose(mine.average, sk["average"][0])
    ice = ik.ice(rf, uniform_X, 0, grid=grid)
    assert_allclose(ice.individual, sk["individual"][0])


def test_pd_2d_matches_sklearn_and_is_symmetric_in_the_grid(uniform_X):
    y = product(uniform_X)
    rf = RandomForestRegressor(n_estimators=10, max_depth=5, random_state=0).fit(uniform_X, y)
    g0, g1 = np.linspace(-0.8, 0.8, 5), np.linspace(-0.5, 0.5, 4)
    mine = ik.partial_dependence(rf, uniform_X, (0, 1), grid=(g0, g1))
    sk = sk_partial_dependence(rf, uniform_X, (0, 1), method="brute", custom_values={0: g0, 1: g1})
    assert mine.average.shape == (5, 4)
    assert_allclose(mine.average, sk["average"][0])
    assert len(mine.to_frame()) == 20


def test_quantile_and_uniform_grids():
    s = pd.Series(np.r_[np.zeros(90), np.linspace(1, 10, 10)], name="x")
    q, _ = make_grid(s, 5, "quantile")
    u, _ = make_grid(s, 5, "uniform")
    assert_allclose(u, np.linspace(0, 10, 5))
    assert q[0] == 0 and q[-1] == 10 and len(q) < 5  # tied quantiles collapse
    small, _ = make_grid(pd.Series([3, 1, 2, 1], name="k"), 20)
    assert_allclose(small, [1, 2, 3])  # fewer distinct values than points: all of them


def test_centering(uniform_X):
    raw = ik.ice(product, uniform_X, 0, grid=9)
    mean_c = ik.ice(product, uniform_X, 0, grid=9, center="mean")
    first = ik.ice(product, uniform_X, 0, grid=9, center="first")
    assert_allclose(mean_c.individual.mean(axis=1), 0, atol=1e-12)
    assert_allclose(mean_c.individual, raw.individual - raw.individual.mean(axis=1, keepdims=True))
    assert_allclose(first.individual[:, 0], 0)
    assert_allclose(first.average, raw.average - raw.average[0])
    assert_allclose(mean_c.extra["uncentered_average"], raw.average)


def test_sample_weight_and_subsample(uniform_X):
    w = np.r_[np.ones(150), np.zeros(150)]
    e = ik.partial_dependence(product, uniform_X, 0, grid=5, sample_weight=w)
    ref = ik.partial_dependence(product, uniform_X[:150], 0, grid=e.grid)
    assert_allclose(e.average, ref.average)
    a = ik.ice(product, uniform_X, 0, grid=5, n_samples=50, random_state=3)
    b = ik.ice(product, uniform_X, 0, grid=5, n_samples=50, random_state=3)
    assert a.individual.shape == (50, 5)
    assert_allclose(a.individual, b.individual)
    assert_allclose(a.individual, ik.ice(product, uniform_X[a.extra["row_index"]], 0, grid=a.grid).individual)


def test_dataframe_equals_array(uniform_X):
    df = pd.DataFrame(uniform_X, columns=["a", "b", "c"])
    def f(Z):
        return product(np.asarray(Z))
    a = ik.ice(f, uniform_X, 1, grid=6)
    b = ik.ice(f, df, "b", grid=6)
    assert_allclose(a.individual, b.individual)


def test_max_rows_blocks_give_same_result(uniform_X):
    a = ik.ice(product, uniform_X, 0, grid=10)
    b = ik.ice(product, uniform_X, 0, grid=10, max_rows=250)  # fewer rows than one copy
    c = ik.ice(product, uniform_X, 0, grid=10, max_rows=700)  # two copies per chunk
    assert_allclose(a.individual, b.individual)
    assert_allclose(a.individual, c.individual)


def test_one_stacked_call(uniform_X):
    calls = []

    def counted(Z):
        calls.append(len(Z))
        return product(Z)

    M = ice_matrix(Predictor(counted, as_frame=False), pd.DataFrame(uniform_X, columns=["a", "b", "c"]), "a",
                   np.linspace(-1, 1, 20))
    assert calls == [300 * 20] and M.shape == (300, 20)


def test_categoricals_through_pipeline(mixed):
    X, _, model = mixed
    e = ik.ice(model, X, "col")
    assert e.categorical and list(e.grid) == ["blue", "green", "red"]
    assert e.average[2] > e.average[1] > e.average[0]  # red > green > blue as simulated
    s = ik.partial_dependence(model, X, "size")
    assert list(s.grid) == ["S", "M", "L"]  # ordered categories keep their order
    p2 = ik.partial_dependence(model, X, ("cnt", "col"), grid=(5, 3))
    assert p2.average.shape == (5, 3)
    assert np.issubdtype(np.asarray(ik.ice(model, X, "cnt", grid=5).grid).dtype, np.floating)
    ax = e.plot()
    assert ax.get_xlabel() == "col"
    assert [t.get_text() for t in p2.plot().get_yticklabels()] == ["blue", "green", "red"]


def test_classifier_outputs():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 2))
    y = np.where(X[:, 0] > 0, "yes", "no")
    clf = LogisticRegression().fit(X, y)
    e = ik.partial_dependence(clf, X, 0, grid=5)
    assert e.output == "P(class=yes)"
    assert_allclose(e.average, clf.predict_proba(_set(X, 0, e.grid))[:, 1].reshape(5, -1).mean(axis=1))
    no = ik.partial_dependence(clf, X, 0, grid=5, output="no")
    assert_allclose(no.average, 1 - e.average)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    clf3 = LogisticRegression().fit(X, y3)
    m = ik.ice(clf3, X, 0, grid=4)
    assert m.average.shape == (4, 3) and m.individual.shape == (300, 4, 3)
    assert_allclose(m.average.sum(axis=1), 1)
    assert list(m.to_frame().columns) == ["x0", "average[0]", "average[1]", "average[2]"]
    assert len(m.plot().lines) == 3  # one PD line per class


def _set(X, j, grid):
    out = np.repeat(X[None], len(grid), axis=0)
    out[:, :, j] = np.asarray(grid)[:, None]
    return out.reshape(-1, X.shape[1])


def test_plot_ice(uniform_X):
    ax = ik.ice(product, uniform_X, 0, grid=8).plot()
    assert len(ax.collections[0].get_segments()) == len(uniform_X) and ax.get_title() == "ICE of x0"  # a curve per row


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(feature="nope"), ValueError, "Unknown feature 'nope'"),
    (dict(feature=0, grid=1), ValueError, "'grid' must be an int >= 2; got 1"),
    (dict(feature=0, grid="ten"), TypeError, r"'grid' must be an int >= 2 \(the number of grid points\) or an array"),
    (dict(feature=0, center="median"), ValueError, "'center' must be one of None, 'mean', 'first'"),
    (dict(feature=0, grid_type="log"), ValueError, "'grid_type' must be one of 'quantile', 'uniform'"),
    (dict(feature=3), ValueError, "Feature 'x3' is constant"),
    (dict(feature=0, n_samples=0), ValueError, "'n_samples' must be an int >= 1"),
    (dict(feature=0, sample_weight=np.ones(3)), ValueError, "'sample_weight' must have one weight per row"),
    (dict(feature=0, output="yes"), ValueError, "'output' must be None or 'predict'"),
])
def test_errors(uniform_X, kwargs, err, match):
    X = np.column_stack([uniform_X, np.ones(len(uniform_X))])
    with pytest.raises(err, match=match):
        ik.ice(lambda Z: Z[:, 0], X, **kwargs)


def test_partial_dependence_errors(uniform_X):
    with pytest.raises(ValueError, match="'features' must be one feature or a pair"):
        ik.partial_dependence(product, uniform_X, [0, 1, 2])
    with pytest.raises(ValueError, match="two different features"):
        ik.partial_dependence(product, uniform_X, (1, 1))
    with pytest.raises(ValueError, match="not levels of feature 'col'"):
        X = pd.DataFrame({"col": pd.Categorical(["a", "b"] * 5), "v": np.arange(10.0)})
        ik.ice(lambda Z: Z["v"].to_numpy(), X, "col", grid=["a", "c"])


def test_individual_frame(uniform_X):
    e = ik.ice(product, uniform_X, 0, grid=4, n_samples=10, random_state=0)
    long = e.individual_frame()
    assert len(long) == 40 and set(long["row"]) == set(e.extra["row_index"])
    assert_allclose(long["value"].to_numpy().reshape(10, 4), e.individual)
    with pytest.raises(ValueError, match="has no individual curves"):
        ik.partial_dependence(product, uniform_X, 0).individual_frame()
