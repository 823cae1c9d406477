"""matplotlib drawing only: each function takes a result and returns an Axes.

(``plot_extrapolation`` takes the data: it calls the computation in
:mod:`imlkit._extrapolation` -- choosing the partner, permuting -- and draws its result.)

Nothing is computed here (no centring, subsampling or statistics); matplotlib is imported
lazily, inside the drawing functions, so importing imlkit stays cheap.
"""
from .._lazy import lazy_exports as _lazy_exports

__all__ = ["plot_importance", "plot_effect", "plot_gam", "plot_glm", "plot_h_statistic", "plot_regional",
           "plot_extrapolation", "draw_extrapolation", "plot_shap"]

__getattr__, __dir__ = _lazy_exports(__name__, {
    "plot_importance": "._importance", "plot_effect": "._effects", "plot_gam": "._gam", "plot_glm": "._glm",
    "plot_h_statistic": "._regional", "plot_regional": "._regional", "plot_extrapolation": "._extrapolation",
    "draw_extrapolation": "._extrapolation", "plot_shap": "._local",
})
