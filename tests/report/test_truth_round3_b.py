"""Third round (helper b) of "every sentence carries the numbers that justify it": sections 4-7 and explain()."""
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import LinearRegression

import imlkit as ik


class Float32Regressor(RegressorMixin, BaseEstimator):
    """A model that predicts in float32, as xgboost does, reached only through ``predict`` (no tree engine)."""

    def fit(self, X, y):
        self.inner_ = LinearRegression().fit(X, y)
        return self

    def predict(self, X):
        return self.inner_.predict(X).astype(np.float32)


def _additive_float32_ctx(methods):
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=["a", "b", "c"])
    y = 100 + 3 * X["a"] - 2 * X["b"] + X["c"] + 0.3 * rng.normal(size=400)
    model = Float32Regressor().fit(X, y)
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=model, quick=True, methods=methods,
                                       strict=True))
    ctx.results = {"pfi": ik.pfi(ctx.model, ctx.X_test, ctx.y_test, random_state=0)}
    return ctx


def _texts(sec):
    return " ".join(b.get("text", "") for b in sec["blocks"] if isinstance(b, dict))


def test_repid_of_a_float32_additive_model_splits_no_rounding_noise():
    """A float32 model of an additive function (xgboost's predict path): REPID's float64 floor (64 eps max|f|, 1.4e-12
    at |f| ~ 100) let it split the float32 rounding (root mean square ~1e-6): "the splits by b, c remove 58% of the
    curves' heterogeneity" and "The feature with the most heterogeneous mean-centred ICE curves ... is a" ranked
    rounding noise. The report's floor follows the output's dtype."""
    from imlkit.report._sec_effects import section_regional

    ctx = _additive_float32_ctx(("pfi", "repid"))
    sec = section_regional(ctx)
    g = ctx.regional.repid
    said = _texts(sec)
    assert "most heterogeneous" not in said
    assert "equal up to rounding" in said and "coincide up to the rounding of the model's predictions" in said
    assert "remove" not in said and "interacts with" not in said
    assert not any(b.get("caption", "").startswith(("Features interacting", "Split features"))
                   for b in sec["blocks"] if isinstance(b, dict))
    from imlkit.report._sec_effects import _root_rms, output_rounding_floor

    X_rep = ctx.rows("repid")[0]
    floor = output_rounding_floor(ctx, X_rep, g)
    # the float32 rounding is far above REPID's own float64 floor and below the float32 one
    assert not g.extra["equal_up_to_rounding"]
    assert g.extra["rounding_floor"] < _root_rms(g) <= floor
    # the floor's scale is the largest |prediction| (~100 + the effects)
    np.testing.assert_allclose(floor / (64 * np.finfo(np.float32).eps), 100, rtol=0.2)


def test_float64_model_keeps_repids_floor():
    """The same model in float64: no extra floor, REPID's own decides (it does not split)."""
    from imlkit.report._sec_effects import output_rounding_floor

    ctx = _additive_float32_ctx(("pfi", "repid"))
    ctx.model = ctx.model.inner_
    assert output_rounding_floor(ctx, ctx.X_test) == 0.0
