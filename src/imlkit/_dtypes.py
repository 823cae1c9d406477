"""One place that decides what a column is: numeric, boolean, categorical or date/time.

Every part of imlkit that needs to know how to treat a column (the column-preparation stage,
the report's models and tables) asks here, so a column is never numeric in one place and
categorical in another.

* ``"boolean"``: a ``bool`` dtype, or text/objects whose values are only ``True``/``False``
  (any case, ``"true"``/``"false"``), the way a CSV with missing cells reads a boolean column.
* ``"datetime"``: a ``datetime64`` dtype (with or without time zone), or text in which at
  least 95% of the non-missing values look like dates (``2011-01-01``, ``2011/01/01 13:00``,
  ``01/31/2011``) and parse as such.
* ``"numeric"``: integer and float dtypes (not ``bool``); a ``timedelta`` counts as numeric.
* ``"categorical"``: ``category`` dtype and any other text or object column.

Is ``bool`` numeric? No: a boolean is a kind of its own. It has two values and no scale, so a
grid of quantiles between False and True means nothing (an effect is evaluated at exactly
{False, True}, like the levels of a factor), and a table describes it by the share of True
rather than a mean and spread. Where a computation only needs numbers -- a correlation, a
distance, a regression of one column on the others -- a ``bool`` *dtype* reads as 0/1 without
loss, so those callers ask :func:`is_numeric_or_bool`. Text holding "True"/"False" is boolean
too, but it needs :func:`column_kind`'s parsing before it is a number, so it is not
``is_numeric_or_bool``. The two derived questions every method asks are therefore:

* :func:`is_numeric_or_bool` -- "can I compute with these values as floats?" (numeric or a
  ``bool`` dtype); used by correlations, extrapolation checks, samplers, refit encoders.
* :func:`has_levels` -- "is this a set of levels rather than a number line?" (category, bool,
  text/objects -- date-like text included); used by effect grids.
  ``has_levels(s) == not (is_numeric(s) or datetime64 dtype)``.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

__all__ = ["column_kind", "is_numeric", "is_boolean", "is_categorical", "is_datetime", "is_numeric_or_bool",
           "has_levels", "numeric_columns", "numeric_or_bool_columns", "categorical_columns", "parse_dates",
           "looks_like_dates", "KINDS"]

KINDS = ("numeric", "boolean", "categorical", "datetime")

#: ISO-like (2011-01-31, 2011/1/31, 2011-01-31T13:05:00Z) or day-first/month-first (31.01.2011, 1/31/11)
#: dates, with an optional time of day and time zone.
_DATE = re.compile(r"^\s*(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})"
                   r"([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$")
#: Share of the non-missing values of a text column that must look like dates.
DATE_SHARE = 0.95
_TRUE, _FALSE = {"true"}, {"false"}


def is_boolean(series):
    """True for ``bool`` columns and for text/objects holding only True/False (and missing)."""
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype):
        return True
    if dtype.kind != "O" and not _is_text_dtype(dtype):
        return False
    values = series.dropna()
    if values.empty:
        return False
    uniq = values.unique()
    if len(uniq) > 4:
        return False
    for v in uniq:
        if isinstance(v, (bool, np.bool_)):
            continue
        if isinstance(v, str) and v.strip().lower() in _TRUE | _FALSE:
            continue
        return False
    return True


def _is_text_dtype(dtype):
    return isinstance(dtype, pd.StringDtype) or str(dtype) in ("str", "string")


def is_datetime(series):
    """True for ``datetime64`` columns and text columns that hold dates (see the module notes)."""
    dtype = series.dtype
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return True
    if isinstance(dtype, pd.CategoricalDtype):
        return looks_like_dates(pd.Series(dtype.categories))
    if dtype.kind == "O" or _is_text_dtype(dtype):
        return looks_like_dates(series)
    return False


def looks_like_dates(series, share=DATE_SHARE):
    """Whether at least ``share`` of the non-missing values are date-like text that parses."""
    values = series.dropna()
    if values.empty:
        return False
    uniq = pd.Series(pd.unique(values.astype(str)))
    if len(uniq) > 2000:  # the decision does not need every distinct value
        uniq = uniq.sample(2000, random_state=0)
    matches = uniq.str.match(_DATE)
    if matches.mean() < share:
        return False
    parsed = _to_datetime(uniq[matches])
    return bool(parsed.notna().mean() >= share)


def _to_datetime(values):
    with warnings.catch_warnings():
        # "Could not infer format" falls back to per-element parsing, which is what we want.
        warnings.simplefilter("ignore")
        try:
            out = pd.to_datetime(values, errors="coerce", format="mixed")
        except (TypeError, ValueError):
            out = pd.to_datetime(values, errors="coerce")
    if isinstance(out, pd.DatetimeIndex):
        out = pd.Series(out)
    if getattr(out.dt, "tz", None) is not None:  # one clock for every row: UTC without a zone
        out = out.dt.tz_convert("UTC").dt.tz_localize(None)
    return out


def parse_dates(series):
    """The column as ``datetime64`` (naive, UTC when zones were given); unparseable values become NaT.

    Returns
    -------
    Series of datetime64[ns], same index as ``series``
    """
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        out = series
        if getattr(out.dt, "tz", None) is not None:
            out = out.dt.tz_convert("UTC").dt.tz_localize(None)
        return out
    out = _to_datetime(series.astype(object).astype(str).where(series.notna(), None))
    out.index = series.index
    return out


def is_numeric(series):
    """True for integer, float and timedelta columns (``bool`` is boolean, not numeric)."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return False
    return pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype)


