"""Known answers for the interpretable models: peer libraries on the same data, textbook examples.

Peers: statsmodels GLM (bundled data sets), pyGAM (same P-spline basis and fixed λ),
scikit-learn GaussianNB / CategoricalNB / KNeighbors, wittgenstein's RIPPER. Textbook examples:
OneR on Molnar's (Interpretable Machine Learning, ch. 5.5) house table and on Witten & Frank's
weather data (nominal and numeric, Data Mining ch. 4.1).
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from imlkit.models import GAM, GLM, RIPPER, NaiveBayes, OneR, RuleFit


# ----------------------------------------------------------------------------- naive Bayes
def _cancer():
    from sklearn.datasets import load_breast_cancer
    return load_breast_cancer(return_X_y=True, as_frame=True)


def test_gaussian_nb_equals_sklearn_with_ddof0():
    from sklearn.naive_bayes import GaussianNB
    X, y = _cancer()
    nb, g = NaiveBayes(ddof=0).fit(X, y), GaussianNB().fit(X, y)
    # same formulas in double precision: parameters to rounding (relative 1e-12)
    assert_allclose(nb.theta_.to_numpy(), g.theta_, rtol=1e-12)
    assert_allclose(nb.var_.to_numpy(), g.var_, rtol=1e-12)
    assert_allclose(nb.predict_proba(X), g.predict_proba(X), atol=1e-12)


def test_gaussian_nb_log_proba_does_not_underflow():
    # breast cancer rows whose posterior of one class is e^-2473: log(predict_proba) is -inf,
    # the log posterior itself is finite (GaussianNB: -2473.4, -2707.2)
    from sklearn.naive_bayes import GaussianNB
    X, y = _cancer()
    nb, g = NaiveBayes(ddof=0).fit(X, y), GaussianNB().fit(X, y)
    a, b = nb.predict_log_proba(X), g.predict_log_proba(X)
    assert np.isfinite(a).all()
    assert_allclose(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_categorical_nb_equals_sklearn(alpha):
    from sklearn.naive_bayes import CategoricalNB
    rng = np.random.default_rng(0)
    C = pd.DataFrame({f"c{j}": rng.choice(list("abcd"), 300) for j in range(4)})
    y = np.where((C.c0 == "a") | (C.c1 == "b"), "p", "q")
    nb = NaiveBayes(alpha=alpha).fit(C, y)
    codes = np.column_stack([pd.Categorical(C[c], categories=list("abcd")).codes for c in C])
    cn = CategoricalNB(alpha=alpha).fit(codes, y)
    assert_allclose(nb.predict_proba(C), cn.predict_proba(codes), atol=1e-12)
    assert_allclose(nb.predict_log_proba(C), cn.predict_log_proba(codes), atol=1e-10)
