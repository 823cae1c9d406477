"""The report's cost on many classes (issue 22): LOCO/LOFO take the report's model as their full fit."""
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingRegressor

from imlkit import importance as imp
from imlkit.importance._refit import full_fit_reusable, reuse_full_fit
from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context
from imlkit.report._fit import MANY_CLASSES
from imlkit.report._sec_importance import compute_importance, reused_full_fit


def _classes(k=14, n=420, seed=0):
    rng = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, k + 1)
    y = rng.choice(k, size=n, p=w / w.sum())
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["a", "b", "c", "d"])
    X[["a", "b"]] += rng.normal(scale=1.5, size=(k, 2))[y]
    X["g"] = pd.Categorical(rng.choice(["u", "v", "w"], size=n))
    return X.assign(y=[f"c{v:02d}" for v in y])


@pytest.fixture(scope="module")
def ctx():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = prepare_context(ReportConfig(data=_classes(), target="y", quick=True, methods=("loco",)))
    assert len(c.model.classes_) > MANY_CLASSES  # the report's many-class gbm
    return c


def _same(a, b):
    for name in ("importance", "ci_low", "ci_high", "p_value", "p_adjusted", "observation_importance", "repeats"):
        assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("method", ["loco", "lofo"])
def test_full_fit_taken_from_the_report_gives_the_same_numbers(ctx, method):
    fn = getattr(imp, method)
    Xtr, ytr = ctx.rows(method, "train")
    Xte, yte = ctx.rows(method)
    assert Xtr is ctx.X_train and ytr is ctx.y_train  # within the row budget: the model's own rows
    kw = dict(loss="brier", random_state=ctx.seed, n_jobs=1)
    plain = fn(ctx.learner, Xtr, ytr, Xte, yte, **kw)
    with reuse_full_fit(ctx.model, ctx.X_train, ctx.y_train) as record:
        reused = fn(ctx.learner, Xtr, ytr, Xte, yte, **kw)
    assert record["used"] == 1
    _same(plain, reused)


def test_full_fit_is_offered_only_when_the_refit_would_repeat_it(ctx):
    Xtr, ytr = ctx.X_train, ctx.y_train
    Xte, yte = ctx.rows("loco")
    kw = dict(loss="brier", random_state=ctx.seed, n_jobs=1, features=["a", "g"])
    cases = [
        (ctx.learner, Xtr.copy(), ytr, {}),                                  # other rows (an equal copy)
        (ctx.learner, Xtr, ytr, {"n_refits": 2}),                            # refits reseed the learner
        (clone(ctx.learner).set_params(random_state=None), Xtr, ytr, {}),   # a random_state drawn per refit
        (clone(ctx.learner).set_params(max_iter=3), Xtr, ytr, {}),          # another learner
    ]
    for learner, X, y, extra in cases:
        with reuse_full_fit(ctx.model, ctx.X_train, ctx.y_train) as record:
            imp.loco(learner, X, y, Xte, yte, **kw, **extra)
        assert record["used"] == 0, extra
    assert not full_fit_reusable(ctx.model, clone(ctx.learner).set_params(random_state=None))
    assert full_fit_reusable(ctx.model, ctx.learner) and not full_fit_reusable(ctx.model, ctx.learner, n_refits=3)


def test_report_loco_says_it_took_the_model_and_a_given_fitted_model_is_refitted():
    df = _classes(k=3, n=200, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = prepare_context(ReportConfig(data=df, target="y", quick=True, methods=("loco",)))
        assert reused_full_fit(c, "loco") is c.model
        # refits in worker processes fit the full model there too, as the reduced ones
        par = prepare_context(ReportConfig(data=df, target="y", quick=True, methods=("loco",), n_jobs=2))
        assert reused_full_fit(par, "loco") is None
        compute_importance(c, "loco")
        entry = next(e for e in c.log if e.step == "LOCO")
        assert entry.parameters["full_fit"].startswith("the report's model")
        # a model given fitted: imlkit cannot know its rows, the full model is refitted
        reg = HistGradientBoostingRegressor(max_iter=10, random_state=0).fit(df[["a", "b"]], df["c"])
        given = prepare_context(ReportConfig(data=df[["a", "b", "c"]], target="c", quick=True, model=reg,
                                             methods=("loco",)))
        assert reused_full_fit(given, "loco") is None
        compute_importance(given, "loco")
        assert "full_fit" not in next(e for e in given.log if e.step == "LOCO").parameters
