"""Fixtures shared by test files in different directories."""
import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture
def outlier_rows():
    """``make(n, k, seed) -> (X, y)``: y = x1 + noise, and k rows far out in x2 with a large y (trees split them off
    into a k-row rule; RuleFit's few-row rules)."""
    def make(n=400, k=3, seed=0):
        rng = np.random.default_rng(seed)
        X = pd.DataFrame(rng.uniform(0, 1, size=(n, 3)), columns=["x1", "x2", "x3"])
        y = X["x1"] + 0.1 * rng.normal(size=n)
        X.loc[:k - 1, "x2"] = 5.0 + np.arange(k)
        y[:k] = 8.0
        return X, y.to_numpy()
    return make


@pytest.fixture
def one_thread():
    """One OpenMP/BLAS thread for the test (``pytestmark = pytest.mark.usefixtures("one_thread")`` in engine
    test files): the tree engine is single-threaded, and OpenMP fits and predicts crawl on a shared machine."""
    with threadpool_limits(1):
        yield


@pytest.fixture
def checked_reading():
    """``check(ctx) -> list of Claim``: the claims of the report's reading for ``ctx``, each item consistent and
    each claim passing its own check (``imlkit.report._claims``), in reading order."""
    from imlkit.report import _claims as cl
    from imlkit.report._reading import reading_claims

    def check(ctx):
        out = []
        for para in reading_claims(ctx):
            for item in para.items:
                assert cl.consistent(item) == []
                for c in item:
                    assert cl.check(c) == [], (c.kind, c.text(), cl.check(c))
                    out.append(c)
        return out
    return check
