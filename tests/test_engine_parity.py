"""The tree engine never gives another answer than ``engine="predict"``.

Known answer: ``engine="predict"`` builds every modified row and asks the model itself, so
whatever the default engine returns must equal it -- to rounding for scikit-learn and LightGBM
(float64 sums, rtol 1e-8), to XGBoost's float32 sums (rtol 2e-5 on predictions) -- for every
method the engine serves. The fuzz runs model families x tasks x pipelines x data (missing
values, categories, ties) on small data; the targeted tests pin the cases that once went wrong:
a missing-value indicator the engine did not update, early-stopped boosters, inf in X.
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OrdinalEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from threadpoolctl import threadpool_limits

import imlkit as ik
from imlkit._trees import _adapters
from imlkit._validation import ModelError

#: one OpenMP/BLAS thread (tests/conftest.py): the engine is single-threaded, and OpenMP fits and predicts
#: crawl on a shared machine
pytestmark = pytest.mark.usefixtures("one_thread")


# --------------------------------------------------------------------------- data and models

def _data(variant, task, seed):
    """60 rows: x0, x1 floats, x2 integers, c a category; y from all of them.

    ``variant``: "nan" (a quarter of x0 missing, which raises y), "categorical" (c is a pandas
    category, kept as such for the families that read categories) or "ties" (x1 on 4 values).
    """
    rng = np.random.default_rng(seed)
    n = 60
    X = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n), "x2": rng.integers(0, 5, n),
                      "c": pd.Categorical(rng.choice(["p", "q", "r"], n))})
    signal = X.x0 + X.x1 * X.x2 / 2 + (X.c == "p") * 1.5 + 0.3 * rng.normal(size=n)
    if variant == "nan":  # missing x0 raises y by 3 (informative missingness); the first rows complete
        missing = (rng.random(n) < 0.25) & (np.arange(n) >= 10)
        signal = signal + 3 * missing
        X.loc[missing, "x0"] = np.nan
    elif variant == "ties":
        X["x1"] = np.round(X.x1.clip(-1.5, 1.5))
    if task == "regression":
        y = signal.to_numpy()
    elif task == "binary":
        y = (signal > signal.median()).to_numpy().astype(int)
    else:
        y = np.digitize(signal, signal.quantile([1 / 3, 2 / 3])).astype(int)
    return X, y


FAMILIES = {  # name: (regressor, classifier, reads pandas categories itself)
    "RF": (lambda: RandomForestRegressor(8, max_depth=4, random_state=0),
           lambda: RandomForestClassifier(8, max_depth=4, random_state=0), False),
    "ET": (lambda: ExtraTreesRegressor(8, max_depth=4, random_state=0),
           lambda: ExtraTreesClassifier(8, max_depth=4, random_state=0), False),
    "DT": (lambda: DecisionTreeRegressor(max_depth=4, random_state=0),
           lambda: DecisionTreeClassifier(max_depth=4, random_state=0), False),
    "GB": (lambda: GradientBoostingRegressor(n_estimators=8, max_depth=3, random_state=0),
           lambda: GradientBoostingClassifier(n_estimators=5, max_depth=3, random_state=0), False),
    "HGB": (lambda: HistGradientBoostingRegressor(max_iter=8, categorical_features="from_dtype"),
            lambda: HistGradientBoostingClassifier(max_iter=6, categorical_features="from_dtype"), True),
    "LGBM": (lambda: _lgb().LGBMRegressor(n_estimators=8, num_leaves=7, min_child_samples=3, verbose=-1, n_jobs=1),
             lambda: _lgb().LGBMClassifier(n_estimators=6, num_leaves=7, min_child_samples=3, verbose=-1,
                                           n_jobs=1), True),
    "XGB": (lambda: _xgb().XGBRegressor(n_estimators=8, max_depth=3, n_jobs=1, enable_categorical=True,
                                        tree_method="hist", max_cat_to_onehot=1),
            lambda: _xgb().XGBClassifier(n_estimators=6, max_depth=3, n_jobs=1, enable_categorical=True,
                                         tree_method="hist", max_cat_to_onehot=1), True),
}


def _lgb():
    return pytest.importorskip("lightgbm")


def _xgb():
    return pytest.importorskip("xgboost")


def _pipeline(kind, model):
    """None, or a ColumnTransformer before the model: scaled numbers, imputed numbers (with or
    without missing-value indicators); the category is ordinal-encoded."""
    num = ["x0", "x1", "x2"]
    numeric = {"scaled": StandardScaler(), "imputed": SimpleImputer(strategy="median"),
               "indicator": SimpleImputer(add_indicator=True)}[kind]
    ct = ColumnTransformer([("num", numeric, num), ("cat", OrdinalEncoder(), ["c"])])
    return Pipeline([("prep", ct), ("model", model)])


#: Every family twice, every task, pipeline and kind of data several times, in different
#: combinations; a missing-value indicator where the missingness carries the signal three times.
SETUPS = [
    ("RF", "regression", "indicator", "nan"), ("RF", "multiclass", "none", "categorical"),
    ("ET", "binary", "scaled", "nan"), ("ET", "regression", "imputed", "ties"),
    ("DT", "multiclass", "indicator", "nan"), ("DT", "regression", "scaled", "categorical"),
    ("GB", "binary", "imputed", "nan"), ("GB", "regression", "indicator", "ties"),
    ("HGB", "regression", "none", "nan"), ("HGB", "multiclass", "indicator", "nan"),
    ("LGBM", "binary", "none", "categorical"), ("LGBM", "multiclass", "scaled", "ties"),
    ("XGB", "regression", "imputed", "nan"), ("XGB", "binary", "none", "categorical"),
]


def _setup(family, task, pipe, variant, seed):
    X, y = _data(variant, task, seed)
    reg, clf, native = FAMILIES[family]
    model = (reg if task == "regression" else clf)()
    if family == "GB" and variant == "nan" and pipe in ("none", "scaled"):
        pipe = "imputed"  # gradient boosting does not take missing values
    if pipe == "none" and not native:
        X = X.assign(c=X["c"].cat.codes)  # the category as its integer codes
    fitted = model if pipe == "none" else _pipeline(pipe, model)
    fitted.fit(X, y)
    return fitted, X, y, pipe


def _tol(family, values):
    # XGBoost sums its trees in float32 (~1e-6 relative per prediction); the others in float64
    rel = 2e-5 if family == "XGB" else 1e-8
    scale = max(1.0, float(np.nanmax(np.abs(values)))) if np.size(values) else 1.0
    return dict(rtol=rel, atol=rel * scale)


@pytest.mark.parametrize("family, task, pipe, variant", SETUPS, ids=["-".join(s) for s in SETUPS])
def test_every_hooked_method_equals_predict(family, task, pipe, variant):
    model, X, y, pipe = _setup(family, task, pipe, variant, seed=SETUPS.index((family, task, pipe, variant)))
    classes = getattr(model, "classes_", None)
    one = None if classes is None else classes[-1]
    expect = "predict" if pipe == "indicator" else "trees"

    def both(fn, **kw):
        fast, slow = fn(engine="auto", **kw), fn(engine="predict", **kw)
        assert fast.info["engine"] == expect, fast.info.get("engine_note")
        assert slow.info["engine"] == "predict"
        return fast, slow

    for method in (ik.pfi, ik.cfi):
        fast, slow = both(lambda **kw: method(model, X, y, n_repeats=2, random_state=1, **kw))
        assert_allclose(fast.repeats, slow.repeats, **_tol(family, slow.repeats))
        assert_allclose(fast.observation_importance, slow.observation_importance,
                        **_tol(family, slow.observation_importance))
    for feature in ("x0", "c"):
        fast, slow = both(lambda **kw: ik.ice(model, X, feature, grid=4, **kw))
        assert_allclose(fast.individual, slow.individual, **_tol(family, slow.individual))
    fast, slow = both(lambda **kw: ik.partial_dependence(model, X, ("x1", "c"), grid=3, output=one, **kw))
    assert_allclose(fast.average, slow.average, **_tol(family, slow.average))
    fast, slow = both(lambda **kw: ik.h_statistic(model, X, ["x0", "x1", "c"], pairs="all", n_samples=25,
                                                  random_state=0, **kw))
    h_tol = dict(rtol=1e-3, atol=1e-6) if family == "XGB" else dict(rtol=1e-7, atol=1e-12)
    assert_allclose(fast.overall, slow.overall, **h_tol)
    assert_allclose(fast.pairwise["h2"].to_numpy(float), slow.pairwise["h2"].to_numpy(float), **h_tol)
    fast, slow = both(lambda **kw: ik.repid(model, X, "x1", split_features=["x2", "c"], grid=4, max_depth=1,
                                            **kw))
    assert_allclose(fast.average, slow.average, **_tol(family, slow.average))
    fast, slow = both(lambda **kw: ik.ice_heterogeneity(model, X, grid=4, **kw))
    assert_allclose(fast.heterogeneity, slow.heterogeneity, **_tol(family, slow.heterogeneity))


# --------------------------------------------------------------------------- the cases that went wrong

@pytest.fixture(scope="module")
def informative_missingness():
    """y jumps by 5 where a is missing; the first 80 rows are complete."""
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n)})
    miss = rng.random(n) < 0.3
    miss[:80] = False
    y = (X.a + 2 * X.b + 5 * miss + 0.1 * rng.normal(size=n)).to_numpy()
    X.loc[miss, "a"] = np.nan
    return X, y


def test_missing_indicator_pipeline_equals_predict(informative_missingness):
    # Acceptance: the indicator column maps one input column to two; the engine used to update
    # only the imputed value (PFI(a) 1.2 instead of 4.6+). The default engine now equals predict.
    X, y = informative_missingness
    with threadpool_limits(1):
        model = make_pipeline(SimpleImputer(add_indicator=True), RandomForestRegressor(30, random_state=0)).fit(X, y)
    fast = ik.pfi(model, X, y, n_repeats=3, random_state=0)
    slow = ik.pfi(model, X, y, n_repeats=3, random_state=0, engine="predict")
    assert fast.info["engine"] == "predict" and "add_indicator" in fast.info["engine_note"]
    assert_allclose(fast.importance, slow.importance, rtol=1e-8, atol=1e-8)
    assert fast.importance[0] > 4  # the missingness of a carries y's jump of 5
    for feature in ("a", "b"):
        fast, slow = ik.ice(model, X, feature, grid=6), ik.ice(model, X, feature, grid=6, engine="predict")
        assert_allclose(fast.individual, slow.individual, rtol=1e-8, atol=1e-8)


def test_perturbed_check_catches_what_the_whitelist_lets_through(informative_missingness, monkeypatch):
    # With the whitelist switched off, the indicator pipeline passes the check on unperturbed rows
    # (every prediction there is right); the check with a replaced by other rows' values (NaN
    # included) sees the difference and hands the method to predict.
    X, y = informative_missingness
    with threadpool_limits(1):
        model = make_pipeline(SimpleImputer(add_indicator=True), RandomForestRegressor(20, random_state=0)).fit(X, y)
    monkeypatch.setattr(_adapters, "_check_columnwise", lambda step: None)
    fast = ik.pfi(model, X, y, n_repeats=2, random_state=0)
    slow = ik.pfi(model, X, y, n_repeats=2, random_state=0, engine="predict")
    assert fast.info["engine"] == "predict"
    assert "'a' replaced by other rows' values" in fast.info["engine_note"]
    assert_allclose(fast.repeats, slow.repeats, rtol=1e-8, atol=1e-8)
    with pytest.raises(ModelError, match="replaced by other rows' values"):
        ik.ice(model, X, "a", grid=4, engine="trees")
    # b's encoding is one column: its ICE may come from the trees, and equals predict
    fast, slow = ik.ice(model, X, "b", grid=4), ik.ice(model, X, "b", grid=4, engine="predict")
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.individual, slow.individual, rtol=1e-8, atol=1e-8)


class StandardScaler2(StandardScaler):
    """A scikit-learn subclass under another name: not on the list, whatever it inherits."""


class OrdinalEncoderLookalike:
    """Named like a column-wise transformer, but not scikit-learn's: not trusted."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return np.asarray(X, dtype=float) + np.asarray(X, dtype=float).sum(axis=1, keepdims=True)


