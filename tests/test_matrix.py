"""Cross-library matrix: every method × real model types × tasks either works or fails clearly.

Models: a scikit-learn Pipeline whose ColumnTransformer selects columns by name (OneHotEncoder
+ StandardScaler + Ridge/LogisticRegression), HistGradientBoosting with native categoricals and
NaN, xgboost with ``enable_categorical=True``, lightgbm on pandas categoricals, and a plain
function. Tasks: regression, binary (string labels), multi-class (string labels; xgboost needs
codes 0..k-1). Data: y depends strongly on ``x1``, weakly on ``x2`` and the category ``c``;
``x3`` is noise. Each cell checks something that can fail: finite importances of the right
length with ``x1`` first, or a property of the effect (monotone in x1, class probabilities
summing to 1, class ALEs summing to 0), or imlkit's clear error (``pytest.raises(match=)``).
The outcome table is README.md's "Which models work".
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik
from imlkit._validation import ModelError, ValidationError

xgboost = pytest.importorskip("xgboost")
lightgbm = pytest.importorskip("lightgbm")

from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor  # noqa: E402
from sklearn.linear_model import LogisticRegression, Ridge  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder, StandardScaler  # noqa: E402

METHODS = ["pfi", "cfi", "loco", "sage", "pimp", "partial_dependence", "ale", "h_statistic", "repid"]
MODELS = ["pipeline", "hgb", "xgboost", "lightgbm", "function"]
TASKS = ["regression", "binary", "multiclass"]
FEATURES = ["x1", "x2", "c", "x3"]
N_TRAIN, N_TEST = 240, 120
LEVELS = ["a", "b", "c"]


def _score(X):
    """The true signal: strong in x1, weak in x2 (NaN counts as 0) and the level of c."""
    x2 = np.nan_to_num(X["x2"].to_numpy(dtype=float))
    return 2.5 * X["x1"].to_numpy(dtype=float) + 0.5 * x2 + 0.5 * (X["c"].astype(str) == "b").to_numpy()


@functools.cache
def data(model, task):
    """(X_train, y_train, X_test, y_test); NaN in x2 only for models that handle it."""
    rng = np.random.default_rng(0)
    n = N_TRAIN + N_TEST
    X = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(LEVELS, size=n), categories=LEVELS),
                      "x3": rng.normal(size=n)})
    if model in ("hgb", "xgboost", "lightgbm"):
        X.loc[rng.random(n) < 0.1, "x2"] = np.nan
    s = _score(X)
    if task == "regression":
        y = s + 0.3 * rng.normal(size=n)
    elif task == "binary":
        y = np.where(s + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    else:
        y = np.array(["low", "mid", "high"])[np.digitize(s + 0.3 * rng.normal(size=n), [-1.0, 1.0])]
    if model == "xgboost" and task != "regression":
        y = pd.factorize(y, sort=True)[0]  # xgboost's classifier needs class codes 0..k-1
    return X.iloc[:N_TRAIN], y[:N_TRAIN], X.iloc[N_TRAIN:].reset_index(drop=True), y[N_TRAIN:]


def learner(model, task):
    """An unfitted learner (None for the plain function)."""
    clf = task != "regression"
    if model == "pipeline":
        ct = ColumnTransformer([("num", StandardScaler(), ["x1", "x2", "x3"]),
                                ("cat", OneHotEncoder(handle_unknown="ignore"), ["c"])])
        return Pipeline([("prep", ct), ("fit", LogisticRegression(max_iter=500) if clf else Ridge(alpha=1.0))])
    if model == "hgb":
        cls = HistGradientBoostingClassifier if clf else HistGradientBoostingRegressor
        return cls(max_iter=25, max_depth=3, categorical_features="from_dtype", random_state=0)
    if model == "xgboost":
        cls = xgboost.XGBClassifier if clf else xgboost.XGBRegressor
        return cls(n_estimators=25, max_depth=3, enable_categorical=True, tree_method="hist", n_jobs=1,
                   random_state=0)
    if model == "lightgbm":
        cls = lightgbm.LGBMClassifier if clf else lightgbm.LGBMRegressor
        return cls(n_estimators=25, num_leaves=8, min_child_samples=5, n_jobs=1, verbose=-1, random_state=0)
    return None


def _function(task):
    """A plain function: the true signal (regression) or P(yes) (binary); multi-class has no
    single-number output a function could give without classes_, so it returns 3 columns."""
    if task == "regression":
        return _score
    if task == "binary":
        return lambda X: 1.0 / (1.0 + np.exp(-3 * _score(X)))

    def proba(X):
        z = np.column_stack([-3 * _score(X), np.zeros(len(X)), 3 * _score(X)])
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return proba


@functools.cache
def fitted(model, task):
    if model == "function":
        return _function(task)
    Xtr, ytr, _, _ = data(model, task)
    return learner(model, task).fit(Xtr, ytr)


def run(method, model, task):
    """The cell's call, as a user would write it (defaults except for small budgets)."""
    Xtr, ytr, Xte, yte = data(model, task)
    f = fitted(model, task)
    y_eval = yte
    if model == "function" and task != "regression":
        # A function has no classes_: targets are given as 0/1 (binary) or codes 0..2.
        y_eval = (yte == "yes").astype(int) if task == "binary" else pd.Series(yte).map(
            {"low": 0, "mid": 1, "high": 2}).to_numpy()
    loss = "log_loss" if model == "function" and task == "multiclass" else None
    if method == "pfi":
        return ik.pfi(f, Xte, y_eval, loss=loss, n_repeats=3, random_state=0)
    if method == "cfi":
        return ik.cfi(f, Xte, y_eval, loss=loss, n_repeats=2, random_state=0)
    if method == "sage":
        return ik.sage(f, Xte, y_eval, loss=loss, n_background=16, max_permutations=64, random_state=0)
    if method == "loco":
        return ik.loco(learner(model, task) if model != "function" else f, Xtr, ytr, Xte, yte, random_state=0)
    if method == "pimp":
        return ik.pimp(learner(model, task) if model != "function" else f, Xtr, ytr, Xte, yte, n_null=3,
                       n_repeats=2, random_state=0)
    if method == "partial_dependence":
        return ik.partial_dependence(f, Xte, "x1", grid=5)
    if method == "ale":
        return ik.ale(f, Xte, "x1", bins=5)
    if method == "h_statistic":
        return ik.h_statistic(f, Xte, features=["x1", "x2", "c"], n_samples=40, random_state=0)
    if method == "repid":
        return ik.repid(f, Xte, "x1", grid=5, max_depth=1, min_node_size=20)
    raise AssertionError(method)


