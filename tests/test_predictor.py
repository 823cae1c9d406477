"""The Predictor: it chooses the engine, answers every kind of perturbed prediction the same way
from either engine, and refuses model output that the methods cannot compute with."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression
from threadpoolctl import threadpool_limits

import imlkit as ik
from imlkit._model import Predictor
from imlkit._validation import ModelError, ValidationError


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 80
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.integers(0, 4, n).astype(float)})
    y = (2 * X.a - X.b * X.c + 0.1 * rng.normal(size=n)).to_numpy()
    with threadpool_limits(1):
        rf = RandomForestRegressor(10, max_depth=5, random_state=0).fit(X, y)
    return X, y, rf


# --------------------------------------------------------------------------- the engine is the Predictor's

def test_predictor_chooses_the_engine_and_answers_alike(data):
    # Known answer: the same Predictor methods with engine="predict" stack the copies and predict.
    X, _, rf = data
    fast, slow = Predictor(rf), Predictor(rf)
    assert fast.use_engine(X) == {"engine": "trees"} and fast.engine == "trees"
    assert slow.use_engine(X, "predict") == {"engine": "predict"} and slow.engine == "predict"
    grid = np.array([-1.0, 0.0, 0.5, 2.0])
    assert_allclose(fast.ice(X, "a", grid), slow.ice(X, "a", grid), rtol=1e-12)
    va, vb = X["a"].to_numpy()[:7], X["c"].to_numpy()[:7]
    assert_allclose(fast.pair_means(X, ("a", "c"), (va, vb)), slow.pair_means(X, ("a", "c"), (va, vb)), rtol=1e-12)
    w = np.full(len(X), 1 / len(X))
    grids = (grid, np.array([0.0, 3.0]))
    assert_allclose(fast.pd_average(X, ("a", "c"), grids, w), slow.pd_average(X, ("a", "c"), grids, w), rtol=1e-12)
    rng = np.random.default_rng(1)
    repl = pd.DataFrame({"b": X["b"].to_numpy()[rng.permuted(np.tile(np.arange(len(X)), (3, 1)), axis=1).ravel()]})
    one = np.concatenate(list(fast.perturbed_blocks(X, ["b"], repl, 3)))
    assert_allclose(one, slow.predict_perturbed(X, ["b"], repl, 3), rtol=1e-12)
    # a group, and blocks of whole repeats when max_rows is small
    repl2 = pd.DataFrame({"a": repl["b"].to_numpy(), "b": repl["b"].to_numpy()[::-1]})
    small = Predictor(rf, max_rows=len(X) + 1)
    small.use_engine(X)
    blocks = list(small.perturbed_blocks(X, ["a", "b"], repl2, 3))
    assert [len(b) for b in blocks] == [len(X)] * 3
    assert_allclose(np.concatenate(blocks), slow.predict_perturbed(X, ["a", "b"], repl2, 3), rtol=1e-12)


def test_predictor_without_trees_predicts(data):
    X, y, _ = data
    lin = Predictor(LinearRegression().fit(X, y))
    assert lin.use_engine(X) == {"engine": "predict"} and lin.engine == "predict"
    with pytest.raises(ValidationError, match="engine='trees' needs a model the tree engine supports"):
        lin.use_engine(X, "trees")
    M = lin.ice(X, "a", np.array([0.0, 1.0]))
    assert_allclose(M[:, 1] - M[:, 0], np.full(len(X), lin.model.coef_[0]), rtol=1e-10)


# --------------------------------------------------------------------------- model output

class TwoOutputs:
    """A regressor whose predict returns two columns per row."""

    def predict(self, X):
        return np.column_stack([X["a"], X["b"]])


class TextRegressor:
    """A 'regressor' whose predict returns strings."""

    def predict(self, X):
        return np.where(X["a"] > 0, "high", "low")


class FlatProba:
    """A classifier whose predict_proba returns one column instead of one per class."""

    classes_ = np.array([0, 1])
    _estimator_type = "classifier"

    def predict(self, X):
        return (X["a"] > 0).astype(int).to_numpy()

    def predict_proba(self, X):
        return 1 / (1 + np.exp(-X["a"].to_numpy()))


class ThreeColumnProba(FlatProba):
    def predict_proba(self, X):
        p = super().predict_proba(X)
        return np.column_stack([1 - p, p / 2, p / 2])


def test_wrong_prediction_shapes_and_types_are_model_errors(data):
    X, y, _ = data
    with pytest.raises(ModelError, match=r"\(TwoOutputs\) returned predictions of shape \(80, 2\)"):
        ik.pfi(TwoOutputs(), X, y, n_repeats=1)
    with pytest.raises(ModelError, match=r"\(TwoOutputs\) returned predictions of shape \(320, 2\)"):
        ik.ice(TwoOutputs(), X, "a", grid=4)
    with pytest.raises(ModelError, match=r"\(TextRegressor\) returned predictions that are not numeric \(dtype <U4\)"):
        ik.pfi(TextRegressor(), X, y, n_repeats=1)
    with pytest.raises(ModelError, match=r"\(TextRegressor\) .* not numeric"):
        ik.partial_dependence(TextRegressor(), X, "b", grid=3)
    yc = (y > 0).astype(int)
    with pytest.raises(ModelError, match=r"\(FlatProba\) returned predict_proba of shape \(80,\).*\(80, 2\)"):
        ik.pfi(FlatProba(), X, yc, n_repeats=1)
    with pytest.raises(ModelError, match=r"\(ThreeColumnProba\) returned predict_proba of shape \(320, 3\)"):
        ik.ice(ThreeColumnProba(), X, "a", grid=4)
    with pytest.raises(ModelError, match=r"function <lambda>\) returned predictions of shape \(80, 2\)"):
        ik.pfi(lambda Z: np.column_stack([Z["a"], Z["a"]]), X, y, n_repeats=1)


def test_valid_outputs_still_work(data):
    X, y, _ = data
    labels = np.where(y > 0, "pos", "neg")
    with threadpool_limits(1):
        clf = RandomForestClassifier(5, max_depth=3, random_state=0).fit(X, labels)
    r = ik.pfi(clf, X, labels, loss="zero_one", n_repeats=2, random_state=0)  # string labels, a label loss
    assert r.importance.shape == (3,)
    # a plain function giving P(positive class), (n,), with a probability loss and class codes
    logit = LogisticRegression().fit(X, (y > 0).astype(int))

    def proba(Z):
        return logit.predict_proba(Z)[:, 1]

    r = ik.pfi(proba, X, (y > 0).astype(int), loss="log_loss", n_repeats=2, random_state=0)
    ref = ik.pfi(logit, X, (y > 0).astype(int), loss="log_loss", n_repeats=2, random_state=0)
    assert_allclose(r.importance, ref.importance, rtol=1e-10)


# --------------------------------------------------------------------------- one row

def test_one_row_is_refused_where_nothing_can_move(data):
    X, y, rf = data
    X1, y1 = X.iloc[:1], y[:1]
    with pytest.raises(ValidationError, match="PFI needs at least 2 rows of X.*got 1 row"):
        ik.pfi(rf, X1, y1)
    with pytest.raises(ValidationError, match="CFI needs at least 2 rows of X.*larger X_fit"):
        ik.cfi(rf, X1, y1)
    with pytest.raises(ValidationError, match="h_statistic needs at least 2 rows of X"):
        ik.h_statistic(rf, X1)
    with pytest.raises(ValidationError, match="ice_heterogeneity needs at least 2 rows of X"):
        ik.ice_heterogeneity(rf, X1)
    with pytest.raises(ValidationError, match="repid needs at least 2 rows of X"):
        ik.repid(rf, X1, "a", grid=[0.0, 1.0])
    # CFI of one row with the values drawn from a larger X_fit moves the row: not all zero
    r = ik.cfi(rf, X1, y1, X_fit=X, n_repeats=5, random_state=0)
    assert np.abs(r.importance).max() > 0


def test_engine_refuses_data_narrower_than_the_trees(data):
    # The kernels index a row by the model's feature numbers: X with fewer columns than the
    # trees read must never reach them (it would read past the row).
    X, y, _ = data
    with threadpool_limits(1):
        rf = RandomForestRegressor(5, max_depth=3, random_state=0).fit(X.to_numpy(), y)
    narrow = X[["a", "b"]]
    p = Predictor(rf, as_frame=False)
    with pytest.raises(ValidationError, match="X has 2 columns in the model's encoding; the model's trees read 3"):
        p.use_engine(narrow, "trees")
    assert p.use_engine(X, "trees") == {"engine": "trees"}
