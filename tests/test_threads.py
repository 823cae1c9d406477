"""imlkit limits BLAS/OpenMP threads inside its own parallel work: workers × threads <= cores."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from joblib import cpu_count, parallel_config
from sklearn.linear_model import LinearRegression
from threadpoolctl import threadpool_info

import imlkit as ik
from imlkit._parallel import parallel_map, thread_budget


def _max_threads():
    info = threadpool_info()
    return max((d["num_threads"] for d in info), default=None)


class RecordingRegressor(LinearRegression):
    """Writes the largest BLAS/OpenMP pool size it sees during ``fit`` to a file."""

    def __init__(self, path=None, fit_intercept=True):
        self.path = path
        super().__init__(fit_intercept=fit_intercept)

    def fit(self, X, y):
        with open(self.path, "a") as fh:
            fh.write(json.dumps(_max_threads()) + "\n")
        return super().fit(X, y)


def _recorded(path):
    return [json.loads(line) for line in open(path)]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    y = X["a"].to_numpy() + 0.1 * rng.normal(size=120)
    return X[:80], y[:80], X[80:], y[80:]


def test_thread_budget():
    assert thread_budget(1) is None
    assert thread_budget(2) == max(1, cpu_count() // 2)
    with parallel_config(backend="threading", n_jobs=4):
        assert thread_budget(None) == max(1, cpu_count() // 4)


@pytest.mark.skipif(_max_threads() is None, reason="no threadpoolctl-managed library loaded")
@pytest.mark.parametrize("backend", ["threading"])
def test_refits_run_with_limited_threads(tmp_path, data, backend):
    """LOCO with n_jobs=2: every refit sees at most cores // 2 threads (at least 1).

    The threading backend is the one that needs imlkit's limits (loky already limits its
    worker processes): BLAS pools are process-wide, OpenMP's are per thread."""
    path = tmp_path / "threads.jsonl"
    before = threadpool_info()
    with parallel_config(backend=backend):
        r = ik.loco(RecordingRegressor(str(path)), *data, n_jobs=2, random_state=0)
    seen = _recorded(path)
    assert len(seen) == 4   # the full model and three reduced ones
    assert max(seen) <= max(1, cpu_count() // 2)
    assert r.feature_names[int(np.argmax(r.importance))] == "a"
    # the caller's pools are restored afterwards
    assert [d["num_threads"] for d in threadpool_info()] == [d["num_threads"] for d in before]


def _threads_task(_):
    return _max_threads()


@pytest.mark.skipif(_max_threads() is None, reason="no threadpoolctl-managed library loaded")
def test_n_jobs_1_leaves_threads_alone():
    """With one worker the model may use every core (documented choice)."""
    assert parallel_map(_threads_task, [(0,), (1,)], n_jobs=1) == [_max_threads()] * 2
