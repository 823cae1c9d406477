"""Names the report's sections share: the importance methods' labels and the feature budget's group.

Kept apart from the sections so that the reading (:mod:`._claims`) and the importance section
name things alike without importing each other.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._display import method_name

__all__ = ["METHOD_LABELS", "OTHERS", "class_text", "class_names", "class_label"]

#: The importance methods' display names, from the one name table (:func:`imlkit._display.method_name`).
METHOD_LABELS = {k: method_name(k) for k in ("pfi", "cfi", "loco", "lofo", "sage_marginal", "sage_conditional",
                                             "pimp")}

#: The group of the features beyond the feature budget (SAGE, LOCO/LOFO and PIMP score it as one).
OTHERS = "all other features"


def _whole(v):
    """A number (not a bool) that is a whole number a float holds exactly."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        return False
    f = float(v)
    return bool(np.isfinite(f)) and f.is_integer() and abs(f) < 2 ** 53


def class_names(values):
    """``{label: text}`` for a collection of class labels, decided on the collection as a whole: when every label is a
    whole number (a model fitted on a float 0.0/1.0 target has ``classes_`` [0.0, 1.0]; the integers 0..6) each is
    written as an integer, ``0``; otherwise each as ``str`` (0.5 and 1.0 stay ``0.5`` and ``1.0``, text stays text).

    The one rule of the report's class labels: :func:`class_text` spells the data's column by it and
    :func:`class_label` a model's classes, so the column's ``0`` and the model's 0.0 are one label, ``0``.

    Examples
    --------
    >>> class_names([0.0, 1.0])
    {0.0: '0', 1.0: '1'}
    >>> class_names([0.5, 1.0])
    {0.5: '0.5', 1.0: '1.0'}
    """
    vals = list(dict.fromkeys(np.asarray(values, dtype=object).ravel().tolist()))
    if vals and all(_whole(v) for v in vals):
        return {v: str(int(v)) for v in vals}
    return {v: str(v) for v in vals}


def class_label(value, classes=None):
    """``value`` as text by :func:`class_names` of ``classes`` (a model's ``classes_``, decided as a whole); without
    ``classes``, of ``value`` alone. A value outside ``classes`` (the effects' "all other classes") is ``str(value)``.

    Examples
    --------
    >>> class_label(1.0, [0.0, 1.0]), class_label(1.0, [0.5, 1.0]), class_label(1.0)
    ('1', '1.0', '1')
    """
    names = class_names([value] if classes is None else classes)
    try:
        return names.get(value, str(value))
    except TypeError:  # an unhashable value
        return str(value)


def class_text(y):
    """A classification target as the report's class labels: text, a whole number written without ".0".

    A numeric target whose every value is a whole number (statsmodels anes96's PID, 0.0 to 6.0 in a float
    column; a CSV written by pandas from integers with a missing value) is spelled ``0`` .. ``6``, as the data
    mean it, not ``0.0``: the labels are made once, here, so every section names a class alike (section 1's
    counts, section 2's classes, the effects' ``P(PID = 0)``). Any other target: ``astype(str)``.

    Examples
    --------
    >>> list(class_text(pd.Series([0.0, 6.0, 1.0])))
    ['0', '6', '1']
    >>> list(class_text(pd.Series([0.5, 1.0])))
    ['0.5', '1.0']
    """
    y = pd.Series(y)
    if pd.api.types.is_numeric_dtype(y) and not pd.api.types.is_bool_dtype(y):
        v = y.to_numpy(dtype=float)
        if len(v) and np.isfinite(v).all() and np.all(v == np.round(v)) and np.abs(v).max() < 2 ** 53:
            return y.astype(np.int64).astype(str)
    elif y.dtype == object and len(y) and not y.isna().any():
        names = class_names(y.unique())
        if all(_whole(v) for v in names):
            return y.map(names).astype(str)
    return y.astype(str)
