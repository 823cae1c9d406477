"""Feature effects: ICE, partial dependence, ALE, the H-statistic and regional effects (REPID)."""
from ._ale import ale
from ._hstat import HStatisticResult, h_statistic
from ._ice import ice, partial_dependence
from ._result import EffectResult
from ._repid import RegionalResult, repid

__all__ = ["ice", "partial_dependence", "ale", "h_statistic", "repid", "EffectResult",
           "HStatisticResult", "RegionalResult"]
