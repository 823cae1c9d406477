"""ALE's kernels on the tree engine against the model's own predictions, and HGB's frame encoder.

Known answers: ``Predictor.local_predictions`` may shift each row by a constant of its own (the
trees that never separate a row's values are left out), so the differences between a row's copies
must equal those of the model's own predict of the stacked copies (``predict_replaced``), to float
rounding (1e-10). The kernels are driven directly with values ALE never asks for: edges given in
descending order, equal edges, values outside the data, missing and unknown levels. HGB's frame
encoder must give exactly what HGB's own ``_preprocess_X`` gives, or decline (None).
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingClassifier, HistGradientBoostingRegressor

import imlkit as ik
from imlkit._model import Predictor
from imlkit._trees import _engine
from imlkit._trees._adapters import _hgb_frame_encoder

#: one OpenMP/BLAS thread (tests/conftest.py): the engine is single-threaded, and OpenMP fits and predicts
#: crawl on a shared machine
pytestmark = pytest.mark.usefixtures("one_thread")


def _data(n=300, seed=0):
    """Floats x0, x1 (x1 with missing values), integers x2 0..9, a category c (4 levels, some missing)."""
    rng = np.random.default_rng(seed)
    c = rng.choice(["p", "q", "r", "s"], n).astype(object)
    c[rng.random(n) < 0.05] = None
    X = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n), "x2": rng.integers(0, 10, n),
                      "c": pd.Categorical(c, categories=["p", "q", "r", "s"])})
    X.loc[rng.random(n) < 0.1, "x1"] = np.nan
    codes = X["c"].cat.codes.to_numpy()
    y = X.x0 * X.x2 + np.nan_to_num(X.x1) + np.where(codes >= 0, codes, 2) * X.x0 + 0.1 * rng.normal(size=n)
    return X, y.to_numpy()


def _local_vs_model(model, X, feature, values):
    pred = Predictor(model, numeric=True)
    assert pred.use_engine(X, "trees", [feature]) == {"engine": "trees"}
    local = pred.local_predictions(X, feature, values)
    full = pred.predict_replaced(X, {feature: values})
    assert np.isfinite(local).all()
    for q in range(1, len(values)):
        assert_allclose(local[q] - local[0], full[q] - full[0], rtol=1e-10, atol=1e-10)
    return local, full


@pytest.fixture
def grouped(monkeypatch):
    """Rows walked group by group (the pair and group kernels) however many walks that takes."""
    monkeypatch.setattr(_engine, "ALE_GROUP_SHARE", np.inf)


def test_pair_kernel_any_two_values(grouped):
    """Two finite values per row (the pair kernel): ascending, descending, equal, outside the data."""
    X, y = _data()
    model = HistGradientBoostingRegressor(max_iter=25, random_state=0).fit(X, y)
    rng = np.random.default_rng(1)
    n = len(X)
    a = rng.choice([-3.0, -0.5, 0.0, 0.4, 2.5], n)
    b = rng.choice([-3.0, -0.5, 0.0, 0.4, 2.5], n)  # b < a in some rows, b == a in others
    local, full = _local_vs_model(model, X, "x0", np.stack([a, b]))
    assert np.ptp(local[0]) == 0.0  # the pair kernel: copy 0 is each row's reference (the intercept)
    assert np.ptp(local[1] - local[0]) > 0.1 and np.all((local[1] - local[0])[a == b] == 0.0)
    # an integer feature and a feature whose own values are missing in some rows
    _local_vs_model(model, X, "x2", np.stack([rng.integers(0, 10, n), rng.integers(0, 10, n)]).astype(float))
    _local_vs_model(model, X, "x1", np.stack([rng.normal(size=n), rng.normal(size=n)]))


def test_pair_kernel_gradient_boosting_and_classes(grouped):
    """Float32 thresholds (GradientBoosting) and one tree per class (HGB multi-class probabilities)."""
    X, y = _data()
    Xn = X.assign(c=X["c"].cat.codes.astype(float), x1=X["x1"].fillna(0.0))
    gb = GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0).fit(Xn, y)
    rng = np.random.default_rng(2)
    _local_vs_model(gb, Xn, "x0", np.stack([rng.normal(size=len(X)), rng.normal(size=len(X))]))
    yc = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    clf = HistGradientBoostingClassifier(max_iter=10, random_state=0).fit(X, yc)
    pred = Predictor(clf, output="proba")
    assert pred.use_engine(X, "trees", ["x0"]) == {"engine": "trees"}
    values = np.stack([rng.normal(size=len(X)), rng.normal(size=len(X))])
    local = pred.local_predictions(X, "x0", values, column="all")
    full = pred.predict_replaced(X, {"x0": values}, column="all")
    # a non-affine link: the engine adds every tree's sum, so the predictions themselves agree
    assert_allclose(local, full, rtol=1e-10, atol=1e-12)


def test_group_kernel_levels_missing_and_unknown(grouped):
    """Three copies per row with levels (the group kernel): a missing level and one the model never saw."""
    X, y = _data()
    model = HistGradientBoostingRegressor(max_iter=25, random_state=0).fit(X, y)
    rng = np.random.default_rng(3)
    pool = np.array(["p", "q", "r", "s", None], dtype=object)
    values = pool[rng.integers(0, 5, (3, len(X)))]
    _local_vs_model(model, X, "c", values)
    # numbers with NaN among them go the group kernel's way too
    num = rng.normal(size=(3, len(X)))
    num[0, ::7] = np.nan
    _local_vs_model(model, X, "x1", num)


def test_one_call_path_agrees(monkeypatch):
    """The other path (one kernel call, each row's values as its grid) on the same values."""
    monkeypatch.setattr(_engine, "ALE_GROUP_SHARE", 0.0)
    X, y = _data()
    model = HistGradientBoostingRegressor(max_iter=25, random_state=0).fit(X, y)
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(2, len(X)))
    _local_vs_model(model, X, "x0", np.stack([a, b]))


