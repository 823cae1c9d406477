"""Feature effects: ICE, partial dependence, ALE, the H-statistic, regional effects (REPID) and
the c-ICE heterogeneity ranking.

The names load on first use (``imlkit._lazy``).
"""
from .._lazy import lazy_exports as _lazy_exports

__all__ = ["ice", "partial_dependence", "ale", "h_statistic", "repid", "ice_heterogeneity", "EffectResult",
           "HStatisticResult", "RegionalResult", "HeterogeneityResult"]

__getattr__, __dir__ = _lazy_exports(__name__, {
    "ice": "._ice", "partial_dependence": "._ice", "ale": "._ale", "h_statistic": "._hstat",
    "HStatisticResult": "._hstat", "repid": "._repid", "RegionalResult": "._repid",
    "ice_heterogeneity": "._heterogeneity", "HeterogeneityResult": "._heterogeneity", "EffectResult": "._result",
})
