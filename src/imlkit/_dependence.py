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
    for k, c in enumerate(numeric):
        target = Z[:, k]
        tss = float(target @ target)
        if tss <= 0:
            continue
        rest = np.delete(Z, k, axis=1)
        coef = np.linalg.lstsq(rest, target, rcond=None)[0]
        resid = target - rest @ coef
        out[c] = float(np.clip(1.0 - (resid @ resid) / tss, 0.0, 1.0))
    return out
