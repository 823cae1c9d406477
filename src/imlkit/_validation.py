"""One place for input checks and their messages.

Every public function of imlkit validates its arguments here, at its entry point, so that
bad input fails early with one message shape::

    'n_repeats' must be an int >= 1; got 0.

Messages name the offending parameter, column or feature and, where there is a closed set,
the allowed values.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "ImlkitError",
    "ValidationError",
    "check_int",
    "check_float",
    "check_choice",
    "check_bool",
    "check_X",
    "check_y",
    "check_X_y",
    "check_same_columns",
    "check_probability",
    "resolve_features",
    "resolve_feature",
    "as_seed_sequence",
]


class ImlkitError(Exception):
    """Base class of the errors imlkit raises on purpose."""


class ValidationError(ImlkitError, ValueError):
    """An argument has a wrong value (also a :class:`ValueError`)."""


class ModelError(ImlkitError, RuntimeError):
    """The model (or learner) failed or returned unusable output."""


# --------------------------------------------------------------------------- scalars
def _describe(kind, bounds, allow_none):
    """'an int >= 1 and <= 5 or None' from the bounds that are set."""
    parts = [op + str(v) for v, op in bounds if v is not None]
    return kind + (" " + " and ".join(parts) if parts else "") + (" or None" if allow_none else "")


def check_int(name, value, *, min_value=None, max_value=None, allow_none=False):
    """Return ``value`` as an int or raise ``'name' must be an int >= m; got v.``"""
    if value is None and allow_none:
        return None
    what = _describe("an int", [(min_value, ">= "), (max_value, "<= ")], allow_none)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"'{name}' must be {what}; got {value!r}.")
    value = int(value)
    if (min_value is not None and value < min_value) or (max_value is not None and value > max_value):
        raise ValidationError(f"'{name}' must be {what}; got {value!r}.")
    return value


def check_float(name, value, *, low=None, high=None, low_inclusive=True, high_inclusive=True,
                allow_none=False):
    """Return ``value`` as a finite float within the given bounds."""
    if value is None and allow_none:
        return None
    what = _describe("a number", [(low, ">= " if low_inclusive else "> "),
                                  (high, "<= " if high_inclusive else "< ")], allow_none)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"'{name}' must be {what}; got {value!r}.")
    value = float(value)
    bad = not np.isfinite(value)
    if low is not None:
        bad |= value < low if low_inclusive else value <= low
    if high is not None:
        bad |= value > high if high_inclusive else value >= high
    if bad:
        raise ValidationError(f"'{name}' must be {what}; got {value!r}.")
    return value


def check_probability(name, value):
    """A level such as ``confidence_level`` or ``alpha``: strictly between 0 and 1."""
    return check_float(name, value, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)


def check_choice(name, value, allowed):
    """Return ``value`` if it is one of ``allowed`` (compared with ``==``)."""
    allowed = list(allowed)
    if isinstance(value, str) or value is None or isinstance(value, (bool, numbers.Number)):
        if value in allowed:
            return value
    shown = ", ".join(repr(a) for a in allowed)
    raise ValidationError(f"'{name}' must be one of {shown}; got {value!r}.")


def check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"'{name}' must be True or False; got {value!r}.")
    return bool(value)


# --------------------------------------------------------------------------- data
def check_X(X, name="X", *, min_rows=1, allow_nan=True):
    """Validate a feature matrix and return it as a DataFrame plus whether it was a DataFrame.

    Arrays get column names ``x0, x1, ...`` (the Predictor turns them back into arrays
    before calling a model fitted on arrays).

    Returns
    -------
    frame : pandas.DataFrame, shape (n, p)
    was_frame : bool
    """
    if isinstance(X, pd.DataFrame):
        frame = X
        was_frame = True
        if frame.columns.has_duplicates:
            dup = frame.columns[frame.columns.duplicated()].tolist()
            raise ValidationError(f"'{name}' has duplicated column names: {dup}.")
        if not all(isinstance(c, str) for c in frame.columns):
            frame = frame.rename(columns=str)
    elif isinstance(X, pd.Series):
        raise TypeError(f"'{name}' must be 2-D (a DataFrame or an array of shape (n, p)); got a Series. "
                        f"Use X.to_frame() for a single feature.")
    else:
        try:
            arr = np.asarray(X)
        except Exception as exc:  # pragma: no cover - exotic containers
            raise TypeError(f"'{name}' must be a DataFrame or an array of shape (n, p); "
                            f"got {type(X).__name__}.") from exc
        if arr.ndim != 2:
            raise ValidationError(f"'{name}' must be 2-D of shape (n, p); got an array with {arr.ndim} dimension(s).")
        frame = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])
        was_frame = False
    n, p = frame.shape
    if p == 0:
        raise ValidationError(f"'{name}' has no columns.")
    if n < min_rows:
        raise ValidationError(f"'{name}' must have at least {min_rows} row(s); got {n}.")
    if not allow_nan:
        num = frame.select_dtypes("number")
        if len(num.columns):
            bad = ~np.isfinite(num.to_numpy(dtype=float)).all(axis=0)
            if bad.any():
                cols = list(num.columns[bad])
                raise ValidationError(f"'{name}' contains NaN or infinite values in column(s) {cols}.")
    return frame, was_frame


def check_y(y, n=None, name="y", *, allow_nan=False):
    """Validate a target vector; returns a 1-D numpy array (object dtype kept for labels)."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValidationError(f"'{name}' must be 1-D; got a DataFrame with {y.shape[1]} columns.")
        y = y.iloc[:, 0]
    if isinstance(y, pd.Series):
        if isinstance(y.dtype, pd.CategoricalDtype):
            arr = np.asarray(y.astype(object))
        else:
            arr = y.to_numpy()
    else:
        arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValidationError(f"'{name}' must be 1-D; got shape {arr.shape}.")
    if n is not None and arr.shape[0] != n:
        raise ValidationError(f"X and '{name}' have different lengths: X has {n} rows, {name} has {arr.shape[0]}.")
    if not allow_nan:
        if arr.dtype.kind in "fc":
            if not np.isfinite(arr).all():
                k = int((~np.isfinite(arr)).sum())
                raise ValidationError(f"'{name}' contains {k} NaN or infinite value(s).")
        elif arr.dtype.kind == "O" or arr.dtype.kind in "US" or str(arr.dtype).startswith("str"):
            k = int(pd.isna(pd.Series(arr, dtype=object)).sum())
            if k:
                raise ValidationError(f"'{name}' contains {k} missing value(s).")
    return arr


