"""Local explanations tied to the global ones: Shapley values of each prediction or each row's loss.

:func:`shap` gives interventional SHAP values of the prediction (exact TreeSHAP for the tree
engine's models, exact enumeration or SAGE's permutation estimator for any model) or of the
row's loss, whose mean over the rows is marginal SAGE (:func:`imlkit.sage`).

The names load on first use (``imlkit._lazy``).
"""
from .._lazy import lazy_exports as _lazy_exports

__all__ = ["shap", "ShapResult"]

__getattr__, __dir__ = _lazy_exports(__name__, {"shap": "._shap", "ShapResult": "._result"})
