"""The tree engine's adapter registry and its TreeModel built complete (design §2, issue 24 item 4).

One adapter class per library recognises its models by what they hold; ``adapt`` walks the
registry and the first that can handle a model reads it. ``tree_model`` builds the TreeModel
with everything the kernels need, the intercept included: XGBoost's, which the booster does not
store where the engine can read it, is read off the model's own margin on the check rows --
known answer: the booster's ``base_score`` through the objective's link.
"""
import json

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from numpy.testing import assert_allclose
from sklearn.ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

from imlkit._trees import _adapters, _engine


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    y = X["a"] + X["b"] * X["c"] + 5 + 0.1 * rng.normal(size=n)
    return X, y.to_numpy()


@pytest.fixture(scope="module")
def models():
    X, y = _data()
    label = (y > np.median(y)).astype(int)
    return X, {
        "HistGradientBoostingAdapter": HistGradientBoostingClassifier(max_iter=5).fit(X, label),
        "ForestAdapter": RandomForestClassifier(5, max_depth=3, random_state=0).fit(X, label),
        "ForestAdapter-single": DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y),
        "GradientBoostingAdapter": GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y),
        "LightGBMAdapter": lgb.LGBMRegressor(n_estimators=5, verbose=-1).fit(X, y),
        "XGBoostAdapter": xgb.XGBRegressor(n_estimators=5, max_depth=2).fit(X, y),
        "PipelineAdapter": make_pipeline(StandardScaler(), xgb.XGBRegressor(n_estimators=5, max_depth=2)).fit(X, y),
    }


def test_each_model_is_read_by_exactly_one_adapter(models):
    _, fitted = models
    for key, model in fitted.items():
        expected = getattr(_adapters, key.split("-")[0])
        handles = [a.__name__ for a in _adapters.ADAPTERS if a.can_handle(model)]
        assert handles == [expected.__name__], key
        assert type(_adapters.adapt(model)) is expected
    with pytest.raises(_adapters.Unsupported, match="LinearRegression is not a tree ensemble the engine knows"):
        _adapters.adapt(LinearRegression().fit(*_data()))


def test_every_adapter_is_in_the_registry():
    # a new library is one more class in ADAPTERS: every concrete adapter defined here is listed
    concrete = {cls for cls in vars(_adapters).values()
                if isinstance(cls, type) and issubclass(cls, _adapters.Adapter) and cls is not _adapters.Adapter
                and "can_handle" in vars(cls)}
    assert concrete == set(_adapters.ADAPTERS)


@pytest.mark.parametrize("key", ["XGBoostAdapter", "PipelineAdapter"])
def test_xgboost_intercept_is_base_score_read_off_the_margin(models, key):
    X, fitted = models
    model = fitted[key]
    tm = _engine.tree_model(model, X.iloc[:16], fresh=True)
    booster = (model[-1] if key == "PipelineAdapter" else model).get_booster()
    base_score = float(json.loads(booster.save_config())["learner"]["learner_model_param"]["base_score"].strip("[]"))
    assert_allclose(tm.base, [base_score], rtol=1e-6)  # identity link; float32 sums
    assert tm.kernel_args is not None and tm.name == ("Pipeline(XGBRegressor)" if key == "PipelineAdapter"
                                                      else "XGBRegressor")
    # the engine's predictions on rows it was not calibrated on are the model's own
    assert_allclose(_engine.predict_rows(tm, X.iloc[40:], "predict"), model.predict(X.iloc[40:]), rtol=2e-5, atol=2e-5)


def test_binary_xgboost_intercept_is_the_logit_of_base_score():
    X, y = _data(seed=1)
    model = xgb.XGBClassifier(n_estimators=5, max_depth=2).fit(X, (y > 5).astype(int))
    p = float(json.loads(model.get_booster().save_config())["learner"]["learner_model_param"]["base_score"].strip("[]"))
    tm = _engine.tree_model(model, X.iloc[:16], fresh=True)
    assert_allclose(tm.base, [np.log(p / (1 - p))], rtol=1e-5)


def test_rows_the_intercept_cannot_be_read_on_are_not_remembered(models):
    X, fitted = models
    model = fitted["XGBoostAdapter"]
    _engine.tree_model(model, X.iloc[:16], fresh=True)
    with pytest.raises(_adapters.Unsupported, match="X has 1 columns in the model.s encoding"):
        _engine.tree_model(model, X.iloc[:16, :1].to_numpy(), fresh=True)
    # the failure belongs to those rows, not to the model: the next rows read it again
    tm = _engine.tree_model(model, X.iloc[:16])
    assert tm.base is not None and _engine.tree_model(model, X.iloc[16:32]) is tm  # cached with its intercept


def test_a_pipeline_is_read_through_a_frame(models):
    X, fitted = models
    with pytest.raises(_adapters.Unsupported, match="a Pipeline is read through the columns of a DataFrame"):
        _engine.tree_model(fitted["PipelineAdapter"], X.iloc[:16].to_numpy(), fresh=True)


@pytest.mark.parametrize("make", [lambda: RandomForestClassifier(3, max_depth=2, random_state=0),
                                  lambda: GradientBoostingClassifier(n_estimators=3, random_state=0),
                                  lambda: lgb.LGBMRegressor(n_estimators=3, verbose=-1),
                                  lambda: xgb.XGBRegressor(n_estimators=3, max_depth=2)],
                         ids=["forest", "gradient-boosting", "lightgbm", "xgboost"])
def test_the_cached_tree_model_does_not_keep_the_model_alive(make):
    # The cache is keyed weakly by the model: the TreeModel's callables must not hold the model
    # (the adapter that read it is dropped; XGBoost's margin is used at construction only).
    # HistGradientBoosting is not listed: its encoder is the model's own _preprocess_X.
    import gc
    import weakref

    X, y = _data()
    model = make().fit(X, (y > np.median(y)).astype(int) if hasattr(make(), "predict_proba") else y)
    tm = _engine.tree_model(model, X.iloc[:16], fresh=True)
    assert _engine.tree_model(model, X.iloc[:16]) is tm
    ref = weakref.ref(model)
    del model
    gc.collect()
    assert ref() is None
