"""Report sentences that must follow their numbers (tables built in code, seconds to run)."""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeRegressor

import imlkit as ik
from imlkit.report._sec_effects import class_label


@pytest.mark.parametrize("value, text", [(1.0, "1"), (np.float64(0.0), "0"), (1.5, "1.5"), ("yes", "yes"),
                                         (np.int64(2), "2"), (float("nan"), "nan")])
def test_class_label_prints_integral_floats_as_integers(value, text):
    assert class_label(value) == text


def test_loco_median_note_for_a_regression_does_not_say_classifier():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"x": rng.normal(size=n), "noise": rng.normal(size=n)})
    y = 3 * (X["x"] > 0) + rng.normal(scale=0.1, size=n)
    # a stump splits on x with or without 'noise': both fits predict every test row alike
    learner = DecisionTreeRegressor(max_depth=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ik.loco(learner, X[:200], y[:200], X[200:], y[200:], loss="squared_error", aggregate="median",
                    random_state=0)
    notes = [w for w in r.explain().split("\n") if "LOCO is exactly 0" in w]
    assert notes, r.explain()
    assert "classifier" not in notes[0]
    assert "100% of the test rows" in notes[0] and "100%-100%" not in notes[0]
