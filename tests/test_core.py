"""Predictor, losses, validation, the parallel map."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression, LogisticRegression

from imlkit import ModelError, ValidationError
from imlkit._losses import get_loss
from imlkit._model import Predictor, stack_frame
from imlkit._parallel import parallel_map, spawn
from imlkit._validation import as_seed_sequence, check_int, resolve_features


def test_stack_frame_keeps_dtypes_and_replaces():
    X = pd.DataFrame({"c": pd.Categorical(["a", "b", "a"]), "x": [1.0, 2.0, 3.0], "s": ["u", "v", "w"]})
    rep = pd.DataFrame({"x": np.arange(6.0)})
    out = stack_frame(X, 2, rep)
    assert out.shape == (6, 3) and list(out.columns) == ["c", "x", "s"]
    assert isinstance(out["c"].dtype, pd.CategoricalDtype) and list(out["c"]) == ["a", "b", "a"] * 2
    assert_allclose(out["x"], np.arange(6.0))
    assert list(out["s"]) == ["u", "v", "w"] * 2


def test_predictor_blocks_equal_one_call():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(1000, 3)), columns=list("abc"))
    m = LinearRegression().fit(X, X.sum(axis=1))
    calls = []

    class Counting:
        def predict(self, Z):
            calls.append(len(Z))
            return m.predict(Z)

    p = Predictor(Counting(), max_rows=300)
    assert_allclose(p.predict(X), m.predict(X))
    assert calls == [300, 300, 300, 100]


def test_predictor_proba_and_encoding():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]})
    y = np.array(["no", "no", "yes", "no", "yes", "yes"])
    clf = LogisticRegression().fit(X, y)
    p = Predictor(clf, output="proba")
    assert p.predict(X).shape == (6, 2)
    assert p.encode_y(y).tolist() == [0, 0, 1, 0, 1, 1]
    with pytest.raises(ValueError, match="label 'maybe'"):
        p.encode_y(np.array(["maybe"]))
    with pytest.raises(ValueError, match="no predict_proba"):
        Predictor(LinearRegression().fit(X, [0, 1, 2, 3, 4, 5]), output="proba")


def test_predictor_wraps_model_failure():
    class Broken:
        def predict(self, X):
            raise KeyError("column 'q'")

    with pytest.raises(ModelError, match="failed while predicting the data: KeyError"):
        Predictor(Broken()).predict(pd.DataFrame({"a": [1.0]}))


@pytest.mark.parametrize("name, y, p, expected", [
    ("squared_error", [1.0, 2.0], [0.0, 4.0], [1.0, 4.0]),
    ("absolute_error", [1.0, 2.0], [0.0, 4.0], [1.0, 2.0]),
    ("zero_one", ["a", "b"], ["a", "a"], [0.0, 1.0]),
    ("accuracy", ["a", "b"], ["a", "a"], [1.0, 0.0]),
    ("log_loss", [0, 1], [[0.8, 0.2], [0.25, 0.75]], [-np.log(0.8), -np.log(0.75)]),
    ("brier", [0, 1], [[0.8, 0.2], [0.25, 0.75]], [0.08, 0.125]),
])
def test_pointwise_losses_by_hand(name, y, p, expected):
    loss = get_loss(name)
    assert_allclose(loss.pointwise(np.array(y), np.array(p)), expected)


def test_r2_score_sign_and_custom_loss():
    r2 = get_loss("r2")
    assert r2.greater_is_better and r2.sign == -1.0
    assert_allclose(r2.aggregate(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])), 1.0)
    custom = get_loss(lambda y, p: (y - p) ** 4)
    assert_allclose(custom.aggregate(np.array([0.0, 0.0]), np.array([1.0, 2.0])), 8.5)
    bad = get_loss(lambda y, p: np.mean(y - p))
    with pytest.raises(ValueError, match="one value per observation"):
        bad.pointwise(np.array([0.0, 1.0]), np.array([0.0, 1.0]))


def test_validation_messages():
    with pytest.raises(ValueError, match=r"^'n_repeats' must be an int >= 1; got 0\.$"):
        check_int("n_repeats", 0, min_value=1)
    with pytest.raises(TypeError, match="'n_repeats' must be an int >= 1; got 2.5"):
        check_int("n_repeats", 2.5, min_value=1)
    cols = ["a", "b", "c"]
    assert resolve_features(None, cols) == {"a": ["a"], "b": ["b"], "c": ["c"]}
    assert resolve_features([0, "c"], cols) == {"a": ["a"], "c": ["c"]}
    assert resolve_features({"g": ["a", 1]}, cols) == {"g": ["a", "b"]}
    with pytest.raises(ValidationError, match="appears twice"):
        resolve_features(["a", "a"], cols)
    with pytest.raises(ValueError, match="index 5 is out of range"):
        resolve_features([5], cols)
    with pytest.raises(ValueError, match="'random_state' must be None, an int >= 0"):
        as_seed_sequence(-1)


def _draw(seed):
    return np.random.default_rng(seed).normal(size=3)


def test_parallel_map_is_schedule_independent():
    seeds = spawn(as_seed_sequence(5), 6)
    serial = parallel_map(_draw, [(s,) for s in seeds], n_jobs=1)
    para = parallel_map(_draw, [(s,) for s in spawn(as_seed_sequence(5), 6)], n_jobs=2)
    assert_allclose(np.array(serial), np.array(para), rtol=0, atol=0)


def test_dependence_r2_equals_linear_regression_fits():
    from imlkit._dependence import dependence_r2

    rng = np.random.default_rng(0)
    a = rng.normal(size=500)
    X = pd.DataFrame({"a": a, "b": a, "c": rng.normal(size=500), "d": a + rng.normal(size=500),
                      "k": 1.0, "g": pd.Categorical(rng.choice(list("xy"), 500))})
    r2 = dependence_r2(X)
    Z = pd.get_dummies(X.drop(columns="k"), drop_first=True, dtype=float)
    for col in ["c", "d"]:
        rest = Z.drop(columns=col)
        expected = LinearRegression().fit(rest, Z[col]).score(rest, Z[col])
        assert_allclose(r2[col], expected, rtol=1e-8)
    assert_allclose(r2[["a", "b"]], 1.0)          # exact copies
    assert np.isnan(r2["k"]) and np.isnan(r2["g"])  # constant; categorical
