"""explain_neighbors: neighbours by hand, scikit-learn's kneighbors, pipelines, errors."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from imlkit.models import explain_neighbors

EXACT = dict(rtol=1e-12, atol=1e-12)


def small():
    X = pd.DataFrame({"a": [0.0, 1.0, 3.0, 7.0, 10.0], "b": [0.0, 0.0, 0.0, 0.0, 4.0]},
                     index=["p", "q", "r", "s", "t"])
    y = np.array(["u", "u", "v", "v", "v"])
    return X, y


def test_neighbours_by_hand():
    X, y = small()
    knn = KNeighborsClassifier(n_neighbors=2).fit(X, y)
    query = pd.DataFrame({"a": [2.2], "b": [0.0]}, index=["new"])
    out = explain_neighbors(knn, X, y, query)
    # |2.2 − 3| = 0.8 (r), |2.2 − 1| = 1.2 (q)
    assert out["neighbor"].tolist() == ["r", "q"]
    assert out["rank"].tolist() == [1, 2]
    assert out["row"].tolist() == ["new", "new"]
    assert_allclose(out["distance"], [0.8, 1.2], **EXACT)
    assert out["target"].tolist() == ["v", "u"]
    assert_allclose(out["a"], [3.0, 1.0], atol=0)
    # standardised difference: (x_neighbour − x_row) / sd(X_train), population sd
    sd = np.std(X["a"].to_numpy())
    assert_allclose(out["diff:a"], [0.8 / sd, -1.2 / sd], **EXACT)
    assert_allclose(out["diff:b"], 0.0, atol=0)
    assert out["differs_most"].iloc[0] == f"a (+{0.8 / sd:.2f})"


def test_matches_kneighbors_for_every_row():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 4)), columns=list("wxyz"))
    y = X["w"] + rng.normal(size=60)
    knn = KNeighborsRegressor(n_neighbors=4).fit(X, y)
    query = X.iloc[:7] + 0.1
    out = explain_neighbors(knn, X, y, query, n_differences=2)
    dist, idx = knn.kneighbors(query)
    assert_allclose(out["distance"], dist.ravel(), **EXACT)
    assert out["neighbor"].tolist() == X.index[idx.ravel()].tolist()
    assert_allclose(out["target"].astype(float), y.to_numpy()[idx.ravel()], atol=0)
    # the mean of the neighbours' targets is the prediction of the regressor
    assert_allclose(out.groupby("row")["target"].mean().to_numpy(dtype=float), knn.predict(query), **EXACT)
    assert out["differs_most"].str.count(r"\(").le(2).all()
    # the named features are those with the largest |standardised difference|
    diffs = out[[f"diff:{c}" for c in "wxyz"]].abs().to_numpy()
    firsts = out["differs_most"].str.split(" ").str[0].tolist()
    assert firsts == [c for c in np.array(list("wxyz"))[diffs.argmax(axis=1)]]


def test_pipeline_with_categorical_features():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"temp": rng.normal(20, 5, 40), "season": rng.choice(["spring", "winter"], 40)})
    y = (X["temp"] > 20).astype(int).to_numpy()
    pipe = make_pipeline(
        ColumnTransformer([("num", StandardScaler(), ["temp"]), ("cat", OneHotEncoder(), ["season"])]),
        KNeighborsClassifier(n_neighbors=3)).fit(X, y)
    query = X.iloc[[0, 5]]
    out = explain_neighbors(pipe, X, y, query)
    dist, idx = pipe[-1].kneighbors(pipe[:-1].transform(query))
    assert_allclose(out["distance"], dist.ravel(), **EXACT)
    assert out["neighbor"].tolist() == idx.ravel().tolist()
    # a query that is a training row finds itself first, at distance 0, with no differences
    first = out.iloc[0]
    assert first["neighbor"] == 0 and first["distance"] == 0 and first["differs_most"] == ""
    season_diff = out["diff:season"].to_numpy()
    assert set(np.unique(season_diff)) <= {0.0, 1.0}
    assert_allclose(season_diff, (X["season"].to_numpy()[idx.ravel()] != np.repeat(query["season"].to_numpy(), 3)),
                    atol=0)


def test_arrays_series_and_name_collisions():
    X, y = small()
    nn = NearestNeighbors(n_neighbors=1).fit(X.to_numpy())
    out = explain_neighbors(nn, X.to_numpy(), y, np.array([[6.5, 0.0]]), n_neighbors=2)
    assert out["neighbor"].tolist() == [3, 2]            # positions for array input
    assert list(out.columns[5:7]) == ["x0", "x1"]
    knn = KNeighborsClassifier(n_neighbors=1).fit(X, y)
    one = explain_neighbors(knn, X, y, X.iloc[2])         # a Series is one row
    assert one["neighbor"].tolist() == ["r"]
    # a model fitted on a frame, queried with an array (and vice versa), without warnings
    assert explain_neighbors(knn, X, y, X.to_numpy()[[2]])["neighbor"].tolist() == ["r"]
    assert explain_neighbors(nn, X, y, X.iloc[[3]])["neighbor"].tolist() == ["s"]
    Xt = X.rename(columns={"a": "target"})
    out = explain_neighbors(KNeighborsClassifier(n_neighbors=1).fit(Xt, y), Xt, y, Xt.iloc[[0]])
    assert "value:target" in out.columns and out["target"].tolist() == ["u"]


X_ERR, Y_ERR = small()
KNN = KNeighborsClassifier(n_neighbors=2).fit(X_ERR, Y_ERR)


@pytest.mark.parametrize("args, kwargs, exc, match", [
    ((LinearRegression().fit(X_ERR, np.arange(5.0)), X_ERR, Y_ERR, X_ERR), {}, TypeError, "'kneighbors' method"),
    ((KNN, X_ERR.iloc[:3], Y_ERR[:3], X_ERR), {}, ValueError, "the data 'knn' was fitted on"),
    ((KNN, X_ERR, Y_ERR[:3], X_ERR), {}, ValueError, "different lengths"),
    ((KNN, X_ERR, Y_ERR, X_ERR.rename(columns={"a": "c"})), {}, ValueError, "same columns"),
    ((KNN, X_ERR, Y_ERR, X_ERR), dict(n_neighbors=6), ValueError, "'n_neighbors' must be an int >= 1 and <= 5"),
    ((KNN, X_ERR, Y_ERR, X_ERR), dict(n_differences=-1), ValueError, "'n_differences' must be an int >= 0"),
])
def test_errors(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        explain_neighbors(*args, **kwargs)
