"""Local explanations tied to the global ones: Shapley values of each prediction or each row's loss.

:func:`shap` gives interventional SHAP values of the prediction (exact TreeSHAP for the tree
engine's models, exact enumeration or SAGE's permutation estimator for any model) or of the
row's loss, whose mean over the rows is marginal SAGE (:func:`imlkit.sage`).
"""
from ._result import ShapResult
from ._shap import shap

__all__ = ["shap", "ShapResult"]
