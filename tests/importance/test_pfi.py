"""PFI and CFI: known answers, invariances and the error table."""
import time

import joblib
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import imlkit as ik


@pytest.fixture(scope="module")
def linear_data():
    rng = np.random.default_rng(42)
    n = 20_000
    X = rng.normal(0, [1.0, 2.0, 0.5], size=(n, 3))
    beta = np.array([1.0, -0.5, 3.0])
    y = X @ beta + rng.normal(0, 0.3, n)
    return X, y, beta


def test_pfi_linear_model_equals_two_beta_squared_var(linear_data):
    X, y, beta = linear_data
    def model(Z):
        return Z @ beta  # the true function: no estimation error in the coefficients
    r = ik.pfi(model, X, y, n_repeats=10, random_state=0)
    expected = 2 * beta**2 * X.var(axis=0)
    # Monte-Carlo error: each repeat's PFI has relative sd about sqrt(2/n) ~ 1% at n = 20,000;
    # 5% is several standard errors of the mean over 10 repeats.
    assert_allclose(r.importance, expected, rtol=0.05)
    # the interval over repeats is consistent with the known value
    assert np.all(r.ci_low < expected * 1.05) and np.all(r.ci_high > expected * 0.95)


def test_ratio_relation(linear_data):
    X, y, beta = linear_data
    def model(Z):
        return Z @ beta
    diff = ik.pfi(model, X, y, n_repeats=3, random_state=1)
    ratio = ik.pfi(model, X, y, n_repeats=3, random_state=1, relation="ratio")
    # same permutations (same seed) -> ratio = (base + diff) / base exactly
    assert_allclose(ratio.repeats, (diff.repeats + diff.baseline_loss) / diff.baseline_loss, rtol=1e-12)


def test_extrapolation_pfi_vs_cfi():
    X, y = ik.datasets.make_extrapolation(n=2000, random_state=3)
    model = LinearRegression().fit(X, y)
    p = ik.pfi(model, X, y, n_repeats=10, random_state=0)
    c = ik.cfi(model, X, y, sampler="gaussian", n_repeats=10, random_state=0)
    fp = p.to_frame(sort=False)
    fc = c.to_frame(sort=False)
    # PFI: x1 and x2 clearly positive (interval above 0 and far above the noise feature x4)
    assert (fp.loc[["x1", "x2"], "ci_low"] > 0).all()
    assert (fp.loc[["x1", "x2"], "importance"] > 20 * abs(fp.loc["x4", "importance"])).all()
    # CFI: x1 and x2 about 0 relative to x3 and to their PFI
    assert (fc.loc[["x1", "x2"], "importance"].abs() < 0.05 * fp.loc[["x1", "x2"], "importance"]).all()
    # x3 important under both: E[PFI_3] = 2 * beta_3^2 * Var(x3) ~ 2
    assert_allclose([fp.loc["x3", "importance"], fc.loc["x3", "importance"]], 2 * X["x3"].var(), rtol=0.1)
    assert any("x1" in w for w in p.warnings) and "CFI" in p.explain()
    assert "unique" in c.explain()


def test_extrapolation_example_with_default_sampler():
    # the course's example again, with the distribution-free default: x1, x2 nearly 0
    X, y = ik.datasets.make_extrapolation(n=2000, random_state=3)
    model = LinearRegression().fit(X, y)
    p = ik.pfi(model, X, y, n_repeats=10, random_state=0).to_frame(sort=False)
    c = ik.cfi(model, X, y, n_repeats=10, random_state=0)
    assert "SubgroupSampler" in c.params["sampler"]
    fc = c.to_frame(sort=False)
    assert (fc.loc[["x1", "x2"], "importance"].abs() < 0.05 * p.loc[["x1", "x2"], "importance"]).all()
    assert_allclose(fc.loc["x3", "importance"], 2 * X["x3"].var(), rtol=0.1)


def _course_mixture(n, seed):
    """The course's conditional-permutation illustration: X2 ~ U(0, 1);
    X1 ~ N(0, 1) if X2 < 0.5 else N(4, 4) (variance 4); y depends on X2 only."""
    rng = np.random.default_rng(seed)
    x2 = rng.uniform(size=n)
    x1 = np.where(x2 < 0.5, rng.normal(0, 1, n), rng.normal(4, 2, n))
    y = 4 * (x2 >= 0.5) + x2 + rng.normal(0, 0.5, n)
    return pd.DataFrame({"x1": x1, "x2": x2}), y


