"""ik.shap: known answers, the bridge to SAGE, equality with shap's TreeExplainer, invariances, errors."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from numpy.testing import assert_allclose  # noqa: E402
from sklearn.ensemble import (  # noqa: E402
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.neighbors import KNeighborsRegressor  # noqa: E402

import imlkit as ik  # noqa: E402
from imlkit import ValidationError  # noqa: E402


@pytest.fixture(scope="module")
def data4():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(260, 4)), columns=["a", "b", "c", "d"])
    y = X["a"] + 2 * X["b"] * X["c"] + 0.1 * rng.normal(size=260)
    return X, y.to_numpy()


@pytest.fixture(scope="module")
def knn(data4):
    X, y = data4
    return KNeighborsRegressor(5).fit(X, y)


def test_linear_model_known_answer_and_efficiency(data4):
    X, y = data4
    lin = LinearRegression().fit(X, y)
    bg = X.iloc[200:230]
    r = ik.shap(lin, X.iloc[:25], background=bg)
    assert_allclose(r.values, lin.coef_ * (X.iloc[:25].to_numpy() - bg.to_numpy().mean(axis=0)), atol=1e-12)
    assert_allclose(r.base_values, np.full(25, lin.predict(bg).mean()), rtol=1e-12)
    assert_allclose(r.values.sum(axis=1), lin.predict(X.iloc[:25]) - r.base_values, atol=1e-12)
    assert r.extra["exact"] and r.extra["engine"] == "predict"


@pytest.mark.filterwarnings("ignore:.*did not converge")
def test_knn_permutation_estimate_within_3_percent_of_exact(data4, knn):
    X, _ = data4
    bg = X.iloc[200:230]
    exact = ik.shap(knn, X.iloc[:12], background=bg, exact=True)
    est = ik.shap(knn, X.iloc[:12], background=bg, exact=False, tolerance=0.01, random_state=1)
    assert not est.extra["exact"] and est.extra["n_permutations"].min() >= 32
    scale = np.abs(exact.values).max()
    assert np.abs(est.values - exact.values).max() <= 0.03 * scale
    fx = knn.predict(X.iloc[:12])
    # Efficiency holds exactly for both: every ordering's credits telescope to f(x) − E_b f(b).
    assert_allclose(exact.values.sum(axis=1), fx - exact.base_values, atol=1e-10)
    assert_allclose(est.values.sum(axis=1), fx - est.base_values, atol=1e-10)


def test_same_seed_same_numbers_for_any_n_jobs(data4, knn):
    X, _ = data4
    import joblib

    kw = dict(background=X.iloc[200:220], exact=False, n_permutations=64, random_state=3)
    one = ik.shap(knn, X.iloc[:6], n_jobs=1, **kw)
    with joblib.parallel_config(backend="threading"):  # the rows' seeds, not the backend, fix the numbers
        two = ik.shap(knn, X.iloc[:6], n_jobs=2, **kw)
    assert_allclose(one.values, two.values, rtol=0, atol=0)
    assert_allclose(one.std, two.std, rtol=0, atol=0)


def test_mean_loss_shap_is_marginal_sage(data4, knn):
    X, y = data4
    bg = X.iloc[200:230]
    loss = ik.shap(knn, X.iloc[:150], y=y[:150], background=bg, output="loss")
    sage = ik.sage(knn, X.iloc[:150], y[:150], background=bg, exact=True, loss="squared_error")
    # Both enumerate the same value function: equal up to rounding, far inside the 3 % target.
    assert_allclose(loss.values.mean(axis=0), sage.importance, rtol=1e-9, atol=1e-12)
    assert_allclose(loss.importance().importance, sage.importance, rtol=1e-9, atol=1e-12)
    # Per row: base − Σφ is the row's loss, ℓ(y, f(x)).
    assert_allclose(loss.base_values - loss.values.sum(axis=1), (y[:150] - knn.predict(X.iloc[:150])) ** 2,
                    rtol=1e-10, atol=1e-10)
    # The permutation estimator of the per-row loss game averages to SAGE within 3 %.
    with pytest.warns(UserWarning, match="did not converge"):  # rows with a tiny loss have a tiny range
        est = ik.shap(knn, X.iloc[:40], y=y[:40], background=bg, output="loss", exact=False, tolerance=0.02,
                      n_permutations=256, random_state=0)
    sage40 = ik.sage(knn, X.iloc[:40], y[:40], background=bg, exact=True)
    assert np.abs(est.values.mean(axis=0) - sage40.importance).max() <= 0.03 * np.abs(sage40.importance).max()


def test_background_default_is_sages(data4, knn):
    X, y = data4
    loss = ik.shap(knn, X.iloc[:60], y=y[:60], output="loss", n_background=20, random_state=5)
    sage = ik.sage(knn, X.iloc[:60], y[:60], n_background=20, exact=True, random_state=5)
    assert_allclose(loss.values.mean(axis=0), sage.importance, rtol=1e-9, atol=1e-12)


def test_groups_are_players(data4):
    X, y = data4
    lin = LinearRegression().fit(X, y)
    r = ik.shap(lin, X.iloc[:5], background=X.iloc[200:210], features={"bc": ["b", "c"]})
    assert r.feature_names == ("bc", "a", "d")
    dev = X.iloc[:5].to_numpy() - X.iloc[200:210].to_numpy().mean(axis=0)
    assert_allclose(r.values[:, 0], dev[:, 1] * lin.coef_[1] + dev[:, 2] * lin.coef_[2], atol=1e-12)


# ---------------------------------------------------------------------- trees vs shap
shap = pytest.importorskip("shap")


@pytest.fixture(scope="module")
def reg_data():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(500, 5)), columns=[f"f{i}" for i in range(5)])
    y = X["f0"] * X["f1"] + np.sin(2 * X["f2"]) + 0.5 * X["f3"] + 0.1 * rng.normal(size=500)
    return X, y.to_numpy()


def _versus_shap(model, X, bg, model_output="raw", **kw):
    mine = ik.shap(model, X, background=bg, **kw)
    theirs = np.asarray(shap.TreeExplainer(model, data=bg, feature_perturbation="interventional",
                                           model_output=model_output).shap_values(X, check_additivity=False))
    if theirs.ndim == 3:  # (n, p, classes)
        theirs = theirs[..., 1]
    assert mine.extra["engine"] == "trees", mine.extra
    return mine, theirs


def _models():
    import lightgbm as lgb
    import xgboost as xgb

    return {
        "rf": (RandomForestRegressor(25, max_depth=7, random_state=0), 1e-6),
        "lightgbm": (lgb.LGBMRegressor(n_estimators=40, num_leaves=15, verbose=-1), 1e-6),
        "xgboost": (xgb.XGBRegressor(n_estimators=40, max_depth=4), 1e-4),  # float32 thresholds
    }


@pytest.mark.parametrize("name", ["rf", "lightgbm", "xgboost"])
def test_tree_shap_equals_shap_interventional(reg_data, name):
    X, y = reg_data
    model, tol = _models()[name]
    model.fit(X, y)
    mine, theirs = _versus_shap(model, X.iloc[:60], X.iloc[400:450])
    assert np.abs(mine.values - theirs).max() <= tol * np.abs(theirs).max()
    assert_allclose(mine.values.sum(axis=1), model.predict(X.iloc[:60]) - mine.base_values,
                    atol=tol * np.abs(theirs).max())


def test_tree_shap_of_hgb_equals_enumeration(reg_data):
    # shap 0.51 reads HistGradientBoosting's trees wrongly here (its values do not add up to
    # f(x) − E f(b)); the reference is exact enumeration through the model's own predict.
    X, y = reg_data
    Xn = X.copy()
    Xn.iloc[::9, 1] = np.nan
    model = HistGradientBoostingRegressor(max_iter=30, random_state=0).fit(Xn, y)
    bg = Xn.iloc[400:430]
    mine = ik.shap(model, Xn.iloc[:15], background=bg)
    ref = ik.shap(model, Xn.iloc[:15], background=bg, engine="predict", exact=True)
    assert mine.extra["engine"] == "trees" and ref.extra["engine"] == "predict"
    assert_allclose(mine.values, ref.values, atol=1e-9 * np.abs(ref.values).max())


def test_tree_shap_native_categorical_equals_enumeration():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"g": pd.Categorical(rng.choice(list("pqrs"), 400)), "u": rng.normal(size=400),
                      "v": rng.normal(size=400)})
    y = X["g"].cat.codes.to_numpy() * X["u"].to_numpy() + X["v"].to_numpy()
    model = HistGradientBoostingRegressor(max_iter=20, categorical_features="from_dtype", random_state=0).fit(X, y)
    mine = ik.shap(model, X.iloc[:10], background=X.iloc[300:325])
    ref = ik.shap(model, X.iloc[:10], background=X.iloc[300:325], engine="predict")
    assert mine.extra["engine"] == "trees"
    assert_allclose(mine.values, ref.values, atol=1e-9 * np.abs(ref.values).max())


def test_tree_shap_classifiers(reg_data):
    import lightgbm as lgb

    X, y = reg_data
    yc = (y > np.median(y)).astype(int)
    rf = RandomForestClassifier(20, max_depth=6, random_state=0).fit(X, yc)
    mine, theirs = _versus_shap(rf, X.iloc[:40], X.iloc[400:440], model_output="probability")
    assert mine.output == "P(class=1)"
    assert np.abs(mine.values - theirs).max() <= 1e-6 * np.abs(theirs).max()
    gbm = lgb.LGBMClassifier(n_estimators=30, num_leaves=7, verbose=-1).fit(X, yc)
    mine, theirs = _versus_shap(gbm, X.iloc[:40], X.iloc[400:440], link="logit")
    assert np.abs(mine.values - theirs).max() <= 1e-6 * np.abs(theirs).max()
    # The probability of a boosted model is not affine in its trees: no closed-form TreeSHAP; the same game is
    # enumerated with each coalition's background mean from the trees, as the model's predictions give it.
    prob = ik.shap(gbm, X.iloc[:5], background=X.iloc[400:420])
    assert prob.extra["engine"] == "trees" and "no closed form" in prob.extra["engine_note"]
    agnostic = ik.shap(gbm, X.iloc[:5], background=X.iloc[400:420], engine="predict")
    assert_allclose(prob.values, agnostic.values, rtol=0, atol=1e-12)
    hgb = HistGradientBoostingClassifier(max_iter=15).fit(X, yc)
    r = ik.shap(hgb, X.iloc[:5], background=X.iloc[400:420], link="logit")
    ref = ik.shap(hgb, X.iloc[:5], background=X.iloc[400:420], link="logit", engine="predict")
    assert r.extra["engine"] == "trees"
    assert_allclose(r.values, ref.values, atol=1e-7 * np.abs(ref.values).max())


def test_engine_trees_refuses_a_model_without_trees(data4, knn):
    X, _ = data4
    with pytest.raises(ValidationError, match="engine='trees'"):
        ik.shap(knn, X.iloc[:3], background=X.iloc[200:210], engine="trees")


# ---------------------------------------------------------------------- result, plots, errors
def test_result_frame_importance_and_repr(data4, knn):
    X, _ = data4
    r = ik.shap(knn, X.iloc[:8], background=X.iloc[200:215])
    frame = r.to_frame()
    assert list(frame.columns) == ["a", "b", "c", "d", "base_value"] and len(frame) == 8
    assert r.features == ("a", "b", "c", "d")
    imp = r.importance()
    assert imp.method == "shap_mean_abs"
    assert_allclose(imp.importance, np.abs(r.values).mean(axis=0))
    assert "SHAP" in repr(r) and "<table" in r._repr_html_()
    assert "(1)" in r.importance().explain() and "SHAP importance" in r.explain()


@pytest.mark.parametrize("kind,kw", [("beeswarm", {}), ("waterfall", {"row": 2}), ("bar", {}),
                                     ("dependence", {"feature": "b"})])
def test_plots_draw(data4, knn, kind, kw):
    import matplotlib.pyplot as plt

    X, y = data4
    r = ik.shap(knn, X.iloc[:10], background=X.iloc[200:215])
    ax = r.plot(kind, **kw)
    assert len(ax.collections) + len(ax.patches) > 0
    plt.close("all")
    rl = ik.shap(knn, X.iloc[:10], y=y[:10], background=X.iloc[200:215], output="loss")
    ax = rl.plot(kind, **kw)
    assert "loss" in ax.get_xlabel() + ax.get_ylabel() + ax.get_title() or kind == "dependence"
    plt.close("all")


@pytest.mark.parametrize("kw,match", [
    ({"output": "margin"}, "'output' must be one of"),
    ({"output": "loss"}, "needs its targets"),
    ({"loss": "squared_error"}, "'loss' is used only with output='loss'"),
    ({"link": "probit"}, "'link' must be one of"),
    ({"link": "logit"}, "not a classifier"),
    ({"class_": 1}, "only for classifiers"),
    ({"exact": "yes"}, "'exact'"),
    ({"n_background": 0}, "'n_background'"),
    ({"tolerance": 0}, "'tolerance'"),
    ({"n_jobs": 0}, "'n_jobs'"),
    ({"engine": "gpu"}, "'engine'"),
    ({"features": ["zz"]}, "zz"),
])
def test_errors(data4, knn, kw, match):
    X, _ = data4
    with pytest.raises((ValidationError, TypeError), match=match):
        ik.shap(knn, X.iloc[:3], background=X.iloc[200:210], **kw)


def test_exact_refuses_too_many_players():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 16))
    with pytest.raises(ValidationError, match="at most 14 players"):
        ik.shap(lambda A: A.sum(axis=1), X[:2], background=X[10:12], exact=True)


def test_array_and_frame_give_the_same_values(data4, knn):
    X, y = data4
    knn_arr = KNeighborsRegressor(5).fit(X.to_numpy(), y)
    a = ik.shap(knn_arr, X.to_numpy()[:6], background=X.to_numpy()[200:215])
    f = ik.shap(knn, X.iloc[:6], background=X.iloc[200:215])
    assert a.feature_names == ("x0", "x1", "x2", "x3")
    assert_allclose(a.values, f.values, rtol=1e-12, atol=1e-12)


def test_multiclass_forest_class_and_pipeline_trees_equal_enumeration():
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    rng = np.random.default_rng(4)
    X = pd.DataFrame({"u": rng.normal(size=300), "v": rng.normal(size=300),
                      "g": rng.choice(["p", "q", "r"], 300)})
    label = np.where(X["u"] > 0.5, "hi", np.where(X["v"] < 0, "lo", "mid"))
    Xn = X[["u", "v"]]
    rf = RandomForestClassifier(15, max_depth=5, random_state=0).fit(Xn, label)
    mine = ik.shap(rf, Xn.iloc[:8], background=Xn.iloc[200:230], class_="mid")
    ref = ik.shap(rf, Xn.iloc[:8], background=Xn.iloc[200:230], class_="mid", engine="predict")
    assert mine.extra["engine"] == "trees" and mine.output == "P(class=mid)"
    assert_allclose(mine.values, ref.values, atol=1e-10)
    y = X["u"] * (X["g"] == "p") + X["v"]
    pipe = make_pipeline(ColumnTransformer([("enc", OrdinalEncoder(), ["g"])], remainder="passthrough"),
                         HistGradientBoostingRegressor(max_iter=20, random_state=0)).fit(X, y)
    mine = ik.shap(pipe, X.iloc[:8], background=X.iloc[200:230])
    ref = ik.shap(pipe, X.iloc[:8], background=X.iloc[200:230], engine="predict")
    assert mine.extra["engine"] == "trees"
    assert_allclose(mine.values, ref.values, atol=1e-9 * np.abs(ref.values).max())


def test_a_wrong_kernel_is_caught_by_the_brute_force_check(reg_data, monkeypatch):
    import imlkit._trees._shap_kernels as kernels

    X, y = reg_data
    model = RandomForestRegressor(5, max_depth=4, random_state=0).fit(X, y)

    def wrong(*args):
        return 1.01 * good(*args)

    good = kernels.interventional_kernel
    monkeypatch.setattr(kernels, "interventional_kernel", wrong)
    r = ik.shap(model, X.iloc[:4], background=X.iloc[400:420])
    assert r.extra["engine"] == "predict" and "brute force" in r.extra["engine_note"]
    with pytest.raises(ik.ModelError, match="disagreed with brute force"):
        ik.shap(model, X.iloc[:4], background=X.iloc[400:420], engine="trees")


def test_tree_values_do_not_depend_on_blocks_or_n_jobs(reg_data, monkeypatch):
    import imlkit.local._tree_shap as tree_shap

    X, y = reg_data
    model = RandomForestRegressor(10, max_depth=6, random_state=0).fit(X, y)
    whole = ik.shap(model, X.iloc[:40], background=X.iloc[400:430])
    monkeypatch.setattr(tree_shap, "_BLOCK", 7)  # rows walked together change; each row's sums must not
    blocks = ik.shap(model, X.iloc[:40], background=X.iloc[400:430], n_jobs=2)
    assert_allclose(whole.values, blocks.values, rtol=0, atol=0)


def test_three_questions_rows():
    from imlkit.importance import INTERPRETATION_TABLE

    # mean |SHAP| uses no target: like PFI it says whether the model uses x_j, nothing about y;
    # the mean loss-SHAP is marginal SAGE and shares its row of the course's table.
    assert tuple(INTERPRETATION_TABLE["shap_mean_abs"][q] for q in (1, 2, 3)) == ("yes", "no", "no")
    assert tuple(INTERPRETATION_TABLE["shap_loss_mean"][q] for q in (1, 2, 3)) == \
        tuple(INTERPRETATION_TABLE["sage_marginal"][q] for q in (1, 2, 3))


def test_loss_shap_of_trees_uses_the_engine_and_is_sage(reg_data):
    X, y = reg_data
    model = RandomForestRegressor(15, max_depth=6, random_state=0).fit(X, y)
    bg = X.iloc[400:425]
    fast = ik.shap(model, X.iloc[:30], y=y[:30], background=bg, output="loss")
    slow = ik.shap(model, X.iloc[:30], y=y[:30], background=bg, output="loss", engine="predict")
    assert fast.extra["engine"] == "trees" and slow.extra["engine"] == "predict"
    assert_allclose(fast.values, slow.values, rtol=1e-9, atol=1e-9 * np.abs(slow.values).max())
    sage = ik.sage(model, X.iloc[:30], y[:30], background=bg, exact=True)
    assert_allclose(fast.values.mean(axis=0), sage.importance, rtol=1e-8, atol=1e-10)
    # The sampled estimator with the engine: same seed, same numbers as with the model's predict.
    kw = dict(y=y[:4], background=bg, output="loss", exact=False, n_permutations=64, random_state=2)
    assert_allclose(ik.shap(model, X.iloc[:4], **kw).values,
                    ik.shap(model, X.iloc[:4], engine="predict", **kw).values, rtol=1e-8, atol=1e-8)
