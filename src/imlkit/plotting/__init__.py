"""matplotlib drawing only: each function takes a result and returns an Axes.

(``plot_extrapolation`` takes the data: it calls the computation in
:mod:`imlkit._extrapolation` -- choosing the partner, permuting -- and draws its result.)

Nothing is computed here (no centring, subsampling or statistics); matplotlib is imported
lazily, inside the drawing functions, so importing imlkit stays cheap.
"""
from ._effects import plot_effect
from ._extrapolation import draw_extrapolation, plot_extrapolation
from ._gam import plot_gam
from ._glm import plot_glm
from ._importance import plot_importance
from ._local import plot_shap
from ._regional import plot_h_statistic, plot_regional

__all__ = ["plot_importance", "plot_effect", "plot_gam", "plot_glm", "plot_h_statistic", "plot_regional",
           "plot_extrapolation", "draw_extrapolation", "plot_shap"]
