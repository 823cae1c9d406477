"""imlkit: interpretable machine learning in one consistent API.

Loss-based feature importance with honest uncertainty (PFI, CFI, LOCO, LOFO, SAGE, PIMP),
feature and regional effects (ICE, PD, ALE, H-statistic, REPID), inherently interpretable
models (:mod:`imlkit.models`), and an HTML report (``imlkit report``).
"""
from . import datasets, models, plotting, samplers
from ._columns import PreparedColumns, prepare_columns
from ._validation import ImlkitError, ModelError, ValidationError
from .effects import (
    EffectResult,
    HeterogeneityResult,
    HStatisticResult,
    RegionalResult,
    ale,
    h_statistic,
    ice,
    ice_heterogeneity,
    partial_dependence,
    repid,
)
from .importance import ImportanceResult, cfi, loco, lofo, pfi, pimp, sage, sage_value
from .local import ShapResult, shap

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