OrdinalEncoderLookalike.__name__ = "OrdinalEncoder"


def test_whitelist_is_exact():
    _adapters._check_columnwise(SimpleImputer())  # accepted: one column in, one out
    _adapters._check_columnwise(ColumnTransformer([("n", StandardScaler(), [0]), ("o", OrdinalEncoder(), [1])])
                                .fit(np.array([[0.0, 1.0], [1.0, 2.0]])))
    for step, reason in ((SimpleImputer(add_indicator=True), "add_indicator"), (StandardScaler2(), "StandardScaler2"),
                         (OrdinalEncoderLookalike(), "OrdinalEncoder is not known")):
        with pytest.raises(_adapters.Unsupported, match=reason):
            _adapters._check_columnwise(step)


@pytest.mark.filterwarnings("ignore:The argument 'eval_set' is deprecated")
@pytest.mark.parametrize("library", ["xgboost", "lightgbm"])
@pytest.mark.parametrize("task", ["regression", "binary"])
def test_early_stopped_boosters_use_the_engine(library, task):
    # The model predicts with its best iteration; so does the engine (its intercept included),
    # so "auto" picks the trees and engine="trees" works.
    lib = pytest.importorskip(library)
    X, y = _data("nan", task, seed=5)
    X = X.drop(columns="c")
    kw = dict(n_estimators=200, learning_rate=0.5, n_jobs=1)
    if library == "xgboost":
        cls = lib.XGBRegressor if task == "regression" else lib.XGBClassifier
        model = cls(max_depth=3, early_stopping_rounds=3, **kw).fit(X[:40], y[:40], eval_set=[(X[40:], y[40:])],
                                                                    verbose=False)
        assert model.best_iteration < 150
    else:
        cls = lib.LGBMRegressor if task == "regression" else lib.LGBMClassifier
        model = cls(num_leaves=5, min_child_samples=3, verbose=-1, **kw).fit(
            X[:40], y[:40], eval_set=[(X[40:], y[40:])], callbacks=[lib.early_stopping(3, verbose=False)])
        assert 0 < model.best_iteration_ < 150
    fast = ik.pfi(model, X, y, n_repeats=2, random_state=0, engine="trees")
    slow = ik.pfi(model, X, y, n_repeats=2, random_state=0, engine="predict")
    assert ik.pfi(model, X, y, n_repeats=1, random_state=0).info["engine"] == "trees"
    assert_allclose(fast.repeats, slow.repeats, **_tol("XGB", slow.repeats))


