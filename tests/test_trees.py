"""Tree engine: equal to brute-force predict for every supported model class.

Known answer: the engine must give exactly what the model's own predict/predict_proba gives
on the modified rows (``engine="predict"`` builds and predicts them). scikit-learn and
LightGBM sum in float64, so they agree to rounding (rtol 1e-10); XGBoost sums its trees in
float32, so its predictions agree only to ~1e-6 relative (rtol 2e-5).
"""
import numpy as np
import pytest
from numpy.testing import assert_allclose
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
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from threadpoolctl import threadpool_limits

import imlkit as ik
from imlkit._trees import _engine as _trees
from imlkit._validation import ModelError, ValidationError

SK_TOL = dict(rtol=1e-10, atol=1e-10)
XGB_TOL = dict(rtol=2e-5, atol=2e-5)


#: one OpenMP/BLAS thread (tests/conftest.py): the engine is single-threaded, and OpenMP fits and predicts
#: crawl on a shared machine
pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def bike():
    X, y = ik.datasets.load_bike()
    # every 25th hour: 700 rows over two years, so every month and hour occurs
    X, y = X.iloc[::25].iloc[:700].reset_index(drop=True), np.asarray(y)[::25][:700].astype(float)
    rng = np.random.default_rng(0)
    Xm = X.copy()  # missing values in a numeric and a categorical column
    Xm.loc[rng.random(len(X)) < 0.1, "temp"] = np.nan
    Xm.loc[rng.random(len(X)) < 0.1, "mnth"] = np.nan
    Xn = X.assign(mnth=X["mnth"].cat.codes, weathersit=X["weathersit"].cat.codes)
    Xnm = Xn.copy()
    Xnm.loc[rng.random(len(X)) < 0.1, "temp"] = np.nan
    y2 = (y > np.median(y)).astype(int)
    y3 = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    return dict(cat=Xm, num=Xn, num_nan=Xnm, y=y, y2=y2, y3=y3)


def _lgb(kind):
    lgb = pytest.importorskip("lightgbm")
    return (lgb.LGBMRegressor if kind == "reg" else lgb.LGBMClassifier)(n_estimators=15, num_leaves=15,
                                                                         verbose=-1, n_jobs=1)


def _xgb(kind, categorical=False):
    xgb = pytest.importorskip("xgboost")
    # max_cat_to_onehot=1: partition splits on the categories (sets of codes), not one-vs-rest
    kw = dict(enable_categorical=True, tree_method="hist", max_cat_to_onehot=1) if categorical else {}
    return (xgb.XGBRegressor if kind == "reg" else xgb.XGBClassifier)(n_estimators=15, max_depth=4, n_jobs=1, **kw)


CASES = [  # (id, factory, data, target, tolerance)
    ("HGBRegressor-categorical-missing", lambda: HistGradientBoostingRegressor(max_iter=20), "cat", "y", SK_TOL),
    ("HGBClassifier-binary", lambda: HistGradientBoostingClassifier(max_iter=15), "cat", "y2", SK_TOL),
    ("HGBClassifier-3", lambda: HistGradientBoostingClassifier(max_iter=10), "cat", "y3", SK_TOL),
    ("RandomForestRegressor-missing", lambda: RandomForestRegressor(10, max_depth=6, random_state=0), "num_nan",
     "y", SK_TOL),
    ("RandomForestClassifier-3", lambda: RandomForestClassifier(10, max_depth=6, random_state=0), "num", "y3",
     SK_TOL),
    ("ExtraTreesRegressor", lambda: ExtraTreesRegressor(10, max_depth=6, random_state=0), "num", "y", SK_TOL),
    ("ExtraTreesClassifier", lambda: ExtraTreesClassifier(10, max_depth=6, random_state=0), "num", "y2", SK_TOL),
    ("GradientBoostingRegressor", lambda: GradientBoostingRegressor(n_estimators=20, random_state=0), "num", "y",
     SK_TOL),
    ("GradientBoostingClassifier-binary", lambda: GradientBoostingClassifier(n_estimators=15, random_state=0),
     "num", "y2", SK_TOL),
    ("GradientBoostingClassifier-3", lambda: GradientBoostingClassifier(n_estimators=8, random_state=0), "num",
     "y3", SK_TOL),
    ("DecisionTreeRegressor", lambda: DecisionTreeRegressor(max_depth=6, random_state=0), "num_nan", "y", SK_TOL),
    ("DecisionTreeClassifier", lambda: DecisionTreeClassifier(max_depth=6, random_state=0), "num", "y3", SK_TOL),
    ("LGBMRegressor-categorical-missing", lambda: _lgb("reg"), "cat", "y", SK_TOL),
    ("LGBMClassifier-binary", lambda: _lgb("clf"), "num_nan", "y2", SK_TOL),
    ("LGBMClassifier-3", lambda: _lgb("clf"), "cat", "y3", SK_TOL),
    ("XGBRegressor-missing", lambda: _xgb("reg"), "num_nan", "y", XGB_TOL),
    ("XGBClassifier-binary", lambda: _xgb("clf"), "num_nan", "y2", XGB_TOL),
    ("XGBClassifier-3", lambda: _xgb("clf"), "num", "y3", XGB_TOL),
    ("XGBRegressor-categorical-missing", lambda: _xgb("reg", categorical=True), "cat", "y", XGB_TOL),
    ("XGBClassifier-3-categorical-missing", lambda: _xgb("clf", categorical=True), "cat", "y3", XGB_TOL),
]


