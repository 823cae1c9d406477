"""Section 1's most correlated pairs, computed block by block on complete tables: the pairs pandas' corr gives."""
import numpy as np
import pandas as pd

from imlkit.report import _sec_data
from imlkit.report._blocks import fmt


def _pairs(X):
    blocks = _sec_data._correlation_blocks(X)
    return [tuple(r) for r in blocks[0]["rows"]] if blocks else []


def _pandas_pairs(X, top=6):
    c = X.corr()
    cols = list(X.columns)
    pairs = [(abs(c.iloc[a, b]), cols[a], cols[b], c.iloc[a, b])
             for a in range(len(cols)) for b in range(a + 1, len(cols)) if np.isfinite(c.iloc[a, b])]
    return [(a, b, r) for _, a, b, r in sorted(pairs, reverse=True)[:top]]


def test_blockwise_pairs_equal_pandas_over_several_blocks(monkeypatch):
    monkeypatch.setattr(_sec_data, "CORR_BLOCK", 7)  # many blocks on a small table
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(50, 40)), columns=[f"c{k:02d}" for k in range(40)])
    X["c03"] = X["c31"] + 0.1 * rng.normal(size=50)
    X["c17"] = -X["c08"] + 0.3 * rng.normal(size=50)
    X["c20"] = 5.0  # constant: never a pair
    got, want = _pairs(X), _pandas_pairs(X)
    assert got == [(a, b, fmt(r)) for a, b, r in want]
    assert "c20" not in {n for g in got for n in g[:2]}


def test_missing_values_keep_pandas_pairwise_correlations():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(60, 8)), columns=list("abcdefgh"))
    X.loc[:9, "a"] = np.nan
    X["b"] = X["a"].fillna(0) * 2 + rng.normal(size=60) * 0.1
    got, want = _pairs(X), _pandas_pairs(X)
    assert got == [(a, b, fmt(r)) for a, b, r in want]