_NOT_A_LEARNER = (TypeError, "must be an unfitted estimator with a fit method")
_ONE_COLUMN = (ModelError, r"returned predictions of shape \(\d+, 3\) .*one number per row")
_NAN_SPLIT = (ValidationError, "Split feature 'x2' has .* missing value.*drop the rows with missing 'x2', impute it")

#: Cells that must fail, with imlkit's message (every other cell must work).
EXPECTED_ERRORS = {
    # A refit method needs a learner it can fit; a plain function is not one.
    **{(m, "function", t): _NOT_A_LEARNER for m in ("loco", "pimp") for t in TASKS},
    # A function returning a probability matrix has no classes_ to pick a column from.
    **{(m, "function", "multiclass"): _ONE_COLUMN for m in ("partial_dependence", "ale", "h_statistic", "repid")},
    # REPID's tree needs complete split features; x2 has NaN for the models that handle NaN.
    **{("repid", m, t): _NAN_SPLIT for m in ("hgb", "xgboost", "lightgbm") for t in TASKS},
}

#: Methods returning an ImportanceResult over FEATURES.
IMPORTANCE = {"pfi", "cfi", "loco", "sage", "pimp"}


def check_cell(method, model, task, res):
    """Something real about a working cell."""
    if method in IMPORTANCE:
        assert res.feature_names == tuple(FEATURES)
        imp = np.asarray(res.importance, dtype=float)
        assert imp.shape == (4,) and np.isfinite(imp).all()
        assert int(np.argmax(imp)) == 0, f"x1 should rank first: {dict(zip(FEATURES, imp.round(4)))}"
        assert imp[0] > 0
        expected_loss = {"regression": {"loco": "absolute_error"}.get(method, "squared_error"),
                         "binary": "brier" if method == "loco" else "log_loss"}
        expected_loss["multiclass"] = expected_loss["binary"]
        if model == "function":  # no classes_: regression losses, or the log loss we passed
            expected_loss = {"regression": "squared_error", "binary": "squared_error", "multiclass": "log_loss"}
        assert res.loss == expected_loss[task]
        return
    clf_all = task == "multiclass"
    if method == "partial_dependence":
        avg = np.asarray(res.average, dtype=float)
        if clf_all:  # every class: probabilities sum to 1 at each grid point
            assert avg.shape == (5, 3)
            assert_allclose(avg.sum(axis=1), 1.0, atol=1e-6)
            classes = list(res.extra["classes"])
            hi = classes.index("high" if model != "xgboost" else 0)
            assert avg[-1, hi] > avg[0, hi]
        else:  # y (or P(yes)) grows with x1
            assert avg.shape == (5,) and avg[-1] > avg[0]
    elif method == "ale":
        avg = np.asarray(res.average, dtype=float)
        if clf_all:  # the class probabilities sum to 1, so their local effects sum to 0
            assert avg.shape[1] == 3 and np.asarray(res.ci_low).shape == avg.shape
            assert_allclose(avg.sum(axis=1), 0.0, atol=1e-6)
        else:
            assert avg.ndim == 1 and avg[-1] > avg[0]
            assert_allclose(np.average((avg[:-1] + avg[1:]) / 2, weights=res.extra["bin_count"]), 0, atol=1e-9)
    elif method == "h_statistic":
        h2 = np.asarray(res.overall, dtype=float)
        assert h2.shape == (3,) and np.isfinite(h2).all() and (h2 >= 0).all() and (h2 < 1).all()
        positive = {"xgboost": 1}.get(model, "yes")
        expected = {"regression": "prediction", "binary": f"P(class={positive})", "multiclass": "P(class)"}
        if model == "function":
            expected["binary"] = "prediction"
        assert res.output == expected[task]
    elif method == "repid":
        assert sum(reg.n for reg in res.regions) == res.tree[0].n  # the regions partition the rows
        assert np.isfinite(np.asarray(res.average, dtype=float)).all()
        assert np.asarray(res.average).shape == ((5, 3) if clf_all else (5,))


