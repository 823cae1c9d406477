"""``result.params`` (what was asked) and ``result.info`` (what happened), for every method."""
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor

import imlkit as ik
from imlkit._record import HAPPENED, Params, split_record
from imlkit.models import GAM

N = 90          # rows of X (the evaluation data of the model-based methods)
N_TRAIN = 60    # LOCO/LOFO/PIMP: training rows; the other 30 are the test rows


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(N, 3)), columns=["a", "b", "c"])
    y = 2 * X["a"] - X["b"] + 0.5 * X["b"] * X["c"] + rng.normal(scale=0.1, size=N)
    return X, y.to_numpy()


def f(A):
    A = np.asarray(A, dtype=float)
    return 2 * A[:, 0] - A[:, 1] + 0.5 * A[:, 1] * A[:, 2]


def _calls(X, y):
    """name -> (thunk, rows it evaluates, whether it reports an engine)."""
    Xtr, ytr, Xte, yte = X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]
    gam = GAM(terms={"a": "spline", "b": "linear", "c": "linear"}).fit(X, y)
    return {
        "pfi": (lambda: ik.pfi(f, X, y, n_repeats=2, random_state=0), N, True),
        "cfi": (lambda: ik.cfi(f, X, y, n_repeats=2, random_state=0), N, True),
        "loco": (lambda: ik.loco(LinearRegression(), Xtr, ytr, Xte, yte), N - N_TRAIN, False),
        "loco cv": (lambda: ik.loco(LinearRegression(), X, y, cv=3, random_state=0), N, False),
        "lofo": (lambda: ik.lofo(LinearRegression(), Xtr, ytr, Xte, yte), N - N_TRAIN, False),
        "pimp": (lambda: ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, n_null=3, n_repeats=2, random_state=0),
                 N - N_TRAIN, False),
        "sage": (lambda: ik.sage(f, X, y, n_background=8, max_permutations=16, random_state=0), N, False),
        "shap": (lambda: ik.shap(f, X[:7], background=X[40:60], random_state=0), 7, True),
        "ice": (lambda: ik.ice(f, X, "a", grid=5, n_samples=40, random_state=0), 40, True),
        "pd": (lambda: ik.partial_dependence(f, X, "a", grid=5), N, True),
        "pd 2-D": (lambda: ik.partial_dependence(f, X, ("a", "b"), grid=4), N, True),
        "ale": (lambda: ik.ale(f, X, "a", bins=5), N, False),
        "h_statistic": (lambda: ik.h_statistic(f, X, n_samples=30, random_state=0), 30, True),
        "ice_heterogeneity": (lambda: ik.ice_heterogeneity(f, X, grid=5, n_samples=50, random_state=0), 50, True),
        "repid": (lambda: ik.repid(f, X, "b", grid=5, min_node_size=10), N, True),
        "gam term": (lambda: gam.partial_effect("a", grid=10), N, False),
    }


CASES = ["pfi", "cfi", "loco", "loco cv", "lofo", "pimp", "sage", "shap", "ice", "pd", "pd 2-D",
         "ale", "h_statistic", "ice_heterogeneity", "repid", "gam term"]


