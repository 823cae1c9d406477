"""The one rule that spells class labels as text, below the models and the report so both use it.

A model fitted on a float 0.0/1.0 target has ``classes_`` [0.0, 1.0]; the data's column means 0 and 1. The labels are
decided on the collection as a whole (:func:`class_names`), so a tree's text and the report's sections name a class
alike.
"""
from __future__ import annotations

import numpy as np

__all__ = ["class_names", "class_label"]


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

    The one rule of the class labels: the report's :func:`~imlkit.report._labels.class_text` spells the data's
    column by it and :func:`class_label` a model's classes, so the column's ``0`` and the model's 0.0 are one label,
    ``0``.

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
