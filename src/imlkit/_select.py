"""Selections of a result: the keys of ``r["temp"]``, ``r[["temp", "hum"]]``, ``r[:5]``, ``r.top(5)``.

One place turns a key into positions (features by name, rows by position, slice or boolean
mask) and words the errors; each result type decides which of its fields follow the features
or the rows (``importance/_result.py``, ``effects/_result.py``, ``local/_result.py``). A sliced
result records what was taken in ``params["selection"]``: a tuple of steps, one per slicing,
each ``{"features": (...)}``, ``{"rows": n}`` or ``{"top": k, "by": ...}``.
"""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ._validation import ValidationError, check_int

__all__ = ["feature_positions", "row_positions", "top_positions", "with_selection", "is_feature_key"]

#: Available names listed by an error before "…".
MAX_LISTED = 30


def _listing(names):
    shown = ", ".join(repr(str(n)) for n in names[:MAX_LISTED])
    return shown + (f", … ({len(names)} in all)" if len(names) > MAX_LISTED else "")


def is_feature_key(key):
    """A name or a list/tuple/Index of names (not rows)."""
    if isinstance(key, str):
        return True
    if isinstance(key, (list, tuple, pd.Index)) and len(key) > 0:
        return all(isinstance(k, str) for k in key)
    return False


def feature_positions(key, names, what):
    """Positions of the features ``key`` (a name or a list of names) in ``names``.

    ``what`` names the result in messages (``"this PFI result"``). Unknown names raise a
    :class:`ValidationError` naming them and the available ones; so does a key of another kind.
    """
    names = [str(n) for n in names]
    if isinstance(key, str):
        wanted = [key]
    elif is_feature_key(key):
        wanted = [str(k) for k in key]
    else:
        raise ValidationError(f"Select the features of {what} by name (a string or a list of strings); got "
                              f"{key!r}. Available: {_listing(names)}.")
    unknown = [w for w in wanted if w not in names]
    if unknown:
        raise ValidationError(f"Unknown feature{'s' if len(unknown) > 1 else ''} {_listing(unknown)} in {what}; "
                              f"available: {_listing(names)}.")
    if len(set(wanted)) < len(wanted):
        dup = sorted({w for w in wanted if wanted.count(w) > 1})
        raise ValidationError(f"Each feature may be selected once; {_listing(dup)} repeated.")
    return [names.index(w) for w in wanted]


def row_positions(key, n, what):
    """Positions (an int array) of the rows ``key``: an int, a slice, a boolean mask of length n, or ints.

    An int keeps its row as a one-row selection (the result stays two-dimensional). A pandas
    boolean Series is read by position, as a NumPy mask.
    """
    if isinstance(key, numbers.Integral) and not isinstance(key, (bool, np.bool_)):
        if not -n <= key < n:
            raise ValidationError(f"Row {key} is out of range for {what} with {n} rows.")
        return np.array([key % n])
    if isinstance(key, slice):
        return np.arange(n)[key]
    arr = np.asarray(key.to_numpy() if isinstance(key, (pd.Series, pd.Index)) else key)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise ValidationError(f"A boolean mask of rows of {what} must have length {n}; got shape {arr.shape}.")
        return np.flatnonzero(arr)
    if arr.ndim == 1 and (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
        if arr.size and (arr.min() < -n or arr.max() >= n):
            raise ValidationError(f"Row positions must lie in [-{n}, {n}) for {what}; got {arr.min()}..{arr.max()}.")
        return arr.astype(int) % n if n else arr.astype(int)
    raise ValidationError(f"Select the rows of {what} with an int, a slice, a boolean mask of length {n} or a list "
                          f"of ints; got {key!r}.")


def top_positions(scores, k):
    """Positions of the ``k`` largest ``scores``, largest first (ties in input order, NaN last)."""
    k = check_int("k", k, min_value=1)
    scores = np.asarray(scores, dtype=float)
    order = np.argsort(-np.nan_to_num(scores, nan=-np.inf), kind="stable")
    return [int(j) for j in order[:k]]


def with_selection(params, step):
    """``params`` with ``step`` appended to its ``"selection"`` record (a new dict)."""
    out = dict(params)
    out["selection"] = tuple(params.get("selection", ())) + (step,)
    return out
