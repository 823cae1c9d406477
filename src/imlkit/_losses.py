"""Pointwise losses by name, scikit-learn scorers, and the sign convention of scores.

A loss is evaluated observation by observation, ``L(y_i, f(x_i))``, because the
loss-based importance methods keep the observation-wise values (LOCO tests them, PFI keeps
them for inspection). Scores (``accuracy``, ``r2``) are accepted for aggregate use; their
direction is recorded so that every importance is "bigger = more important".

Any scikit-learn scorer name (``sklearn.metrics.get_scorer_names()``: ``"roc_auc"``,
``"balanced_accuracy"``, ``"f1_macro"``, ``"neg_mean_absolute_percentage_error"``, ...) is a
data-set-level (aggregate) loss built from the scorer's metric on ``predict`` or
``predict_proba`` output (a binary classifier's metric gets P(positive class) =
``predict_proba[:, 1]``; a multi-class one the probability matrix). Scorers are
greater-is-better, so importances are drops in the score; a ``neg_*`` scorer is used as the
error it negates (``"neg_mean_squared_error"`` gives the same importances as
``"squared_error"``, and its ``baseline_loss`` is the positive error). Scorers have no
observation-wise values: methods that need them (LOCO's median and tests, SAGE) refuse them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._model import is_classifier_model
from ._validation import ValidationError

__all__ = ["Loss", "get_loss", "default_loss", "DEFAULT_LOSSES", "LOSS_NAMES", "require_pointwise",
           "POINTWISE_CLASSIFICATION", "POINTWISE_REGRESSION", "LOG_LOSS_EPS"]

#: Named in the errors of methods that need observation-wise losses.
POINTWISE_CLASSIFICATION = ("log_loss", "brier", "zero_one", "accuracy")
POINTWISE_REGRESSION = ("squared_error", "absolute_error")

#: Smallest probability log loss charges: float64's machine epsilon, as scikit-learn's ``log_loss`` (>= 1.3)
#: clips, so that a model predicting 0 for the true class costs -log(eps) = 36.04 in both (1e-15 gave 34.54).
LOG_LOSS_EPS = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class Loss:
    """A loss or score.

    Attributes
    ----------
    name : str
    pointwise : callable or None
        ``(y_true (n,), y_pred (n,) or (n, k)) -> (n,)``; None for aggregate-only scores (r2).
    aggregate_fn : callable or None
        ``(y_true, y_pred) -> float`` for scores that are not a mean of pointwise values.
    greater_is_better : bool
        True for scores; importances flip their sign so larger always means more important.
    needs_proba : bool
        The loss takes class probabilities (``predict_proba``) instead of labels/values.
    needs_labels : bool
        The loss compares class labels (classification); predictions are labels.
    scorer : bool
        Built from a scikit-learn scorer name (aggregate only).
    """

    name: str
    pointwise: Callable | None
    aggregate_fn: Callable | None = None
    greater_is_better: bool = False
    needs_proba: bool = False
    needs_labels: bool = False
    scorer: bool = False

    def aggregate(self, y_true, y_pred):
        """The risk (or score) over all observations."""
        if self.aggregate_fn is not None:
            return float(self.aggregate_fn(y_true, y_pred))
        return float(np.mean(self.pointwise(y_true, y_pred)))

    def aggregate_rows(self, y_true, y_pred_blocks):
        """Risk per block: ``y_pred_blocks`` has shape (r, n[, k]); returns (r,)."""
        if self.aggregate_fn is None:
            return self.pointwise_blocks(y_true, y_pred_blocks).mean(axis=1)
        return np.array([self.aggregate(y_true, b) for b in y_pred_blocks])

    def pointwise_blocks(self, y_true, y_pred_blocks):
        """Pointwise losses for r stacked prediction blocks: (r, n[, k]) -> (r, n)."""
        r, n = y_pred_blocks.shape[:2]
        flat = y_pred_blocks.reshape((r * n,) + y_pred_blocks.shape[2:])
        return np.asarray(self.pointwise(np.tile(y_true, r), flat), dtype=float).reshape(r, n)

    @property
    def sign(self):
        """+1 for losses, -1 for scores: multiply a risk difference by it."""
        return -1.0 if self.greater_is_better else 1.0


def _as_float(y):
    return np.asarray(y, dtype=float)


def _squared(y, p):
    return (_as_float(y) - _as_float(p)) ** 2


def _absolute(y, p):
    return np.abs(_as_float(y) - _as_float(p))


def _log_loss(y, p):
    """Cross-entropy; ``y`` are integer class positions, ``p`` (n, k) probabilities."""
    p = np.asarray(p, dtype=float)
    y = np.asarray(y)
    if p.ndim == 1:  # probability of the positive class
        p = np.column_stack([1.0 - p, p])
    picked = p[np.arange(p.shape[0]), y.astype(int)]
    return -np.log(np.clip(picked, LOG_LOSS_EPS, 1.0))


def _brier(y, p):
    p = np.asarray(p, dtype=float)
    y = np.asarray(y).astype(int)
    if p.ndim == 1:
        p = np.column_stack([1.0 - p, p])
    onehot = np.zeros_like(p)
    onehot[np.arange(p.shape[0]), y] = 1.0
    return ((p - onehot) ** 2).sum(axis=1)


def _zero_one(y, p):
    return (np.asarray(y) != np.asarray(p)).astype(float)


def _correct(y, p):
    return (np.asarray(y) == np.asarray(p)).astype(float)


def _r2(y, p):
    y = _as_float(y)
    ss_tot = np.sum((y - y.mean()) ** 2)
    if ss_tot == 0:
        raise ValidationError("'r2' is undefined for a constant target; choose another loss.")
    return 1.0 - np.sum((y - _as_float(p)) ** 2) / ss_tot


_REGISTRY = {
    "squared_error": Loss("squared_error", _squared),
    "absolute_error": Loss("absolute_error", _absolute),
    "log_loss": Loss("log_loss", _log_loss, needs_proba=True),
    "brier": Loss("brier", _brier, needs_proba=True),
    "zero_one": Loss("zero_one", _zero_one, needs_labels=True),
    "accuracy": Loss("accuracy", _correct, greater_is_better=True, needs_labels=True),
    "r2": Loss("r2", None, aggregate_fn=_r2, greater_is_better=True),
}
_ALIASES = {"mse": "squared_error", "mae": "absolute_error", "cross_entropy": "log_loss",
            "misclassification": "zero_one"}
LOSS_NAMES = tuple(_REGISTRY)


def get_loss(loss, name="loss"):
    """Return the :class:`Loss` for a name, a scikit-learn scorer name, a Loss, or a pointwise callable.

    imlkit's own names (``"squared_error"``, ``"log_loss"``, ``"accuracy"``, ...) come first;
    any other name of ``sklearn.metrics.get_scorer_names()`` is an aggregate loss (see the
    module docstring). A callable must map ``(y_true (n,), y_pred (n,)) -> (n,)``; it is treated as a loss
    (smaller is better) evaluated on ``predict`` output.
    """
    if isinstance(loss, Loss):
        return loss
    if isinstance(loss, str):
        key = _ALIASES.get(loss, loss)
        if key in _REGISTRY:
            return _REGISTRY[key]
        scorer = _scorer_loss(loss)
        if scorer is not None:
            return scorer
        allowed = ", ".join(repr(k) for k in _REGISTRY)
        raise ValidationError(f"'{name}' must be one of {allowed}, a scikit-learn scorer name "
                              f"(sklearn.metrics.get_scorer_names(), e.g. 'roc_auc', 'balanced_accuracy', "
                              f"'f1_macro') or a callable; got {loss!r}.")
    if callable(loss):
        fname = getattr(loss, "__name__", "custom")

        def pointwise(y, p, _f=loss):
            out = np.asarray(_f(y, p), dtype=float)
            if out.shape != (len(y),):
                raise ValidationError(
                    f"The loss callable {fname!r} must return one value per observation, shape "
                    f"({len(y)},); got shape {out.shape}. Wrap an aggregate metric as a pointwise one.")
            return out

        return Loss(fname, pointwise)
    raise TypeError(f"'{name}' must be a loss name or a callable; got {type(loss).__name__}.")


# --------------------------------------------------------------------------- scikit-learn scorers
#: Scorers whose metric compares numbers (regression); the other ``predict`` scorers compare labels.
_REGRESSION_MODULE = "sklearn.metrics._regression"


def _scorer_loss(name):
    """An aggregate :class:`Loss` from a scikit-learn scorer name, or None if it is not one."""
    try:
        from sklearn.metrics import get_scorer, get_scorer_names
    except ImportError:  # pragma: no cover - sklearn is a dependency
        return None
    if name not in get_scorer_names():
        return None
    scorer = get_scorer(name)
    func = getattr(scorer, "_score_func", None)
    sign = getattr(scorer, "_sign", 1)
    kwargs = dict(getattr(scorer, "_kwargs", {}) or {})
    response = getattr(scorer, "_response_method", "predict")
    if func is None:  # pragma: no cover - a scorer of an unknown shape
        return None
    responses = (response,) if isinstance(response, str) else tuple(response)
    # imlkit evaluates predict or predict_proba; decision_function scorers (roc_auc, ...) also
    # accept probabilities, which every imlkit classifier path has.
    needs_proba = "predict" not in responses
    if needs_proba and "predict_proba" not in responses:
        return None
    regression = getattr(func, "__module__", "") == _REGRESSION_MODULE
    aggregate = _ScorerMetric(name, func, kwargs, needs_proba, "labels" in _parameters(func))
    # A neg_* scorer is the error it negates: used as a loss (smaller is better) it gives the
    # same importances as imlkit's own loss of that name, and ratios stay positive.
    return Loss(name, None, aggregate_fn=aggregate, greater_is_better=sign > 0, needs_proba=needs_proba,
                needs_labels=not needs_proba and not regression, scorer=True)


class _ScorerMetric:
    """A scorer's metric on imlkit's predictions (a class, not a closure: picklable for workers)."""

    def __init__(self, name, func, kwargs, needs_proba, has_labels):
        self.name, self.func, self.kwargs = name, func, kwargs
        self.needs_proba, self.has_labels = needs_proba, has_labels

    def __call__(self, y_true, y_pred):
        y_pred = np.asarray(y_pred)
        extra = dict(self.kwargs)
        if self.needs_proba:
            y_pred = np.asarray(y_pred, dtype=float)
            if y_pred.ndim == 2 and y_pred.shape[1] == 2:
                y_pred = y_pred[:, 1]  # binary metrics take P(positive class)
            elif y_pred.ndim == 2 and self.has_labels:
                # y holds class positions 0..k-1; a test set may lack some classes.
                extra.setdefault("labels", np.arange(y_pred.shape[1]))
        try:
            return self.func(y_true, y_pred, **extra)
        except ValueError as exc:
            raise ValidationError(f"The scorer loss {self.name!r} cannot be computed on this data: {exc} "
                                  f"Choose another loss (e.g. 'roc_auc_ovr' for more than two classes, "
                                  f"'f1_macro' for string labels).") from None


def _parameters(func):
    import inspect

    try:
        return inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return {}


def require_pointwise(loss, what, hint=""):
    """Raise a ValidationError when ``loss`` has no observation-wise values.

    ``what`` completes "… needs a pointwise loss", e.g. ``"LOCO with aggregate='median'"``;
    ``hint`` names another way out (e.g. "or use aggregate='mean'").
    """
    if loss.pointwise is not None:
        return
    kind = "scikit-learn scorer" if loss.scorer else "data-set-level score"
    raise ValidationError(
        f"{what} needs a pointwise loss (one value per observation); {loss.name!r} is a {kind} defined only "
        f"on the whole sample. Use a pointwise loss: {', '.join(repr(n) for n in POINTWISE_CLASSIFICATION)} "
        f"for classifiers, {', '.join(repr(n) for n in POINTWISE_REGRESSION)} for regression, or a "
        f"callable (y, y_pred) -> (n,){(', ' + hint) if hint else ''}.")


#: The default loss (``loss=None``) of each method by task: (classifier with predict_proba,
#: classifier without it, regression). Classifiers are scored on probabilities wherever the
#: model has them -- a label loss on a good classifier is 0 for most rows, so LOCO's median of
#: differences of labels (or absolute errors of class codes) is exactly 0. LOCO takes the Brier
#: score: bounded, pointwise and smooth, its differences have a well-behaved median and
#: signed-rank tests; the mean-based methods take the log loss (the cross-entropy the
#: classifier was fitted to minimise).
DEFAULT_LOSSES = {
    "pfi": ("log_loss", "zero_one", "squared_error"),
    "cfi": ("log_loss", "zero_one", "squared_error"),
    "sage": ("log_loss", "zero_one", "squared_error"),
    "pimp": ("log_loss", "zero_one", "squared_error"),
    "lofo": ("log_loss", "zero_one", "squared_error"),
    "loco": ("brier", "zero_one", "absolute_error"),
}


def default_loss(model, method="pfi"):
    """The loss ``loss=None`` means for ``method`` and this model (or unfitted learner).

    Classifiers (``sklearn.base.is_classifier``, or ``predict_proba`` with ``classes_``):
    ``"log_loss"`` (LOCO: ``"brier"``) when they have ``predict_proba``, else ``"zero_one"``.
    Regression: ``"squared_error"`` (LOCO: ``"absolute_error"``, after Lei et al. 2018).
    """
    with_proba, without_proba, regression = DEFAULT_LOSSES[method]
    if is_classifier_model(model):
        return with_proba if hasattr(model, "predict_proba") else without_proba
    return regression
