"""How well each feature is explained by the others (a warning sign for marginal methods)."""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["dependence_r2"]


def dependence_r2(X):
    """R² of a linear regression of each numeric column on all the other columns.

    Categorical and text columns enter as dummies (they get no R² of their own: NaN). One
    least-squares fit per numeric column, so exact copies give R² = 1.

    Parameters
    ----------
    X : DataFrame, shape (n, p)

    Returns
    -------
    Series indexed by column, values in [0, 1] or NaN.
    """
    numeric = [c for c in X.columns
               if not isinstance(X[c].dtype, pd.CategoricalDtype) and X[c].dtype.kind in "biuf"]
    others = [c for c in X.columns if c not in numeric]
    parts = [X[numeric].astype(float)] if numeric else []
    if others:
        parts.append(pd.get_dummies(X[others].astype(object), drop_first=True, dtype=float))
    out = pd.Series(np.nan, index=X.columns, dtype=float)
    if not numeric or len(X) < 3:
        return out
    Z = pd.concat(parts, axis=1).to_numpy(dtype=float)
    Z = Z[np.isfinite(Z).all(axis=1)]
    Z = Z - Z.mean(axis=0)
    # Every regression needs only the p x p Gram matrix: RSS_j = G_jj - g_j' G_rest^+ g_j
    # (a pseudo-inverse, so exact copies give RSS = 0). One pass over the n rows in all.
    G = Z.T @ Z
    ss = np.diag(G).copy()
    constant = ss <= 1e-12 * max(ss.max(), 1e-300)
    scale = np.sqrt(np.where(constant, 1.0, ss))
    G = G / np.outer(scale, scale)  # correlation scale, so the pseudo-inverse's cut-off is relative
    G[constant, :] = 0.0
    G[:, constant] = 0.0
    for k, c in enumerate(numeric):
        if constant[k]:
            continue
        rest = np.delete(np.arange(len(G)), k)
        g = G[rest, k]
        rss = G[k, k] - g @ np.linalg.pinv(G[np.ix_(rest, rest)], rcond=1e-10, hermitian=True) @ g
        out[c] = float(np.clip(1.0 - rss / G[k, k], 0.0, 1.0))
    return out