def test_inf_in_X_gets_predicts_answer():
    # scikit-learn's predict refuses inf; the engine used to answer anyway. Now every engine
    # gives predict's error (and a model that takes inf gets the same numbers from both).
    X, y = _data("ties", "regression", seed=2)
    X = X.assign(c=X["c"].cat.codes)
    with threadpool_limits(1):
        rf = RandomForestRegressor(5, max_depth=3, random_state=0).fit(X, y)
    Xi = X.astype({"x1": float})
    Xi.loc[7, "x1"] = np.inf
    for engine in ("auto", "predict", "trees"):
        with pytest.raises(ModelError, match="infinity"):
            ik.ice(rf, Xi, "x0", grid=3, engine=engine)
        with pytest.raises(ModelError, match="infinity"):
            ik.pfi(rf, Xi, y, n_repeats=1, engine=engine)
    lgb = pytest.importorskip("lightgbm")
    model = lgb.LGBMRegressor(n_estimators=5, num_leaves=5, min_child_samples=3, verbose=-1, n_jobs=1).fit(X, y)
    fast, slow = ik.ice(model, Xi, "x1", grid=3), ik.ice(model, Xi, "x1", grid=3, engine="predict")
    assert_allclose(fast.individual, slow.individual, rtol=1e-10)
    fast = ik.h_statistic(model, Xi, ["x1", "x2"], n_samples=60, random_state=0)  # inf is in the H grid
    slow = ik.h_statistic(model, Xi, ["x1", "x2"], n_samples=60, random_state=0, engine="predict")
    assert_allclose(fast.overall, slow.overall, rtol=1e-8, atol=1e-12)
