"""Feature effects: ICE, partial dependence, ALE, the H-statistic, regional effects (REPID) and
the c-ICE heterogeneity ranking."""
from ._ale import ale
from ._heterogeneity import HeterogeneityResult, ice_heterogeneity
from ._hstat import HStatisticResult, h_statistic
from ._ice import ice, partial_dependence
from ._repid import RegionalResult, repid
from ._result import EffectResult

__all__ = ["ice", "partial_dependence", "ale", "h_statistic", "repid", "ice_heterogeneity", "EffectResult",
           "HStatisticResult", "RegionalResult", "HeterogeneityResult"]