CELLS = [(m, mo, t) for m in METHODS for mo in MODELS for t in TASKS]


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Small fits on a shared machine: OpenMP/BLAS threads would only oversubscribe the cores."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method,model,task", CELLS, ids=["-".join(c) for c in CELLS])
def test_cell(method, model, task):
    expected = EXPECTED_ERRORS.get((method, model, task))
    if expected is not None:
        exc, match = expected
        with pytest.raises(exc, match=match):
            run(method, model, task)
        return
    check_cell(method, model, task, run(method, model, task))


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("model", ["hgb", "xgboost", "lightgbm"])
def test_nan_models_repid_with_complete_split_features(model):
    """The way out the REPID error names: split only on complete features."""
    _, _, Xte, _ = data(model, "regression")
    res = ik.repid(fitted(model, "regression"), Xte, "x1", split_features=["c", "x3"], grid=5, max_depth=1,
                   min_node_size=20)
    assert np.isfinite(res.average).all() and res.average[-1] > res.average[0]


@pytest.mark.parametrize("model", ["hgb", "xgboost", "lightgbm"])
def test_nan_feature_effects(model):
    """ICE/PD/H handle NaN in the feature itself (the model does); ALE names the option."""
    _, _, Xte, _ = data(model, "regression")
    f = fitted(model, "regression")
    assert np.isfinite(ik.partial_dependence(f, Xte, "x2", grid=5).average).all()
    assert np.isfinite(ik.h_statistic(f, Xte, features=["x2", "x1"], n_samples=30, random_state=0).overall).all()
    with pytest.raises(ValidationError, match=r"'x2' has \d+ missing.*drop the rows with missing 'x2'.*or impute"):
        ik.ale(f, Xte, "x2")


def test_unfitted_models_fail_first():
    _, _, Xte, yte = data("pipeline", "binary")
    for method in ("pfi", "sage"):
        with pytest.raises(ModelError, match="is not fitted; fit it first"):
            getattr(ik, method)(learner("pipeline", "binary"), Xte, yte)
    for model in ("hgb", "xgboost", "lightgbm"):
        with pytest.raises(ModelError, match="is not fitted; fit it first"):
            ik.partial_dependence(learner(model, "binary"), Xte, "x1")


def outcome(method, model, task):
    """"works" or the error's type and message (the table in README.md, "Which models work")."""
    try:
        run(method, model, task)
    except Exception as exc:  # noqa: BLE001 - recorded for the table
        return f"{type(exc).__name__}: {exc}"
    return "works"


if __name__ == "__main__":  # print the outcome table (markdown)
    import warnings

    from threadpoolctl import threadpool_limits

    warnings.simplefilter("ignore")
    notes = {"must be an unfitted estimator": "A", "one number per row": "B", "Split feature": "C"}
    with threadpool_limits(limits=1):
        print("| method | " + " | ".join(MODELS) + " |")
        print("|---|" + "---|" * len(MODELS))
        for method in METHODS:
            row = []
            for model in MODELS:
                cells = []
                for t in TASKS:
                    o = outcome(method, model, t)
                    cells.append("✓" if o == "works" else
                                 next((k for s, k in notes.items() if s in o), "?" + o[:80]))
                row.append(" / ".join(cells))
            print(f"| {method} | " + " | ".join(row) + " |")


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_nan_conditional_methods():
    """CFI and conditional SAGE with NaN: "auto" takes the subgroup sampler (trees handle NaN);
    the Gaussian sampler names the column and the options."""
    _, _, Xte, yte = data("hgb", "regression")
    f = fitted("hgb", "regression")
    num = ["x1", "x2", "x3"]   # all numeric: "auto" would be Gaussian without the NaN
    g = learner("hgb", "regression").fit(Xte[num], yte)
    r = ik.cfi(g, Xte[num], yte, n_repeats=2, random_state=0)
    assert np.isfinite(r.importance).all() and int(np.argmax(r.importance)) == 0
    s = ik.sage(f, Xte, yte, removal="conditional", n_background=8, max_permutations=32, random_state=0)
    assert np.isfinite(s.importance).all()
    with pytest.raises(ValidationError, match=r"column\(s\) \['x2'\].*sampler='subgroup'"):
        ik.cfi(g, Xte[num], yte, sampler="gaussian", n_repeats=2)
