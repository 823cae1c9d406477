"""matplotlib drawing only: each function takes a result and returns an Axes.

Nothing is computed here (no centring, subsampling or statistics); matplotlib is imported
lazily, inside the drawing functions, so importing imlkit stays cheap.
"""
from ._effects import plot_effect
from ._gam import plot_gam
from ._glm import plot_glm
from ._importance import plot_importance
from ._regional import plot_h_statistic, plot_regional

__all__ = ["plot_importance", "plot_effect", "plot_gam", "plot_glm", "plot_h_statistic", "plot_regional"]
