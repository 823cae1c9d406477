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


class _Additive:
    """f = x1 + 0.01 · x1 · x2 (a negligible interaction) or f = x1 · x2 (a real one)."""

    def __init__(self, eps):
        self.eps = eps

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        return X[:, 0] + self.eps * X[:, 0] * X[:, 1] if self.eps < 1 else X[:, 0] * X[:, 1]


@pytest.mark.parametrize("eps, material", [(0.01, False), (1.0, True)])
def test_repid_regions_differ_materially_only_when_the_numbers_say_so(eps, material):
    from imlkit.report._sec_effects import MATERIAL_REGIONAL_SHARE, regional_difference

    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x1": rng.uniform(-1, 1, 400), "x2": rng.choice([-1.0, 1.0], 400)})
    g = ik.repid(_Additive(eps), X, "x1", grid=10, max_depth=1, min_node_size=30, min_improvement=0.1)
    # the split on x2 removes all the heterogeneity in both cases (REPID's relative rule passes)...
    assert g.interaction_scores["x2"] > 0.9
    share, spread, span = regional_difference(g)
    np.testing.assert_allclose(share, g.interaction_scores.sum(), rtol=1e-9)
    # ...but the regional curves (x1 ± eps·x1) differ from the overall x1 by eps·RMS(x1 on the grid)
    grid = np.asarray(g.grid, dtype=float)
    np.testing.assert_allclose(spread, eps * np.sqrt(np.mean((grid - grid.mean()) ** 2)), rtol=0.05)
    assert (spread >= MATERIAL_REGIONAL_SHARE * span) is material
