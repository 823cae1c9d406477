"""The one place that decides which loss each part of the report uses.

The model-based methods (PFI, CFI, SAGE, PIMP, SHAP of the loss) use the model's loss
(:func:`model_loss`); the refit methods keep the losses their papers and the API's defaults use
(:func:`method_loss`). Every section asks here instead of deciding again.
"""
from __future__ import annotations

__all__ = ["model_loss", "method_loss"]


def model_loss(task, model):
    """The report's loss of ``model``: squared error for regression; for a classifier the API's
    default (:func:`imlkit._losses.default_loss`: log loss with ``predict_proba``), else the 0-1 loss."""
    from .._losses import default_loss

    if task == "regression":
        return "squared_error"
    loss = default_loss(model)
    if loss == "squared_error":  # a classifier the API did not recognise as one
        return "log_loss" if hasattr(model, "predict_proba") else "zero_one"
    return loss


def method_loss(task, loss, method):
    """The loss of ``method`` given the report's model loss ``loss``.

    LOCO keeps Lei et al.'s absolute error for regression (median + sign test), and a
    classifier's LOCO takes the Brier score with the API's default aggregate for classification,
    the mean (t-interval): bounded differences keep the t-interval reliable where the log loss's
    are dominated by one confident mistake. LOFO keeps the report's loss (squared error for
    regression, the mean of the log loss for a classifier); every other method uses ``loss``.
    """
    if method not in ("loco", "lofo"):
        return loss
    if task == "classification":
        return "brier" if method == "loco" and loss == "log_loss" else loss
    return "absolute_error" if method == "loco" else "squared_error"
