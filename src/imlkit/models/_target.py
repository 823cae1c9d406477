"""What kind of target ``y`` is: one definition of "continuous" shared by the models.

A target is *continuous* when it is numeric (not boolean, not categorical) and either

* holds a finite non-integer value (e.g. 2.5), or
* has more than ``MAX_CLASSES`` distinct values (e.g. a count or price stored as whole numbers).

Everything else -- strings, booleans, categoricals, and whole numbers with at most
``MAX_CLASSES`` distinct values -- is a class target. ``task="auto"`` in the models resolves to
regression for a continuous target and to classification otherwise; the classifiers that
cannot do regression (OneR, RIPPER, NaiveBayes) refuse a continuous target. Integer class codes
with more than ``MAX_CLASSES`` classes can still be used as labels by passing them as strings
or as a pandas categorical.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._dtypes import is_numeric
from .._validation import ValidationError

__all__ = ["MAX_CLASSES", "continuous_reason", "is_continuous", "auto_task", "check_class_target"]

#: Whole-number targets with more distinct values than this are treated as continuous. 10 is
#: the rule of ``imlkit report --task auto``, so a model fitted there with ``task="auto"``
#: always agrees with the report's task.
MAX_CLASSES = 10


def continuous_reason(y):
    """Why ``y`` looks continuous (a short phrase), or None when it is a class target.

    Parameters
    ----------
    y : array-like or Series, shape (n,)

    Returns
    -------
    str or None
        E.g. ``"336 distinct float values"`` or ``"45 distinct integer values"``.
    """
    if isinstance(y, pd.Series):
        if not is_numeric(y):  # categorical, boolean, text: labels
            return None
        values = y.to_numpy(dtype=float, na_value=np.nan)
        kind = y.dtype.kind
    else:
        arr = np.asarray(y)
        kind = arr.dtype.kind
        if kind not in "iuf":
            return None
        values = arr.astype(float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    n_distinct = np.unique(values).size
    word = "float" if kind == "f" else "integer"
    if not np.all(values == np.round(values)):
        return f"{n_distinct} distinct {word} values, not all whole numbers"
    if n_distinct > MAX_CLASSES:
        return f"{n_distinct} distinct {word} values (more than {MAX_CLASSES})"
    return None


def is_continuous(y):
    """True when ``y`` is a continuous target (see the module docstring)."""
    return continuous_reason(y) is not None


def auto_task(y):
    """``"regression"`` for a continuous target, else ``"classification"``."""
    return "regression" if is_continuous(y) else "classification"


def check_class_target(y, model_name):
    """Raise ValidationError when ``y`` is continuous: ``model_name`` needs class labels."""
    reason = continuous_reason(y)
    if reason is not None:
        raise ValidationError(f"{model_name} needs a class target; 'y' looks continuous ({reason}). Use a "
                              f"regression model, bin 'y', or pass the labels as strings or a categorical.")
