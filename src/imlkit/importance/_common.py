"""Entry-point preparation shared by the model-based importance methods (PFI, CFI, SAGE)."""
from __future__ import annotations

import time

from .._losses import get_loss
from .._model import bind_model, check_fitted, is_classifier_model
from .._validation import (
    check_bool,
    check_choice,
    check_int,
    check_n_jobs,
    check_probability,
    check_X_y,
    as_seed_sequence,
)

__all__ = ["prepare", "default_loss", "Timer", "RELATIONS", "check_common"]

RELATIONS = ("difference", "ratio")


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


def prepare(model, X, y, loss, max_rows, *, X_name="X", y_name="y", method="pfi"):
    """Validate data and bind the model to what the loss needs.

    ``loss=None`` resolves by task with :func:`default_loss` for ``method``; an unfitted
    estimator raises ModelError before anything else.

    Returns
    -------
    X : DataFrame, shape (n, p)
    y : ndarray, shape (n,) -- encoded for the loss (class positions for probability losses)
    loss : Loss
    predictor : Predictor
    """
    check_fitted(model)
    frame, was_frame, y_arr = check_X_y(X, y, X_name=X_name, y_name=y_name)
    loss_obj = get_loss(default_loss(model, method) if loss is None else loss)
    predictor, y_enc = bind_model(model, loss_obj, y_arr, as_frame=was_frame, max_rows=max_rows)
    return frame, y_enc, loss_obj, predictor


def check_common(*, n_repeats=None, relation=None, confidence_level=None, n_jobs=None,
                 random_state=None, progress=False):
    """Check the parameters every method shares; returns the normalised SeedSequence."""
    if n_repeats is not None:
        check_int("n_repeats", n_repeats, min_value=1)
    if relation is not None:
        check_choice("relation", relation, RELATIONS)
    if confidence_level is not None:
        check_probability("confidence_level", confidence_level)
    check_n_jobs(n_jobs)
    check_bool("progress", progress)
    return as_seed_sequence(random_state)


class Timer:
    """Wall time of a block, recorded in the result's params (the report's run times)."""

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
        return False
