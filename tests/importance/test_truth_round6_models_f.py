"""Round 6 (models): LOCO and LOFO call a learner stochastic only when it is -- a random_state parameter that the fit
never uses (LogisticRegression with lbfgs) is no reason for "refit-based importances are noisy"."""
import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import imlkit as ik


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:, :5]
    return X[:350], y[:350], X[350:], y[350:]


def _noisy(r):
    return [w for w in r.warnings if "refit-based importances are noisy" in w]


@pytest.mark.parametrize("method", ["loco", "lofo"])
def test_deterministic_learner_with_a_random_state_is_not_called_stochastic(data, method):
    fn = getattr(ik, method)
    runs = [fn(make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)), *data, random_state=s)
            for s in (0, 1, 2)]
    # the premise: the importances do not depend on the seed
    assert_array_equal(runs[0].importance, runs[1].importance)
    assert_array_equal(runs[0].importance, runs[2].importance)
    assert _noisy(runs[0]) == []
    assert "stochastic" not in runs[0].explain()


@pytest.mark.parametrize("method", ["loco", "lofo"])
def test_random_forest_is_called_stochastic_with_the_numbers(data, method):
    r = getattr(ik, method)(RandomForestClassifier(n_estimators=15, random_state=0), *data, random_state=0)
    (w,) = _noisy(r)
    assert w.startswith("The learner is stochastic (the full model refitted with another random_state gives other "
                        "losses on ")
    share = float(w.split("other losses on ")[1].split("%")[0])
    assert 0 < share <= 100
    assert "use n_refits > 1 to see their spread" in w and w in r.explain()
    # several refits: no note (their spread is measured)
    r3 = getattr(ik, method)(RandomForestClassifier(n_estimators=15, random_state=0), *data, random_state=0,
                             n_refits=2)
    assert _noisy(r3) == []


def test_the_check_does_not_change_the_importances(data):
    """The extra fit is a check only: the same importances as the fit without it gives for a fixed seed."""
    a = ik.loco(RandomForestClassifier(n_estimators=15, random_state=0), *data, random_state=0)
    b = ik.loco(RandomForestClassifier(n_estimators=15, random_state=0), *data, random_state=0, n_jobs=2)
    assert_array_equal(a.importance, b.importance)
    assert a.warnings == b.warnings
    assert np.all(np.isfinite(a.importance))
