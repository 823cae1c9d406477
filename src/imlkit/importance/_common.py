"""Entry-point preparation shared by the model-based importance methods (PFI, CFI, SAGE)."""
from __future__ import annotations

from .._losses import default_loss, get_loss
from .._model import bind_model, check_fitted
from .._validation import (
    as_seed_sequence,
    check_bool,
    check_choice,
    check_int,
    check_n_jobs,
    check_probability,
    check_X_y,
)

__all__ = ["prepare", "RELATIONS", "check_common"]

RELATIONS = ("difference", "ratio")


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
