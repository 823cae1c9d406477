"""Entry-point preparation shared by the model-based importance methods (PFI, CFI, SAGE)."""
from __future__ import annotations

import time

from .._losses import get_loss
from .._model import bind_model
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


def default_loss(model):
    """``log_loss`` for a classifier with probabilities, ``zero_one`` for one without, else squared error."""
    if getattr(model, "_estimator_type", None) == "classifier" or _is_classifier_tag(model):
        return "log_loss" if hasattr(model, "predict_proba") else "zero_one"
    return "squared_error"


def _is_classifier_tag(model):
    try:
        from sklearn.base import is_classifier

        return is_classifier(model)
    except Exception:  # pragma: no cover - not an sklearn object
        return False


def prepare(model, X, y, loss, max_rows, *, X_name="X", y_name="y"):
    """Validate data and bind the model to what the loss needs.

    Returns
    -------
    X : DataFrame, shape (n, p)
    y : ndarray, shape (n,) -- encoded for the loss (class positions for probability losses)
    loss : Loss
    predictor : Predictor
    """
    frame, was_frame, y_arr = check_X_y(X, y, X_name=X_name, y_name=y_name)
    loss_obj = get_loss(default_loss(model) if loss is None else loss)
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
