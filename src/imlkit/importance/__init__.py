"""Loss-based feature importance: PFI, CFI, LOCO, LOFO, SAGE, PIMP."""
from ._inference import adjust_pvalues
from ._loco import loco, lofo
from ._perturbation import cfi, pfi
from ._pimp import pimp
from ._questions import INTERPRETATION_TABLE, QUESTIONS
from ._result import ImportanceResult
from ._sage import sage, sage_value

__all__ = ["pfi", "cfi", "loco", "lofo", "sage", "sage_value", "pimp", "ImportanceResult",
           "adjust_pvalues", "INTERPRETATION_TABLE", "QUESTIONS"]
