"""imlkit: interpretable machine learning in one consistent API.

Loss-based feature importance with honest uncertainty (PFI, CFI, LOCO, LOFO, SAGE, PIMP),
feature and regional effects (ICE, PD, ALE, H-statistic, REPID), inherently interpretable
models (:mod:`imlkit.models`), and an HTML report (``imlkit report``).

The public names load on first use (``imlkit._lazy``): ``import imlkit`` imports only the
error classes; ``imlkit.pfi`` imports the importance methods, ``imlkit.models`` the models.
"""
from ._lazy import lazy_exports as _lazy_exports
from ._validation import ImlkitError, ModelError, ValidationError

__version__ = "0.1.0"

__all__ = [
    "pfi", "cfi", "loco", "lofo", "sage", "sage_value", "pimp", "ImportanceResult",
    "ice", "partial_dependence", "ale", "h_statistic", "repid", "ice_heterogeneity",
    "EffectResult", "HStatisticResult", "RegionalResult", "HeterogeneityResult",
    "datasets", "models", "samplers", "plotting",
    "ImlkitError", "ValidationError", "ModelError",
    "prepare_columns", "PreparedColumns",
    "shap", "ShapResult",
]

_EXPORTS = {
    **dict.fromkeys(["pfi", "cfi", "loco", "lofo", "sage", "sage_value", "pimp", "ImportanceResult"], ".importance"),
    **dict.fromkeys(["ice", "partial_dependence", "ale", "h_statistic", "repid", "ice_heterogeneity", "EffectResult",
                     "HStatisticResult", "RegionalResult", "HeterogeneityResult"], ".effects"),
    **dict.fromkeys(["shap", "ShapResult"], ".local"),
    **dict.fromkeys(["prepare_columns", "PreparedColumns"], "._columns"),
    # the subpackages, as attributes (``ik.models.GLM``, ``ik.importance.adjust_pvalues``)
    **{name: f".{name}" for name in ("datasets", "models", "samplers", "plotting", "importance", "effects", "local")},
}

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)
