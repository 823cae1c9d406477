"""Names the report's sections share: the importance methods' labels and the feature budget's group.

Kept apart from the sections so that the reading (:mod:`._claims`) and the importance section
name things alike without importing each other.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._class_labels import _whole, class_label, class_names
from .._display import method_name

__all__ = ["METHOD_LABELS", "OTHERS", "class_text", "class_names", "class_label"]

#: The importance methods' display names, from the one name table (:func:`imlkit._display.method_name`).
METHOD_LABELS = {k: method_name(k) for k in ("pfi", "cfi", "loco", "lofo", "sage_marginal", "sage_conditional",
                                             "pimp")}

#: The group of the features beyond the feature budget (SAGE, LOCO/LOFO and PIMP score it as one).
OTHERS = "all other features"


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
