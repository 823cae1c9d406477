"""Loss-based feature importance: PFI, CFI, LOCO, LOFO, SAGE, PIMP.

The names load on first use (``imlkit._lazy``): ``pfi`` does not import the refit engine.
"""
from .._lazy import lazy_exports as _lazy_exports

__all__ = ["pfi", "cfi", "loco", "lofo", "sage", "sage_value", "pimp", "ImportanceResult",
           "adjust_pvalues", "INTERPRETATION_TABLE", "QUESTIONS"]

__getattr__, __dir__ = _lazy_exports(__name__, {
    "pfi": "._perturbation", "cfi": "._perturbation", "loco": "._loco", "lofo": "._loco",
    "sage": "._sage", "sage_value": "._sage", "pimp": "._pimp", "ImportanceResult": "._result",
    "adjust_pvalues": "._inference", "INTERPRETATION_TABLE": "._questions", "QUESTIONS": "._questions",
})
