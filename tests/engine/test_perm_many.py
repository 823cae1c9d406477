"""PFI/CFI of many features in one pass over the trees (``_kernels.mask_kernel`` for trees of at
most 64 leaves, ``_kernels.perm_many_kernel`` for the others).

Known answers: the per-feature kernel (``_kernels.perm_kernel``, one walk per feature) and the
model's own predict of the stacked copies. The new kernels add, per copy, the difference of the
copy's leaf's value and its row's to the row's own raw score; the others sum the leaves a copy
reaches. The two new kernels add the same differences in the same order: bit for bit equal. Against
the per-feature kernel, both are float64 sums of the same ~100 leaf values in another order: they
differ by a few ulps of the sum of the |leaf values| (~1e-14 relative here), so 1e-10 relative (with
an absolute floor at 1e-10 of the largest value) can only fail on a wrong leaf. Against the
model's predict the engine's tolerance is the one its check uses (XGBoost sums in float32).
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.ensemble import (
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

import imlkit as ik
import imlkit._trees._engine as trees
from imlkit._model import Predictor, stack_frame
from imlkit.samplers import ConditionalPermutationSampler, GaussianSampler, MarginalSampler, SubgroupSampler

#: one OpenMP/BLAS thread (tests/conftest.py): the engine is single-threaded, and OpenMP fits and predicts
#: crawl on a shared machine
pytestmark = pytest.mark.usefixtures("one_thread")


def _data(n=240, seed=0, categorical=True, nan=True):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.integers(0, 4, n).astype(float),  # ties
                      "x2": rng.normal(size=n), "x3": rng.uniform(size=n)})
    if nan:
        X.loc[rng.random(n) < 0.15, "x2"] = np.nan
    if categorical:
        X["c"] = pd.Categorical(rng.choice(["p", "q", "r", "s"], n), categories=["p", "q", "r", "s", "never"])
        X.loc[rng.random(n) < 0.1, "c"] = np.nan
    signal = 2 * X.x0 + X.x1 * np.nan_to_num(X.x2) + X.x3 + 0.2 * rng.normal(size=n)
    if categorical:
        signal = signal + (X.c == "q") * 1.5 - (X.c == "s")
    return X, signal.to_numpy()


def _lgb():
    return pytest.importorskip("lightgbm")


def _xgb():
    return pytest.importorskip("xgboost")


#: name -> (model factory, task, data with a categorical column)
MODELS = {
    "hgb-reg": (lambda: HistGradientBoostingRegressor(max_iter=30, categorical_features="from_dtype",
                                                      random_state=0), "reg", True),
    "hgb-binary": (lambda: HistGradientBoostingClassifier(max_iter=20, categorical_features="from_dtype",
                                                          random_state=0), "binary", True),
    "hgb-3class": (lambda: HistGradientBoostingClassifier(max_iter=12, categorical_features="from_dtype",
                                                          random_state=0), "3class", True),
    "rf-reg": (lambda: RandomForestRegressor(15, max_depth=8, random_state=0), "reg", False),  # > 64 leaves
    "rf-3class": (lambda: RandomForestClassifier(15, max_depth=6, random_state=0), "3class", False),
    "et-reg": (lambda: ExtraTreesRegressor(15, max_depth=8, random_state=0), "reg", False),
    "gb-reg": (lambda: GradientBoostingRegressor(n_estimators=25, max_depth=3, random_state=0), "reg", False),
    "gb-3class": (lambda: GradientBoostingClassifier(n_estimators=10, max_depth=3, random_state=0), "3class", False),
    "lgb-reg": (lambda: _lgb().LGBMRegressor(n_estimators=20, num_leaves=9, min_child_samples=3, verbose=-1,
                                             n_jobs=1), "reg", True),
    "lgb-3class": (lambda: _lgb().LGBMClassifier(n_estimators=8, num_leaves=7, min_child_samples=3, verbose=-1,
                                                 n_jobs=1), "3class", True),
    "xgb-reg": (lambda: _xgb().XGBRegressor(n_estimators=20, max_depth=4, n_jobs=1, enable_categorical=True,
                                            tree_method="hist", max_cat_to_onehot=1), "reg", True),
    "xgb-binary": (lambda: _xgb().XGBClassifier(n_estimators=10, max_depth=3, n_jobs=1, enable_categorical=True,
                                                tree_method="hist", max_cat_to_onehot=1), "binary", True),
}


def _fitted(name, seed=0):
    factory, task, categorical = MODELS[name]
    # scikit-learn's GradientBoosting refuses NaN
    X, y = _data(seed=seed, categorical=categorical, nan=not name.startswith("gb"))
    if task == "binary":
        y = (y > np.median(y)).astype(int)
    elif task == "3class":
        y = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    return factory().fit(X, y), X, y, task


def _tol(name, values):
    rel = 2e-5 if name.startswith("xgb") else 1e-10  # XGBoost's own predict sums in float32
    return dict(rtol=rel, atol=rel * max(1.0, float(np.max(np.abs(values)))))


def _many(eng, X, n_repeats, monkeypatch, kernel):
    """``perturbed_many`` of every column of X through one kernel ("mask" or "walk"), and the draws."""
    sampler = MarginalSampler().fit(X)
    draws = [sampler.sample_rows(X, [c], n_samples=n_repeats, rng=np.random.default_rng(k))
             for k, c in enumerate(X.columns)]
    with monkeypatch.context() as m:
        if kernel == "walk":
            m.setattr(trees, "_mask_tables", lambda tm: None)
        return eng.perturbed_many(X, [([c], d) for c, d in zip(X.columns, draws)], n_repeats), draws


@pytest.mark.parametrize("n_repeats", [3, 7])
@pytest.mark.parametrize("name", list(MODELS))
def test_one_pass_equals_the_per_feature_kernel_and_predict(name, n_repeats, monkeypatch):
    model, X, y, task = _fitted(name)
    forest = trees.tree_model(model, X).forest
    tree_of = np.repeat(np.arange(len(forest.roots)), np.diff(np.append(forest.roots, len(forest.kind))))
    leaves = np.bincount(tree_of[np.asarray(forest.kind) < 0])
    # the leaf masks exactly when every tree has at most 64 leaves
    small = leaves.max() <= 64
    assert (trees._mask_tables(trees.tree_model(model, X)) is not None) == small
    for output in (("predict",) if task == "reg" else ("proba",)):
        predictor = Predictor(model, output=output)
        assert predictor.use_engine(X)["engine"] == "trees"
        eng = predictor.tree_engine
        many, draws = _many(eng, X, n_repeats, monkeypatch, "mask")
        walked, _ = _many(eng, X, n_repeats, monkeypatch, "walk")
        for fast, other in zip(many, walked):
            assert_array_equal(fast, other)  # the same differences added in the same order
        for c, d, fast in zip(X.columns, draws, many):
            frame = d.frame()
            # the per-feature kernel (a feature alone on trees of more than 64 leaves)
            j, enc = trees._column(eng, eng.tm, X, c)
            values = np.asarray(trees._encoded_values(enc, frame[c]), dtype=float).reshape(n_repeats, len(X))
            one = trees._perturbed_column(eng, X, j, values)
            assert_array_equal(eng.perturbed(X, [c], frame, n_repeats), fast if small else one)
            scale = max(1.0, float(np.max(np.abs(one))))
            assert_allclose(fast, one, rtol=1e-10, atol=1e-10 * scale, err_msg=f"{name} {c}")
            theirs = np.asarray(predictor.predict(stack_frame(X, n_repeats, frame)), dtype=float)
            assert_allclose(fast, theirs, **_tol(name, theirs), err_msg=f"{name} {c}")


def test_groups_and_frames_mixed_with_single_columns():
    model, X, y, _ = _fitted("hgb-reg")
    predictor = Predictor(model)
    predictor.use_engine(X)
    eng = predictor.tree_engine
    sampler = MarginalSampler().fit(X)
    items = [(["x0"], sampler.sample_rows(X, ["x0"], 4, np.random.default_rng(0))),
             (["x2", "c"], sampler.sample_rows(X, ["x2", "c"], 4, np.random.default_rng(1))),
             (["c"], sampler.sample(X, ["c"], 4, np.random.default_rng(2))),  # a frame, as a custom sampler gives
             (["x0"], sampler.sample_rows(X, ["x0"], 4, np.random.default_rng(3)))]  # the same column again
    many = eng.perturbed_many(X, items, 4)
    for (_cols, repl), fast in zip(items, many):
        frame = repl.frame() if hasattr(repl, "frame") else repl
        theirs = predictor.predict(stack_frame(X, 4, frame))
        assert_allclose(fast, theirs, rtol=1e-10, atol=1e-10 * np.max(np.abs(theirs)))


@pytest.mark.parametrize("method", ["pfi", "cfi"])
@pytest.mark.parametrize("name", ["hgb-reg", "hgb-3class", "rf-reg"])
def test_pfi_and_cfi_equal_predict_and_do_not_depend_on_n_jobs(method, name):
    model, X, y, task = _fitted(name, seed=1)
    fn = getattr(ik, method)
    loss = "squared_error" if task == "reg" else "log_loss"
    features = {"x0": "x0", "x1": "x1", "pair": ["x2", "x3"], "x3": "x3"}
    if "c" in X.columns:
        features["c"] = "c"
    kw = dict(loss=loss, n_repeats=3, random_state=4, features=features)
    fast = fn(model, X, y, n_jobs=1, **kw)
    assert fast.info["engine"] == "trees"
    slow = fn(model, X, y, n_jobs=1, engine="predict", **kw)
    scale = np.max(np.abs(slow.repeats))
    assert_allclose(fast.repeats, slow.repeats, rtol=1e-10, atol=1e-10 * scale)
    assert_allclose(fast.observation_importance, slow.observation_importance, rtol=1e-9,
                    atol=1e-10 * np.max(np.abs(slow.observation_importance)))
    # n_jobs cuts the features into other chunks (one of one feature): the same numbers exactly
    two = fn(model, X, y, n_jobs=2, **kw)
    assert_array_equal(two.repeats, fast.repeats)
    assert_array_equal(two.observation_importance, fast.observation_importance)


def test_blocks_of_features_and_rows_do_not_change_the_numbers(monkeypatch):
    model, X, y, _ = _fitted("hgb-binary")
    kw = dict(loss="log_loss", n_repeats=3, random_state=2, n_jobs=1)
    whole = ik.pfi(model, X, y, **kw)
    monkeypatch.setattr(trees, "MANY_BLOCK_DOUBLES", 1)  # one feature per block
    monkeypatch.setattr(trees, "PERM_KERNEL_BLOCK", 7)
    monkeypatch.setattr(trees, "PERTURBED_BLOCK", 50)
    monkeypatch.setattr(trees, "KEEP_ENCODED_CELLS", 10)  # encoded block by block
    parts = ik.pfi(model, X, y, **kw)
    # each copy's differences are added tree by tree in the same order whatever the blocks
    assert_array_equal(parts.repeats, whole.repeats)


def test_feature_blocks_hold_the_budget_and_each_column_once():
    singles = [(k, j, None) for k, j in enumerate([0, 1, 2, 1, 3, 4, 5])]
    blocks = trees._feature_blocks(singles, 3)
    assert [[s[1] for s in b] for b in blocks] == [[0, 1, 2], [1, 3, 4], [5]]
    assert sorted(s[0] for b in blocks for s in b) == list(range(7))


def test_a_wide_table_goes_in_blocks_of_the_budget(monkeypatch):
    # 300 columns: the differences of all of them at once would be 300 features' worth
    rng = np.random.default_rng(0)
    n, p = 120, 300
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"v{k}" for k in range(p)])
    y = X.iloc[:, :5].sum(axis=1).to_numpy() + 0.1 * rng.normal(size=n)
    model = HistGradientBoostingRegressor(max_iter=10, random_state=0).fit(X, y)
    seen = []
    module = trees._kernel_module()

    def spy(kernel):
        def call(Xb, slot, V, out, *args):
            seen.append(out.size)
            return kernel(Xb, slot, V, out, *args)
        return call

    monkeypatch.setattr(trees, "MANY_BLOCK_DOUBLES", 40 * 2 * n)
    for name in ("perm_many_kernel", "mask_kernel"):
        monkeypatch.setattr(module, name, spy(getattr(module, name)))
    fast = ik.pfi(model, X, y, n_repeats=2, random_state=0, n_jobs=1)
    assert len(seen) == -(-p // 40) and max(seen) <= 40 * 2 * n
    monkeypatch.undo()
    slow = ik.pfi(model, X, y, n_repeats=2, random_state=0, n_jobs=1, engine="predict")
    assert_allclose(fast.repeats, slow.repeats, rtol=1e-10, atol=1e-10 * np.max(np.abs(slow.repeats)))


@pytest.mark.parametrize("sampler", [MarginalSampler(), ConditionalPermutationSampler(conditioning=["x1"]),
                                     SubgroupSampler(max_depth=3)])
def test_sample_rows_are_samples_draws(sampler):
    X, _ = _data(150)
    sampler.fit(X)
    for cols in (["x0"], ["x2", "c"]):
        draws = sampler.sample_rows(X, cols, n_samples=3, rng=np.random.default_rng(5))
        assert draws.rows.shape == (3, len(X))
        pd.testing.assert_frame_equal(draws.frame(), sampler.sample(X, cols, n_samples=3, rng=5))


def test_samplers_that_do_not_draw_rows_say_so():
    X, _ = _data(80, categorical=False, nan=False)
    assert GaussianSampler().fit(X).sample_rows(X, ["x0"], 2, rng=0) is None

    class Own(MarginalSampler):
        def sample(self, X, features, n_samples=1, rng=None):
            return super().sample(X, features, n_samples, rng)

    assert Own().fit(X).sample_rows(X, ["x0"], 2, rng=0) is None


@pytest.mark.parametrize("name", ["hgb-reg", "hgb-3class", "gb-3class", "rf-3class", "lgb-3class", "xgb-binary"])
def test_plain_sums_by_leaf_masks_are_the_walks_sums(name):
    model, X, y, task = _fitted(name)
    tm = trees.tree_model(model, X)
    assert trees._mask_tables(tm) is not None  # every tree of these has at most 64 leaves
    Xe = np.ascontiguousarray(tm.encode(X), dtype=np.float64)
    walked = trees._kernel_module().free_kernel(Xe, -1, np.zeros((1, 1)), np.ones(1, dtype=np.int64),
                                                trees._all_trees(tm), trees._NO_WEIGHTS, 1 << 62,
                                                *tm.kernel_args)[:, 0, :]
    # the same leaf values added tree by tree from 0.0: bit for bit
    assert_array_equal(trees._plain_sums(tm, Xe), walked)
