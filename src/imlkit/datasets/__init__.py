"""Real data sets shipped with imlkit and the course's simulated examples.

The names load on first use (``imlkit._lazy``).
"""
from .._lazy import lazy_exports as _lazy_exports

__all__ = ["load_bike", "load_wage", "load_penguins", "list_datasets", "make_extrapolation",
           "make_interaction", "make_correlated_loco", "make_chain", "make_regional",
           "make_pure_noise", "make_coffee", "regional_function"]

__getattr__, __dir__ = _lazy_exports(__name__, {
    **dict.fromkeys(["load_bike", "load_wage", "load_penguins", "list_datasets"], "._real"),
    **dict.fromkeys(["make_extrapolation", "make_interaction", "make_correlated_loco", "make_chain", "make_regional",
                     "make_pure_noise", "make_coffee", "regional_function"], "._simulated"),
})