@pytest.fixture(scope="module")
def fitted(bike):
    cache = {}

    def get(case_id):
        if case_id not in cache:
            _, factory, data, target, tol = next(c for c in CASES if c[0] == case_id)
            X = bike[data]
            with threadpool_limits(1):  # OpenMP fits crawl on a loaded machine
                cache[case_id] = (factory().fit(X, bike[target]), X, bike[target], tol)
        return cache[case_id]
    return get


def _scale(tol, values):
    return dict(rtol=tol["rtol"], atol=tol["atol"] * max(1.0, float(np.nanmax(np.abs(values)))))


@pytest.mark.parametrize("case_id", [c[0] for c in CASES])
def test_ice_equals_brute_force(fitted, case_id):
    model, X, _, tol = fitted(case_id)
    output = None if not hasattr(model, "predict_proba") else model.classes_[-1]
    for feature in ("temp", "mnth", "hr"):
        grid = 8 if feature != "mnth" else 20
        fast = ik.ice(model, X, feature, grid=grid, output=output, engine="trees")
        slow = ik.ice(model, X, feature, grid=grid, output=output, engine="predict")
        assert fast.info["engine"] == "trees" and slow.info["engine"] == "predict"
        assert_allclose(fast.individual, slow.individual, **_scale(tol, slow.individual))


@pytest.mark.parametrize("case_id", ["HGBRegressor-categorical-missing", "RandomForestClassifier-3",
                                     "GradientBoostingClassifier-3", "LGBMClassifier-3", "XGBRegressor-missing"])
def test_pfi_equals_brute_force(fitted, case_id):
    model, X, y, tol = fitted(case_id)
    loss = "log_loss" if hasattr(model, "predict_proba") else "squared_error"
    kw = dict(loss=loss, n_repeats=3, random_state=0, features=["temp", "mnth", "hr", "weathersit"])
    fast = ik.pfi(model, X, y, engine="trees", **kw)
    slow = ik.pfi(model, X, y, engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.repeats, slow.repeats, **_scale(tol, slow.repeats))
    assert_allclose(fast.observation_importance, slow.observation_importance,
                    **_scale(tol, slow.observation_importance))


def test_cfi_and_groups_use_the_same_engine(fitted):
    model, X, y, _ = fitted("GradientBoostingRegressor")
    kw = {"n_repeats": 2, "random_state": 1, "features": {"weather": ["temp", "atemp", "hum"], "hr": ["hr"]}}
    fast, slow = ik.cfi(model, X, y, engine="auto", **kw), ik.cfi(model, X, y, engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.repeats, slow.repeats, rtol=1e-10)
    # a group with a native categorical column, and probabilities of 3 classes
    model, X, y, _ = fitted("HGBClassifier-3")
    kw = {"n_repeats": 2, "random_state": 2, "features": {"season": ["mnth", "season", "temp"]}}
    fast, slow = ik.pfi(model, X, y, **kw), ik.pfi(model, X, y, engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.observation_importance, slow.observation_importance, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case_id", ["HGBRegressor-categorical-missing", "GradientBoostingClassifier-binary"])
def test_pd_2d_equals_brute_force(fitted, case_id):
    model, X, _, _ = fitted(case_id)
    fast = ik.partial_dependence(model, X, ("temp", "mnth"), grid=6)
    slow = ik.partial_dependence(model, X, ("temp", "mnth"), grid=6, engine="predict")
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.average, slow.average, rtol=1e-10, atol=1e-10)