def test_ale_equal_to_predict_on_a_refitted_model():
    """A model refitted on other categories: the cached reading (and its frame encoder) is stale,
    the check against the model's own predictions notices and reads the model again."""
    X, y = _data()
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, y)
    first = ik.ale(model, X, "x0", bins=8)
    X2 = X.assign(c=pd.Categorical(np.where(X["c"].isna(), "t", X["c"].astype(object)),
                                   categories=["s", "t", "r", "q", "p"]))
    model.fit(X2, y[::-1].copy())
    fast = ik.ale(model, X2, "x0", bins=8)
    slow = ik.ale(model, X2, "x0", bins=8, engine="predict")
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.average, slow.average, rtol=1e-10, atol=1e-10)
    assert np.max(np.abs(fast.average[: len(first.average)] - first.average)) > 1e-3  # really another model


def test_hgb_frame_encoder_is_the_models_encoding():
    X, y = _data()
    Xs = X.assign(s=np.where(np.arange(len(X)) % 3 == 0, "u", "v"), i=np.arange(len(X)) % 4,
                  b=np.arange(len(X)) % 2 == 0)
    model = HistGradientBoostingRegressor(max_iter=5, categorical_features=["c", "s", "i"]).fit(Xs, y)
    encode = _hgb_frame_encoder(model)
    other = Xs.assign(c=pd.Categorical(np.where(np.arange(len(X)) % 5 == 0, "z", "p")),  # unknown level, new dtype
                      s=np.where(np.arange(len(X)) % 4 == 0, "w", "u"), i=np.arange(len(X)) % 6)
    for frame in (Xs, Xs.iloc[::7], other):
        got = encode(frame)
        assert got is not None and got.flags.c_contiguous and got.dtype == np.float64
        assert_array_equal(got, model._preprocess_X(frame, reset=False))
    # frames it does not take as they are: the model's own encoding is used instead
    assert encode(Xs[list(Xs.columns[::-1])]) is None
    assert encode(Xs.assign(x2=Xs["x2"].astype("Int64"))) is None
    tm = _engine.tree_model(model, Xs.iloc[:16], fresh=True)
    swapped = Xs.assign(x2=Xs["x2"].astype("Int64"))
    assert_array_equal(tm.encode(swapped), model._preprocess_X(swapped, reset=False))
    # no categorical features: no ColumnTransformer, nothing to replace
    plain = HistGradientBoostingRegressor(max_iter=5).fit(X[["x0", "x1", "x2"]], y)
    assert _hgb_frame_encoder(plain) is None


