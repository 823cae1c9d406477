"""PFI's row-block kernel (``_kernels.perm_kernel``) and what PFI records about the engine.

Known answers: ``engine="predict"`` predicts every stacked copy with the model itself, so the
engine's repeats must equal it to float rounding (1e-10 relative) -- here with many repeats
(each row's values sorted by numpy, not by insertion), ties and missing values among a row's
values, and a categorical with an unused level. A feature no tree splits on has PFI exactly 0
(its copies and the unperturbed predictions are the same sums), and ``params`` report the share
of (feature, tree) walks skipped, which is the engine's own count.
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

import imlkit as ik
import imlkit._trees._engine as trees
from imlkit._model import Predictor

#: one OpenMP/BLAS thread (tests/conftest.py): the engine is single-threaded, and OpenMP fits and predicts
#: crawl on a shared machine
pytestmark = pytest.mark.usefixtures("one_thread")


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.integers(0, 3, n).astype(float),  # ties
                      "x2": rng.normal(size=n), "unused": np.zeros(n)})
    X.loc[rng.random(n) < 0.15, "x2"] = np.nan
    X["c"] = pd.Categorical(rng.choice(["p", "q", "r"], n), categories=["p", "q", "r", "never"])
    y = 2 * X.x0 + X.x1 * np.nan_to_num(X.x2) + (X.c == "q") * 1.5 + 0.2 * rng.normal(size=n)
    return X, y.to_numpy()


@pytest.mark.parametrize("n_repeats", [3, 40])
@pytest.mark.parametrize("kind", ["reg", "clf"])
def test_engine_repeats_equal_brute_force(kind, n_repeats):
    X, y = _data()
    if kind == "reg":
        model, target, loss = HistGradientBoostingRegressor(max_iter=25, random_state=0), y, "squared_error"
    else:
        model = HistGradientBoostingClassifier(max_iter=15, random_state=0)
        target, loss = np.digitize(y, np.quantile(y, [0.33, 0.66])), "log_loss"
    model.fit(X, target)
    kw = dict(loss=loss, n_repeats=n_repeats, random_state=3, n_jobs=1)
    fast = ik.pfi(model, X, target, **kw)
    slow = ik.pfi(model, X, target, engine="predict", **kw)
    assert fast.info["engine"] == "trees"
    scale = np.max(np.abs(slow.repeats))
    assert_allclose(fast.repeats, slow.repeats, rtol=1e-10, atol=1e-10 * scale)
    assert_allclose(fast.observation_importance, slow.observation_importance, rtol=1e-9,
                    atol=1e-10 * np.max(np.abs(slow.observation_importance)))


def test_unused_feature_has_zero_pfi_and_the_hit_rate_is_recorded():
    X, y = _data()
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, y)
    r = ik.pfi(model, X, y, n_repeats=3, random_state=0, n_jobs=1,
               features={"x0": ["x0"], "unused": ["unused"], "pair": ["x0", "x2"]})
    assert r.to_frame().loc["unused", "importance"] == 0.0  # exactly: the same sums
    by = r.info["engine_skipped_by_feature"]
    p = Predictor(model)
    p.use_engine(X)
    assert by["unused"] == 1.0
    assert by["x0"] == pytest.approx(p.tree_engine.skipped_share(X, ["x0"]))
    assert 0.0 <= by["x0"] < 1.0
    assert by["pair"] == 0.0  # a group is walked through every tree
    assert r.info["engine_skipped"] == pytest.approx(np.mean(list(by.values())))
    assert "engine_skipped" not in ik.pfi(model, X, y, n_repeats=2, engine="predict").params


def test_kernel_blocks_do_not_change_the_numbers(monkeypatch):
    X, y = _data(200)
    model = HistGradientBoostingRegressor(max_iter=15, random_state=0).fit(X, y)
    whole = ik.pfi(model, X, y, n_repeats=4, random_state=1, n_jobs=1)
    monkeypatch.setattr(trees, "PERM_KERNEL_BLOCK", 7)
    monkeypatch.setattr(trees, "PERTURBED_BLOCK", 50)
    monkeypatch.setattr(trees, "KEEP_ENCODED_CELLS", 10)  # encoded block by block
    parts = ik.pfi(model, X, y, n_repeats=4, random_state=1, n_jobs=1)
    assert_allclose(parts.repeats, whole.repeats, rtol=1e-12, atol=1e-14)
