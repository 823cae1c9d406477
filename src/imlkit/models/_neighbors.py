"""Explaining a k-nearest-neighbour prediction by showing the neighbours.

A kNN model has no parameters to read; its explanation is the k training rows it used,
how far they are, what their targets are, and in which features they differ from the row.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._dtypes import is_numeric
from .._validation import ValidationError, check_int, check_same_columns, check_X, check_y

__all__ = ["explain_neighbors"]


def _split_pipeline(knn):
    """The neighbour search estimator and a function that maps raw X into its input space."""
    if hasattr(knn, "kneighbors"):
        return knn, lambda X: X
    steps = getattr(knn, "steps", None)
    if steps and hasattr(steps[-1][1], "kneighbors"):
        head = knn[:-1]
        return steps[-1][1], head.transform
    raise TypeError("'knn' must be a fitted estimator with a 'kneighbors' method (e.g. KNeighborsClassifier) "
                    f"or a Pipeline ending in one; got {type(knn).__name__}.")


def _query_input(knn, est, transform, frame):
    # give each step what it was fitted on: a DataFrame if it knows feature names, else an
    # array (scikit-learn warns about a mismatch either way)
    Z = transform(frame if hasattr(knn, "feature_names_in_") else frame.to_numpy())
    if isinstance(Z, pd.DataFrame) and not hasattr(est, "feature_names_in_"):
        Z = Z.to_numpy()
    return Z


def explain_neighbors(knn, X_train, y_train, X, n_neighbors=None, n_differences=3):
    """The k nearest training rows of every row of ``X``, with where they differ from it.

    Parameters
    ----------
    knn : fitted estimator with ``kneighbors``, or a Pipeline ending in one
        E.g. ``KNeighborsClassifier``/``KNeighborsRegressor``/``NearestNeighbors``, possibly
        behind a scaler or encoder (the search happens in the transformed space).
    X_train : DataFrame or array, shape (n_train, p)
        The data ``knn`` was fitted on, untransformed and in the same row order (the
        neighbour indices point into it).
    y_train : array-like, shape (n_train,)
        Its labels or targets.
    X : DataFrame, array of shape (m, p), or a Series (one row)
        The rows to explain. A training row finds itself as its first neighbour.
    n_neighbors : int, optional
        Default: the estimator's ``n_neighbors``.
    n_differences : int, default 3
        How many of the most different features to name per neighbour.

    Returns
    -------
    DataFrame, m · k rows
        ``row`` (index label in X), ``rank`` (1 = nearest), ``neighbor`` (index label in
        X_train), ``distance`` (in the estimator's metric and space), ``target`` (y_train of
        the neighbour), the neighbour's feature values (one column per feature),
        ``differs_most`` (the ``n_differences`` features with the largest absolute
        standardised difference, e.g. ``"temp (+1.84), season (differs)"``; empty if none
        differ), and one column ``diff:<feature>`` per feature with the standardised
        difference.

    Notes
    -----
    The standardised difference of numeric feature j is (x_neighbour,j − x_row,j) / s_j, with
    s_j the standard deviation of feature j in X_train (1 if it is constant), so differences
    are in training standard deviations whatever the model's own scaling. A categorical
    feature counts as 1 when the levels differ and 0 otherwise.

    References
    ----------
    Molnar, C. (2022). *Interpretable Machine Learning*, 2nd ed., Section 5.7 (kNN).

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 10.0], "b": [0.0, 0.0, 1.0, 1.0]})
    >>> knn = KNeighborsClassifier(n_neighbors=2).fit(X, ["u", "u", "v", "v"])
    >>> explain_neighbors(knn, X, ["u", "u", "v", "v"], X.iloc[[0]])[["rank", "neighbor", "target"]]
       rank  neighbor target
    0     1         0      u
    1     2         1      u
    """
    est, transform = _split_pipeline(knn)
    if isinstance(X, pd.Series):
        X = X.to_frame().T.infer_objects()
    train, train_was_frame = check_X(X_train, "X_train")
    y_train = check_y(y_train, len(train), "y_train", allow_nan=True)
    frame, was_frame = check_X(X, "X")
    if not was_frame and frame.shape[1] == train.shape[1]:
        frame.columns = train.columns
    check_same_columns(train, frame, "X_train", "X")
    n_fit = getattr(est, "n_samples_fit_", None)
    if n_fit is not None and n_fit != len(train):
        raise ValidationError(f"'X_train' must be the data 'knn' was fitted on ({n_fit} rows); got {len(train)} rows.")
    k_default = getattr(est, "n_neighbors", None) or 5
    k = check_int("n_neighbors", k_default if n_neighbors is None else n_neighbors, min_value=1,
                  max_value=len(train))
    n_differences = check_int("n_differences", n_differences, min_value=0)

    distances, indices = est.kneighbors(_query_input(knn, est, transform, frame), n_neighbors=k)
    m = len(frame)
    flat = indices.ravel()
    rows = np.repeat(np.arange(m), k)

    features = list(train.columns)
    diffs = np.zeros((m * k, len(features)))
    categorical = np.zeros(len(features), dtype=bool)
    for j, col in enumerate(features):
        a, b = train[col], frame[col]
        if is_numeric(a) and is_numeric(b):
            ref = a.to_numpy(dtype=float)
            sd = np.nanstd(ref)
            sd = sd if sd > 0 else 1.0
            diffs[:, j] = (ref[flat] - b.to_numpy(dtype=float)[rows]) / sd
        else:
            categorical[j] = True
            diffs[:, j] = (a.to_numpy(dtype=object)[flat] != b.to_numpy(dtype=object)[rows]).astype(float)

    def describe(d):
        order = np.argsort(-np.abs(d), kind="stable")[:n_differences]
        parts = [f"{features[j]} (differs)" if categorical[j] else f"{features[j]} ({d[j]:+.2f})"
                 for j in order if d[j] != 0]
        return ", ".join(parts)

    out = pd.DataFrame({
        "row": np.asarray(frame.index, dtype=object)[rows],
        "rank": np.tile(np.arange(1, k + 1), m),
        "neighbor": np.asarray(train.index, dtype=object)[flat] if train_was_frame else flat,
        "distance": distances.ravel(),
        "target": y_train[flat],
    })
    values = train.iloc[flat].reset_index(drop=True)
    # a feature called e.g. "target" must not overwrite the bookkeeping columns
    values.columns = [f"value:{c}" if c in out.columns or c == "differs_most" else c for c in values.columns]
    out = pd.concat([out, values], axis=1)
    out["differs_most"] = [describe(d) for d in diffs]
    for j, col in enumerate(features):
        out[f"diff:{col}"] = diffs[:, j]
    return out
