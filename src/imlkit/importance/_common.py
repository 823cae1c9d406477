"""Entry-point preparation shared by the model-based importance methods (PFI, CFI, SAGE)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._losses import default_loss, get_loss
from .._model import bind_model, check_fitted
from .._validation import check_X_y

__all__ = ["prepare", "UnseenClasses", "with_test_classes"]


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


class UnseenClasses:
    """A fitted classifier that also lists classes its training rows lacked, with probability 0.

    A refit (LOCO, LOFO, PIMP's null models) fitted on a subsample or a fold may not have seen
    every class of the test rows; its ``predict_proba`` has no column for them and a loss could
    not score those rows. This view appends the missing labels to ``classes_`` and a zero column
    per missing label to ``predict_proba``: a model never predicts a class it never saw, so its
    probability is 0 (log loss then charges the clipped ``-log(eps)``, ``_losses.LOG_LOSS_EPS``; Brier 1 + sum p_j^2;
    0-1 loss 1). Every refit fitted on the same rows lacks the same classes, so these rows add the
    same loss to both sides of a LOCO/LOFO difference (exactly for log loss and 0-1 loss) and
    nothing to a permutation's change in loss.

    Parameters
    ----------
    model : fitted classifier with ``classes_`` and ``predict_proba``
    missing : sequence -- labels of the test rows not in ``model.classes_``, in the order appended
    """

    def __init__(self, model, missing):
        self.model = model
        self.missing = list(missing)
        self.classes_ = np.concatenate([np.asarray(model.classes_, dtype=object),
                                        np.asarray(self.missing, dtype=object)])

    def predict(self, X):
        return self.model.predict(X)

    def predict_proba(self, X):
        p = np.asarray(self.model.predict_proba(X), dtype=float)
        return np.hstack([p, np.zeros((p.shape[0], len(self.missing)))])

    def __repr__(self):
        return f"{self.model!r} (+ {len(self.missing)} unseen class(es) at probability 0)"


def with_test_classes(model, y_test):
    """``model``, or an :class:`UnseenClasses` view when ``y_test`` has labels ``model.classes_`` lacks.

    Models without ``classes_`` or ``predict_proba`` (regressors, plain functions) are returned as they are.
    """
    classes = getattr(model, "classes_", None)
    if classes is None or y_test is None or not hasattr(model, "predict_proba"):
        return model
    known = set(np.asarray(classes).tolist())
    missing = [v for v in pd.unique(np.asarray(y_test, dtype=object)) if v not in known]
    return UnseenClasses(model, missing) if missing else model
