"""Real data sets shipped with imlkit and the course's simulated examples."""
from ._real import list_datasets, load_bike, load_penguins, load_wage
from ._simulated import (
    make_chain,
    make_coffee,
    make_correlated_loco,
    make_extrapolation,
    make_interaction,
    make_pure_noise,
    make_regional,
    regional_function,
)

__all__ = ["load_bike", "load_wage", "load_penguins", "list_datasets", "make_extrapolation",
           "make_interaction", "make_correlated_loco", "make_chain", "make_regional",
           "make_pure_noise", "make_coffee", "regional_function"]
