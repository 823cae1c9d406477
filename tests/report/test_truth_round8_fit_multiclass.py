"""Truth review rev8 r2, finding 9: '--model glm' on iris (3 classes) said "Use '--model gbm' or '--model rulefit'",
leaving out '--model rf', which fits it too; and the multiclass baseline was labelled "GLM (multinomial logit)" beside
the two-class "GLM (binomial)", although the first is scikit-learn's L2-penalised LogisticRegression (C = 1 on
standardised features) and the second imlkit's unpenalised GLM. The label now says what the fit is."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from imlkit.report._data import ReportInputError
from imlkit.report._fit import MULTICLASS_MODELS, MULTINOMIAL_BASELINE, MULTINOMIAL_C, baseline_models, make_model


def _iris():
    d = load_iris(as_frame=True)
    return d.data, d.target.map(dict(enumerate(d.target_names))).rename("species")


@pytest.mark.parametrize("name", ["glm", "gam"])
def test_a_three_class_target_names_every_model_that_fits_it(name):
    X, y = _iris()
    with pytest.raises(ReportInputError) as err:
        make_model(name, "classification", X, y, 0)
    assert str(err.value) == (f"'--model {name}' supports regression and two-class targets; this target has 3 "
                              f"classes. Use '--model gbm', '--model rf' or '--model rulefit'.")  # rf was missing


def test_each_model_named_fits_three_classes():
    X, y = _iris()
    assert set(MULTICLASS_MODELS) == {"gbm", "rf", "rulefit"}
    for name in MULTICLASS_MODELS:
        model = make_model(name, "classification", X, y, 0).fit(X, y)
        assert model.predict_proba(X).shape == (len(X), 3)


def test_the_multiclass_baseline_is_named_as_the_penalised_fit_it_is():
    X, y = _iris()
    base = baseline_models("classification", X, y, seed=0)
    assert list(base) == ["class frequencies (majority class)", "GLM (multinomial logit, L2-penalised, C = 1)"]
    fitted = base[MULTINOMIAL_BASELINE].fit(X, y)
    # the known answer: scikit-learn's L2-penalised multinomial logit with that C on the standardised features
    ref = LogisticRegression(C=MULTINOMIAL_C, max_iter=2000).fit(StandardScaler().fit_transform(X), y)
    assert_allclose(fitted[-1].coef_, ref.coef_, rtol=1e-3, atol=1e-4)
    # ... which is not the unpenalised fit "GLM" means for two classes: setosa is separable, the penalty binds
    free = LogisticRegression(C=1e8, max_iter=20000).fit(StandardScaler().fit_transform(X), y)
    assert np.abs(free.coef_).max() > 3 * np.abs(ref.coef_).max()


def test_section_2_on_iris_prints_the_label():
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_model import section_model

    X, y = _iris()
    ctx = prepare_context(ReportConfig(data=pd.concat([X, y], axis=1), target="species", quick=True))
    blocks = section_model(ctx)["blocks"]
    said = " ".join(str(b) for b in blocks)
    assert "GLM (multinomial logit, L2-penalised, C = 1)" in said and "GLM (multinomial logit)" not in said
