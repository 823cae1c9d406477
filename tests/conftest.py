"""Fixtures shared by test files in different directories."""
import numpy as np
import pandas as pd
import pytest


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