def test_grids_with_missing_unseen_and_repeated_values(fitted):
    # NaN, repeated and out-of-range values, and an unseen category (routed as missing), at the
    # engine's own level (the public grids only hold observed, finite values).
    from imlkit._model import Predictor
    from imlkit.effects._grid import ice_matrix

    model, X, _, _ = fitted("HGBRegressor-categorical-missing")
    X2 = X.assign(mnth=X["mnth"].cat.add_categories(["never"]))
    levels = list(X["mnth"].cat.categories)
    for feature, grid in (("temp", np.array([np.nan, 0.1, 0.1, 0.9, -5.0, np.nan])),
                          ("mnth", np.array(["never", levels[0], levels[-1], levels[0]], dtype=object))):
        fast = Predictor(model)
        assert fast.use_engine(X2) == {"engine": "trees"}
        got = fast.ice(X2, feature, grid)
        expected = ice_matrix(Predictor(model), X2, feature, grid)
        assert_allclose(got, expected, rtol=1e-10)


def test_numpy_input_and_sklearn_peer(bike):
    # A model fitted on a plain array; PD equals scikit-learn's brute-force partial dependence.
    from sklearn.inspection import partial_dependence

    X = bike["num"].to_numpy(dtype=float)
    with threadpool_limits(1):
        model = HistGradientBoostingRegressor(max_iter=20).fit(X, bike["y"])
    ours = ik.partial_dependence(model, X, 8, grid=10)
    assert ours.info["engine"] == "trees"
    theirs = partial_dependence(model, X, [8], method="brute", custom_values={8: ours.grid})
    assert_allclose(ours.average, theirs["average"][0], rtol=1e-10)


class _Shifted(HistGradientBoostingRegressor):
    """A model whose predict is not the sum of its trees: the engine's check must notice."""

    def predict(self, X):
        return super().predict(X) + 1.0


def test_disagreeing_model_falls_back_with_a_note(bike):
    with threadpool_limits(1):
        model = _Shifted(max_iter=5).fit(bike["num"], bike["y"])
    r = ik.partial_dependence(model, bike["num"], "temp", grid=5)
    assert r.info["engine"] == "predict"
    assert "disagreed" in r.info["engine_note"]
    with pytest.raises(ModelError, match="engine='trees'"):
        ik.partial_dependence(model, bike["num"], "temp", grid=5, engine="trees")


def test_unsupported_models_and_engine_validation(bike):
    X, y = bike["num"], bike["y"]
    lin = LinearRegression().fit(X, y)
    assert ik.pfi(lin, X, y, n_repeats=1, random_state=0, features=["temp"]).info["engine"] == "predict"
    with pytest.raises(ValidationError, match="engine='trees' needs a model the tree engine supports"):
        ik.ice(lin, X, "temp", grid=3, engine="trees")
    with pytest.raises(ValidationError, match="'engine' must be one of"):
        ik.pfi(lin, X, y, engine="fast")
    with pytest.raises(ValidationError, match="'engine' must be one of"):
        ik.partial_dependence(lin, X, "temp", engine=None)


def test_label_output_falls_back(fitted):
    # zero-one loss needs class labels, which the engine does not produce.
    model, X, y, _ = fitted("HGBClassifier-binary")
    r = ik.pfi(model, X, y, loss="zero_one", n_repeats=1, random_state=0, features=["temp"])
    assert r.info["engine"] == "predict"


def test_kernel_known_answer_on_a_hand_made_stump():
    # f(x) = 1 if x0 <= 0.5 else 3 (NaN goes right); free x0 over [0, 0.5, NaN, 1]
    from imlkit._trees._adapters import Forest, _regressor_finish
    from imlkit._trees._engine import TreeModel
    from imlkit._trees._kernels import as_kernel_args

    forest = Forest(roots=np.array([0]), feature=np.array([0, 0, 0]), kind=np.array([0, -1, -1]),
                    threshold=np.array([0.5, 0, 0]), left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
                    missing_left=np.zeros(3), cat_left=np.zeros(3), cat_known=-np.ones(3),
                    bitsets=np.zeros((1, 1)), value=np.array([[0.0], [1.0], [3.0]]), tree_out=np.array([0]),
                    n_out=1, max_depth=1)
    tm = TreeModel(forest, np.array([10.0]), None, {}, _regressor_finish(lambda r: r[:, 0]), "stump",
                   kernel_args=as_kernel_args(forest))
    G = np.array([[0.0, 0.5, 1.0, np.nan]])
    raw = _trees._raw(tm, np.zeros((2, 1)), 0, G, np.array([3]))
    assert_allclose(raw[:, :, 0], [[11, 11, 13, 13], [11, 11, 13, 13]])