@pytest.fixture(scope="module")
def results(data):
    X, y = data
    calls = _calls(X, y)
    assert sorted(calls) == sorted(CASES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # PIMP's few null refits and a short SAGE warn; not the point here
        return {name: (thunk(), rows, engine) for name, (thunk, rows, engine) in calls.items()}


@pytest.mark.parametrize("name", CASES)
def test_info_holds_the_facts_params_the_arguments(results, name):
    r, rows, has_engine = results[name]
    assert isinstance(r.params, Params) and isinstance(r.info, dict)
    assert r.info["n_rows"] == rows
    assert not set(r.params) & set(r.info), "a key in both params and info"
    assert not set(r.params) & set(HAPPENED), "a fact of the run left in params"
    assert set(r.info) <= set(HAPPENED), "an argument moved to info"
    if name != "gam term":   # a GAM term reads the fitted model: nothing is computed on rows, nothing timed
        assert r.info["seconds"] >= 0
    if has_engine:
        assert r.info["engine"] == "predict"   # a plain function: no trees to walk
    # repr shows the rows from info (the row count is no longer guessed from the arrays)
    assert f"{rows:,} rows" in repr(r).splitlines()[0]


def test_the_facts_each_method_records(results):
    loco = results["loco"][0]
    assert loco.info["test_used"] == "sign" and loco.info["estimand"] == "median"
    assert loco.info["p_adjust_applied"] == "holm" and loco.info["interval_adjust"] == "bonferroni"
    assert loco.params["test"] == "auto" and loco.params["p_adjust"] == "holm"
    assert results["loco cv"][0].info["inference"] == "nadeau_bengio"
    assert results["ale"][0].info["n_bins"] == 5
    sage = results["sage"][0]
    assert sage.params["n_background"] == 8 and sage.info["background_rows"] == 8
    shap = results["shap"][0]
    assert shap.params["n_background"] == 100 and shap.info["background_rows"] == 20   # the given background
    gam = results["gam term"][0]
    assert gam.info["edf"] > 1 and "lambda" in gam.info and gam.params["term"] == "spline"


def test_tree_model_reports_the_tree_engine(data):
    X, y = data
    model = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    r = ik.pfi(model, X, y, n_repeats=2, random_state=0)
    assert r.info["engine"] == "trees" and "engine_note" not in r.info
    slow = ik.pfi(model, X, y, n_repeats=2, random_state=0, engine="predict")
    assert slow.info["engine"] == "predict"
    assert_allclose(r.importance, slow.importance, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("key", sorted(HAPPENED))
def test_reading_a_fact_from_params_says_where_it_went(results, key):
    r = results["pfi"][0]
    with pytest.raises(KeyError, match=rf"'{key}' is a fact of the run: read result.info\['{key}'\]"):
        r.params[key]
    with pytest.raises(KeyError, match="is a fact of the run"):
        r.params.get(key)   # None would be a silent wrong answer for code written before the split
    assert r.params.get("no such key", 3) == 3


def test_an_unknown_key_is_a_plain_key_error(results):
    with pytest.raises(KeyError) as err:
        results["pfi"][0].params["no_such_option"]
    assert err.value.args == ("no_such_option",)


def test_slices_carry_info(results):
    r = results["pfi"][0]
    for part in (r["a"], r[["b", "a"]], r.top(2)):
        assert part.info == r.info and "selection" in part.params and isinstance(part.params, Params)
    e = results["ice"][0]
    cohort = e[:7]
    assert cohort.info["n_rows"] == 7 and cohort.info["seconds"] == e.info["seconds"]
    assert e.info["n_rows"] == 40   # the full result is unchanged
    s = results["shap"][0]
    assert s[:3].info["n_rows"] == 3 and s.top(2).info["n_rows"] == 7
    assert s.importance().info == s.info
    h = results["h_statistic"][0]
    assert h["a"].info == h.info and h.top(1).info == h.info


def test_a_result_pickles_with_its_record(results):
    r = results["loco"][0]
    back = pickle.loads(pickle.dumps(r))
    assert isinstance(back.params, Params) and back.params == r.params and back.info == r.info
    with pytest.raises(KeyError, match="fact of the run"):
        back.params["seconds"]


def test_split_record_routes_by_the_table():
    params, info = split_record({"loss": "l2", "seconds": 1.5, "engine": "trees", "n_rows": 4},
                                {"n_rows": 3})
    assert dict(params) == {"loss": "l2"}
    assert info == {"seconds": 1.5, "n_rows": 3, "engine": "trees"}   # the table's order; explicit info wins
    res = ik.ImportanceResult("pfi", ("a",), np.ones(1), np.zeros(1), np.zeros(1), np.ones(1), "l2",
                              params={"n_repeats": 2, "seconds": 0.5})
    assert dict(res.params) == {"n_repeats": 2} and res.info == {"seconds": 0.5}


def test_repr_reads_the_rows_and_seconds_from_info_only():
    # No guessing from the arrays: what info says is shown, and nothing when it says nothing.
    common = dict(method="pfi", feature_names=("a",), importance=np.ones(1), std=np.zeros(1), ci_low=np.zeros(1),
                  ci_high=np.ones(1), loss="l2", observation_importance=np.zeros((1, 5)))
    told = ik.ImportanceResult(**common, info={"n_rows": 1234, "seconds": 2.0})
    assert repr(told).splitlines()[0] == "ImportanceResult(PFI · loss l2 · 1,234 rows · 2 s)"
    silent = ik.ImportanceResult(**common)
    assert repr(silent).splitlines()[0] == "ImportanceResult(PFI · loss l2)"