def test_cfi_default_is_zero_for_conditionally_irrelevant_feature_on_mixture():
    X, y = _course_mixture(2000, 0)
    # A model that uses X1 as a proxy for the jump at X2 = 0.5.
    def model(Z):
        return Z["x2"].to_numpy() + 4 * (Z["x1"].to_numpy() > 2)
    p = ik.pfi(model, X, y, features=["x1"], n_repeats=10, random_state=0).importance[0]
    # y ⊥ X1 | X2, so (X̃1, X2, y) has the joint law of (X1, X2, y): exact CFI(X1) = 0 for
    # any model. PFI(X1) ≈ 6.6 here; the default sampler stays within 2% of it (Monte-Carlo
    # noise is ~0.02), the Gaussian sampler does not (its conditional is wrong for a mixture).
    c = ik.cfi(model, X, y, features=["x1"], n_repeats=10, random_state=0)
    assert p > 5
    assert abs(c.importance[0]) < 0.02 * p
    g = ik.cfi(model, X, y, sampler="gaussian", features=["x1"], n_repeats=10, random_state=0)
    assert g.importance[0] > 0.2 * p


def test_cfi_default_on_discrete_data():
    # a binary, b integer, s binary with P(s = 1 | a, b) depending on (a, b); y ⊥ s | (a, b)
    rng = np.random.default_rng(5)
    n = 2000
    a = rng.integers(0, 2, n)
    b = rng.binomial(4, 0.5, n)
    s = (rng.uniform(size=n) < np.where((a == 1) & (b >= 2), 0.9, 0.1)).astype(np.int64)
    X = pd.DataFrame({"a": a, "b": b, "s": s})
    y = 2 * a + b + rng.normal(0, 0.5, n)
    # the model uses s as a proxy for a
    def model(Z):
        return Z["a"].to_numpy() + Z["b"].to_numpy() + 2 * Z["s"].to_numpy()
    seen = []

    def spy(Z):
        seen.append(set(np.unique(Z["s"].to_numpy())))
        return model(Z)

    p = ik.pfi(model, X, y, n_repeats=10, random_state=0).to_frame(sort=False)
    c = ik.cfi(spy, X, y, n_repeats=10, random_state=0).to_frame(sort=False)
    assert all(v <= {0, 1} for v in seen)  # s only ever takes its observed values
    # exact CFI(s) = 0 (y ⊥ s | a, b) for any model; PFI(s) = 8·Var(s) − 8·Cov(s, a) ≈ 0.57
    # here (the permuted proxy no longer tracks a). Monte-Carlo noise of CFI(s) is ~0.02.
    assert p.loc["s", "importance"] > 0.4
    assert abs(c.loc["s", "importance"]) < 0.1 * p.loc["s", "importance"]
    # a and b carry information about y beyond the others: clearly positive
    assert (c.loc[["a", "b"], "ci_low"] > 0.3).all()


def test_groups_permute_jointly(linear_data):
    X, y, beta = linear_data
    Xf = pd.DataFrame(X, columns=["a", "b", "c"])
    r = ik.pfi(lambda Z: Z.to_numpy() @ beta, Xf, y, features={"ab": ["a", "b"], "c": "c"}, n_repeats=5,
               random_state=0)
    assert r.feature_names == ("ab", "c")
    # independent features: the joint PFI of a and b is the sum of the single ones
    expected = 2 * (beta[:2] ** 2 * X[:, :2].var(axis=0)).sum()
    assert_allclose(r.importance[0], expected, rtol=0.05)


def test_same_seed_same_numbers_and_n_jobs(linear_data):
    X, y, beta = linear_data
    X, y = X[:500], y[:500]
    model = LinearRegression().fit(X, y)
    a = ik.pfi(model, X, y, n_repeats=4, random_state=7)
    b = ik.pfi(model, X, y, n_repeats=4, random_state=7)
    c = ik.pfi(model, X, y, n_repeats=4, random_state=7, n_jobs=2)
    with joblib.parallel_config(backend="threading", n_jobs=2):
        d = ik.pfi(model, X, y, n_repeats=4, random_state=7)
    e = ik.pfi(model, X, y, n_repeats=4, random_state=7, max_rows=300)  # other blocking
    for other in (b, c, d, e):
        assert_allclose(other.repeats, a.repeats, rtol=0, atol=0)
    assert not np.array_equal(ik.pfi(model, X, y, n_repeats=4, random_state=8).repeats, a.repeats)


def test_numpy_and_dataframe_agree(linear_data):
    X, y, beta = linear_data
    X, y = X[:400], y[:400]
    m_np = LinearRegression().fit(X, y)
    Xf = pd.DataFrame(X, columns=["a", "b", "c"])
    m_df = LinearRegression().fit(Xf, y)
    a = ik.pfi(m_np, X, y, n_repeats=3, random_state=0)
    b = ik.pfi(m_df, Xf, y, n_repeats=3, random_state=0)
    assert_allclose(a.repeats, b.repeats, rtol=1e-10)
    assert b.feature_names == ("a", "b", "c") and a.feature_names == ("x0", "x1", "x2")


def test_pipeline_with_categorical_column():
    X, y = ik.datasets.load_bike()
    X, y = X.iloc[:800], y.iloc[:800]
    pre = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["mnth", "weathersit"]),
                                  remainder=StandardScaler())
    model = make_pipeline(pre, LinearRegression()).fit(X, y)
    r = ik.pfi(model, X, y, n_repeats=2, random_state=0)
    c = ik.cfi(model, X, y, n_repeats=2, random_state=0)  # auto -> subgroup sampler on mixed data
    assert "SubgroupSampler" in c.params["sampler"]
    assert np.isfinite(r.importance).all() and np.isfinite(c.importance).all()
    assert r.to_frame().index[0] in {"hr", "temp", "atemp"}