def test_pipeline_with_columnwise_steps(bike):
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

    X, y = bike["cat"].fillna({"temp": 0.5}), bike["y"]
    X = X.assign(mnth=X["mnth"].cat.add_categories(["?"]).fillna("?"))
    ordinal = make_column_transformer((OrdinalEncoder(), ["mnth", "weathersit"]), (StandardScaler(), ["temp"]),
                                      remainder="passthrough")
    pipe = make_pipeline(ordinal, RandomForestRegressor(8, max_depth=5, random_state=0)).fit(X, y)
    for feature in ("temp", "mnth"):
        fast = ik.ice(pipe, X, feature, grid=6)
        slow = ik.ice(pipe, X, feature, grid=6, engine="predict")
        assert fast.info["engine"] == "trees"
        assert_allclose(fast.individual, slow.individual, rtol=1e-10, atol=1e-10)
    fast = ik.pfi(pipe, X, y, n_repeats=2, random_state=0, features=["temp", "mnth", "hr"])
    slow = ik.pfi(pipe, X, y, n_repeats=2, random_state=0, features=["temp", "mnth", "hr"], engine="predict")
    assert_allclose(fast.repeats, slow.repeats, rtol=1e-10)
    kw = dict(features=["temp", "mnth"], pairs="all", n_samples=80, random_state=0)  # two free features
    fast, slow = ik.h_statistic(pipe, X, **kw), ik.h_statistic(pipe, X, engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.pairwise["h2"].to_numpy(float), slow.pairwise["h2"].to_numpy(float), rtol=1e-8)
    # One-hot columns are not one column per feature: the model-agnostic path, with a note.
    onehot = make_column_transformer((OneHotEncoder(), ["mnth", "weathersit"]), remainder="passthrough")
    pipe = make_pipeline(onehot, RandomForestRegressor(4, max_depth=3, random_state=0)).fit(X, y)
    r = ik.partial_dependence(pipe, X, "temp", grid=4)
    assert r.info["engine"] == "predict" and "OneHotEncoder" in r.info["engine_note"]


def test_refitted_model_is_read_again(bike):
    X, y = bike["num"], bike["y"]
    model = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y)
    ik.partial_dependence(model, X, "temp", grid=4)
    model.set_params(n_estimators=7).fit(X, -y)
    fast = ik.partial_dependence(model, X, "temp", grid=4)
    slow = ik.partial_dependence(model, X, "temp", grid=4, engine="predict")
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.average, slow.average, rtol=1e-10)


def test_lightgbm_zero_as_missing(bike):
    # LightGBM's missing_type=Zero: 0 and NaN both take the default direction (node kind 2).
    lgb = pytest.importorskip("lightgbm")
    X = bike["num_nan"].copy()
    X.loc[X.index[::7], "temp"] = 0.0
    model = lgb.LGBMRegressor(n_estimators=15, zero_as_missing=True, verbose=-1, n_jobs=1).fit(X, bike["y"])
    fast = ik.ice(model, X, "temp", grid=[-0.1, 0.0, 0.3, 0.5])
    slow = ik.ice(model, X, "temp", grid=[-0.1, 0.0, 0.3, 0.5], engine="predict")
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.individual, slow.individual, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("case_id", ["HGBClassifier-3", "RandomForestClassifier-3", "XGBClassifier-3"])
def test_every_class_of_a_multiclass_model(fitted, case_id):
    model, X, _, tol = fitted(case_id)
    fast = ik.ice(model, X, "hr", grid=6)  # output=None: one curve per class
    slow = ik.ice(model, X, "hr", grid=6, engine="predict")
    assert fast.individual.shape == slow.individual.shape == (len(X), 6, 3)
    assert_allclose(fast.individual, slow.individual, **tol)