def check_X_y(X, y, *, X_name="X", y_name="y", min_rows=1):
    frame, was_frame = check_X(X, X_name, min_rows=min_rows)
    arr = check_y(y, frame.shape[0], y_name)
    return frame, was_frame, arr


def check_same_columns(a, b, a_name, b_name):
    """Train and test (or fit and explain) data must have the same columns in the same order."""
    if list(a.columns) != list(b.columns):
        missing = [c for c in a.columns if c not in b.columns]
        extra = [c for c in b.columns if c not in a.columns]
        detail = []
        if missing:
            detail.append(f"missing in {b_name}: {missing}")
        if extra:
            detail.append(f"not in {a_name}: {extra}")
        if not detail:
            detail.append("same names in a different order")
        raise ValidationError(f"'{a_name}' and '{b_name}' must have the same columns; " + "; ".join(detail) + ".")


# --------------------------------------------------------------------------- features
def resolve_feature(feature, columns, name="feature"):
    """Turn one feature given by name or integer index into its column name."""
    columns = list(columns)
    if isinstance(feature, (numbers.Integral, np.integer)) and not isinstance(feature, (bool, np.bool_)):
        idx = int(feature)
        if not -len(columns) <= idx < len(columns):
            raise ValidationError(f"'{name}' index {idx} is out of range for {len(columns)} columns.")
        return columns[idx]
    if isinstance(feature, str):
        if feature not in columns:
            raise ValidationError(f"Unknown feature {feature!r} in '{name}'; the columns are {columns}.")
        return feature
    raise TypeError(f"'{name}' must be a column name or an integer index; got {feature!r}.")


def resolve_features(features, columns, name="features", allow_groups=True):
    """Normalise ``features`` to an ordered mapping ``{display name: [column names]}``.

    ``features`` may be None (every column), a name or index, a list of names/indices, or a
    mapping ``{"group": ["col1", "col2"]}`` whose groups are treated as one player.
    """
    columns = list(columns)
    if features is None:
        return {c: [c] for c in columns}
    if isinstance(features, (str, numbers.Integral)) and not isinstance(features, bool):
        c = resolve_feature(features, columns, name)
        return {c: [c]}
    if isinstance(features, Mapping):
        if not allow_groups:
            raise ValidationError(f"'{name}' does not accept groups here; pass a list of column names.")
        if not features:
            raise ValidationError(f"'{name}' is an empty mapping; give at least one group.")
        out = {}
        for g, cols in features.items():
            if isinstance(cols, (str, numbers.Integral)):
                cols = [cols]
            cols = [resolve_feature(c, columns, name) for c in cols]
            if not cols:
                raise ValidationError(f"Group {g!r} in '{name}' has no columns.")
            if len(set(cols)) != len(cols):
                raise ValidationError(f"Group {g!r} in '{name}' lists a column twice: {cols}.")
            out[str(g)] = cols
        return out
    if isinstance(features, Sequence) or isinstance(features, (np.ndarray, pd.Index)):
        feats = list(features)
        if not feats:
            raise ValidationError(f"'{name}' is empty; give at least one feature or None for all.")
        out = {}
        for f in feats:
            if isinstance(f, (list, tuple)):
                if not allow_groups:
                    raise ValidationError(f"'{name}' does not accept groups here.")
                cols = [resolve_feature(c, columns, name) for c in f]
                out["+".join(cols)] = cols
            else:
                c = resolve_feature(f, columns, name)
                if c in out:
                    raise ValidationError(f"Feature {c!r} appears twice in '{name}'.")
                out[c] = [c]
        return out
    raise TypeError(f"'{name}' must be None, a column name, a list of names or indices, or a mapping of "
                    f"group names to columns; got {type(features).__name__}.")


# --------------------------------------------------------------------------- randomness
def as_seed_sequence(random_state, name="random_state"):
    """Normalise ``random_state`` (None, int, Generator or SeedSequence) to a SeedSequence.

    Every task later gets its own child of this one sequence (see ``_parallel.spawn``), so
    the numbers do not depend on how the tasks are scheduled.
    """
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(int(random_state.integers(0, 2**63 - 1)))
    if isinstance(random_state, (numbers.Integral, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValidationError(f"'{name}' must be None, an int >= 0 or a numpy Generator; got {random_state!r}.")
        return np.random.SeedSequence(int(random_state))
    raise TypeError(f"'{name}' must be None, an int >= 0 or a numpy Generator; got {random_state!r}.")


def check_n_jobs(n_jobs):
    """joblib's convention: None, -1 (all cores) or a positive int; 0 is meaningless."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValidationError(f"'n_jobs' must be None, -1 or an int >= 1; got {n_jobs!r}.")
    return int(n_jobs)