def test_agrees_with_sklearn_permutation_importance():
    X, y = ik.datasets.load_bike()
    X = X.assign(mnth=X["mnth"].cat.codes, weathersit=X["weathersit"].cat.codes).iloc[:1500]
    y = y.iloc[:1500]
    model = HistGradientBoostingRegressor(max_iter=50, random_state=0).fit(X, y)
    r = ik.pfi(model, X, y, n_repeats=10, random_state=0)
    s = permutation_importance(model, X, y, scoring="neg_mean_squared_error", n_repeats=10, random_state=0)
    # different permutations: agree within Monte-Carlo error, judged on the scale of the largest
    assert_allclose(r.importance, s.importances_mean, atol=0.05 * s.importances_mean.max())


def test_classifier_log_loss_and_accuracy():
    X, y = ik.datasets.load_penguins()
    pre = make_column_transformer((OneHotEncoder(), ["island", "sex"]), remainder=StandardScaler())
    model = make_pipeline(pre, LogisticRegression(max_iter=500)).fit(X, y)
    r = ik.pfi(model, X, y, n_repeats=3, random_state=0)
    assert r.loss == "log_loss"
    acc = ik.pfi(model, X, y, loss="accuracy", n_repeats=3, random_state=0)
    # accuracy is a score: importance = accuracy drop, positive for the informative bill length
    assert acc.to_frame().loc["bill_length_mm", "importance"] > 0
    assert acc.baseline_loss > 0.9


def test_result_frame_plot_and_observation_importance(linear_data):
    import matplotlib

    matplotlib.use("Agg")
    X, y, beta = linear_data
    t0 = time.perf_counter()
    r = ik.pfi(lambda Z: Z @ beta, X[:300], y[:300], n_repeats=3, random_state=0)
    wall = time.perf_counter() - t0
    f = r.to_frame()
    assert list(f.columns) == ["importance", "std", "ci_low", "ci_high", "q05", "q95"]
    assert f["importance"].is_monotonic_decreasing
    assert r.observation_importance.shape == (3, 300)
    assert_allclose(r.observation_importance.mean(axis=1), r.importance, rtol=1e-10)
    assert r.plot().get_title().startswith("PFI") and len(r.plot(kind="box").get_yticklabels()) == 3
    assert r.params["n_repeats"] == 3 and 0 < r.info["seconds"] <= wall  # timed, in seconds


class _NaNModel:
    def predict(self, X):
        return np.full(len(X), np.nan)


@pytest.mark.parametrize("call, exc, match", [
    (lambda X, y, m: ik.pfi(m, X, y[:-1]), ValueError, "different lengths"),
    (lambda X, y, m: ik.pfi(m, X, np.r_[np.nan, y[1:]]), ValueError, "NaN"),
    (lambda X, y, m: ik.pfi(m, X, y, features=["nope"]), ValueError, "Unknown feature 'nope'"),
    (lambda X, y, m: ik.pfi(m, X.iloc[:0], y[:0]), ValueError, "at least 1 row"),
    (lambda X, y, m: ik.pfi(m, X, y, n_repeats=0), ValueError, "'n_repeats' must be an int >= 1; got 0"),
    (lambda X, y, m: ik.pfi(m, X, y, loss="log_loss"), ValueError, "no predict_proba"),
    (lambda X, y, m: ik.pfi(m, X, y, loss="nope"), ValueError, "'loss' must be one of"),
    (lambda X, y, m: ik.pfi(m, X, y, relation="sum"), ValueError, "'relation' must be one of"),
    (lambda X, y, m: ik.pfi(m, X, y, confidence_level=1.5), ValueError, "'confidence_level'"),
    (lambda X, y, m: ik.pfi(m, X, y, n_jobs=0), ValueError, "'n_jobs'"),
    (lambda X, y, m: ik.cfi(m, X.assign(t=["a", "b"] * 10), y, sampler="gaussian"), ValueError,
     r"GaussianSampler needs numeric columns; column\(s\) \['t'\]"),
    (lambda X, y, m: ik.cfi(m, X, y, sampler="magic"), ValueError, "'sampler' must be one of"),
    (lambda X, y, m: ik.pfi(_NaNModel(), X, y), ik.ModelError,
     "NaN or infinite predictions while predicting the unperturbed"),
    (lambda X, y, m: ik.pfi(object(), X, y), TypeError, "predict method or be callable"),
])
def test_error_table(call, exc, match):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(20, 2)), columns=["a", "b"])
    y = X["a"].to_numpy() + rng.normal(size=20)
    model = LinearRegression().fit(X, y)
    with pytest.raises(exc, match=match):
        call(X, y, model)
