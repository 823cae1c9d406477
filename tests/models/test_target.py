"""The one definition of a continuous target shared by the models."""
import numpy as np
import pandas as pd
import pytest

from imlkit._validation import ValidationError
from imlkit.models._target import MAX_CLASSES, auto_task, check_class_target, continuous_reason


@pytest.mark.parametrize("y, continuous", [
    (np.array([0.5, 1.0, 2.0]), True),                       # a non-integer float
    (np.array([0.0, 1.0, 2.0, 1.0]), False),                  # whole-number floats: class codes
    (np.arange(MAX_CLASSES), False),                          # exactly MAX_CLASSES integer classes
    (np.arange(MAX_CLASSES + 1), True),                       # one more: continuous
    (np.array(["a", "b", "a"]), False),
    (np.array([True, False, True]), False),
    (pd.Series([1.5, 2.5, 3.5]).astype("category"), False),  # a categorical is always labels
    (pd.Series(np.arange(100.0)).astype(str), False),
    (pd.Series([0.1, np.nan, 0.3]), True),                    # NaN ignored
])
def test_continuous_reason(y, continuous):
    assert (continuous_reason(y) is not None) == continuous
    assert auto_task(y) == ("regression" if continuous else "classification")


def test_message_names_the_model_and_the_count():
    y = np.round(np.random.default_rng(0).normal(size=400), 3)
    n = np.unique(y).size
    with pytest.raises(ValidationError, match=rf"OneR needs a class target; 'y' looks continuous \({n} distinct float"):
        check_class_target(y, "OneR")
    check_class_target(np.array([1, 2, 1]), "OneR")  # labels pass


@pytest.mark.parametrize("model", ["OneR", "RIPPER", "NaiveBayes"])
def test_class_learners_refuse_a_continuous_target(model):
    from sklearn.datasets import load_diabetes

    import imlkit.models as m

    d = load_diabetes(as_frame=True)
    n = d.target.nunique()
    est = getattr(m, model)()
    with pytest.raises(ValidationError, match=rf"^{model} needs a class target; 'y' looks continuous \({n} distinct "
                                              rf"float values"):
        est.fit(d.data.iloc[:, :3], d.target)
    # the same values as labels (strings) are accepted
    y = pd.cut(d.target, 3, labels=["low", "mid", "high"])
    assert list(getattr(m, model)().fit(d.data.iloc[:, :3], y).classes_) == ["high", "low", "mid"]