def is_numeric_or_bool(series):
    """True for numeric columns and for ``bool`` dtypes (read as 0/1): values a computation can take as floats.

    Text holding "True"/"False" is not included: it is boolean by :func:`column_kind` but must be
    parsed before it is a number.

    Examples
    --------
    >>> import pandas as pd
    >>> [is_numeric_or_bool(pd.Series(v)) for v in ([1.5], [True], ["a"], ["True"])]
    [True, True, False, False]
    """
    return is_numeric(series) or (pd.api.types.is_bool_dtype(series.dtype)
                                  and not isinstance(series.dtype, pd.CategoricalDtype))


def has_levels(series):
    """True when the column is a set of levels rather than a number line.

    ``category``, ``bool``, text and object columns (date-like text included) have levels;
    numeric and ``datetime64`` columns are lines. Effect grids use the levels themselves
    instead of quantiles.

    Examples
    --------
    >>> import pandas as pd
    >>> [has_levels(pd.Series(v)) for v in ([1.5], [True], ["a"], pd.to_datetime(["2011-01-01"]))]
    [False, True, True, False]
    """
    return not (is_numeric(series) or pd.api.types.is_datetime64_any_dtype(series.dtype))


def is_categorical(series):
    """True for ``category`` columns and for text/object columns that are neither boolean nor dates."""
    return column_kind(series) == "categorical"


def column_kind(series):
    """``"numeric"``, ``"boolean"``, ``"categorical"`` or ``"datetime"`` (see the module notes).

    Examples
    --------
    >>> import pandas as pd
    >>> [column_kind(pd.Series(v)) for v in ([1.5, 2.0], [True, False], ["a", "b"], ["2011-01-01", "2011-01-02"])]
    ['numeric', 'boolean', 'categorical', 'datetime']
    """
    if is_numeric(series):
        return "numeric"
    if is_boolean(series):
        return "boolean"
    if is_datetime(series):
        return "datetime"
    return "categorical"


def numeric_columns(X):
    """Names of the numeric columns of a DataFrame (as :func:`column_kind` decides)."""
    return [c for c in X.columns if is_numeric(X[c])]


def numeric_or_bool_columns(X):
    """Names of the columns of a DataFrame for which :func:`is_numeric_or_bool` holds."""
    return [c for c in X.columns if is_numeric_or_bool(X[c])]


def categorical_columns(X):
    """Names of the ``category``/text columns of a DataFrame (as :func:`column_kind` decides)."""
    return [c for c in X.columns if is_categorical(X[c])]
