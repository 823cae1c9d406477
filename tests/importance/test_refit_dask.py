"""Refits give identical numbers for n_jobs=1, n_jobs=2 and joblib's Dask backend."""
import joblib
import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.tree import DecisionTreeRegressor

import imlkit as ik

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def data():
    X, y = ik.datasets.make_correlated_loco(300, random_state=2)
    return X[:200], y[:200], X[200:], y[200:]


def _loco(data, **kw):
    Xtr, ytr, Xte, yte = data
    # a stochastic learner (random feature order in splits) so that seeding matters
    return ik.loco(DecisionTreeRegressor(max_depth=4, max_features=2), Xtr, ytr, Xte, yte, n_refits=2,
                   random_state=3, **kw)


def _pimp(data, **kw):
    Xtr, ytr, Xte, yte = data
    return ik.pimp(DecisionTreeRegressor(max_depth=3, max_features=2), Xtr, ytr, Xte, yte, n_null=6,
                   n_repeats=2, random_state=0, **kw)


@pytest.mark.slow
def test_loco_and_pimp_identical_on_dask(client, data):
    ref_loco, ref_pimp = _loco(data, n_jobs=1), _pimp(data, n_jobs=1)
    with joblib.parallel_config(backend="dask"):
        dask_loco, dask_pimp = _loco(data), _pimp(data)
    assert_array_equal(dask_loco.observation_importance, ref_loco.observation_importance)
    assert_array_equal(dask_loco.repeats, ref_loco.repeats)
    assert_array_equal(dask_pimp.extra["null"], ref_pimp.extra["null"])
    assert_array_equal(dask_pimp.p_value, ref_pimp.p_value)
    assert np.all(ref_loco.std[ref_loco.importance > 0.5] > 0)  # the refits did differ


def test_identical_with_two_jobs(data):
    assert_array_equal(_loco(data, n_jobs=2).observation_importance, _loco(data, n_jobs=1).observation_importance)
    assert_array_equal(_pimp(data, n_jobs=2).extra["null"], _pimp(data, n_jobs=1).extra["null"])
