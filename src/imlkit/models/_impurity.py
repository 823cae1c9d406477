"""Node impurity measures for decision trees, written once and vectorised.

The classification measures take class *counts* (or proportions) in the last axis, so one
call scores every candidate split of a node at once; the regression measure takes the
sufficient statistics (n, Σy, Σy²) so that cumulative sums score every threshold at once.

    Gini(t)               = 1 − Σ_j p(j|t)²
    Entropy(t)            = − Σ_j p(j|t) log₂ p(j|t)        (0 · log 0 = 0)
    Misclassification(t)  = 1 − max_j p(j|t)
    SquaredError(t)       = 1/n Σ_i (y_i − ȳ_t)²

>>> round(float(gini([7, 5])), 3)
0.486
>>> round(float(weighted_impurity([[5, 1], [2, 4]], "gini")), 3)
0.361
"""
from __future__ import annotations

import numpy as np

from .._validation import ValidationError, check_choice

__all__ = ["gini", "entropy", "misclassification", "squared_error", "squared_error_from_sums",
           "weighted_impurity", "CLASSIFICATION_CRITERIA", "REGRESSION_CRITERIA"]


def _proportions(counts):
    counts = np.asarray(counts, dtype=float)
    if counts.ndim == 0:
        raise ValidationError("'counts' must have at least one dimension (the classes); got a scalar.")
    if (counts < 0).any():
        raise ValidationError("'counts' must be >= 0.")
    total = counts.sum(axis=-1, keepdims=True)
    # an empty node has impurity 0 by convention; dividing by 1 keeps its proportions at 0
    return counts / np.where(total > 0, total, 1.0)


def gini(counts):
    """Gini index of class counts.

    Parameters
    ----------
    counts : array-like, shape (..., K)
        Class counts (or proportions) of one node or of many nodes at once.

    Returns
    -------
    ndarray, shape (...)
        ``1 − Σ_j p_j²``; 0 for a pure (or empty) node, ``1 − 1/K`` at most.
    """
    p = _proportions(counts)
    out = 1.0 - np.square(p).sum(axis=-1)
    return np.where(p.sum(axis=-1) > 0, out, 0.0)


def entropy(counts):
    """Entropy in bits of class counts, shape (..., K) -> (...); ``0·log 0 = 0``."""
    p = _proportions(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return -terms.sum(axis=-1) + 0.0  # + 0.0 turns -0.0 into 0.0


def misclassification(counts):
    """Misclassification error ``1 − max_j p_j`` of class counts, shape (..., K) -> (...)."""
    p = _proportions(counts)
    out = 1.0 - p.max(axis=-1)
    return np.where(p.sum(axis=-1) > 0, out, 0.0)


def squared_error_from_sums(n, total, total_sq):
    """Mean squared deviation from the node mean, from ``n``, ``Σy`` and ``Σy²``.

    All arguments broadcast against each other; nodes with ``n == 0`` get 0. Cancellation in
    ``Σy²/n − ȳ²`` is the caller's concern: centre ``y`` first (the tree does).
    """
    n = np.asarray(n, dtype=float)
    safe = np.where(n > 0, n, 1.0)
    mean = np.asarray(total, dtype=float) / safe
    out = np.asarray(total_sq, dtype=float) / safe - mean * mean
    return np.where(n > 0, np.maximum(out, 0.0), 0.0)


def squared_error(y):
    """Mean squared deviation of the values ``y`` (shape (n,)) from their mean."""
    y = np.asarray(y, dtype=float)
    return float(squared_error_from_sums(y.size, y.sum(), np.square(y).sum()))


CLASSIFICATION_CRITERIA = {"gini": gini, "entropy": entropy, "misclassification": misclassification}
REGRESSION_CRITERIA = ("squared_error",)


def weighted_impurity(children, criterion="gini"):
    """Impurity after a split: the children's impurities weighted by their sizes.

    Parameters
    ----------
    children : sequence of array-like
        Class counts of each child (shape (K,) each) for a classification criterion, or the
        target values of each child for ``"squared_error"``. Two children for a binary split,
        more for a multi-way split.
    criterion : {"gini", "entropy", "misclassification", "squared_error"}

    Returns
    -------
    float
        ``M = Σ_c n_c / n · I(c)``; the gain of the split is ``I(parent) − M``.
    """
    check_choice("criterion", criterion, [*CLASSIFICATION_CRITERIA, *REGRESSION_CRITERIA])
    children = [np.asarray(c, dtype=float) for c in children]
    if not children:
        raise ValidationError("'children' must hold at least one child node; got none.")
    if criterion == "squared_error":
        sizes = np.array([c.size for c in children], dtype=float)
        imps = np.array([squared_error(c) if c.size else 0.0 for c in children])
    else:
        sizes = np.array([c.sum() for c in children], dtype=float)
        imps = np.array([CLASSIFICATION_CRITERIA[criterion](c) for c in children])
    n = sizes.sum()
    if n <= 0:
        raise ValidationError("'children' are all empty.")
    return float((sizes * imps).sum() / n)
