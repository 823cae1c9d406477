"""Round 7 (truth review r2, findings 9 and 10, the report's items), on statsmodels engel (one feature) and statecrime
(51 states, 35 training rows: the report's gradient boosting, min_samples_leaf = 20, cannot split and is constant):

- LOCO of a table with one feature is "not computed, because ...", not a failed part;
- section 7 lists no rows for REPID (or the GAM) when it did not run;
- a constant model's warning says that it is constant, and why when the reason is that no split was possible;
- SHAP picks no "most extreme" and "typical" row among identical predictions.
"""
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context
from imlkit.report._sec_effects import section_regional
from imlkit.report._sec_importance import section_importance
from imlkit.report._sec_local import choose_rows, section_local
from imlkit.report._sec_model import section_model
from imlkit.report._sec_provenance import _rows_blocks
from imlkit.report._shared import constant_prediction, no_split_reason


def _texts(section):
    return [b.get("text", "") for b in section["blocks"]]


def _ctx(data, target, methods):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return prepare_context(ReportConfig(data=data, target=target, model="gbm", quick=True, methods=methods,
                                            seed=0))


def test_loco_of_one_feature_is_not_computed_with_its_reason():
    ctx = _ctx(sm.datasets.engel.load_pandas().data, "foodexp", ("loco",))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        said = " ".join(_texts(section_importance(ctx)))
    assert not ctx.failures
    assert "LOCO: not computed, because the model has one feature (income)" in said
    assert "Section 2 makes that comparison: the model against the mean baseline" in said
    assert ctx.importance.loco is None
    assert any(e.step == "LOCO (not run: the model has one feature)" for e in ctx.log)


@pytest.fixture(scope="module")
def statecrime():
    data = sm.datasets.statecrime.load_pandas().data.reset_index()
    ctx = _ctx(data, "violent", ("pfi", "repid", "shap", "models"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s2 = _texts(section_model(ctx))
        section_importance(ctx)
        s5 = _texts(section_regional(ctx))
        s5b = section_local(ctx)
    return ctx, s2, s5, s5b


def test_the_model_is_constant_because_it_cannot_split(statecrime):
    ctx, s2, _, _ = statecrime
    n = len(ctx.X_train)
    m = ctx.model.min_samples_leaf
    assert n < 2 * m                                   # 35 training rows, 20 on each side needed
    pred = ctx.model.predict(ctx.X_test)
    assert np.all(pred == pred[0])
    (warn,) = [t for t in s2 if t.startswith("The model could not be shown to beat the mean baseline")]
    assert f"it predicts the same value, {pred[0]:.4g}, for every one of the {len(pred)} test rows" in warn
    assert (f"HistGradientBoostingRegressor's min_samples_leaf = {m} leaves no split possible on the {n} training "
            f"rows") in warn
    assert "it may predict the same" not in warn


def test_the_reason_is_given_only_when_it_is_the_reason():
    from sklearn.ensemble import HistGradientBoostingRegressor

    X = pd.DataFrame({"a": np.arange(50.0)})
    ctx = SimpleNamespace(model=HistGradientBoostingRegressor(), X_train=X)       # 50 rows >= 2 x 20
    assert no_split_reason(ctx) == ""
    ctx.X_train = X.iloc[:39]
    assert "min_samples_leaf = 20 leaves no split possible on the 39 training rows" in no_split_reason(ctx)
    ctx.model = HistGradientBoostingRegressor(min_samples_leaf=0.1)    # not an int: no claim
    assert no_split_reason(ctx) == ""
    assert constant_prediction(np.array([1.0, 1.0])) == 1.0 and constant_prediction(np.array([1.0, 1.5])) is None


def test_section_7_lists_no_rows_for_a_method_that_did_not_run(statecrime):
    ctx, _, s5, _ = statecrime
    assert any(t.startswith("Not computed") for t in s5)
    assert ctx.regional.repid is None
    (tbl,) = _rows_blocks(ctx)
    steps = [r[0] for r in tbl["rows"]]
    assert "REPID" not in steps and "PFI" in steps and "SHAP" in steps


def test_shap_explains_one_row_among_identical_predictions(statecrime):
    ctx, _, _, s5b = statecrime
    said = " ".join(_texts(s5b))
    assert "Every one of the 16 test rows read here has the same prediction" in said
    (tbl,) = [b for b in s5b["blocks"] if b["kind"] == "table" and "why chosen" in b["columns"]]
    assert [r[1] for r in tbl["rows"]] == ["largest error"]
    assert "most extreme" not in said and "typical prediction" not in said


def test_choose_rows_keeps_three_rows_when_predictions_differ():
    pred = np.array([1.0, 5.0, 2.0, 2.1, 3.0])
    err = np.array([0.1, 0.2, 3.0, 0.0, 0.5])
    assert choose_rows(pred, err) == [2, 1, 3]
    assert choose_rows(np.full(5, 2.0), err) == [2]


def test_the_reading_gets_the_constant_value_and_its_reason(statecrime):
    from imlkit.report._reading import _no_better_numbers

    ctx, _, _, _ = statecrime
    nums = _no_better_numbers(ctx)
    pred = ctx.model.predict(ctx.X_test)
    assert nums["constant"] == pred[0]
    assert nums["constant_why"] == no_split_reason(ctx) and "min_samples_leaf = 20" in nums["constant_why"]
