"""OneR on the course's house-value example and on numeric data with known cut points."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from imlkit._validation import ValidationError
from imlkit.models import OneR

HOUSE = pd.DataFrame([
    ("good", "small", "yes", "high"), ("good", "big", "no", "high"), ("good", "big", "no", "high"),
    ("bad", "medium", "no", "medium"), ("good", "medium", "only cats", "medium"),
    ("good", "small", "only cats", "medium"), ("bad", "medium", "yes", "medium"),
    ("bad", "small", "yes", "low"), ("bad", "medium", "yes", "low"), ("bad", "small", "no", "low"),
], columns=["location", "size", "pets", "value"])


def test_house_example_rules():
    X, y = HOUSE.drop(columns="value"), HOUSE["value"]
    m = OneR().fit(X, y)
    assert m.feature_ == "size"
    assert {str(r) for r in m.rules_} == {"IF size == 'small' THEN 'low'", "IF size == 'medium' THEN 'medium'",
                                         "IF size == 'big' THEN 'high'"}
    # errors from the course's cross tables: location 2+2, size 0+1+2, pets 2+0+2
    assert m.errors_.to_dict() == {"location": 4, "size": 3, "pets": 4}
    tab = m.tables_["size"].set_index("value")
    assert tab.loc["small", ["n[high]", "n[low]", "n[medium]"]].tolist() == [1, 2, 1]
    assert_allclose(m.score(X, y), 0.7)  # 3 errors out of 10
    assert m.rules_.is_mutually_exclusive(X) and m.rules_.is_exhaustive(X)
    assert m.explain(X).loc[0, "text"] == "IF size == 'small' THEN 'low'"


def test_ties_take_the_first_feature():
    X = pd.DataFrame({"b": ["u", "v", "u", "v"], "a": ["u", "v", "u", "v"]})
    assert OneR().fit(X, [0, 1, 0, 1]).feature_ == "b"


def test_numeric_intervals_and_multiclass():
    # three clean class regions: the cuts fall midway between the neighbouring values
    x = np.arange(30.0)
    y = np.repeat(["a", "b", "c"], 10)
    X = pd.DataFrame({"x": x, "noise": np.tile([0.0, 1.0], 15)})
    m = OneR().fit(X, y)
    assert m.feature_ == "x" and m.errors_["x"] == 0
    assert_allclose(m.cuts_["x"], [9.5, 19.5])
    assert m.predict(pd.DataFrame({"x": [-5.0, 9.5, 9.6, 100.0], "noise": 0.0})).tolist() == ["a", "a", "b", "c"]
    P = m.predict_proba(X)
    assert P.shape == (30, 3)
    assert_allclose(P.sum(axis=1), 1.0)


def test_min_bucket_forces_bigger_intervals():
    # alternating classes in runs of 3: with min_bucket=6 no run alone is an interval
    x = np.arange(24.0)
    y = np.tile(np.repeat(["p", "q"], 3), 4)
    X = pd.DataFrame({"x": x})
    coarse = OneR(min_bucket=6).fit(X, y)
    fine = OneR(min_bucket=3).fit(X, y)
    assert fine.errors_["x"] == 0 and len(fine.cuts_["x"]) == 7
    assert len(coarse.cuts_["x"]) < len(fine.cuts_["x"])


def test_missing_values_are_their_own_value():
    x = np.r_[np.zeros(10), np.ones(10), np.full(8, np.nan)]
    y = np.r_[["a"] * 10, ["b"] * 10, ["c"] * 8]
    m = OneR().fit(pd.DataFrame({"x": x}), y)
    assert m.errors_["x"] == 0
    assert m.predict(pd.DataFrame({"x": [np.nan, 0.0, 1.0]})).tolist() == ["c", "a", "b"]
    assert "x is missing" in str(m)


def test_frame_and_array_agree():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(120, 3))
    y = np.where(A[:, 1] > 0.2, 1, 0)
    a = OneR().fit(A, y)
    f = OneR().fit(pd.DataFrame(A, columns=["x0", "x1", "x2"]), y)
    assert a.feature_ == f.feature_ == "x1"
    assert np.array_equal(a.predict(A), f.predict(pd.DataFrame(A, columns=["x0", "x1", "x2"])))


@pytest.mark.parametrize("kwargs, X, y, exc, match", [
    ({}, HOUSE[["size"]], ["low"] * 10, ValidationError, "at least 2 classes"),
    ({"min_bucket": 0}, HOUSE[["size"]], HOUSE["value"], ValidationError, "'min_bucket' must be an int >= 1"),
    ({"min_bucket": 2.5}, HOUSE[["size"]], HOUSE["value"], TypeError, "'min_bucket' must be an int"),
    ({}, HOUSE[["size"]], HOUSE["value"][:5], ValidationError, "different lengths"),
])
def test_errors(kwargs, X, y, exc, match):
    with pytest.raises(exc, match=match):
        OneR(**kwargs).fit(X, y)


def test_predict_needs_same_columns():
    m = OneR().fit(HOUSE[["size", "pets"]], HOUSE["value"])
    with pytest.raises(ValidationError, match="must have the same columns"):
        m.predict(HOUSE[["size"]])