@pytest.mark.parametrize("case_id", ["GradientBoostingRegressor", "HGBClassifier-3"])
def test_h_statistic_and_repid_use_the_engine(fitted, case_id):
    # Known answer: the same numbers as predicting every modified row (engine="predict").
    model, X, _, _ = fitted(case_id)
    X = X.dropna().reset_index(drop=True)
    kw = dict(features=["temp", "hr"], pairs=[("temp", "hr")], n_samples=80, random_state=0)
    fast, slow = ik.h_statistic(model, X, engine="auto", **kw), ik.h_statistic(model, X, engine="predict", **kw)
    assert fast.info["engine"] == "trees" and slow.info["engine"] == "predict"
    assert_allclose(fast.overall, slow.overall, rtol=1e-8, atol=1e-12)
    assert_allclose(fast.pairwise["h2"].to_numpy(float), slow.pairwise["h2"].to_numpy(float), rtol=1e-8, atol=1e-12)
    kw = dict(split_features=["workingday", "temp"], grid=8, max_depth=2, min_node_size=40)
    fast, slow = ik.repid(model, X, "hr", **kw), ik.repid(model, X, "hr", engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    assert [r.rule for r in fast.regions] == [r.rule for r in slow.regions]
    assert_allclose(fast.average, slow.average, rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------- two free features

@pytest.mark.parametrize("case_id", [c[0] for c in CASES])
def test_pairwise_h_and_pd_2d_equal_brute_force(fitted, case_id):
    # Known answer: predicting every modified row (engine="predict"). The pairs cover numeric
    # x categorical (native categoricals in the "cat" data), missing values in temp and mnth
    # ("cat"/"num_nan" data), and every class of a 3-class model (output=None in H).
    from imlkit._model import Predictor
    from imlkit.effects._grid import predict_replaced

    model, X, _, tol = fitted(case_id)
    kw = dict(features=["temp", "mnth", "hr"], pairs="all", n_samples=120, random_state=0)
    fast, slow = ik.h_statistic(model, X, **kw), ik.h_statistic(model, X, engine="predict", **kw)
    assert fast.info["engine"] == "trees" and slow.info["engine"] == "predict"
    # H² is a ratio of sums of squared differences of PDs: XGBoost's float32 sums (~1e-6
    # relative in each prediction) reach it as ~1e-6 of the squared scale, not as 1e-10.
    h_tol = dict(rtol=1e-8, atol=1e-12) if tol is SK_TOL else dict(rtol=1e-3, atol=1e-6)
    assert_allclose(fast.overall, slow.overall, **h_tol)
    assert_allclose(fast.pairwise["h2"].to_numpy(float), slow.pairwise["h2"].to_numpy(float), **h_tol)
    # the joint PD at the sampled pairs itself, with the prediction tolerance
    Xs = X.iloc[fast.extra["row_index"]].reset_index(drop=True)
    va, vb = Xs["temp"].to_numpy()[:40], Xs["mnth"].to_numpy()[:40]
    column = None if not hasattr(model, "predict_proba") else "all"
    pred = Predictor(model, output="proba" if column else "predict")
    assert pred.use_engine(Xs) == {"engine": "trees"}
    got = pred.pair_means(Xs, ("temp", "mnth"), (va, vb), column)
    n = len(Xs)
    expected = predict_replaced(Predictor(model, output=pred.output), Xs,
                                {"temp": np.repeat(va[:, None], n, axis=1), "mnth": np.repeat(vb[:, None], n, axis=1)},
                                column=column).mean(axis=1)
    assert_allclose(got, expected, **_scale(tol, expected))
    # 2-D partial dependence on the 6 x 12 grid (one class of a classifier)
    output = None if not hasattr(model, "predict_proba") else model.classes_[-1]
    fast = ik.partial_dependence(model, X, ("temp", "mnth"), grid=6, output=output)
    slow = ik.partial_dependence(model, X, ("temp", "mnth"), grid=6, output=output, engine="predict")
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.average, slow.average, **_scale(tol, slow.average))


def test_two_free_features_known_answer_on_a_hand_made_tree():
    # f = 1 if x0 <= 0.5 and x1 <= 1, 2 if x0 <= 0.5 and not x1 <= 1, 4 if x0 > 0.5;
    # NaN in x0 goes left, NaN in x1 goes right. Two rows, whose x2 is not split on.
    from imlkit._trees._adapters import Forest
    from imlkit._trees._kernels import as_kernel_args, free2_kernel

    forest = Forest(roots=np.array([0]), feature=np.array([0, 1, 0, 0, 0]), kind=np.array([0, 0, -1, -1, -1]),
                    threshold=np.array([0.5, 1.0, 0, 0, 0]), left=np.array([1, 2, -1, -1, -1]),
                    right=np.array([4, 3, -1, -1, -1]), missing_left=np.array([1, 0, 0, 0, 0]),
                    cat_left=np.zeros(5), cat_known=-np.ones(5), bitsets=np.zeros((1, 1)),
                    value=np.array([[0.0], [0.0], [1.0], [2.0], [4.0]]), tree_out=np.array([0]), n_out=1,
                    max_depth=2)
    G1, G2 = np.array([0.0, 1.0, np.nan]), np.array([0.5, 2.0, np.nan])
    Q1, Q2 = np.repeat(np.arange(3), 3), np.tile(np.arange(3), 3)
    X = np.zeros((2, 3))
    expected = np.array([1, 2, 2, 4, 4, 4, 1, 2, 2], dtype=float)  # (x0, x1) row-major over G1 x G2
    rows = free2_kernel(X, 0, G1, 1, G2, Q1, Q2, np.empty(0), *as_kernel_args(forest))
    assert_allclose(rows[:, :, 0], [expected, expected])
    mean = free2_kernel(X, 0, G1, 1, G2, Q1, Q2, np.array([0.25, 0.75]), *as_kernel_args(forest))
    assert_allclose(mean[0, :, 0], expected)
    # the free features swapped: the same function read along the other axis
    swapped = free2_kernel(X, 1, G2, 0, G1, Q2, Q1, np.empty(0), *as_kernel_args(forest))
    assert_allclose(swapped[:, :, 0], [expected, expected])


def test_large_pair_grids_fall_back_to_predict(fitted, monkeypatch):
    model, X, _, _ = fitted("GradientBoostingRegressor")
    kw = dict(features=["temp", "hr"], pairs=[("temp", "hr")], n_samples=60, random_state=0)
    fast = ik.h_statistic(model, X, **kw)
    monkeypatch.setattr(_trees, "MAX_GRID_DOUBLES", 4)  # every 2-D grid is "too large"
    from imlkit._model import Predictor

    pred = Predictor(model)
    assert pred.use_engine(X) == {"engine": "trees"}
    assert pred._trees.pair_means(X, ("temp", "hr"), (X["temp"].to_numpy(), X["hr"].to_numpy())) is None
    slow = ik.h_statistic(model, X, **kw)  # the pairs went through predict
    assert_allclose(fast.pairwise["h2"].to_numpy(float), slow.pairwise["h2"].to_numpy(float), rtol=1e-8)
    pd_fast = ik.partial_dependence(model, X, ("temp", "hr"), grid=5)
    pd_slow = ik.partial_dependence(model, X, ("temp", "hr"), grid=5, engine="predict")
    assert_allclose(pd_fast.average, pd_slow.average, rtol=1e-10)


def test_unsupported_xgboost_booster_falls_back_with_a_note(bike):
    xgb = pytest.importorskip("xgboost")
    model = xgb.XGBRegressor(booster="dart", n_estimators=5, max_depth=3, n_jobs=1).fit(bike["num"], bike["y"])
    r = ik.h_statistic(model, bike["num"], features=["temp", "hr"], pairs="all", n_samples=40, random_state=0)
    assert r.info["engine"] == "predict" and "gbtree" in r.info["engine_note"]
    r = ik.partial_dependence(model, bike["num"], ("temp", "hr"), grid=4)
    assert r.info["engine"] == "predict" and "gbtree" in r.info["engine_note"]


@pytest.mark.parametrize("case_id", ["RandomForestRegressor-missing", "HGBClassifier-binary"])
def test_weighted_pd_2d_equals_brute_force(fitted, case_id):
    # an affine link (the forest) averages inside the trees with the weights; a logit link
    # (HGB classifier) averages every row's probabilities
    model, X, _, _ = fitted(case_id)
    w = np.random.default_rng(3).exponential(size=len(X))
    output = None if not hasattr(model, "predict_proba") else model.classes_[1]
    kw = dict(grid=5, sample_weight=w, output=output)
    fast = ik.partial_dependence(model, X, ("hr", "temp"), **kw)
    slow = ik.partial_dependence(model, X, ("hr", "temp"), engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.average, slow.average, rtol=1e-10, atol=1e-10)
