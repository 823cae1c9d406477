"""LOCO, LOFO and PIMP resolve their learner once (issue 24, item 3).

A zero-argument factory learner is called once at the entry (the checks, the default loss and
the leave-out mode all read that one instance) and then once per fit -- never inside a refit
task to inspect it again. Before, LOCO called it 9 times for 4 fits (two entry checks and one
leave-out check per feature job).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import imlkit as ik
from imlkit.importance._refit import RefitProblem, leave_out_mode


class _Counting:
    """A factory learner that counts its calls (picklable: n_jobs=1 runs in this process)."""

    def __init__(self, make):
        self.make, self.calls = make, 0

    def __call__(self):
        self.calls += 1
        return self.make()


def _by_name():
    return make_pipeline(ColumnTransformer([("num", StandardScaler(), ["a", "b", "c"])]), LinearRegression())


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    y = 2.0 * X["a"] - X["b"] + rng.normal(scale=0.3, size=n)
    return X.iloc[:80], y.iloc[:80].to_numpy(), X.iloc[80:], y.iloc[80:].to_numpy()


@pytest.mark.parametrize("make", [LinearRegression, _by_name], ids=["drops", "neutralises"])
def test_loco_calls_a_factory_once_per_fit(make):
    X_tr, y_tr, X_te, y_te = _data()
    factory = _Counting(make)
    r = ik.loco(factory, X_tr, y_tr, X_te, y_te, random_state=0)
    n_fits = 1 + X_tr.shape[1]  # the full model and one refit per feature
    assert factory.calls == 1 + n_fits  # one instance for the checks, then one per fit (was 9)
    # the numbers are those of the same learner passed as an estimator (cloned per fit)
    ref = ik.loco(make(), X_tr, y_tr, X_te, y_te, random_state=0)
    assert_allclose(r.importance, ref.importance, rtol=1e-12, atol=1e-12)


def test_loco_with_several_refits_and_lofo_count_the_same_way():
    X_tr, y_tr, X_te, y_te = _data(seed=1)
    factory = _Counting(_by_name)
    ik.loco(factory, X_tr, y_tr, X_te, y_te, n_refits=3, random_state=0)
    assert factory.calls == 1 + 3 * (1 + X_tr.shape[1])
    factory = _Counting(LinearRegression)
    ik.lofo(factory, X_tr, y_tr, X_te, y_te, random_state=0)
    assert factory.calls == 1 + (1 + X_tr.shape[1])


@pytest.mark.filterwarnings("ignore:With the empirical null")  # 4 null refits: the count is the point
def test_pimp_calls_a_factory_once_per_fit():
    X_tr, y_tr, X_te, y_te = _data(seed=2)
    factory = _Counting(LinearRegression)
    ik.pimp(factory, X_tr, y_tr, X_te, y_te, n_null=4, n_repeats=2, random_state=0)
    assert factory.calls == 1 + (1 + 4)  # the observed fit and 4 null refits


def test_the_problem_resolves_auto_at_construction():
    X_tr, y_tr, X_te, y_te = _data()
    common = dict(X_train=X_tr, y_train=y_tr, X_test=X_te, y_test=y_te, loss=None, as_frame=True, max_rows=None)
    factory = _Counting(_by_name)
    problem = RefitProblem(learner=factory, template=_by_name(), **common)
    assert problem.leave_out == "neutralise" and factory.calls == 0  # the template answered
    assert RefitProblem(learner=LinearRegression(), **common).leave_out == "drop"
    assert RefitProblem(learner=factory, **common).leave_out == leave_out_mode(_by_name()) == "neutralise"
    assert factory.calls == 1  # no template: the factory is asked once, here
    assert RefitProblem(learner=factory, leave_out="permute", **common).leave_out == "permute"
    assert "template" not in vars(problem)  # construction only: never shipped to the workers
    with pytest.raises(ik.ValidationError, match="'leave_out' must be one of 'auto', 'drop', 'neutralise', "
                                                 "'permute'; got 'remove'"):
        RefitProblem(learner=factory, leave_out="remove", **common)
