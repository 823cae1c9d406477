"""Naive Bayes: the course's tax-evasion example, hand computation, scikit-learn."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy.stats import norm
from sklearn.base import clone, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.naive_bayes import CategoricalNB, GaussianNB

from imlkit.models import NaiveBayes

# Exact arithmetic (products as sums of logs, a 1e-9 relative variance smoothing): 1e-7.
EXACT = dict(rtol=1e-7, atol=0)


def tax_data():
    X = pd.DataFrame({
        "Refund": ["Yes", "No", "No", "Yes", "No", "No", "Yes", "No", "No", "No"],
        "Marital Status": ["Single", "Married", "Single", "Married", "Divorced", "Married", "Divorced",
                           "Single", "Married", "Single"],
        "Taxable Income": [125.0, 100, 70, 120, 95, 60, 220, 85, 75, 90],
    })
    y = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])
    return X, y


QUERY = pd.DataFrame({"Refund": ["No"], "Marital Status": ["Divorced"], "Taxable Income": [120.0]})


def test_course_tax_evasion_example():
    X, y = tax_data()
    nb = NaiveBayes(alpha=0).fit(X, y)
    # the course's estimates: means 110 / 90, sample variances 2975 / 25
    assert_allclose(nb.theta_["Taxable Income"], [110, 90], **EXACT)
    assert_allclose(nb.var_["Taxable Income"], [2975, 25], **EXACT)
    probs = nb.category_probs_["Marital Status"]
    assert_allclose(probs.loc[["Single", "Divorced", "Married"], "No"], [2 / 7, 1 / 7, 4 / 7], **EXACT)
    assert_allclose(probs.loc[["Single", "Divorced", "Married"], "Yes"], [2 / 3, 1 / 3, 0], **EXACT)

    ex = nb.explain(QUERY).set_index(["class", "term"])
    assert_allclose(ex.loc[("No", "Refund"), "factor"], 4 / 7, **EXACT)
    assert_allclose(ex.loc[("No", "Marital Status"), "factor"], 1 / 7, **EXACT)
    assert_allclose(ex.loc[("Yes", "Refund"), "factor"], 1.0, **EXACT)
    assert_allclose(ex.loc[("Yes", "Marital Status"), "factor"], 1 / 3, **EXACT)
    # the course prints 0.0072 and 1.2e-9: half a unit of the last printed digit
    assert_allclose(ex.loc[("No", "Taxable Income"), "factor"], 0.0072, atol=0.00005, rtol=0)
    assert_allclose(ex.loc[("Yes", "Taxable Income"), "factor"], 1.2e-9, atol=0.05e-9, rtol=0)
    # P(X|No) ≈ 0.0006 and P(X|Yes) ≈ 4e-10 as printed (one significant digit) ...
    assert_allclose(ex.loc[("No", "prior"), "likelihood"], 0.0006, atol=0.00005, rtol=0)
    assert_allclose(ex.loc[("Yes", "prior"), "likelihood"], 4e-10, atol=0.5e-10, rtol=0)
    # ... and exactly, from the formula with the fitted variances (2975 and 25 up to the
    # 1e-9 relative smoothing, which moves exp(-18) by ~1e-6 relative)
    sd = np.sqrt(nb.var_["Taxable Income"])
    lik_no = 4 / 7 * 1 / 7 * norm.pdf(120, 110, sd["No"])
    lik_yes = 1 * 1 / 3 * norm.pdf(120, 90, sd["Yes"])
    assert_allclose(ex.loc[("No", "prior"), "likelihood"], lik_no, **EXACT)
    assert_allclose(ex.loc[("Yes", "prior"), "likelihood"], lik_yes, **EXACT)
    assert_allclose(ex.loc[("No", "prior"), "factor"], 0.7, **EXACT)
    posterior_no = 0.7 * lik_no / (0.7 * lik_no + 0.3 * lik_yes)
    assert_allclose(ex.loc[("No", "prior"), "posterior"], posterior_no, **EXACT)
    assert nb.predict(QUERY).tolist() == ["No"]
    assert_allclose(nb.predict_proba(QUERY)[0], [posterior_no, 1 - posterior_no], **EXACT)


def test_explain_is_consistent_with_predict_proba():
    X, y = tax_data()
    nb = NaiveBayes(alpha=1.0).fit(X, y)
    ex = nb.explain(X)
    assert len(ex) == len(X) * 2 * 4
    assert list(ex.columns) == ["row", "class", "term", "value", "factor", "log_contribution", "likelihood",
                                "joint", "posterior", "log_likelihood", "log_joint", "log_posterior"]
    assert_allclose(np.exp(ex["log_contribution"]), ex["factor"], **EXACT)
    log_joint = ex.groupby(["row", "class"], sort=True)["log_contribution"].sum().unstack()
    assert_allclose(np.exp(log_joint.to_numpy()), ex.groupby(["row", "class"])["joint"].first().unstack(), **EXACT)
    post = np.exp(log_joint.to_numpy())
    post /= post.sum(axis=1, keepdims=True)
    assert_allclose(post, nb.predict_proba(X), **EXACT)
    assert_allclose(ex.groupby(["row", "class"])["posterior"].first().unstack().to_numpy(), post, **EXACT)
    # a Series is one row
    pd.testing.assert_frame_equal(nb.explain(X.iloc[0]).drop(columns="value"),
                                  nb.explain(X.iloc[[0]]).drop(columns="value"))


def test_laplace_smoothing_by_hand():
    X, y = tax_data()
    nb = NaiveBayes(alpha=1.0).fit(X, y)
    # P(Refund=Yes | Yes) = (0 + 1) / (3 + 1·2);  P(Married | Yes) = (0 + 1) / (3 + 1·3)
    assert_allclose(nb.category_probs_["Refund"].loc["Yes", "Yes"], 1 / 5, **EXACT)
    assert_allclose(nb.category_probs_["Marital Status"].loc["Married", "Yes"], 1 / 6, **EXACT)
    assert_allclose(nb.class_prior_, [0.7, 0.3], **EXACT)


def test_categorical_equals_sklearn_categoricalnb():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, size=(200, 3))
    y = (codes[:, 0] + rng.integers(0, 3, 200) > 3).astype(int)
    X = pd.DataFrame({f"c{j}": pd.Categorical([f"l{v}" for v in codes[:, j]]) for j in range(3)})
    for alpha in (1.0, 0.5):
        ours = NaiveBayes(alpha=alpha).fit(X, y)
        sk = CategoricalNB(alpha=alpha).fit(codes, y)
        assert_allclose(ours.predict_proba(X), sk.predict_proba(codes), rtol=1e-10, atol=1e-12)


def test_numeric_equals_sklearn_gaussiannb_with_ddof0():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3)) * [1.0, 5.0, 0.2]
    y = np.digitize(X[:, 0] + X[:, 1] / 5 + rng.normal(size=150), [-1, 1])
    ours = NaiveBayes(ddof=0).fit(X, y)
    sk = GaussianNB().fit(X, y)
    assert_allclose(ours.var_.to_numpy(), sk.var_, rtol=1e-12)
    assert_allclose(ours.predict_proba(X), sk.predict_proba(X), rtol=1e-9, atol=1e-12)
    assert np.array_equal(ours.predict(X), sk.predict(X))


def test_missing_and_unseen_values_contribute_factor_one():
    X, y = tax_data()
    nb = NaiveBayes().fit(X, y)
    q = pd.DataFrame({"Refund": ["Maybe"], "Marital Status": [None], "Taxable Income": [np.nan]})
    ex = nb.explain(q)
    assert_allclose(ex.loc[ex["term"] != "prior", "factor"], 1.0, atol=0)
    assert_allclose(nb.predict_proba(q)[0], nb.class_prior_, **EXACT)
    # missing training values are skipped, not counted as a level
    Xm = X.assign(Refund=[None] + X["Refund"].tolist()[1:])
    nbm = NaiveBayes(alpha=0).fit(Xm, y)
    assert_allclose(nbm.category_probs_["Refund"].loc["Yes", "No"], 2 / 6, **EXACT)


def test_alpha0_zero_likelihood_everywhere_falls_back_to_prior():
    cat = lambda values: pd.Categorical(values, categories=["u", "v"])  # noqa: E731
    X = pd.DataFrame({"a": cat(["u", "v"]), "b": cat(["u", "u"])})
    nb = NaiveBayes(alpha=0).fit(X, ["A", "B"])
    # A never had a = v, B never had a = u, and neither had b = v: every class gets P(x|c) = 0
    query = pd.DataFrame({"a": cat(["u"]), "b": cat(["v"])})
    with pytest.warns(RuntimeWarning, match="likelihood 0 under every class"):
        proba = nb.predict_proba(query)
    assert_allclose(proba[0], [0.5, 0.5], **EXACT)
    # with one zero factor for one class only, the other class wins outright
    assert_allclose(nb.predict_proba(pd.DataFrame({"a": cat(["u"]), "b": cat(["u"])}))[0], [1.0, 0.0], atol=0)


def test_sklearn_contract_and_pfi():
    import imlkit as ik

    X, y = tax_data()
    nb = NaiveBayes(alpha=0.5)
    assert is_classifier(nb) and nb.get_params() == {"alpha": 0.5, "var_smoothing": 1e-9, "ddof": 1,
                                                     "discretize": None, "n_bins": 5}
    fitted = clone(nb).fit(X, y)
    assert list(fitted.classes_) == ["No", "Yes"]
    r = ik.pfi(fitted, X, y, n_repeats=2, random_state=0)  # log loss on probabilities
    assert np.isfinite(r.importance).all()


X_ERR, Y_ERR = tax_data()


@pytest.mark.parametrize("params, X, y, exc, match", [
    (dict(alpha=-1.0), X_ERR, Y_ERR, ValueError, "'alpha' must be a number >= 0.0"),
    (dict(alpha="one"), X_ERR, Y_ERR, TypeError, "'alpha' must be a number"),
    (dict(ddof=2), X_ERR, Y_ERR, ValueError, "'ddof' must be an int >= 0 and <= 1"),
    (dict(var_smoothing=-1e-9), X_ERR, Y_ERR, ValueError, "'var_smoothing' must be"),
    (dict(), X_ERR, ["No"] * 10, ValueError, "at least 2 classes"),
    (dict(), X_ERR, Y_ERR[:3], ValueError, "different lengths"),
    (dict(), X_ERR, np.linspace(0, 1, 10), ValueError, "needs a class target; .y. looks continuous"),
    (dict(), X_ERR.assign(**{"Taxable Income": [np.nan] * 4 + [95.0] + [np.nan] * 5}), Y_ERR, ValueError,
     "no non-missing value for class 'No'"),
    (dict(), X_ERR.assign(**{"Taxable Income": [np.inf] + [1.0] * 9}), Y_ERR, ValueError, "infinite"),
])
def test_fit_errors(params, X, y, exc, match):
    with pytest.raises(exc, match=match):
        NaiveBayes(**params).fit(X, y)


def test_predict_errors():
    with pytest.raises(NotFittedError, match="not fitted"):
        NaiveBayes().predict(QUERY)
    nb = NaiveBayes().fit(X_ERR, Y_ERR)
    with pytest.raises(ValueError, match="same columns"):
        nb.explain(QUERY.rename(columns={"Refund": "refund"}))
    with pytest.raises(ValueError, match="was numeric when the model was fitted"):
        nb.predict(QUERY.assign(**{"Taxable Income": "high"}))


@pytest.mark.parametrize("strategy", ["quantile", "uniform"])
def test_discretized_continuous_attributes_equal_sklearn_categorical_nb(strategy):
    """The course's discretisation option: bins as categorical values, Laplace-smoothed counts."""
    from sklearn.datasets import load_wine
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.preprocessing import KBinsDiscretizer

    d = load_wine(as_frame=True)
    X, y = d.data.iloc[:, :6], d.target
    nb = NaiveBayes(alpha=1.0, discretize=strategy, n_bins=4).fit(X, y)
    kw = {"quantile_method": "linear"} if strategy == "quantile" else {}
    try:
        kb = KBinsDiscretizer(n_bins=4, encode="ordinal", strategy=strategy, **kw).fit(X)
    except TypeError:  # older scikit-learn: linear interpolation was the only quantile method
        kb = KBinsDiscretizer(n_bins=4, encode="ordinal", strategy=strategy).fit(X)
    for j, col in enumerate(X.columns):
        assert_allclose(nb.bin_edges_[col], kb.bin_edges_[j][1:-1])
    codes = kb.transform(X).astype(int)
    ref = CategoricalNB(alpha=1.0, min_categories=4).fit(codes, y)
    assert_allclose(nb.predict_proba(X), ref.predict_proba(codes), rtol=1e-10)
    # unseen extremes fall into the outer bins instead of failing
    far = X.iloc[:2] * 100
    assert_allclose(nb.predict_proba(far), ref.predict_proba(np.clip(kb.transform(far), 0, 3).astype(int)),
                    rtol=1e-10)
    assert nb.theta_.shape[1] == 0
    assert list(nb.category_probs_["alcohol"].index)[0].startswith("[-inf, ")