@pytest.mark.parametrize("share", [True, False])
def test_perturbed_check_frame_and_encoded_paths(share, monkeypatch):
    """The perturbed check with X's encoding kept (small X) and from frames of the base rows (large
    X), in several chunks: a model right on X as it is but not with a feature replaced is caught on
    both paths, and a right one passes with the method's numbers those of predict."""
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline

    from imlkit._trees import _adapters

    if not share:
        monkeypatch.setattr(_engine, "SHARE_ENCODED_CELLS", 0)
    monkeypatch.setattr(_engine, "CHECK_CELLS", 30)  # a chunk per feature: several predict calls
    rng = np.random.default_rng(0)
    n = 200
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n)})
    miss = rng.random(n) < 0.3
    miss[:80] = False
    y = (X.a + 2 * X.b + 5 * miss + 0.1 * rng.normal(size=n)).to_numpy()
    X.loc[miss, "a"] = np.nan
    # the missing-value indicator maps one column to two: the engine would be wrong with "a" replaced
    model = make_pipeline(SimpleImputer(add_indicator=True), RandomForestRegressor(15, random_state=0)).fit(X, y)
    monkeypatch.setattr(_adapters, "_check_columnwise", lambda step: None)
    fast = ik.pfi(model, X, y, n_repeats=2, random_state=0)
    assert fast.info["engine"] == "predict" and "'a' replaced by other rows' values" in fast.info["engine_note"]
    right = HistGradientBoostingRegressor(max_iter=10, random_state=0).fit(X, y)
    fast = ik.pfi(right, X, y, n_repeats=2, random_state=0)
    slow = ik.pfi(right, X, y, n_repeats=2, random_state=0, engine="predict")
    assert fast.info["engine"] == "trees"
    assert_allclose(fast.repeats, slow.repeats, rtol=1e-10, atol=1e-12)


def _kernel_vs_free_kernel(tm, Xe, j, lo, hi):
    """pair_kernel's differences against the free-feature kernel (the engine's generic walk, every
    decision through ``_go_left``) at each row's two values, on rows given in the model's encoding."""
    from imlkit._trees import _ale_kernels, _kernels

    V = np.column_stack([lo, hi])
    U, start, order = _engine._groups(V)
    nodes = _engine._nodes_on(tm, j)[0]
    got = np.empty((len(Xe), tm.forest.n_out))
    got[order] = _ale_kernels.pair_kernel(Xe, j, order, start, U, nodes, _engine._parents(tm), *tm.kernel_args)
    G = np.sort(V, axis=1)
    raw = _kernels.free_kernel(Xe, j, G, np.full(len(Xe), 2, dtype=np.int64), _engine._all_trees(tm), np.empty(0),
                               1 << 62, *tm.kernel_args)
    want = np.where((lo <= hi)[:, None], raw[:, 1] - raw[:, 0], raw[:, 0] - raw[:, 1])
    assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    return got


def test_pair_kernel_decisions_are_the_engines():
    """Encoded rows the encoders never produce (a code outside the known categories, negative or huge
    codes, NaN, inf) still go where the engine's own walk sends them, for HGB, LightGBM and XGBoost
    category splits."""
    lightgbm = pytest.importorskip("lightgbm")
    xgboost = pytest.importorskip("xgboost")
    rng = np.random.default_rng(5)
    n = 400
    c = rng.choice(["p", "q", "r", "s", "t", "u"], n).astype(object)
    c[rng.random(n) < 0.15] = None
    X = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n),
                      "c": pd.Categorical(c, categories=["p", "q", "r", "s", "t", "u"])})
    codes = X["c"].cat.codes.to_numpy()
    # the category matters most, missing like the high levels: category splits with NaN on either side
    y = np.where(codes < 0, 4.0, np.array([0.0, 3.0, -2.0, 5.0, 1.0, -4.0])[codes]) + X.x0 * (codes % 2) + X.x1
    models = [HistGradientBoostingRegressor(max_iter=15, random_state=0).fit(X, y),
              lightgbm.LGBMRegressor(n_estimators=15, min_child_samples=5, verbose=-1, random_state=0).fit(X, y),
              xgboost.XGBRegressor(n_estimators=15, max_depth=4, enable_categorical=True, tree_method="hist").fit(X, y)]
    for model in models:
        tm = _engine.tree_model(model, X.iloc[:32], fresh=True)
        Xe = np.ascontiguousarray(tm.encode(X), dtype=np.float64)
        jc = tm.column("c", X)[0]
        odd = rng.choice([-1.0, 0.0, 2.0, 3.0, 5.0, 40.0, 1e6, np.nan, np.inf], len(Xe))
        Xe[::2, jc] = odd[::2]
        kind = np.asarray(tm.forest.kind)
        assert np.sum((np.asarray(tm.forest.feature) == jc) & (kind > 0)) >= 5  # category splits to test
        j0 = tm.column("x0", X)[0]
        Xe[::9, j0] = np.nan
        lo, hi = rng.normal(size=(2, len(Xe)))
        d = _kernel_vs_free_kernel(tm, Xe, j0, lo, hi)
        assert np.ptp(d) > 0.1
