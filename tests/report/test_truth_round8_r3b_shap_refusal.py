"""Review r3 (rev8), finding 2: for a multiclass boosted model the report's SHAP tried engine="trees" twice (link None
and "logit"), each running the tree engine's check against the model's predictions (every feature perturbed: 3.2 s
+ 2.5 s of CPU on 2,308 genes) before refusing an output that is not affine in the trees' raw score. The refusal is
now decided from the (cached) reading of the trees, before the check. Synthetic data."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import HistGradientBoostingClassifier

from imlkit import shap
from imlkit._model import Predictor
from imlkit._validation import ValidationError
from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context
from imlkit.report._sec_local import section_local


def _data(n_classes, p=6, n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    score = X["x0"] + 0.7 * X["x1"] - 0.5 * X["x2"] + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.fixture
def checks(monkeypatch):
    """Counts the tree engine's checks (Predictor.use_engine: reading the trees and checking them against the model's
    predictions with every feature perturbed)."""
    calls = []
    real = Predictor.use_engine

    def counted(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Predictor, "use_engine", counted)
    return calls


def test_multiclass_boosted_refusal_runs_no_engine_check(checks):
    X, y = _data(4)
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    for link in (None, "logit"):
        with pytest.raises(ValidationError, match="not an affine function of the trees' raw score"):
            shap(model, X.iloc[:3], background=X.iloc[:50], class_=0, link=link, engine="trees", random_state=0)
    assert len(checks) == 0  # was 2: one full check per refused try


def test_report_section_over_the_budget_is_unchanged_and_checks_at_most_once(checks):
    X, y = _data(4)
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=model, quick=True, methods=("shap",),
                                       max_features=3))
    sec = section_local(ctx)
    assert sec["blocks"][0]["text"].startswith("Not computed: this model's SHAP values need the permutation estimator")
    assert "6 features, more than the report's feature budget of 3" in sec["blocks"][0]["text"]
    assert len(checks) <= 1


def test_multiclass_boosted_auto_equals_predictions_and_binary_logit_is_still_treeshap(checks):
    # engine="auto" on a 4-class boosted model: the refusal of the closed form leaves the same game to the trees'
    # coalition values, which must equal the model's own predictions (exact enumeration of 6 features)
    X, y = _data(4)
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    kw = dict(background=X.iloc[:40], class_=2, random_state=0)
    auto = shap(model, X.iloc[:5], engine="auto", **kw)
    pred = shap(model, X.iloc[:5], engine="predict", **kw)
    assert auto.extra["engine"] == "trees"
    assert_allclose(auto.values, pred.values, rtol=1e-9, atol=1e-12)
    # a binary boosted model's log-odds is affine in its raw score: exact TreeSHAP, one check, equal to the
    # enumeration of the same game through the model's predictions
    X2, y2 = _data(2, seed=1)
    binary = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X2, y2)
    checks.clear()
    kw = dict(background=X2.iloc[:40], class_=1, link="logit", random_state=0)
    tree = shap(binary, X2.iloc[:5], engine="trees", **kw)
    assert len(checks) == 1
    ref = shap(binary, X2.iloc[:5], engine="predict", **kw)
    assert_allclose(tree.values, ref.values, rtol=1e-7, atol=1e-9)
