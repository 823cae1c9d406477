"""scikit-learn's estimator checks for DecisionTree, OneR, RIPPER, RuleFit and NaiveBayes.

``parametrize_with_checks`` runs every check scikit-learn applies to its own estimators (about
50 per model: cloning, fitted/unfitted behaviour, input validation messages, feature names,
pickling, invariance to row order, ...). Models whose task is a parameter run once as a
classifier and once as a regressor. A check that does not apply is listed in
``EXPECTED_FAILED`` with the reason; the list is kept short.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import make_blobs
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from imlkit.models import RIPPER, DecisionTree, NaiveBayes, OneR, RuleFit

#: Few trees and folds keep RuleFit's ~50 checks at a few seconds; the checks test the estimator
#: protocol, not RuleFit's accuracy (tests/models/test_rulefit.py does that).
RULEFIT = dict(n_estimators=5, cv=2, random_state=0)

ESTIMATORS = [
    DecisionTree(criterion="gini"),
    DecisionTree(criterion="squared_error"),
    OneR(),
    RIPPER(random_state=0),
    RuleFit(task="classification", **RULEFIT),
    RuleFit(task="regression", **RULEFIT),
    NaiveBayes(),
]

#: What scikit-learn's checks ask of a model that it cannot do by design, per model class.
EXPECTED_FAILED = {
    "OneR": {
        "check_classifiers_train": "OneR predicts from one feature; on the check's 2-D three-class blobs the best "
                                   "single feature reaches 0.79 training accuracy, below the check's 0.83 "
                                   "(test_oner_on_the_blobs_of_check_classifiers_train covers the rest).",
    },
}


def _expected_failed(estimator):
    return EXPECTED_FAILED.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def _blobs():
    """The data of scikit-learn's ``check_classifiers_train``."""
    X, y = make_blobs(n_samples=300, random_state=0)
    return StandardScaler().fit_transform(X), y


def test_oner_on_the_blobs_of_check_classifiers_train():
    """What check_classifiers_train asks besides accuracy, and the accuracy of the best one-feature rule."""
    X, y = _blobs()
    m = OneR().fit(X, y)
    pred = m.predict(X)
    P = m.predict_proba(X)
    assert pred.shape == (300,) and P.shape == (300, 3)
    assert np.array_equal(m.classes_[np.argmax(P, axis=1)], pred)
    assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    # the training accuracy is 1 - (errors of the chosen feature) / n, and no feature does better
    assert_allclose(np.mean(pred == y), 1 - m.errors_.min() / len(y), rtol=1e-12)
    assert m.errors_.min() == m.errors_[m.feature_]
    assert 0.75 < np.mean(pred == y) < 0.83  # the reason it is an expected failure above


@pytest.mark.parametrize("model", [OneR(), RIPPER(random_state=0), NaiveBayes(), DecisionTree(),
                                   RuleFit(**RULEFIT)], ids=lambda m: type(m).__name__)
def test_categorical_dataframes_still_work(model):
    """The checks feed arrays; DataFrames with categorical and text columns must still fit and predict."""
    rng = np.random.default_rng(0)
    n = 120
    X = pd.DataFrame({"size": pd.Categorical(rng.choice(["S", "M", "L"], n)),
                      "colour": rng.choice(["red", "blue"], n),
                      "x": rng.normal(size=n)})
    y = np.where((X["size"] == "L") | (X["x"] > 1), "yes", "no")
    model.fit(X, y)
    assert list(model.feature_names_in_) == ["size", "colour", "x"]
    assert model.n_features_in_ == 3
    pred = model.predict(X)
    assert pred.shape == (n,) and set(pred) <= {"yes", "no"}
    assert np.mean(pred == y) > 0.8  # all five find the rule "size == L" (most of the positives)


@pytest.mark.parametrize("model", [OneR(), RIPPER(random_state=0), NaiveBayes(), DecisionTree()],
                         ids=lambda m: type(m).__name__)
def test_array_fit_has_no_feature_names_in(model):
    """scikit-learn's convention: feature_names_in_ only after a DataFrame; rules name array columns x0, x1, ..."""
    X, y = _blobs()
    model.fit(X, y)
    assert not hasattr(model, "feature_names_in_")
    assert model.feature_names_ == ["x0", "x1"]
    assert model.n_features_in_ == 2


def test_int_named_dataframe_columns_are_compared_as_strings():
    """Column names 0, 1, ... become "0", "1", ...; a reordered frame is refused with both messages."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=[0, "a", 2])
    y = np.repeat(["p", "q"], 20)
    m = NaiveBayes().fit(X, y)
    assert list(m.feature_names_in_) == ["0", "a", "2"]
    with pytest.warns(UserWarning, match="X does not have valid feature names"):  # scikit-learn's warning
        from_array = m.predict(X.to_numpy())  # an array: columns by position
    assert np.array_equal(m.predict(X), from_array)
    with pytest.raises(ValueError, match=r"must have the same columns as the training X\. The feature names should "
                                         r"match those that were passed during fit\.\nFeature names must be in the "
                                         r"same order"):
        m.predict(X[[2, "a", 0]])


@pytest.mark.parametrize("model", [OneR(), RIPPER(random_state=0), NaiveBayes(), DecisionTree(),
                                   RuleFit(**RULEFIT)], ids=lambda m: type(m).__name__)
def test_infinite_values_are_refused_naming_the_column(model):
    X = pd.DataFrame({"a": [1.0, 2.0, np.inf, 4.0] * 5, "b": np.arange(20.0)})
    with pytest.raises(ValueError, match=r"^'X' has infinite values \(inf\) in column 'a'\.$"):
        model.fit(X, np.repeat(["p", "q"], 10))
